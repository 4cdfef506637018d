//! The fast f32 transposed convolution: one matrix product and a scatter.
//!
//! For each image and group, every input position meets every kernel tap once: the
//! products `[c_out/groups · taps, positions]` are the transposed weight `[c_out/groups ·
//! taps, c_in/groups]` times the input `[c_in/groups, positions]`, and row (output
//! channel, tap) then adds to output position `input·stride - padding + tap·dilation`
//! (per axis) where that lies inside the output. Each output sums its taps in kernel
//! order and adds the bias last; the product rounds as `sgemm` does, like the forward
//! fast path (`im2col`), not as the reference kernel.

use rayon::prelude::*;

use super::super::sgemm::{self, Matrix, Threads};
use super::super::strided::inside;
use super::Geometry;

/// The output of a transposed convolution `g` of `x` by `w` (laid out `[c_in,
/// c_out/groups, kernel…]`), or `None` when the operands do not match the geometry
/// (the caller then runs the reference).
pub(super) fn convolve(
    g: &Geometry,
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
) -> Option<Vec<f32>> {
    if !g.transposed || g.output.is_empty() {
        return None;
    }
    let in_block: usize = g.input.iter().product();
    let taps: usize = g.kernel.iter().product();
    let out_block: usize = g.output.iter().product();
    let (cin_g, cout_g) = (g.c_in / g.groups, g.c_out / g.groups);
    let rows = cout_g.checked_mul(taps)?;
    let total = g.batch.checked_mul(g.c_out)?.checked_mul(out_block)?;
    if x.len() != g.batch.checked_mul(g.c_in)?.checked_mul(in_block)?
        || w.len() != g.c_in.checked_mul(rows)?
        || bias.is_some_and(|b| b.len() != g.c_out)
        || rows.checked_mul(in_block)? > 1 << 24
    {
        return None;
    }
    let mut out = vec![0.0f32; total];
    if total == 0 || in_block == 0 {
        return Some(out);
    }
    let kernel_coordinates = kernel_coordinates(&g.kernel);
    let interleaved = interleaves(g);
    let blocks = g.batch * g.groups;
    let threads = if blocks >= 2 * rayon::current_num_threads() {
        Threads::One
    } else {
        Threads::Pool
    };
    let block = |index: usize, y: &mut [f32]| -> bool {
        let (n, group) = (index / g.groups, index % g.groups);
        let x_block = &x[(n * g.c_in + group * cin_g) * in_block..][..cin_g * in_block];
        // The group's weight, transposed: row (output channel, tap), column input channel.
        let w_group = &w[group * cin_g * rows..][..cin_g * rows];
        let mut transposed = vec![0.0f32; rows * cin_g];
        for (ic, row) in w_group.chunks_exact(rows).enumerate() {
            for (r, &v) in row.iter().enumerate() {
                transposed[r * cin_g + ic] = v;
            }
        }
        let a = Matrix {
            data: &transposed,
            rows,
            cols: cin_g,
            row_stride: cin_g,
        };
        let b = Matrix {
            data: x_block,
            rows: cin_g,
            cols: in_block,
            row_stride: in_block,
        };
        let mut products = vec![0.0f32; rows * in_block];
        if !sgemm::multiply(a, b, &mut products, in_block, threads) {
            return false;
        }
        let channel = |(oc, y): (usize, &mut [f32])| {
            let row = |tap: usize| &products[(oc * taps + tap) * in_block..][..in_block];
            if interleaved {
                // The taps along the last axis, in order, land side by side.
                let kw = g.kernel[g.kernel.len() - 1];
                for first in (0..taps).step_by(kw) {
                    let rows: Vec<&[f32]> = (first..first + kw).map(row).collect();
                    add_interleaved(g, &kernel_coordinates[first], &rows, y);
                }
            } else {
                for (tap, kernel) in kernel_coordinates.iter().enumerate() {
                    add_tap(g, kernel, row(tap), y);
                }
            }
        };
        match threads {
            Threads::One => y.chunks_exact_mut(out_block).enumerate().for_each(channel),
            Threads::Pool => y
                .par_chunks_exact_mut(out_block)
                .enumerate()
                .for_each(channel),
        }
        true
    };
    let block_len = cout_g * out_block;
    let fine = match threads {
        Threads::One => out
            .par_chunks_mut(block_len)
            .enumerate()
            .map(|(i, y)| block(i, y))
            .all(|ok| ok),
        Threads::Pool => out
            .chunks_mut(block_len)
            .enumerate()
            .all(|(i, y)| block(i, y)),
    };
    if !fine {
        return None;
    }
    if let Some(bias) = bias {
        // The bias comes after the sum, as in the reference kernel.
        out.par_chunks_mut(out_block)
            .enumerate()
            .for_each(|(row, y)| {
                let b = bias[row % g.c_out];
                y.iter_mut().for_each(|v| *v += b);
            });
    }
    Some(out)
}

