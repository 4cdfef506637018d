//! Batches of matrices transposed: `[rows, cols]` → `[cols, rows]` each. The moves go
//! tile by tile, so reads and writes both stay within a few cache lines at a time (the
//! element-by-element gather strides through the whole source on every row). f32
//! matrices move 8×8 blocks through AVX2 registers: element by element, a transformer's
//! key transpose (`[S, H·D]` → `[H·D, S]`) ran at 0.7 ns an element, four times a copy.
//! Every path moves bits and nothing else, so they give the same bytes.

use crate::kernels::isa::Isa;

/// Rows and columns of a tile.
const TILE: usize = 32;

/// `v` as matrices of `rows × cols` (`v.len()` a multiple of `rows · cols`), each
/// transposed.
pub fn tiles<T: Copy + Default>(v: &[T], rows: usize, cols: usize) -> Vec<T> {
    let mut out = vec![T::default(); v.len()];
    let size = rows * cols;
    if size == 0 {
        return out;
    }
    // Narrow matrices (an NHWC plane of a few channels, a position-bias table of a few
    // heads): each output row reads one column, an interleaved group the compiler
    // loads with shuffles. Tile by tile they moved element by element, ~3 cycles each
    // (T5's [128·128, 4] bytes: 40 us).
    let narrow = match cols {
        2 => Some(narrow::<T, 2> as fn(&[T], &mut [T])),
        3 => Some(narrow::<T, 3> as fn(&[T], &mut [T])),
        4 => Some(narrow::<T, 4> as fn(&[T], &mut [T])),
        8 => Some(narrow::<T, 8> as fn(&[T], &mut [T])),
        _ => None,
    };
    if let Some(narrow) = narrow.filter(|_| rows >= 4 * TILE) {
        for (src, dst) in v.chunks_exact(size).zip(out.chunks_exact_mut(size)) {
            narrow(src, dst);
        }
        return out;
    }
    for (src, dst) in v.chunks_exact(size).zip(out.chunks_exact_mut(size)) {
        for i0 in (0..rows).step_by(TILE) {
            for j0 in (0..cols).step_by(TILE) {
                scalar_block(
                    src,
                    dst,
                    rows,
                    cols,
                    (i0, (i0 + TILE).min(rows)),
                    (j0, (j0 + TILE).min(cols)),
                );
            }
        }
    }
    out
}

/// One `[rows, C]` matrix `src` transposed into `dst`.
fn narrow<T: Copy, const C: usize>(src: &[T], dst: &mut [T]) {
    let (groups, _) = src.as_chunks::<C>();
    let rows = groups.len();
    let mut parts = dst[..rows * C].chunks_exact_mut(rows.max(1));
    let mut columns: [&mut [T]; C] = std::array::from_fn(|_| parts.next().unwrap_or_default());
    for (i, group) in groups.iter().enumerate() {
        for (column, &v) in columns.iter_mut().zip(group) {
            column[i] = v;
        }
    }
}

/// `tiles` for f32, 8×8 blocks through AVX2 where the CPU has it.
pub fn f32_tiles(v: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    #[cfg(target_arch = "x86_64")]
    if Isa::Avx2.available() && rows * cols > 0 {
        let mut out = vec![0.0f32; v.len()];
        // SAFETY: AVX2 was detected on this CPU.
        unsafe { avx2::matrices(v, &mut out, rows, cols) };
        return out;
    }
    tiles(v, rows, cols)
}

