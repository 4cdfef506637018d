//! The tile with AVX2. `vpmaddubsw` would saturate 255·127·2 in 16 bits, so the bytes
//! are widened to 16 bits and `vpmaddwd` adds pairs exactly into 32 bits. A register
//! of 8 columns' quads splits into columns 0–3 and 4–7; pair sums are accumulated
//! apart and folded into quad sums once, after the K loop, which changes nothing
//! modulo 2^32.

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::*;

use super::{MR, NR, Signs, Tile};

/// # Safety
/// The CPU supports avx2; `lhs` is readable for `(MR-1)·lhs_stride + 4·kq` bytes and
/// `rhs` for `4·NR·kq` bytes.
#[target_feature(enable = "avx2")]
pub unsafe fn tile(
    signs: Signs,
    lhs: *const u8,
    lhs_stride: usize,
    rhs: *const u8,
    kq: usize,
    out: &mut Tile,
) {
    match signs {
        // SAFETY: forwarded from the caller.
        Signs::SignedLhs => unsafe { run::<false>(lhs, lhs_stride, rhs, kq, out) },
        // SAFETY: forwarded from the caller.
        Signs::UnsignedLhs => unsafe { run::<true>(lhs, lhs_stride, rhs, kq, out) },
    }
}

/// Four rows against eight columns at a time keeps the 8 accumulators and the
/// operands within the 16 ymm registers.
#[target_feature(enable = "avx2")]
unsafe fn run<const UNSIGNED_LHS: bool>(
    lhs: *const u8,
    lhs_stride: usize,
    rhs: *const u8,
    kq: usize,
    out: &mut Tile,
) {
    const ROWS: usize = 4;
    for rows in (0..MR).step_by(ROWS) {
        for cols in (0..NR).step_by(8) {
            let mut lo = [_mm256_setzero_si256(); ROWS];
            let mut hi = [_mm256_setzero_si256(); ROWS];
            for q in 0..kq {
                // SAFETY: columns cols..cols+8 of quad q are 32 bytes inside the panel.
                let x = unsafe { _mm_loadu_si128(rhs.add((q * NR + cols) * 4) as *const _) };
                // SAFETY: as above, the next 16 bytes.
                let y = unsafe { _mm_loadu_si128(rhs.add((q * NR + cols) * 4 + 16) as *const _) };
                let (x, y) = if UNSIGNED_LHS {
                    (_mm256_cvtepi8_epi16(x), _mm256_cvtepi8_epi16(y))
                } else {
                    (_mm256_cvtepu8_epi16(x), _mm256_cvtepu8_epi16(y))
                };
                for r in 0..ROWS {
                    // SAFETY: row rows+r's quad q lies inside `lhs`.
                    let quad = unsafe {
                        (lhs.add((rows + r) * lhs_stride + q * 4) as *const i32).read_unaligned()
                    };
                    let l = _mm_set1_epi32(quad);
                    let l = if UNSIGNED_LHS {
                        _mm256_cvtepu8_epi16(l)
                    } else {
                        _mm256_cvtepi8_epi16(l)
                    };
                    lo[r] = _mm256_add_epi32(lo[r], _mm256_madd_epi16(x, l));
                    hi[r] = _mm256_add_epi32(hi[r], _mm256_madd_epi16(y, l));
                }
            }
            for r in 0..ROWS {
                // Lanes come out as columns 0 1 4 5 | 2 3 6 7; the permute restores order.
                let sums = _mm256_hadd_epi32(lo[r], hi[r]);
                let sums = _mm256_permute4x64_epi64(sums, 0b11_01_10_00);
                // SAFETY: 8 i32s at column `cols` of a 32-column row.
                unsafe {
                    _mm256_storeu_si256(out[rows + r].as_mut_ptr().add(cols) as *mut _, sums)
                };
            }
        }
    }
}
