//! The fast f32 convolution: blocked im2col and one matrix product per block.
//!
//! For each image and group, the output `[c_out/groups, positions]` is the weight
//! `[c_out/groups, c_in/groups · taps]` times the column matrix `[c_in/groups · taps,
//! positions]`, whose row for (input channel, kernel tap) holds the input value that tap
//! meets at every output position (0 in the padding). Columns are built a tile of
//! positions at a time, so the column buffer stays bounded whatever the image size.
//!
//! Threads: with many (image, group) blocks (batches, depthwise), blocks run in parallel
//! and each product is single-threaded; with few, blocks run in turn and each tile's
//! column rows and its product are split over the pool.

use rayon::prelude::*;

use super::super::sgemm::{self, Matrix, Threads};
use super::Geometry;

/// The largest column tile, in elements (4 MiB): large enough that the product, not the
/// tiling, sets the pace; small enough to stay out of the way of the output.
const TILE_ELEMENTS: usize = 1 << 20;

/// The output of a non-transposed convolution `g` of `x` by `w`, or `None` when the
/// geometry is outside what this path handles (the caller then runs the reference).
pub(super) fn convolve(
    g: &Geometry,
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
) -> Option<Vec<f32>> {
    convolve_in_tiles(g, x, w, bias, TILE_ELEMENTS)
}

/// `convolve` with column tiles of at most `tile_elements` (tests make them small).
pub(super) fn convolve_in_tiles(
    g: &Geometry,
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
    tile_elements: usize,
) -> Option<Vec<f32>> {
    // Up to 8 spatial axes keeps `fill_row`'s coordinates on the stack.
    if g.transposed || g.output.is_empty() || g.output.len() > 8 {
        return None;
    }
    let in_block: usize = g.input.iter().product();
    let taps: usize = g.kernel.iter().product();
    let positions: usize = g.output.iter().product();
    let (cin_g, cout_g) = (g.c_in / g.groups, g.c_out / g.groups);
    let depth = cin_g.checked_mul(taps)?;
    let total = g.batch.checked_mul(g.c_out)?.checked_mul(positions)?;
    if x.len() != g.batch.checked_mul(g.c_in)?.checked_mul(in_block)?
        || w.len() != g.c_out.checked_mul(depth)?
        || bias.is_some_and(|b| b.len() != g.c_out)
    {
        return None;
    }
    let mut out = vec![0.0f32; total];
    if total == 0 {
        return Some(out);
    }
    let blocks = g.batch * g.groups;
    let block_len = cout_g * positions;
    let tile = (tile_elements / depth.max(1)).clamp(1, positions);
    // A 1×1 kernel with stride 1 and no padding reads the input planes as they are.
    let pointwise = taps == 1
        && g.stride.iter().all(|&s| s == 1)
        && g.padding.iter().all(|&p| p == 0)
        && in_block == positions;

    let block = |index: usize, y: &mut [f32], threads: Threads| -> bool {
        let (n, group) = (index / g.groups, index % g.groups);
        let x_block = &x[(n * g.c_in + group * cin_g) * in_block..][..cin_g * in_block];
        let weight = Matrix {
            data: &w[group * cout_g * depth..][..cout_g * depth],
            rows: cout_g,
            cols: depth,
            row_stride: depth,
        };
        if pointwise {
            let cols = Matrix {
                data: x_block,
                rows: cin_g,
                cols: positions,
                row_stride: in_block,
            };
            return sgemm::multiply(weight, cols, y, positions, threads);
        }
        let mut buffer = vec![0.0f32; depth * tile];
        let mut start = 0;
        while start < positions {
            let len = tile.min(positions - start);
            let columns = &mut buffer[..depth * len];
            let fill = |(row, column): (usize, &mut [f32])| {
                let (icg, tap) = (row / taps, row % taps);
                fill_row(
                    g,
                    &x_block[icg * in_block..][..in_block],
                    tap,
                    start,
                    column,
                );
            };
            match threads {
                Threads::Pool => columns.par_chunks_mut(len).enumerate().for_each(fill),
                Threads::One => columns.chunks_mut(len).enumerate().for_each(fill),
            }
            let cols = Matrix {
                data: columns,
                rows: depth,
                cols: len,
                row_stride: len,
            };
            if !sgemm::multiply(weight, cols, &mut y[start..], positions, threads) {
                return false;
            }
            start += len;
        }
        true
    };

    let threads = rayon::current_num_threads();
    let fine = if blocks >= 2 * threads {
        out.par_chunks_mut(block_len)
            .enumerate()
            .map(|(i, y)| block(i, y, Threads::One))
            .all(|ok| ok)
    } else {
        out.chunks_mut(block_len)
            .enumerate()
            .all(|(i, y)| block(i, y, Threads::Pool))
    };
    if !fine {
        return None;
    }
    if let Some(bias) = bias {
        // The bias comes after the sum, as in the reference kernel.
        out.par_chunks_mut(positions)
            .enumerate()
            .for_each(|(row, y)| {
                let b = bias[row % g.c_out];
                y.iter_mut().for_each(|v| *v += b);
            });
    }
    Some(out)
}