/// Elements `rows.0..rows.1` × `cols.0..cols.1` of `src` moved to their transposed
/// places in `dst`.
#[inline(always)]
fn scalar_block<T: Copy>(
    src: &[T],
    dst: &mut [T],
    rows: usize,
    cols: usize,
    (i0, i1): (usize, usize),
    (j0, j1): (usize, usize),
) {
    for i in i0..i1 {
        let row = &src[i * cols..(i + 1) * cols];
        for j in j0..j1 {
            dst[j * rows + i] = row[j];
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{TILE, scalar_block};

    /// Each `rows × cols` matrix of `src` transposed into `dst` (as long).
    #[target_feature(enable = "avx2")]
    pub(super) fn matrices(src: &[f32], dst: &mut [f32], rows: usize, cols: usize) {
        let size = rows * cols;
        for (src, dst) in src.chunks_exact(size).zip(dst.chunks_exact_mut(size)) {
            for i0 in (0..rows).step_by(TILE) {
                for j0 in (0..cols).step_by(TILE) {
                    let (i1, j1) = ((i0 + TILE).min(rows), (j0 + TILE).min(cols));
                    // Whole 8×8 blocks in registers; the tile's ragged edges one by one.
                    let (bi, bj) = (i0 + (i1 - i0) / 8 * 8, j0 + (j1 - j0) / 8 * 8);
                    for i in (i0..bi).step_by(8) {
                        for j in (j0..bj).step_by(8) {
                            block(src, dst, rows, cols, i, j);
                        }
                    }
                    scalar_block(src, dst, rows, cols, (i0, bi), (bj, j1));
                    scalar_block(src, dst, rows, cols, (bi, i1), (j0, j1));
                }
            }
        }
    }

    /// The 8×8 block at row `i`, column `j` of `src` (`rows × cols`) to `dst`.
    #[inline(always)]
    fn block(src: &[f32], dst: &mut [f32], rows: usize, cols: usize, i: usize, j: usize) {
        // The rows' and the results' bounds, checked once: every load and store below
        // lies inside them.
        assert!((i + 7) * cols + j + 8 <= src.len() && (j + 7) * rows + i + 8 <= dst.len());
        // SAFETY: AVX2 is enabled on the caller; the eight loads and stores of eight
        // f32s each lie inside `src` and `dst` (asserted above).
        unsafe {
            let s = src.as_ptr();
            let r: [__m256; 8] =
                std::array::from_fn(|k| _mm256_loadu_ps(s.add((i + k) * cols + j)));
            let t0 = _mm256_unpacklo_ps(r[0], r[1]);
            let t1 = _mm256_unpackhi_ps(r[0], r[1]);
            let t2 = _mm256_unpacklo_ps(r[2], r[3]);
            let t3 = _mm256_unpackhi_ps(r[2], r[3]);
            let t4 = _mm256_unpacklo_ps(r[4], r[5]);
            let t5 = _mm256_unpackhi_ps(r[4], r[5]);
            let t6 = _mm256_unpacklo_ps(r[6], r[7]);
            let t7 = _mm256_unpackhi_ps(r[6], r[7]);
            let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
            let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
            let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
            let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
            let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
            let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
            let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
            let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
            let o = [
                _mm256_permute2f128_ps::<0x20>(u0, u4),
                _mm256_permute2f128_ps::<0x20>(u1, u5),
                _mm256_permute2f128_ps::<0x20>(u2, u6),
                _mm256_permute2f128_ps::<0x20>(u3, u7),
                _mm256_permute2f128_ps::<0x31>(u0, u4),
                _mm256_permute2f128_ps::<0x31>(u1, u5),
                _mm256_permute2f128_ps::<0x31>(u2, u6),
                _mm256_permute2f128_ps::<0x31>(u3, u7),
            ];
            let d = dst.as_mut_ptr();
            for (k, v) in o.into_iter().enumerate() {
                _mm256_storeu_ps(d.add((j + k) * rows + i), v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Narrow matrices and the tiled ones against the definition, several at once.
    #[test]
    fn every_shape_moves_each_element_to_its_transposed_place() {
        for (batch, rows, cols) in [
            (1, 200, 4),
            (3, 128, 2),
            (2, 129, 3),
            (1, 300, 8),
            (2, 127, 4),
            (1, 70, 33),
        ] {
            let v: Vec<u8> = (0..batch * rows * cols)
                .map(|i| (i * 7 % 251) as u8)
                .collect();
            let got = tiles(&v, rows, cols);
            for b in 0..batch {
                for i in 0..rows {
                    for j in 0..cols {
                        let at = b * rows * cols;
                        assert_eq!(
                            got[at + j * rows + i],
                            v[at + i * cols + j],
                            "{batch}x{rows}x{cols}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn f32_blocks_move_like_the_scalar_tiles() {
        // Whole blocks, ragged edges, tiles of 32 and past them, several matrices, and
        // NaN payloads that must arrive bit for bit.
        for (batch, rows, cols) in [
            (1, 8, 8),
            (2, 13, 21),
            (1, 128, 256),
            (3, 40, 9),
            (1, 1, 17),
            (2, 33, 64),
        ] {
            let v: Vec<f32> = (0..batch * rows * cols)
                .map(|k| {
                    if k % 97 == 5 {
                        f32::from_bits(0x7fc0_1234 + k as u32)
                    } else {
                        k as f32 * 0.5 - 3.0
                    }
                })
                .collect();
            let want = tiles(&v, rows, cols);
            let got = f32_tiles(&v, rows, cols);
            let same = got
                .iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same && got.len() == want.len(), "{batch}×{rows}×{cols}");
            for (k, w) in want.iter().enumerate().take(rows * cols) {
                let (j, i) = (k / rows, k % rows);
                assert_eq!(w.to_bits(), v[i * cols + j].to_bits());
            }
        }
    }
}
