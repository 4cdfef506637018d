//! 8-bit integer matrix products with exact int32 accumulation: the inner loop of the
//! quantized convolution and matmul. Paths: AMX-INT8 tiles where the CPU and OS offer
//! them, AVX-512 VNNI, AVX2 (16-bit products), portable Rust. One operand is unsigned bytes, the other signed
//! (the shape of AVX-512 VNNI's `vpdpbusd`); the drivers shift u8×u8 and i8×i8 operands
//! into that form by moving values and zero points together, which leaves
//! `Σ (a - a_zero)(b - b_zero)` unchanged.
//!
//! Layout. The left operand L is row-major with rows of `kq` quads (4·kq bytes, zero
//! padded past K). The right operand R comes in panels of `NR` columns: for each quad
//! q, `NR` groups of 4 bytes, group j holding R[4q..4q+4][j]. A tile is `MR` rows of L
//! against one panel. Sums wrap modulo 2^32, as an int32 accumulator does, on every
//! path, so all paths give the same integers.

mod aligned;
mod amx;
mod avx2;
mod avx512;
mod portable;
pub mod requant;

pub use aligned::Aligned;
#[cfg(target_arch = "x86_64")]
pub use avx512::Sums;

use crate::kernels::isa::Isa;

/// Rows of L in a tile.
pub const MR: usize = 8;
/// Columns of R in a panel and a tile.
pub const NR: usize = 32;

pub type Tile = [[i32; NR]; MR];

/// Which operand holds the signed bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signs {
    /// L signed, R unsigned: convolution (weights × activations).
    SignedLhs,
    /// L unsigned, R signed: matmul (activations × weights).
    UnsignedLhs,
}

/// Panics unless `lhs` holds `rows` rows `lhs_stride` bytes apart of `kq` quads each and
/// `rhs` one panel of `kq` quads: the drivers size them, and the check keeps the SIMD
/// paths' raw reads in bounds.
fn check_operands(lhs: &[u8], lhs_stride: usize, rhs: &[u8], kq: usize, rows: usize) {
    assert!(lhs_stride >= kq * 4, "lhs rows shorter than kq quads");
    assert!(
        lhs.len() >= (rows - 1) * lhs_stride + kq * 4,
        "lhs too short"
    );
    assert!(rhs.len() >= kq * NR * 4, "rhs panel too short");
}

/// `out[r][j] = Σ_k L[r][k]·R[k][j]` for the `MR` rows of `lhs` (row r at
/// `r·lhs_stride`) against one panel of `rhs`, over `kq` quads. Every element of `out`
/// is overwritten. Panics if the slices are too short for that (`check_operands`).
pub fn tile(
    isa: Isa,
    signs: Signs,
    lhs: &[u8],
    lhs_stride: usize,
    rhs: &[u8],
    kq: usize,
    out: &mut Tile,
) {
    check_operands(lhs, lhs_stride, rhs, kq, MR);
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the feature check guards the instructions; the check above keeps
        // every read inside `lhs` and `rhs`.
        Isa::Avx512Vnni if isa.available() => unsafe {
            avx512::tile(signs, lhs.as_ptr(), lhs_stride, rhs.as_ptr(), kq, out)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Isa::Avx2 if isa.available() => unsafe {
            avx2::tiles(
                signs,
                lhs.as_ptr(),
                lhs_stride,
                rhs.as_ptr(),
                kq,
                std::slice::from_mut(out),
            )
        },
        _ => portable::tile(signs, lhs, lhs_stride, rhs, kq, out),
    }
}

/// Whether `tiles` of four is faster than four calls of `tile`: with AMX tiles, whose
/// loads a single tile's rows do not amortize, and with AVX2, which widens the panel
/// once for all four.
pub fn prefers_tiles4(isa: Isa) -> bool {
    amx(isa) || (isa == Isa::Avx2 && isa.available())
}

/// `tile` of a matmul (L unsigned) on AVX-512 VNNI, its sums left in registers for the
/// caller's epilogue. Panics as `tile` does.
///
/// # Safety
/// The CPU has avx512f, avx512bw and avx512vnni, and the caller is compiled with them.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn unsigned_sums_avx512(lhs: &[u8], lhs_stride: usize, rhs: &[u8], kq: usize) -> Sums {
    check_operands(lhs, lhs_stride, rhs, kq, MR);
    // SAFETY: the caller's features; the check keeps every read inside the slices.
    unsafe { avx512::sums::<true>(lhs.as_ptr(), lhs_stride, rhs.as_ptr(), kq) }
}