/// Fills `column` with what kernel tap `tap` (row-major over the kernel) meets in the
/// channel plane `plane` at output positions `start..start + column.len()`.
fn fill_row(g: &Geometry, plane: &[f32], tap: usize, start: usize, column: &mut [f32]) {
    let rank = g.output.len();
    let last = rank - 1;
    // The tap's kernel coordinates and the output coordinates of `start`.
    let mut kernel = [0usize; 8];
    let mut coord = [0usize; 8];
    let (mut t, mut p) = (tap, start);
    for i in (0..rank).rev() {
        kernel[i] = t % g.kernel[i];
        t /= g.kernel[i];
        coord[i] = p % g.output[i];
        p /= g.output[i];
    }
    // Where output coordinate 0 of each axis lands in the input (may be negative).
    let offset = |i: usize| kernel[i] as i64 * g.dilation[i] as i64 - g.padding[i] as i64;
    let (stride, size) = (g.stride[last] as i64, g.input[last] as i64);
    let last_offset = offset(last);
    // The output range along the last axis whose taps land inside the input.
    let first_inside = if last_offset >= 0 {
        0
    } else {
        ((-last_offset + stride - 1) / stride) as usize
    };
    let end_inside = if size > last_offset {
        ((size - last_offset + stride - 1) / stride) as usize
    } else {
        0
    };
    let mut done = 0;
    while done < column.len() {
        let run_len = (g.output[last] - coord[last]).min(column.len() - done);
        let run = &mut column[done..done + run_len];
        // The outer axes: inside the input, or the whole run is padding.
        let mut base = Some(0usize);
        let mut plane_stride = g.input[last];
        for i in (0..last).rev() {
            let at = coord[i] as i64 * g.stride[i] as i64 + offset(i);
            base = match base {
                Some(b) if (0..g.input[i] as i64).contains(&at) => {
                    Some(b + at as usize * plane_stride)
                }
                _ => None,
            };
            plane_stride *= g.input[i];
        }
        match base {
            None => run.fill(0.0),
            Some(base) => {
                let lo = first_inside.clamp(coord[last], coord[last] + run_len);
                let hi = end_inside.clamp(lo, coord[last] + run_len);
                let (head, rest) = run.split_at_mut(lo - coord[last]);
                let (body, tail) = rest.split_at_mut(hi - lo);
                head.fill(0.0);
                tail.fill(0.0);
                if !body.is_empty() {
                    // lo ≥ first_inside, so its input coordinate is not negative.
                    let from = base + (lo as i64 * stride + last_offset) as usize;
                    if stride == 1 {
                        body.copy_from_slice(&plane[from..from + body.len()]);
                    } else {
                        let s = stride as usize;
                        for (k, v) in body.iter_mut().enumerate() {
                            *v = plane[from + k * s];
                        }
                    }
                }
            }
        }
        done += run_len;
        // The next run starts the next row of the output.
        coord[last] = 0;
        for i in (0..last).rev() {
            coord[i] += 1;
            if coord[i] < g.output[i] {
                break;
            }
            coord[i] = 0;
        }
    }
}
