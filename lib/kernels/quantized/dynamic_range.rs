//! DynamicQuantizeLinear's parameters in one pass over the input: the minimum and the
//! maximum together, vectorized, then the scalar arithmetic of the lowering
//! (`conversion::quantization::dynamic_params`) in float32, op for op, so the scale
//! and zero point equal the ones the unfused IR computes.

use rayon::prelude::*;

use crate::kernels::isa::Isa;

/// Lanes of the min/max pass: independent accumulators the compiler keeps in vector
/// registers.
const LANES: usize = 16;
/// Elements per rayon task.
const CHUNK: usize = 1 << 16;

/// The smallest and largest element of a non-empty `x` as `torch.aten.min` and
/// `max` give them: NaN if any element is NaN, and of equal elements (0.0 and -0.0)
/// the first.
pub(super) fn min_max(isa: Isa, x: &[f32]) -> Option<(f32, f32)> {
    if x.is_empty() {
        return None;
    }
    let parts: Vec<(f32, f32, bool)> = if x.len() > CHUNK {
        x.par_chunks(CHUNK).map(|c| chunk_min_max(isa, c)).collect()
    } else {
        vec![chunk_min_max(isa, x)]
    };
    if parts.iter().any(|&(_, _, nan)| nan) {
        return Some((f32::NAN, f32::NAN));
    }
    let lo = parts.iter().map(|p| p.0).fold(f32::INFINITY, f32::min);
    let hi = parts.iter().map(|p| p.1).fold(f32::NEG_INFINITY, f32::max);
    // Only a zero has an equal of another sign: then the first zero is the one.
    let first_equal = |v: f32| {
        if v == 0.0 {
            x.iter().copied().find(|&e| e == 0.0).unwrap_or(v)
        } else {
            v
        }
    };
    Some((first_equal(lo), first_equal(hi)))
}

fn chunk_min_max(isa: Isa, x: &[f32]) -> (f32, f32, bool) {
    #[cfg(target_arch = "x86_64")]
    if isa.includes(Isa::Avx2) && isa.available() {
        // SAFETY: the CPU has AVX2.
        return unsafe { chunk_min_max_avx2(x) };
    }
    chunk_min_max_body(x)
}

/// `chunk_min_max_body` in registers: `vminps(v, lo)` is `v < lo ? v : lo` and
/// `vmaxps` likewise, the comparisons of the body; an unordered compare collects NaNs.
/// The lanes are then folded as the body folds them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn chunk_min_max_avx2(x: &[f32]) -> (f32, f32, bool) {
    use std::arch::x86_64::*;
    const _: () = assert!(LANES == 16);
    let (whole, rest) = x.as_chunks::<LANES>();
    let (mut lo0, mut lo1) = (_mm256_set1_ps(f32::INFINITY), _mm256_set1_ps(f32::INFINITY));
    let (mut hi0, mut hi1) = (
        _mm256_set1_ps(f32::NEG_INFINITY),
        _mm256_set1_ps(f32::NEG_INFINITY),
    );
    let mut nan = _mm256_setzero_ps();
    for c in whole {
        // SAFETY: each chunk is 16 f32s, two unaligned 32-byte loads.
        let (a, b) = unsafe {
            (
                _mm256_loadu_ps(c.as_ptr()),
                _mm256_loadu_ps(c.as_ptr().add(8)),
            )
        };
        lo0 = _mm256_min_ps(a, lo0);
        lo1 = _mm256_min_ps(b, lo1);
        hi0 = _mm256_max_ps(a, hi0);
        hi1 = _mm256_max_ps(b, hi1);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(a, b));
    }
    let mut lanes = [[0f32; 8]; 5];
    for (dst, v) in lanes.iter_mut().zip([lo0, lo1, hi0, hi1, nan]) {
        // SAFETY: 8 f32s, one unaligned 32-byte store.
        unsafe { _mm256_storeu_ps(dst.as_mut_ptr(), v) };
    }
    let mut lo: [f32; LANES] = std::array::from_fn(|j| lanes[j / 8][j % 8]);
    let mut hi: [f32; LANES] = std::array::from_fn(|j| lanes[2 + j / 8][j % 8]);
    let mut any_nan = lanes[4].iter().any(|v| v.to_bits() != 0);
    for &v in rest {
        lo[0] = if v < lo[0] { v } else { lo[0] };
        hi[0] = if v > hi[0] { v } else { hi[0] };
        any_nan |= v.is_nan();
    }
    let lo = lo
        .iter()
        .copied()
        .fold(f32::INFINITY, |a, b| if b < a { b } else { a });
    let hi = hi
        .iter()
        .copied()
        .fold(f32::NEG_INFINITY, |a, b| if b > a { b } else { a });
    (lo, hi, any_nan)
}

