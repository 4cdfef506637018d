//! The natural logarithm: x = 2^k·m with m in [√½, √2), and ln m = ln(1+f) written
//! with s = f/(2+f) as `f - s·(f - T(s²))`, T the series of 2·atanh(s) - 2s over s.
//! The error of s only reaches the small correction, so the result keeps f's precision.

use super::exp::keep_nan;
use super::lanes::{Lanes, abs, poly};

const SQRT_HALF_BITS: i32 = 0x3f35_04f3;
/// 2/3, 2/5, 2/7, 2/9: |s| ≤ 0.1716, so the next term is below 2^-27 of T·s.
const T: [f32; 4] = [0.666_666_7, 0.4, 0.285_714_3, 0.222_222_22];
const LN2_HI: f32 = std::f32::consts::LN_2;
const LN2_LO: f32 = -1.904_654_3e-9;

#[inline(always)]
pub(super) fn log<V: Lanes>(x: V) -> V {
    // Subnormals are scaled into the normal range first.
    let tiny = x.lt(V::splat(f32::MIN_POSITIVE));
    let xs = V::select(tiny, x.mul(V::splat(8_388_608.0)), x);
    let bias = V::select(tiny, V::splat(-23.0), V::splat(0.0));
    let i = V::isub(xs.bits(), V::isplat(SQRT_HALF_BITS));
    let k = V::to_float(V::sra23(i)).add(bias);
    let m = V::from_bits(V::iadd(
        V::iand(i, V::isplat(0x007f_ffff)),
        V::isplat(SQRT_HALF_BITS),
    ));
    let f = m.sub(V::splat(1.0));
    let s = f.div(f.add(V::splat(2.0)));
    let z = s.mul(s);
    let t = poly(z, &T).mul(z);
    let corr = s.mul(f.sub(t));
    let lo = k.fma(V::splat(LN2_LO), V::splat(0.0).sub(corr));
    let y = k.fma(V::splat(LN2_HI), f.add(lo));
    // ±0 gives -∞, negatives NaN, +∞ itself.
    let zero = abs(x).lt(V::splat(1e-45));
    let y = V::select(V::splat(f32::MAX).lt(x), x, y);
    let y = V::select(x.lt(V::splat(0.0)), V::splat(f32::NAN), y);
    let y = V::select(zero, V::splat(f32::NEG_INFINITY), y);
    keep_nan(x, y)
}
