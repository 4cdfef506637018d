//! e^x and the functions built on it: sigmoid, SiLU, tanh and tanh-GELU.
//!
//! exp reduces x to `n·ln2 + r` with |r| ≤ ln2/2 (ln2 in two parts, so `r` is exact
//! to ~2^-40), evaluates e^r by a degree-6 polynomial fitted for relative error
//! (3.5e-9 on the interval), and scales by 2^n rounding once, so that results in the
//! subnormal range are rounded once (`Lanes::times_pow2`: two multiplies, or one
//! `vscalefps` on AVX-512). The others avoid the cancellations of their
//! textbook forms: sigmoid and its products take e^-|x| ≤ 1, and tanh(a) for larger
//! a is `1 - 2t/(1+t)` with t = e^-2a.

use super::lanes::{Lanes, abs, poly};

/// 1.5·2^23: adding it rounds a float below 2^22 to an integer held in the low bits.
const ROUND: f32 = 12_582_912.0;
const LOG2_E: f32 = std::f32::consts::LOG2_E;
/// ln 2 as the f32 nearest it plus the f32 nearest the rest.
const LN2_HI: f32 = std::f32::consts::LN_2;
const LN2_LO: f32 = -1.904_654_3e-9;
/// e^r = 1 + r + r²·(C2 + C3 r + …), fitted on |r| ≤ 0.3535.
const EXP_C: [f32; 5] = [
    0.499_999_94,
    0.166_665_09,
    0.041_668_527,
    0.008_370_135,
    0.001_381_166,
];

/// NaN inputs give themselves, quieted, whatever the formula did with them.
#[inline(always)]
pub(super) fn keep_nan<V: Lanes>(x: V, y: V) -> V {
    V::select(x.is_nan(), x.add(x), y)
}

/// e^x without the NaN rule: callers apply it once at the end.
#[inline(always)]
pub(super) fn exp_core<V: Lanes>(x: V) -> V {
    exp_scaled(x, 0)
}

/// 2^SCALE·e^x. With SCALE = 24, e^x down to 2^-150 is still a normal float, so a
/// product with it is rounded once, not once more in the subnormal range.
#[inline(always)]
pub(super) fn exp_scaled<V: Lanes>(x: V, scale: i32) -> V {
    // Beyond these, e^x is ∞ or 0 in f32 and the scaling below still gives that.
    let x = V::splat(88.8).min(x);
    let x = V::splat(-104.0).max(x);
    let t = x.fma(V::splat(LOG2_E), V::splat(ROUND));
    let n = t.sub(V::splat(ROUND));
    let r = n.fma(V::splat(-LN2_HI), x);
    let r = n.fma(V::splat(-LN2_LO), r);
    let q = poly(r, &EXP_C);
    let p = r.fma(q.fma(r, V::splat(1.0)), V::splat(1.0));
    // n in [-150, 128] as an integer, from t's low bits.
    let ni = V::isub(t.bits(), V::splat(ROUND).bits());
    V::times_pow2(p, n, ni, scale)
}

#[inline(always)]
pub(super) fn exp<V: Lanes>(x: V) -> V {
    keep_nan(x, exp_core(x))
}

const SIGN: f32 = -0.0;

/// 2^24, by which `exp_scaled` lifts e^-|z| out of the subnormals.
const LIFT: i32 = 24;
const DROP: f32 = 1.0 / 16_777_216.0;

/// `num·σ(z)`: e = e^-|z| ≤ 1, σ(z) = 1/(1+e) for z ≥ 0 and e/(1+e) below.
#[inline(always)]
fn times_sigmoid<V: Lanes>(num: V, z: V) -> V {
    let neg = z.lt(V::splat(0.0));
    let nz = V::splat(SIGN).or(z);
    let es = exp_scaled(nz, LIFT);
    // Below -104 e is 0 in f32 even times 2^24; the clamp inside exp is not.
    let es = V::select(nz.lt(V::splat(-104.0)), V::splat(0.0), es);
    let e = es.mul(V::splat(DROP));
    let d = e.add(V::splat(1.0));
    // One division for both sides: each lane's operations are those of its own side.
    let q = V::select(neg, num.mul(es), num).div(d);
    V::select(neg, q.mul(V::splat(DROP)), q)
}

#[inline(always)]
pub(super) fn sigmoid<V: Lanes>(x: V) -> V {
    keep_nan(x, times_sigmoid(V::splat(1.0), x))
}

/// x·σ(x).
#[inline(always)]
pub(super) fn silu<V: Lanes>(x: V) -> V {
    keep_nan(x, times_sigmoid(x, x))
}

/// 2·√(2/π) and 2·√(2/π)·0.044715, as the f32 nearest each: `x/2·(1 + tanh(y))` is
/// `x·σ(2y)`.
const K1: f32 = 1.595_769_2;
const K3: f32 = 0.071_354_814;

/// GELU with approximate = "tanh", as x·σ(z), z = x·(K1 + K3·x²), which has no
/// cancellation for negative x. z's three roundings, about |z|·2^-23, pass into e^z
/// as a relative error: up to ~200 ulp where |z| nears 88 (x ≈ -10, |y| ≈ 1e-37),
/// ~8 ulp at x = -3. Carrying z as two floats cost a third of the function (a
/// gated GELU of 128x1024 took 0.123 ms against 0.091) for digits no model reads;
/// ONNX Runtime's tanh form loses all of them for negative x.
#[inline(always)]
pub(super) fn gelu_tanh<V: Lanes>(x: V) -> V {
    let xc = V::splat(-60.0).max(V::splat(60.0).min(x));
    let s = xc.mul(xc);
    let z = xc.mul(s.fma(V::splat(K3), V::splat(K1)));
    keep_nan(x, times_sigmoid(x, z))
}

/// tanh(x) = x + x³·P(x²) for |x| < 0.625 (fitted, 5e-12 relative).
const TANH_P: [f32; 7] = [
    -0.333_333_34,
    0.133_333_25,
    -0.053_966_522,
    0.021_850_828,
    -0.008_754_307,
    0.003_233_947_3,
    -0.000_806_929_25,
];

#[inline(always)]
pub(super) fn tanh<V: Lanes>(x: V) -> V {
    let a = abs(x);
    let s = a.mul(a);
    let small = a.mul(s).fma(poly(s, &TANH_P), a);
    let t = exp_core(a.mul(V::splat(-2.0)));
    let large = V::splat(1.0).sub(t.add(t).div(t.add(V::splat(1.0))));
    let y = V::select(a.lt(V::splat(0.625)), small, large);
    keep_nan(x, y.or(V::splat(SIGN).and(x)))
}