/// Lane-wise comparisons (which vectorize to min/max instructions) and a lane-wise NaN
/// flag; infinities are ordinary values here.
#[inline(always)]
fn chunk_min_max_body(x: &[f32]) -> (f32, f32, bool) {
    let mut lo = [f32::INFINITY; LANES];
    let mut hi = [f32::NEG_INFINITY; LANES];
    let mut nan = [false; LANES];
    let (whole, rest) = x.as_chunks::<LANES>();
    for c in whole {
        for j in 0..LANES {
            let v = c[j];
            lo[j] = if v < lo[j] { v } else { lo[j] };
            hi[j] = if v > hi[j] { v } else { hi[j] };
            nan[j] |= v.is_nan();
        }
    }
    for &v in rest {
        lo[0] = if v < lo[0] { v } else { lo[0] };
        hi[0] = if v > hi[0] { v } else { hi[0] };
        nan[0] |= v.is_nan();
    }
    let lo = lo
        .iter()
        .copied()
        .fold(f32::INFINITY, |a, b| if b < a { b } else { a });
    let hi = hi
        .iter()
        .copied()
        .fold(f32::NEG_INFINITY, |a, b| if b > a { b } else { a });
    (lo, hi, nan.iter().any(|&n| n))
}

/// The scale and zero point from the minimum and maximum, as the lowering computes
/// them: the range widened to hold 0 (`clamp_max(min, 0)`, `clamp_min(max, 0)`,
/// NaN staying NaN), `scale = (max - min) / 255`, and the zero point
/// `uint8(clamp(round(-(min / scale)), 0, 255))`, a NaN converting to 0.
pub(super) fn parameters(min: f32, max: f32) -> (f32, u8) {
    let lo = if min.is_nan() { f32::NAN } else { min.min(0.0) };
    let hi = if max.is_nan() { f32::NAN } else { max.max(0.0) };
    let scale = (hi - lo) / 255.0;
    let r = (-(lo / scale)).round_ties_even();
    // NaN stays NaN (as the clamp kernel gives it), then converts to 0.
    let clamped = r.clamp(0.0, 255.0);
    (scale, clamped as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_max_finds_the_extremes_across_lanes_chunks_and_the_tail() {
        for isa in Isa::all_available() {
            extremes_on(isa);
        }
    }

    fn extremes_on(isa: Isa) {
        let min_max = |x: &[f32]| min_max(isa, x);
        let mut x: Vec<f32> = (0..(3 * CHUNK + 5))
            .map(|i| (i % 97) as f32 - 40.0)
            .collect();
        x[CHUNK + 3] = -1000.5;
        x[2 * CHUNK + 7] = 999.25;
        assert_eq!(min_max(&x), Some((-1000.5, 999.25)));
        *x.last_mut().unwrap() = -2000.0;
        assert_eq!(min_max(&x), Some((-2000.0, 999.25)));
        x[10] = f32::NAN;
        let (lo, hi) = min_max(&x).unwrap();
        assert!(lo.is_nan() && hi.is_nan());
        assert_eq!(min_max(&[]), None);
    }

    #[test]
    fn min_max_keeps_the_first_of_equal_zeros() {
        let min_max = |x: &[f32]| min_max(Isa::best(), x);
        let (lo, hi) = min_max(&[1.0, -0.0, 0.0, 2.0]).unwrap();
        assert!(lo == 0.0 && lo.is_sign_negative());
        assert_eq!(hi, 2.0);
        let (lo, hi) = min_max(&[0.0, -0.0]).unwrap();
        assert!(lo.is_sign_positive() && hi.is_sign_positive());
    }

    #[test]
    fn parameters_follow_the_spec() {
        // [-1, 2]: scale 3/255; zero point round(1 / (3/255)) = round(85) = 85.
        assert_eq!(parameters(-1.0, 2.0), (3.0 / 255.0, 85));
        // All positive: the range starts at 0, zero point 0.
        assert_eq!(parameters(0.5, 2.55), (2.55 / 255.0, 0));
        // All zeros: 0/0 is NaN, which converts to a zero point of 0.
        let (scale, zp) = parameters(0.0, 0.0);
        assert_eq!((scale, zp), (0.0, 0));
    }
}
