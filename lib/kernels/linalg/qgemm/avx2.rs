//! The tile with AVX2. `vpmaddubsw` would saturate 255·127·2 in 16 bits, so the bytes
//! are widened to 16 bits and `vpmaddwd` adds pairs exactly into 32 bits.
//!
//! Widening in the inner loop put two shuffles on one port per row and column group
//! (45% of `vpmaddwd`'s throughput), so each call widens its operands once, up front,
//! into per-thread buffers laid out for the loop: L's rows as 16-bit values, whose
//! pairs (k0,k1) and (k2,k3) of a quad are one 32-bit broadcast each, a pure load; the
//! panel as, per quad and 8 columns, one register of the columns' (k0,k1) pairs and
//! one of their (k2,k3) pairs. Each `vpmaddwd` then gives 8 columns' partial sums in
//! column order, and the loop is loads, multiplies and adds only.

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::*;

use super::{MR, NR, Signs, Tile};

/// `out[i]` = rows `i·MR..(i+1)·MR` of `lhs` against one panel, as `super::tile`; the
/// panel is widened once for all of them.
///
/// # Safety
/// The CPU supports avx2; `lhs` is readable for `(out.len()·MR-1)·lhs_stride + 4·kq`
/// bytes and `rhs` for `4·NR·kq` bytes.
#[target_feature(enable = "avx2")]
pub unsafe fn tiles(
    signs: Signs,
    lhs: *const u8,
    lhs_stride: usize,
    rhs: *const u8,
    kq: usize,
    out: &mut [Tile],
) {
    match signs {
        // SAFETY: forwarded from the caller.
        Signs::SignedLhs => unsafe { run::<false>(lhs, lhs_stride, rhs, kq, out) },
        // SAFETY: forwarded from the caller.
        Signs::UnsignedLhs => unsafe { run::<true>(lhs, lhs_stride, rhs, kq, out) },
    }
}

/// Per-thread widened operands, reused across calls (rewritten before each read).
struct Wide {
    /// `MR` rows of `4·kq` 16-bit values.
    lhs: Vec<__m256i>,
    /// Per quad, per group of 8 columns: the (k0,k1) register, then the (k2,k3) one.
    rhs: Vec<__m256i>,
}

thread_local! {
    static WIDE: std::cell::RefCell<Wide> = const {
        std::cell::RefCell::new(Wide { lhs: Vec::new(), rhs: Vec::new() })
    };
}

/// Four rows against sixteen columns at a time: 8 accumulators, 4 panel registers and
/// 2 broadcasts fit the 16 ymm registers.
#[target_feature(enable = "avx2")]
unsafe fn run<const UNSIGNED_LHS: bool>(
    lhs: *const u8,
    lhs_stride: usize,
    rhs: *const u8,
    kq: usize,
    out: &mut [Tile],
) {
    const _: () = assert!(NR == 32 && MR == 8);
    const ROWS: usize = 4;
    WIDE.with_borrow_mut(|wide| {
        let zero = _mm256_setzero_si256();
        wide.lhs.resize(2 * kq, zero);
        wide.rhs.resize(8 * kq, zero);
        // SAFETY: the panel's reads stay inside it (the caller's bounds); the writes
        // fill the 8 registers a quad just sized.
        unsafe { widen_panel::<UNSIGNED_LHS>(rhs, kq, wide.rhs.as_mut_ptr()) };
        let wr = wide.rhs.as_ptr();
        for (t, out) in out.iter_mut().enumerate() {
            let wl = wide.lhs.as_mut_ptr() as *mut u8;
            // SAFETY: tile t's rows lie inside L (the caller's bounds); the widened
            // rows fill the MR·kq·8 bytes just sized.
            unsafe { widen_rows::<UNSIGNED_LHS>(lhs.add(t * MR * lhs_stride), lhs_stride, kq, wl) };
            for rows in (0..MR).step_by(ROWS) {
                // Row r's widened quads, 8 bytes each.
                let l: [*const i32; ROWS] =
                    std::array::from_fn(|r| wl.wrapping_add((rows + r) * kq * 8) as *const i32);
                for cols in (0..NR).step_by(16) {
                    let mut acc = [[zero; 2]; ROWS];
                    for q in 0..kq {
                        // SAFETY: quad q's registers of columns cols..cols+16 lie inside
                        // the widened panel, and each row's quad q inside widened L.
                        unsafe {
                            let p = wr.add(q * 8 + cols / 4);
                            let (a01, a23) = (_mm256_load_si256(p), _mm256_load_si256(p.add(1)));
                            let (b01, b23) =
                                (_mm256_load_si256(p.add(2)), _mm256_load_si256(p.add(3)));
                            for (acc, l) in acc.iter_mut().zip(l) {
                                let l01 = _mm256_set1_epi32(l.add(2 * q).read_unaligned());
                                let l23 = _mm256_set1_epi32(l.add(2 * q + 1).read_unaligned());
                                acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(a01, l01));
                                acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(a23, l23));
                                acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(b01, l01));
                                acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(b23, l23));
                            }
                        }
                    }
                    for (r, acc) in acc.iter().enumerate() {
                        let row = out[rows + r][cols..].as_mut_ptr() as *mut __m256i;
                        // SAFETY: 16 i32s from column `cols` of a 32-column row.
                        unsafe {
                            _mm256_storeu_si256(row, acc[0]);
                            _mm256_storeu_si256(row.add(1), acc[1]);
                        }
                    }
                }
            }
        }
    })
}

