//! `round_ties_even(x / scale)` in f32 without a division per element (quantizing was
//! a fifth of a dynamically quantized 512³ matmul's time).
//!
//! The f32 quotient and `x · r`, with `r` the f32 reciprocal of the scale, each lie
//! within 2^-22·|t| of the exact `x / scale` (three roundings of 2^-24 each, relative).
//! Rounded to an integer, the two can differ only when they straddle a half-integer, so
//! where `x · r` is farther than `MARGIN·|t|` (sixteen times that bound) from every
//! half-integer, its rounding is the quotient's. A block with a lane nearer than that
//! (an exact tie such as 2.5 among them) divides instead, so every result is the
//! division's own.

/// Elements checked together: one AVX-512 register, or two AVX2 ones.
pub(super) const LANES: usize = 16;

const MARGIN: f32 = 1.0 / (1 << 18) as f32;

/// The reciprocal of `scale` when the bound above holds for it: both normal, so that
/// neither the reciprocal nor a product with it loses precision to subnormals before
/// the check.
pub(super) fn reciprocal(scale: f32) -> Option<f32> {
    let r = 1.0 / scale;
    (scale.is_normal() && r.is_normal()).then_some(r)
}

/// `round_ties_even(x[j] / scale)` for each lane, given `r = reciprocal(scale)`.
///
/// NaN lanes are never near a tie and stay NaN; infinite products (of infinite `x`, or
/// of quotients beyond f32's range, which the division makes infinite or nearly so)
/// saturate as the quotient does wherever the caller clamps to a narrow range.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn rounded_avx2(x: &[f32; LANES], scale: f32, r: f32) -> [f32; LANES] {
    use std::arch::x86_64::*;
    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    let abs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
    let (half, margin) = (_mm256_set1_ps(0.5), _mm256_set1_ps(MARGIN));
    let mut q = [0.0f32; LANES];
    let mut near_tie = _mm256_setzero_ps();
    for h in 0..LANES / 8 {
        // SAFETY: lanes 8h..8h+8 of both 16-lane arrays.
        unsafe {
            let t = _mm256_mul_ps(_mm256_loadu_ps(x.as_ptr().add(8 * h)), _mm256_set1_ps(r));
            let n = _mm256_round_ps::<NEAREST>(t);
            let from_half = _mm256_and_ps(
                _mm256_sub_ps(_mm256_and_ps(_mm256_sub_ps(t, n), abs), half),
                abs,
            );
            let bound = _mm256_mul_ps(_mm256_and_ps(t, abs), margin);
            // An ordered comparison: false for NaN lanes.
            near_tie = _mm256_or_ps(near_tie, _mm256_cmp_ps::<_CMP_LE_OQ>(from_half, bound));
            _mm256_storeu_ps(q.as_mut_ptr().add(8 * h), n);
        }
    }
    if _mm256_movemask_ps(near_tie) != 0 {
        for h in 0..LANES / 8 {
            // SAFETY: as above.
            unsafe {
                let v = _mm256_loadu_ps(x.as_ptr().add(8 * h));
                let n = _mm256_round_ps::<NEAREST>(_mm256_div_ps(v, _mm256_set1_ps(scale)));
                _mm256_storeu_ps(q.as_mut_ptr().add(8 * h), n);
            }
        }
    }
    q
}

/// Quantizes `LANES` values to 8 bits, as `quant::quantize_run` does: the rounded
/// quotient clamped to `q_lo..=q_hi` (the type's range less the zero point; a NaN
/// gives `q_lo`), plus `zero_point`, stored as bytes at `y` (two's complement when
/// `signed`).
///
/// # Safety
/// The CPU has AVX2; `y` is valid for `LANES` bytes; `q_lo..=q_hi` plus `zero_point`
/// lies in the 8-bit type's range.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn quantize_avx2(
    x: &[f32; LANES],
    y: *mut u8,
    scale: f32,
    r: f32,
    q_lo: f32,
    q_hi: f32,
    zero_point: i32,
    signed: bool,
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller's promises.
    unsafe {
        let q = rounded_avx2(x, scale, r);
        let (lo, hi, zero) = (
            _mm256_set1_ps(q_lo),
            _mm256_set1_ps(q_hi),
            _mm256_set1_epi32(zero_point),
        );
        // `maxps` returns its second operand when the first is NaN: `q_lo`.
        let int = |h: usize| {
            let v = _mm256_loadu_ps(q.as_ptr().add(8 * h));
            let clamped = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
            _mm256_add_epi32(_mm256_cvttps_epi32(clamped), zero)
        };
        // Both packs are exact on values already in the 8-bit range; they interleave
        // 128-bit lanes, which the permute undoes.
        let words = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi32(int(0), int(1)));
        let (a, b) = (
            _mm256_castsi256_si128(words),
            _mm256_extracti128_si256::<1>(words),
        );
        let bytes = if signed {
            _mm_packs_epi16(a, b)
        } else {
            _mm_packus_epi16(a, b)
        };
        _mm_storeu_si128(y as *mut __m128i, bytes);
    }
}

