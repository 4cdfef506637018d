//! erf and the exact GELU. Near zero erf(u) = u + u·P(u²); from |u| = 0.9 on, erf is
//! 1 - erfc(u) with erfc(u) = e^-u²·g(u), g smooth: a polynomial in u - 1.425 up to
//! u = 2.2 and in 1/u beyond (both fitted for relative error, below 2e-9). e^-u² takes
//! u² as the exact sum of two floats, since its rounding error would be multiplied
//! by u². GELU uses erfc itself for negative x, where `1 + erf` would cancel.

use super::exp::{exp_scaled, keep_nan};
use super::lanes::{Lanes, abs, poly};

/// erf(u)/u - 1 in u², for |u| < 0.9: without its leading 1, so that the f32
/// coefficients keep 2/√π's digits.
const ERF_P: [f32; 10] = [
    0.12837917,
    -0.37612638,
    0.11283792,
    -0.02686617,
    0.005223974,
    -8.548167e-04,
    1.2050916e-04,
    -1.4849077e-05,
    1.5644501e-06,
    -1.1350482e-07,
];
/// erf(x/√2)/x in x²: ERF_P's coefficients times 2^-k/√2, so x/√2 is never rounded.
const ERF_HALF_P: [f32; 10] = [
    0.7978846,
    -0.13298076,
    0.019947113,
    -0.0023746563,
    2.3086922e-04,
    -1.8888959e-05,
    1.3314507e-06,
    -8.203034e-08,
    4.321224e-09,
    -1.5675787e-10,
];
/// g(u) = erfc(u)·e^u² in powers of u - 1.425, for 0.65 ≤ u < 2.2.
const G_NEAR: [f32; 11] = [
    0.334_299_8,
    -0.175_624_71,
    0.084_034_614,
    -0.037_249_96,
    0.015_476_545,
    -0.006_081_159,
    0.002_271_778_2,
    -0.000_801_748,
    0.000_276_736_77,
    -0.000_108_638_2,
    3.365_682e-5,
];
/// g(u) in powers of 1/u, for 2.2 ≤ u ≤ 10.4.
const G_FAR: [f32; 11] = [
    -1.096_709_3e-7,
    0.564_195_16,
    -0.000_119_551_43,
    -0.280_676_9,
    -0.009_700_543,
    0.456_046_07,
    0.021_168_042,
    -1.798_941,
    3.316_450_8,
    -2.750_268,
    0.929_570_26,
];
const START: f32 = 0.9;
const DROP: f32 = 1.0 / 16_777_216.0;
const SPLIT: f32 = 2.2;
/// erfc is 0 in f32 (with x/2 in front for GELU) beyond here.
const END: f32 = 10.4;

/// 2^24·erfc(u) for u ≥ 0.65, given u² = `sq_hi + sq_lo` exactly: scaled, so that a
/// product with it rounds once where erfc is subnormal.
#[inline(always)]
fn erfc_tail<V: Lanes>(u: V, sq_hi: V, sq_lo: V) -> V {
    let (e, g) = erfc_factors(u, sq_hi, sq_lo);
    e.mul(g)
}

/// g(u) = erfc(u)·e^u².
#[inline(always)]
fn erfc_poly<V: Lanes>(u: V) -> V {
    let near = u.lt(V::splat(SPLIT));
    let v = V::select(near, u.sub(V::splat(1.425)), V::splat(1.0).div(u));
    let mut g = V::select(near, V::splat(G_NEAR[10]), V::splat(G_FAR[10]));
    for k in (0..10).rev() {
        g = g.fma(v, V::select(near, V::splat(G_NEAR[k]), V::splat(G_FAR[k])));
    }
    g
}

/// `erfc_tail`'s two factors, 2^24·e^-u² and g(u), unmultiplied: erf takes 1 - their
/// product in one fused multiply-add, which spares the product's rounding (worth up to
/// an eighth of erf's last place near u = 1, where erfc is largest).
#[inline(always)]
fn erfc_factors<V: Lanes>(u: V, sq_hi: V, sq_lo: V) -> (V, V) {
    let g = erfc_poly(u);
    // e^-(hi + lo) = e^-hi·(1 - lo), |lo| ≤ 2^-24·hi.
    let e = exp_scaled(V::splat(0.0).sub(sq_hi), 24);
    let e = sq_lo.mul(V::splat(-1.0)).fma(e, e);
    (e, g)
}

#[inline(always)]
pub(super) fn erf<V: Lanes>(x: V) -> V {
    let u = abs(x);
    let s = u.mul(u);
    let small = x.fma(poly(s, &ERF_P), x);
    let ut = V::splat(END).min(u);
    let hi = ut.mul(ut);
    let lo = ut.fma(ut, V::splat(0.0).sub(hi));
    let (e, g) = erfc_factors(ut, hi, lo);
    let large = e.mul(V::splat(-DROP)).fma(g, V::splat(1.0));
    let large = large.or(V::splat(-0.0).and(x));
    keep_nan(x, V::select(u.lt(V::splat(START)), small, large))
}

/// GELU with approximate = "none": x/2·(1 + erf(x/√2)).
#[inline(always)]
pub(super) fn gelu<V: Lanes>(x: V) -> V {
    let half = x.mul(V::splat(0.5));
    let s = x.mul(x);
    let e = x.mul(poly(s, &ERF_HALF_P));
    let small = half.fma(e, half);
    let a = V::splat(END * std::f32::consts::SQRT_2).min(abs(x));
    let u = a.mul(V::splat(std::f32::consts::FRAC_1_SQRT_2));
    let hi = a.mul(a);
    let lo = a.fma(a, V::splat(0.0).sub(hi));
    let cs = erfc_tail(u, hi.mul(V::splat(0.5)), lo.mul(V::splat(0.5)));
    // x ≥ 0: x - x/2·erfc; x < 0: x/2·erfc(|u|). x is clamped where erfc is 0, so that
    // ±∞ give +∞ and -0 rather than ∞·0.
    let hc = V::splat(0.5).mul(a.or(V::splat(-0.0).and(x)));
    let c = cs.mul(V::splat(DROP));
    let large = V::select(
        x.lt(V::splat(0.0)),
        hc.mul(cs).mul(V::splat(DROP)),
        hc.mul(V::splat(-1.0)).fma(c, x),
    );
    let in_small = abs(x).lt(V::splat(START * std::f32::consts::SQRT_2));
    keep_nan(x, V::select(in_small, small, large))
}