/// L's `MR` rows of `4·kq` bytes as 16-bit values, row r at `r·kq·8` bytes of `out`
/// (sign- or zero-extended as L's bytes are signed or not).
///
/// # Safety
/// The CPU supports avx2; `lhs` is readable for `(MR-1)·lhs_stride + 4·kq` bytes and
/// `out` writable for `MR·kq·8`.
#[target_feature(enable = "avx2")]
unsafe fn widen_rows<const UNSIGNED_LHS: bool>(
    lhs: *const u8,
    lhs_stride: usize,
    kq: usize,
    out: *mut u8,
) {
    let bytes = kq * 4;
    for r in 0..MR {
        // SAFETY: row r's bytes and its widened copy, inside the caller's bounds.
        unsafe {
            let (src, dst) = (lhs.add(r * lhs_stride), out.add(r * bytes * 2));
            let whole = bytes / 16 * 16;
            for i in (0..whole).step_by(16) {
                let x = _mm_loadu_si128(src.add(i) as *const _);
                let w = if UNSIGNED_LHS {
                    _mm256_cvtepu8_epi16(x)
                } else {
                    _mm256_cvtepi8_epi16(x)
                };
                _mm256_storeu_si256(dst.add(2 * i) as *mut _, w);
            }
            for i in whole..bytes {
                let b = *src.add(i);
                let v = if UNSIGNED_LHS {
                    b as i16
                } else {
                    b as i8 as i16
                };
                (dst.add(2 * i) as *mut i16).write_unaligned(v);
            }
        }
    }
}

/// The panel's `kq` quads of 32 columns as, per quad and group of 8 columns, a register
/// of each column's (k0,k1) as two 16-bit values and one of its (k2,k3).
///
/// # Safety
/// The CPU supports avx2; `rhs` is readable for `4·NR·kq` bytes and `out` writable for
/// `8·kq` registers.
#[target_feature(enable = "avx2")]
unsafe fn widen_panel<const UNSIGNED_LHS: bool>(rhs: *const u8, kq: usize, out: *mut __m256i) {
    // Byte indices within each 128-bit half: a column's bytes 0,1 (or 2,3) into the low
    // byte of two 16-bit lanes (zero-extended), or into the high byte, then shifted
    // down arithmetically (sign-extended). -1 clears a byte.
    let (lo, hi) = if UNSIGNED_LHS {
        (
            _mm256_broadcastsi128_si256(_mm_setr_epi8(
                -1, 0, -1, 1, -1, 4, -1, 5, -1, 8, -1, 9, -1, 12, -1, 13,
            )),
            _mm256_broadcastsi128_si256(_mm_setr_epi8(
                -1, 2, -1, 3, -1, 6, -1, 7, -1, 10, -1, 11, -1, 14, -1, 15,
            )),
        )
    } else {
        (
            _mm256_broadcastsi128_si256(_mm_setr_epi8(
                0, -1, 1, -1, 4, -1, 5, -1, 8, -1, 9, -1, 12, -1, 13, -1,
            )),
            _mm256_broadcastsi128_si256(_mm_setr_epi8(
                2, -1, 3, -1, 6, -1, 7, -1, 10, -1, 11, -1, 14, -1, 15, -1,
            )),
        )
    };
    for g in 0..kq * NR / 8 {
        // SAFETY: group g's 32 bytes lie inside the panel; its two registers inside
        // `out`.
        unsafe {
            let x = _mm256_loadu_si256(rhs.add(g * 32) as *const _);
            let (p01, p23) = (_mm256_shuffle_epi8(x, lo), _mm256_shuffle_epi8(x, hi));
            let (p01, p23) = if UNSIGNED_LHS {
                (_mm256_srai_epi16(p01, 8), _mm256_srai_epi16(p23, 8))
            } else {
                (p01, p23)
            };
            _mm256_store_si256(out.add(2 * g), p01);
            _mm256_store_si256(out.add(2 * g + 1), p23);
        }
    }
}