/// `quantize_avx2` in one AVX-512 register: the same operations (a mask instead of a
/// movemask, and `vpmovdb`, which keeps each lane's low byte, exact on values already
/// clamped to the 8-bit range), so the same bytes.
///
/// # Safety
/// The CPU has AVX-512 F; `y` is valid for `LANES` bytes; `q_lo..=q_hi` plus
/// `zero_point` lies in the 8-bit type's range.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) unsafe fn quantize_avx512(
    x: &[f32; LANES],
    y: *mut u8,
    scale: f32,
    r: f32,
    q_lo: f32,
    q_hi: f32,
    zero_point: i32,
) {
    use std::arch::x86_64::*;
    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    // SAFETY: the caller's promises.
    unsafe {
        let v = _mm512_loadu_ps(x.as_ptr());
        let t = _mm512_mul_ps(v, _mm512_set1_ps(r));
        let mut q = _mm512_roundscale_ps::<NEAREST>(t);
        let from_half = _mm512_abs_ps(_mm512_sub_ps(
            _mm512_abs_ps(_mm512_sub_ps(t, q)),
            _mm512_set1_ps(0.5),
        ));
        let bound = _mm512_mul_ps(_mm512_abs_ps(t), _mm512_set1_ps(MARGIN));
        // An ordered comparison: false for NaN lanes.
        if _mm512_cmp_ps_mask::<_CMP_LE_OQ>(from_half, bound) != 0 {
            q = _mm512_roundscale_ps::<NEAREST>(_mm512_div_ps(v, _mm512_set1_ps(scale)));
        }
        // `vmaxps` returns its second operand when the first is NaN: `q_lo`.
        let clamped = _mm512_min_ps(_mm512_max_ps(q, _mm512_set1_ps(q_lo)), _mm512_set1_ps(q_hi));
        let int = _mm512_add_epi32(_mm512_cvttps_epi32(clamped), _mm512_set1_epi32(zero_point));
        _mm_storeu_si128(y as *mut __m128i, _mm512_cvtepi32_epi8(int));
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::kernels::testing::{awkward_f32s, test_bytes};

    /// Every lane of `x` through `rounded_avx2`, against the division.
    fn check(x: &[f32], scale: f32) {
        let Some(r) = reciprocal(scale) else {
            return;
        };
        for block in x.chunks(LANES) {
            let mut lanes = [0.0f32; LANES];
            lanes[..block.len()].copy_from_slice(block);
            // SAFETY: the callers checked for AVX2.
            let got = unsafe { rounded_avx2(&lanes, scale, r) };
            for (&g, &v) in got.iter().zip(&lanes) {
                let want = (v / scale).round_ties_even();
                // Quotients at the edge of f32's range may overflow in one form only;
                // any narrow clamp saturates both alike.
                let huge = g.abs() > 1e37 && want.abs() > 1e37 && g.signum() == want.signum();
                assert!(
                    g.to_bits() == want.to_bits() || huge,
                    "{v:e} / {scale:e}: {g}, the division gives {want}"
                );
            }
        }
    }

    /// Scales of every exponent from 2^-31 to 2^32, with random mantissas.
    fn scales(seed: u64, n: usize) -> Vec<f32> {
        test_bytes(seed, n * 4)
            .chunks_exact(4)
            .map(|b| {
                let bits = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                f32::from_bits(((96 + bits % 64) << 23) | (bits & 0x007f_ffff))
            })
            .collect()
    }

    fn has_avx2() -> bool {
        std::is_x86_feature_detected!("avx2")
    }

    #[test]
    fn ties_and_near_ties_round_as_the_division() {
        if !has_avx2() {
            return;
        }
        for scale in scales(1, 300) {
            let mut x = Vec::new();
            for k in -300i32..300 {
                // (k + 0.5)·scale, often an exact tie, its neighbours, and k·scale.
                let v = (k as f32 + 0.5) * scale;
                let up = f32::from_bits(v.to_bits() + 1);
                let down = f32::from_bits(v.to_bits().saturating_sub(1));
                x.extend([v, up, down, k as f32 * scale]);
            }
            check(&x, scale);
        }
    }

    #[test]
    fn awkward_values_round_as_the_division() {
        if !has_avx2() {
            return;
        }
        let x = awkward_f32s(3, 20_000, true);
        for scale in scales(2, 40)
            .into_iter()
            .chain([1.0, 0.1, -0.5, 1.5e30, 2.0e-38, f32::MAX])
        {
            check(&x, scale);
        }
        for scale in [0.0, 1e-39, f32::INFINITY, f32::NAN] {
            assert!(reciprocal(scale).is_none(), "{scale}");
        }
    }

    #[test]
    fn blocks_quantize_as_the_formula() {
        if !has_avx2() {
            return;
        }
        let x = awkward_f32s(5, 4096, true);
        for (lo, hi, signed) in [(0, 255, false), (-128, 127, true)] {
            for zero_point in [lo, lo + 1, (lo + hi) / 2, hi - 1, hi] {
                for scale in [1.0f32, 0.037, 2.5e-4, 1e-20] {
                    let r = reciprocal(scale).unwrap();
                    let (q_lo, q_hi) = ((lo - zero_point) as f32, (hi - zero_point) as f32);
                    for block in x.as_chunks::<LANES>().0 {
                        let mut got = [0u8; LANES];
                        // SAFETY: AVX2 checked; 16 bytes; the zero point in range.
                        unsafe {
                            let y = got.as_mut_ptr();
                            quantize_avx2(block, y, scale, r, q_lo, q_hi, zero_point, signed);
                        }
                        if std::is_x86_feature_detected!("avx512f") {
                            let mut wide = [0u8; LANES];
                            // SAFETY: AVX-512 F checked; 16 bytes; the zero point in range.
                            unsafe {
                                let y = wide.as_mut_ptr();
                                quantize_avx512(block, y, scale, r, q_lo, q_hi, zero_point);
                            }
                            assert_eq!(wide, got, "AVX-512 against AVX2 for {block:?} / {scale:e}");
                        }
                        for (&g, &v) in got.iter().zip(block) {
                            let q = (v / scale).round_ties_even().max(q_lo).min(q_hi);
                            let want = (q as i32 + zero_point) as u8;
                            assert_eq!(
                                g, want,
                                "{v:e} / {scale:e} + {zero_point}, signed {signed}"
                            );
                        }
                    }
                }
            }
        }
    }
}
