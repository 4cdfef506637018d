//! Strides 1 and 2 in 64-byte registers with AVX-512 BW and VBMI: a stride-2 tap's
//! bytes are the even bytes of two registers, one `vpermt2b`, where the AVX2 path
//! split each row into halves in memory first, and the tails are masked loads and
//! stores rather than copies into whole blocks (ResNet-18's stem pool, 64 planes of
//! 112x112: 0.154 ms at 1 thread before).

use super::Columns;

/// Bytes the row buffer needs: input column -padding on, its whole registers, and
/// every register the column windows read (all past the row stay zero).
pub(super) fn len(iw: usize, cols: Columns) -> usize {
    let Columns {
        kernel: k,
        stride: s,
        padding: p,
        dilation: d,
        outputs: ow,
    } = cols;
    (p + iw.next_multiple_of(64)).max(k.saturating_sub(1) * d + s * ow.next_multiple_of(64) + 64)
}

/// Whether `plane` runs these columns on this CPU.
pub(super) fn applies(cols: Columns) -> bool {
    matches!(cols.stride, 1 | 2) && crate::kernels::isa::byte_permutes()
}

/// `Rows::plane` of one plane into `y`, through the row buffer `padded`, at least
/// `len(iw, cols)` bytes and zero wherever this function has not written (it writes
/// only input columns 0..iw rounded up to registers, their lanes past iw as zeros).
///
/// # Safety
/// The CPU has avx512f, avx512bw and avx512vbmi (`applies`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn plane(
    padded: &mut [u8],
    plane: &[u8],
    iw: usize,
    row_taps: &[&[usize]],
    cols: Columns,
    flip: u8,
    y: &mut [u8],
) {
    use std::arch::x86_64::*;
    let Columns {
        kernel: k,
        stride: s,
        padding: p,
        dilation: d,
        outputs: ow,
    } = cols;
    assert!(padded.len() >= len(iw, cols), "row buffer too short");
    assert!(matches!(s, 1 | 2) && ow > 0, "stride {s} or no outputs");
    let lanes = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    let even: [u8; 64] = std::array::from_fn(|i| 2 * i as u8);
    // SAFETY: the caller has the features every intrinsic here needs; each load and
    // store is bounded as its comment says.
    unsafe {
        let flips = _mm512_set1_epi8(flip as i8);
        let even = _mm512_loadu_si512(even.as_ptr() as *const _);
        for (taps, y) in row_taps.iter().zip(y.chunks_exact_mut(ow)) {
            for at in (0..iw).step_by(64) {
                let mask = lanes(iw - at);
                let mut m = _mm512_setzero_si512();
                for &r in *taps {
                    let row = &plane[r * iw..(r + 1) * iw];
                    // SAFETY: the mask keeps the load inside the row.
                    let v = _mm512_maskz_loadu_epi8(mask, row.as_ptr().add(at) as *const i8);
                    let v = _mm512_maskz_mov_epi8(mask, _mm512_xor_si512(v, flips));
                    m = _mm512_max_epu8(m, v);
                }
                // SAFETY: p + at + 64 <= p + iw rounded up <= len.
                _mm512_storeu_si512(padded.as_mut_ptr().add(p + at) as *mut _, m);
            }
            for j in (0..ow).step_by(64) {
                let mut m = _mm512_setzero_si512();
                for t in 0..k {
                    // SAFETY: t·d + s·j + 64·s <= (k-1)·d + s·ow rounded up + 64 <= len.
                    let base = padded.as_ptr().add(t * d + s * j);
                    let v = if s == 2 {
                        let lo = _mm512_loadu_si512(base as *const _);
                        let hi = _mm512_loadu_si512(base.add(64) as *const _);
                        _mm512_permutex2var_epi8(lo, even, hi)
                    } else {
                        _mm512_loadu_si512(base as *const _)
                    };
                    m = _mm512_max_epu8(m, v);
                }
                // SAFETY: the mask keeps the store inside the output row.
                let out = _mm512_xor_si512(m, flips);
                _mm512_mask_storeu_epi8(y.as_mut_ptr().add(j) as *mut i8, lanes(ow - j), out);
            }
        }
    }
}
