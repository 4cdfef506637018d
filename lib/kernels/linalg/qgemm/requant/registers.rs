//! A row of outputs straight from the tile's AVX-512 registers, as `Rescale::row` and
//! `requant::row` compute it: the same integer corrections (wrapping, so their order
//! does not matter), one conversion to f32, then each float step rounded as the
//! scalar row rounds it.

use std::arch::x86_64::*;

use super::{ColTerms, NR, Output, Rescale, RowTerms};

/// Sixteen lanes of `v` from lane `h·16`.
///
/// # Safety
/// The CPU has avx512f and the caller is compiled with it.
#[inline(always)]
unsafe fn half_i32(v: &[i32; NR], h: usize) -> __m512i {
    // SAFETY: lanes h·16..h·16+16 lie inside the 32 (h is 0 or 1).
    unsafe { _mm512_loadu_si512(v.as_ptr().add(16 * (h & 1)) as *const _) }
}

/// # Safety
/// As `half_i32`.
#[inline(always)]
unsafe fn half_f32(v: &[f32; NR], h: usize) -> __m512 {
    // SAFETY: as in `half_i32`.
    unsafe { _mm512_loadu_ps(v.as_ptr().add(16 * (h & 1))) }
}

/// Sixteen lanes of `acc` with the row's and columns' corrections, as f32, times their
/// multipliers.
///
/// # Safety
/// As `half_i32`.
#[inline(always)]
unsafe fn scaled(acc: [__m512i; 2], h: usize, r: RowTerms, c: &ColTerms) -> __m512 {
    // SAFETY: the caller has avx512f, which every intrinsic here needs.
    unsafe {
        let mut v = _mm512_add_epi32(acc[h & 1], _mm512_set1_epi32(r.offset));
        if let Some(sum) = c.sum.filter(|_| r.zero != 0) {
            let t = _mm512_mullo_epi32(_mm512_set1_epi32(r.zero), half_i32(sum, h));
            v = _mm512_sub_epi32(v, t);
        }
        if let Some(offset) = c.offset {
            v = _mm512_add_epi32(v, half_i32(offset, h));
        }
        if let Some(zero) = c.zero.filter(|_| r.sum != 0) {
            let t = _mm512_mullo_epi32(half_i32(zero, h), _mm512_set1_epi32(r.sum));
            v = _mm512_sub_epi32(v, t);
        }
        let m = match c.multiplier {
            Some(m) => half_f32(m, h),
            None => _mm512_set1_ps(r.multiplier),
        };
        _mm512_mul_ps(_mm512_cvtepi32_ps(v), m)
    }
}

/// Of a row of `len` outputs, how many of lanes `16·h..16·h + 16` it has, as a mask.
#[inline(always)]
fn mask(len: usize, h: usize) -> __mmask16 {
    let lanes = len.saturating_sub(16 * h).min(16);
    ((1u32 << lanes) - 1) as __mmask16
}

/// `requant::row` of `acc` into `out` (its first `out.len()` ≤ `NR` columns).
/// Multipliers are finite (as `row` requires), so no NaN reaches the clamps.
///
/// # Safety
/// The CPU has avx512f, and the caller is compiled with it (this is inlined).
#[inline(always)]
pub(super) unsafe fn requantize(
    y: Output,
    acc: [__m512i; 2],
    r: RowTerms,
    c: ColTerms,
    out: &mut [u8],
) {
    const MAGIC: f32 = 12_582_912.0;
    let (lo, hi) = y.range();
    // SAFETY: the caller has avx512f, which every intrinsic here needs.
    unsafe {
        let flo = _mm512_set1_ps((lo - y.zero_point) as f32);
        let fhi = _mm512_set1_ps((hi - y.zero_point) as f32);
        for h in 0..2 {
            let f = scaled(acc, h, r, &c);
            let f = _mm512_min_ps(_mm512_max_ps(f, flo), fhi);
            let rounded = _mm512_sub_epi32(
                _mm512_castps_si512(_mm512_add_ps(f, _mm512_set1_ps(MAGIC))),
                _mm512_set1_epi32(MAGIC.to_bits() as i32),
            );
            let q = _mm512_add_epi32(rounded, _mm512_set1_epi32(y.zero_point));
            let dest = out.as_mut_ptr().wrapping_add(16 * h);
            // SAFETY: only the lanes of `out`'s columns are written.
            _mm512_mask_cvtepi32_storeu_epi8(dest as *mut i8, mask(out.len(), h), q);
        }
    }
}

/// `Rescale::row` of `acc` into `out` (its first `out.len()` ≤ `NR` columns).
///
/// # Safety
/// The CPU has avx512f, and the caller is compiled with it (this is inlined).
#[inline(always)]
pub(super) unsafe fn rescale(
    epilogue: Rescale,
    acc: [__m512i; 2],
    r: RowTerms,
    c: ColTerms,
    out: &mut [f32],
) {
    // SAFETY: the caller has avx512f, which every intrinsic here needs.
    unsafe {
        for h in 0..2 {
            let mut f = scaled(acc, h, r, &c);
            if epilogue.bias {
                let b = match c.bias {
                    Some(b) => half_f32(b, h),
                    None => _mm512_set1_ps(r.bias),
                };
                f = _mm512_add_ps(f, b);
            }
            let dest = out.as_mut_ptr().wrapping_add(16 * h);
            if out.len() >= 16 * (h + 1) {
                // SAFETY: lanes 16·h..16·h+16 are inside `out`.
                _mm512_storeu_ps(dest, f);
            } else {
                // SAFETY: only the lanes of `out`'s columns are written.
                _mm512_mask_storeu_ps(dest, mask(out.len(), h), f);
            }
        }
    }
}
