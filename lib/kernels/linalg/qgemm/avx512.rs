//! The tile with AVX-512 VNNI: `vpdpbusd` multiplies 4 unsigned by 4 signed bytes per
//! 32-bit lane and adds the four products to the lane, without saturation. Two
//! registers hold a panel row's 32 columns; each L quad is broadcast to all lanes.

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::*;

use super::{MR, NR, Signs, Tile};

/// # Safety
/// The CPU supports avx512f, avx512bw and avx512vnni; `lhs` is readable for
/// `(MR-1)·lhs_stride + 4·kq` bytes and `rhs` for `4·NR·kq` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
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

#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn run<const UNSIGNED_LHS: bool>(
    lhs: *const u8,
    lhs_stride: usize,
    rhs: *const u8,
    kq: usize,
    out: &mut Tile,
) {
    // SAFETY: forwarded from the caller.
    let acc = unsafe { sums::<UNSIGNED_LHS>(lhs, lhs_stride, rhs, kq) };
    for (row, a) in out.iter_mut().zip(&acc) {
        // SAFETY: each row is 32 i32s, two 64-byte stores.
        unsafe {
            _mm512_storeu_si512(row.as_mut_ptr() as *mut _, a[0]);
            _mm512_storeu_si512(row.as_mut_ptr().add(16) as *mut _, a[1]);
        }
    }
}

/// A tile's sums still in registers: row r's columns 0-15 and 16-31.
pub type Sums = [[__m512i; 2]; MR];

/// The tile's sums, left in registers for an epilogue inlined after them (a tile
/// stored and read back by the epilogue stalled on the reload).
///
/// # Safety
/// As `tile`'s, and the caller is compiled with the features (this is inlined into it).
#[inline(always)]
pub unsafe fn sums<const UNSIGNED_LHS: bool>(
    lhs: *const u8,
    lhs_stride: usize,
    rhs: *const u8,
    kq: usize,
) -> Sums {
    const _: () = assert!(NR == 32);
    // SAFETY: the caller has the features.
    let mut acc = [[unsafe { _mm512_setzero_si512() }; 2]; MR];
    for q in 0..kq {
        // SAFETY: quad q of the panel is inside `rhs` (4·NR·kq bytes).
        let (r0, r1) = unsafe {
            let p = rhs.add(q * NR * 4);
            (
                _mm512_loadu_si512(p as *const _),
                _mm512_loadu_si512(p.add(64) as *const _),
            )
        };
        for (r, a) in acc.iter_mut().enumerate() {
            // SAFETY: row r's quad q lies inside `lhs`; read unaligned.
            let quad = unsafe { (lhs.add(r * lhs_stride + q * 4) as *const i32).read_unaligned() };
            // SAFETY: as above.
            unsafe {
                let l = _mm512_set1_epi32(quad);
                if UNSIGNED_LHS {
                    a[0] = _mm512_dpbusd_epi32(a[0], l, r0);
                    a[1] = _mm512_dpbusd_epi32(a[1], l, r1);
                } else {
                    a[0] = _mm512_dpbusd_epi32(a[0], r0, l);
                    a[1] = _mm512_dpbusd_epi32(a[1], r1, l);
                }
            }
        }
    }
    acc
}