/// Whether `isa`'s tiles run on AMX.
pub fn amx(isa: Isa) -> bool {
    isa == Isa::Avx512Vnni && isa.available() && crate::kernels::isa::int8_tiles()
}

/// `out[i]` = `tile` of rows `i·MR..(i+1)·MR` of `lhs` against one panel: four at once
/// with AMX, all at once (one widening of the panel) with AVX2, else tile by tile.
pub fn tiles(
    isa: Isa,
    signs: Signs,
    lhs: &[u8],
    lhs_stride: usize,
    rhs: &[u8],
    kq: usize,
    out: &mut [Tile],
) {
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx2 && isa.available() && !out.is_empty() {
        check_operands(lhs, lhs_stride, rhs, kq, out.len() * MR);
        // SAFETY: AVX2 is available; the check keeps every read inside `lhs` and `rhs`.
        unsafe { avx2::tiles(signs, lhs.as_ptr(), lhs_stride, rhs.as_ptr(), kq, out) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if let Ok(four) = <&mut [Tile; 4]>::try_from(&mut *out)
        && amx(isa)
    {
        check_operands(lhs, lhs_stride, rhs, kq, 4 * MR);
        // SAFETY: AMX is usable (amx); the check keeps every read inside
        // `lhs` and `rhs`.
        unsafe { amx::tiles4(signs, lhs.as_ptr(), lhs_stride, rhs.as_ptr(), kq, four) };
        return;
    }
    for (i, t) in out.iter_mut().enumerate() {
        tile(
            isa,
            signs,
            &lhs[i * MR * lhs_stride..],
            lhs_stride,
            rhs,
            kq,
            t,
        );
    }
}

/// Quads needed for `k` values.
pub fn quads(k: usize) -> usize {
    k.div_ceil(4)
}

/// Rounds `m` rows up to whole tiles.
pub fn padded_rows(m: usize) -> usize {
    m.div_ceil(MR) * MR
}

/// Bytes between rows of a packed L for `k` values: whole quads, and with AMX tiles
/// whole 64-byte lines, so that every row of a tile starts on one (the padding is
/// zeros past K, which no path reads as more than zero products).
pub fn lhs_stride(k: usize) -> usize {
    let bytes = quads(k) * 4;
    if amx(Isa::best()) {
        bytes.next_multiple_of(64)
    } else {
        bytes
    }
}

/// Packs `cols` columns of a k×cols matrix (`at(k, j)`) into panels, zero padded to
/// whole quads and whole panels.
pub fn pack_panels(k: usize, cols: usize, at: impl Fn(usize, usize) -> u8) -> Aligned {
    let kq = quads(k);
    let panels = cols.div_ceil(NR);
    let mut out = Aligned::zeroed(panels * kq * NR * 4);
    for (p, panel) in out.chunks_exact_mut(kq * NR * 4).enumerate() {
        for q in 0..kq {
            for j in 0..NR {
                let col = p * NR + j;
                if col >= cols {
                    continue;
                }
                for t in 0..4 {
                    let kk = q * 4 + t;
                    if kk < k {
                        panel[(q * NR + j) * 4 + t] = at(kk, col);
                    }
                }
            }
        }
    }
    out
}

/// `pack_panels` of a row-major k×cols matrix held in `bytes` (at least k·cols of
/// them): each quad of a panel interleaves four row slices, with no per-byte call
/// (an attention product packs one per head on every run).
pub fn pack_panels_row_major(k: usize, cols: usize, bytes: &[u8]) -> Aligned {
    let kq = quads(k);
    let panels = cols.div_ceil(NR);
    let mut out = Aligned::zeroed(panels * kq * NR * 4);
    if cols == 0 {
        return out;
    }
    let zeros = [0u8; NR];
    #[cfg(target_arch = "x86_64")]
    let avx2 = Isa::Avx2.available();
    for (p, panel) in out.chunks_exact_mut(kq * NR * 4).enumerate() {
        let first = p * NR;
        let width = NR.min(cols - first);
        for (q, quad) in panel.chunks_exact_mut(NR * 4).enumerate() {
            let row = |t: usize| -> &[u8] {
                let kk = q * 4 + t;
                if kk < k {
                    &bytes[kk * cols + first..][..width]
                } else {
                    &zeros[..width]
                }
            };
            let rows = [row(0), row(1), row(2), row(3)];
            #[cfg(target_arch = "x86_64")]
            if width == NR && avx2 {
                // SAFETY: the CPU has AVX2; four rows of NR bytes, a quad of NR words.
                unsafe { interleave_quad_avx2(rows, quad) };
                continue;
            }
            for (j, word) in quad.chunks_exact_mut(4).take(width).enumerate() {
                word.copy_from_slice(&[rows[0][j], rows[1][j], rows[2][j], rows[3][j]]);
            }
        }
    }
    out
}

/// The NR words of one quad: word j is byte j of each of the four rows.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn interleave_quad_avx2(rows: [&[u8]; 4], quad: &mut [u8]) {
    use std::arch::x86_64::*;
    const _: () = assert!(NR == 32);
    assert!(rows.iter().all(|r| r.len() >= NR) && quad.len() >= NR * 4);
    // SAFETY: each row holds 32 bytes and `quad` 128 (asserted).
    unsafe {
        let r = rows.map(|r| _mm256_loadu_si256(r.as_ptr() as *const __m256i));
        // Bytes of rows 0/1 and 2/3 paired, then the pairs paired: words of columns
        // 0-3 | 16-19, 4-7 | 20-23, 8-11 | 24-27 and 12-15 | 28-31.
        let (lo01, hi01) = (
            _mm256_unpacklo_epi8(r[0], r[1]),
            _mm256_unpackhi_epi8(r[0], r[1]),
        );
        let (lo23, hi23) = (
            _mm256_unpacklo_epi8(r[2], r[3]),
            _mm256_unpackhi_epi8(r[2], r[3]),
        );
        let a = _mm256_unpacklo_epi16(lo01, lo23);
        let b = _mm256_unpackhi_epi16(lo01, lo23);
        let c = _mm256_unpacklo_epi16(hi01, hi23);
        let d = _mm256_unpackhi_epi16(hi01, hi23);
        let out = quad.as_mut_ptr() as *mut __m256i;
        _mm256_storeu_si256(out, _mm256_permute2x128_si256::<0x20>(a, b));
        _mm256_storeu_si256(out.add(1), _mm256_permute2x128_si256::<0x20>(c, d));
        _mm256_storeu_si256(out.add(2), _mm256_permute2x128_si256::<0x31>(a, b));
        _mm256_storeu_si256(out.add(3), _mm256_permute2x128_si256::<0x31>(c, d));
    }
}

/// Packs `m` rows of an m×k matrix (`at(r, k)`) as L into `out`: rows `stride` bytes
/// apart (at least whole quads), zero rows up to whole tiles.
pub fn pack_rows(
    out: &mut [u8],
    stride: usize,
    m: usize,
    k: usize,
    at: impl Fn(usize, usize) -> u8,
) {
    for r in 0..m {
        for kk in 0..k {
            out[r * stride + kk] = at(r, kk);
        }
    }
}

/// A row-major m×k matrix held in `bytes`, packed as L with rows `stride` bytes apart:
/// each row one copy.
pub fn pack_row_major(m: usize, k: usize, stride: usize, bytes: &[u8]) -> Aligned {
    let mut out = Aligned::zeroed(padded_rows(m) * stride);
    if k > 0 {
        for (dst, src) in out
            .chunks_exact_mut(stride)
            .zip(bytes.chunks_exact(k).take(m))
        {
            dst[..k].copy_from_slice(src);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::testing::test_bytes as bytes;

    fn naive(signs: Signs, lhs: &[u8], stride: usize, rhs: &[u8], kq: usize) -> Tile {
        let mut out = [[0i32; NR]; MR];
        for (r, row) in out.iter_mut().enumerate() {
            for (j, o) in row.iter_mut().enumerate() {
                for q in 0..kq {
                    for t in 0..4 {
                        let l = lhs[r * stride + q * 4 + t];
                        let x = rhs[(q * NR + j) * 4 + t];
                        let (l, x) = match signs {
                            Signs::SignedLhs => (l as i8 as i32, x as i32),
                            Signs::UnsignedLhs => (l as i32, x as i8 as i32),
                        };
                        *o = o.wrapping_add(l * x);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_path_computes_the_exact_sums() {
        for isa in Isa::all_available() {
            for signs in [Signs::SignedLhs, Signs::UnsignedLhs] {
                for (seed, kq) in [(1, 1), (2, 3), (3, 37), (4, 200)] {
                    let stride = kq * 4 + 8;
                    let lhs = bytes(seed, MR * stride);
                    let rhs = bytes(seed + 100, kq * NR * 4);
                    let want = naive(signs, &lhs, stride, &rhs, kq);
                    let mut got = [[7; NR]; MR];
                    tile(isa, signs, &lhs, stride, &rhs, kq, &mut got);
                    assert_eq!(got, want, "{isa:?} {signs:?} kq={kq}");
                }
            }
        }
    }

    #[test]
    fn four_tiles_at_once_give_the_exact_sums() {
        for isa in Isa::all_available() {
            for signs in [Signs::SignedLhs, Signs::UnsignedLhs] {
                for (seed, kq) in [(1, 1), (2, 3), (3, 16), (4, 17), (5, 37), (6, 200)] {
                    let stride = kq * 4 + 8;
                    let lhs = bytes(seed, 4 * MR * stride);
                    let rhs = bytes(seed + 100, kq * NR * 4);
                    let mut got = [[[7; NR]; MR]; 4];
                    tiles(isa, signs, &lhs, stride, &rhs, kq, &mut got);
                    for (i, g) in got.iter().enumerate() {
                        let want = naive(signs, &lhs[i * MR * stride..], stride, &rhs, kq);
                        assert_eq!(g, &want, "{isa:?} {signs:?} kq={kq} tile {i}");
                    }
                }
            }
        }
        let kq = 64;
        let mut t = [[[0; NR]; MR]; 4];
        let (signed, unsigned) = (vec![0x80u8; 4 * MR * 256], vec![0xffu8; 64 * NR * 4]);
        tiles(
            Isa::best(),
            Signs::SignedLhs,
            &signed,
            kq * 4,
            &unsigned,
            kq,
            &mut t,
        );
        assert!(t.iter().flatten().flatten().all(|&v| v == -128 * 255 * 256));
    }

    #[test]
    fn extreme_operands_do_not_saturate() {
        // 255·(-128) four times a quad: 16-bit pair sums would saturate here.
        for isa in Isa::all_available() {
            let kq = 64;
            let (signed, unsigned) = (0x80u8, 0xffu8);
            let mut t = [[0; NR]; MR];
            tile(
                isa,
                Signs::SignedLhs,
                &vec![signed; MR * kq * 4],
                kq * 4,
                &vec![unsigned; kq * NR * 4],
                kq,
                &mut t,
            );
            assert!(
                t.iter().flatten().all(|&v| v == -128 * 255 * 256),
                "{isa:?}"
            );
            tile(
                isa,
                Signs::UnsignedLhs,
                &vec![unsigned; MR * kq * 4],
                kq * 4,
                &vec![signed; kq * NR * 4],
                kq,
                &mut t,
            );
            assert!(
                t.iter().flatten().all(|&v| v == -128 * 255 * 256),
                "{isa:?}"
            );
        }
    }

    #[test]
    fn row_major_panels_are_the_general_packing() {
        for (k, cols) in [
            (1, 1),
            (5, 3),
            (8, 32),
            (9, 33),
            (64, 128),
            (13, 70),
            (3, 0),
        ] {
            let bytes: Vec<u8> = (0..k * cols).map(|i| (i * 37 + 11) as u8).collect();
            let want = pack_panels(k, cols, |kk, j| bytes[kk * cols + j]);
            assert_eq!(
                &pack_panels_row_major(k, cols, &bytes)[..],
                &want[..],
                "{k}x{cols}"
            );
        }
    }

    #[test]
    fn packing_pads_quads_rows_and_panels_with_zeros() {
        let panels = pack_panels(5, 3, |k, j| (10 * k + j + 1) as u8);
        assert_eq!(panels.len(), 2 * NR * 4);
        assert_eq!(&panels[..8], &[1, 11, 21, 31, 2, 12, 22, 32]);
        assert_eq!(&panels[NR * 4..NR * 4 + 4], &[41, 0, 0, 0]);
        assert!(panels[3 * 4..NR * 4].iter().all(|&b| b == 0));
        let mut rows = vec![0u8; padded_rows(2) * 8];
        pack_rows(&mut rows, 8, 2, 5, |r, k| (10 * r + k + 1) as u8);
        let bytes: Vec<u8> = (0..2)
            .flat_map(|r| (0..5).map(move |k| (10 * r + k + 1) as u8))
            .collect();
        assert_eq!(&pack_row_major(2, 5, 8, &bytes)[..], &rows[..]);
        assert_eq!(rows.len(), MR * 8);
        assert_eq!(
            &rows[..16],
            &[1, 2, 3, 4, 5, 0, 0, 0, 11, 12, 13, 14, 15, 0, 0, 0]
        );
    }
}