/// Each kernel tap's coordinates, taps in row-major order (last axis fastest).
fn kernel_coordinates(kernel: &[usize]) -> Vec<Vec<usize>> {
    let taps: usize = kernel.iter().product();
    (0..taps)
        .map(|tap| {
            let mut coords = vec![0usize; kernel.len()];
            let mut t = tap;
            for i in (0..kernel.len()).rev() {
                coords[i] = t % kernel[i];
                t /= kernel[i];
            }
            coords
        })
        .collect()
}

/// Whether the taps along the last axis tile it: stride equal to the kernel, no
/// dilation or padding, and an output of exactly `input · stride` (the 2x2 stride-2
/// upsampling of detection and segmentation heads). Then each output element of a
/// row takes one of those taps, and `add_interleaved` adds them in one pass.
fn interleaves(g: &Geometry) -> bool {
    let last = g.output.len() - 1;
    let k = g.kernel[last];
    k > 1
        && g.stride[last] == k
        && g.dilation[last] == 1
        && g.padding[last] == 0
        && g.input[last].checked_mul(k) == Some(g.output[last])
}

/// `add_tap` of the `rows` of the taps `kernel`, `kernel + 1`, … along the last axis
/// (`interleaves`): output column `x · k + j` of a row adds `rows[j][x]`, so each
/// element still adds its taps in kernel order, over contiguous output.
fn add_interleaved(g: &Geometry, kernel: &[usize], rows: &[&[f32]], y: &mut [f32]) {
    let last = g.output.len() - 1;
    let (width, out_width, k) = (g.input[last], g.output[last], rows.len());
    if width == 0 {
        return;
    }
    let mut coord = vec![0usize; last];
    for r in 0..rows[0].len() / width {
        if let Some(o) = output_row(g, kernel, &coord) {
            let out = &mut y[o * out_width..][..out_width];
            let input = |j: usize| &rows[j][r * width..][..width];
            if k == 2 {
                for ((pair, &u), &v) in out.chunks_exact_mut(2).zip(input(0)).zip(input(1)) {
                    pair[0] += u;
                    pair[1] += v;
                }
            } else {
                // Each element takes one of these taps, so the order of j is free.
                for j in 0..k {
                    for (x, &v) in input(j).iter().enumerate() {
                        out[x * k + j] += v;
                    }
                }
            }
        }
        next_row(g, &mut coord);
    }
}

/// The output row (flat over every axis but the last) where input row `coord` lands
/// for tap `kernel`, or `None` outside the output.
fn output_row(g: &Geometry, kernel: &[usize], coord: &[usize]) -> Option<usize> {
    let mut out_row = Some(0usize);
    for (i, &c) in coord.iter().enumerate() {
        let o = (c * g.stride[i] + kernel[i] * g.dilation[i])
            .checked_sub(g.padding[i])
            .filter(|&o| o < g.output[i]);
        out_row = out_row.zip(o).map(|(flat, o)| flat * g.output[i] + o);
    }
    out_row
}

/// `coord` (every input axis but the last) moved on to the next input row.
fn next_row(g: &Geometry, coord: &mut [usize]) {
    for i in (0..coord.len()).rev() {
        coord[i] += 1;
        if coord[i] < g.input[i] {
            break;
        }
        coord[i] = 0;
    }
}

/// Adds one tap's products `row` (one per input position) to the output plane `y`:
/// input position `c` lands on `c·stride - padding + tap·dilation` per axis, where
/// that lies inside the output. Walked a row of the last axis at a time, whose
/// inside positions form one strided run (a table of position pairs per tap, built
/// each call, cost more than the product: PP-OCR's 2x2 stride-2 upsampling).
fn add_tap(g: &Geometry, kernel: &[usize], row: &[f32], y: &mut [f32]) {
    let last = g.output.len() - 1;
    let (width, out_width) = (g.input[last], g.output[last]);
    // Along the last axis: x lands on x·stride + shift, inside for x in lo..hi (none
    // when either row is empty).
    let stride = g.stride[last];
    let shift = (kernel[last] * g.dilation[last]) as isize - g.padding[last] as isize;
    let (lo, hi) = inside(shift, stride, out_width, width);
    if lo >= hi {
        return;
    }
    let first = ((lo * stride) as isize + shift) as usize;
    // The other axes: each input row's output row, or none when it falls outside.
    let mut coord = vec![0usize; last];
    for input_row in row.chunks_exact(width) {
        if let Some(r) = output_row(g, kernel, &coord) {
            let out = &mut y[r * out_width..][..out_width];
            for (x, &v) in input_row[lo..hi].iter().enumerate() {
                out[first + x * stride] += v;
            }
        }
        next_row(g, &mut coord);
    }
}
