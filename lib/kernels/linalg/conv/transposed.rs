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
            for (tap, kernel) in kernel_coordinates.iter().enumerate() {
                let row = &products[(oc * taps + tap) * in_block..][..in_block];
                add_tap(g, kernel, row, y);
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

/// Adds one tap's products `row` (one per input position) to the output plane `y`:
/// input position `c` lands on `c·stride - padding + tap·dilation` per axis, where
/// that lies inside the output. Walked a row of the last axis at a time, whose
/// inside positions form one strided run (a table of position pairs per tap, built
/// each call, cost more than the product: PP-OCR's 2x2 stride-2 upsampling).
fn add_tap(g: &Geometry, kernel: &[usize], row: &[f32], y: &mut [f32]) {
    let rank = g.output.len();
    let last = rank - 1;
    let (width, out_width) = (g.input[last], g.output[last]);
    if width == 0 || out_width == 0 {
        return;
    }
    // Along the last axis: x lands on x·stride + shift, inside for x in lo..hi.
    let stride = g.stride[last];
    let shift = (kernel[last] * g.dilation[last]) as isize - g.padding[last] as isize;
    let lo = if shift >= 0 {
        0
    } else {
        shift.unsigned_abs().div_ceil(stride)
    };
    let reach = out_width as isize - 1 - shift;
    let hi = if reach < 0 {
        0
    } else {
        (reach as usize / stride + 1).min(width)
    };
    if lo >= hi {
        return;
    }
    // The other axes: each input row's output row, or none when it falls outside.
    let mut coord = vec![0usize; last];
    for input_row in row.chunks_exact(width) {
        let mut out_row = Some(0usize);
        for i in 0..last {
            let o = (coord[i] * g.stride[i] + kernel[i] * g.dilation[i])
                .checked_sub(g.padding[i])
                .filter(|&o| o < g.output[i]);
            out_row = out_row.zip(o).map(|(flat, o)| flat * g.output[i] + o);
        }
        if let Some(r) = out_row {
            let out = &mut y[r * out_width..][..out_width];
            let first = (lo * stride) as isize + shift;
            for (x, &v) in input_row[lo..hi].iter().enumerate() {
                out[first as usize + x * stride] += v;
            }
        }
        for i in (0..last).rev() {
            coord[i] += 1;
            if coord[i] < g.input[i] {
                break;
            }
            coord[i] = 0;
        }
    }
}
