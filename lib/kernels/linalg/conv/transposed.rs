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
    let scatter = scatter(g)?;
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
            for (tap, pairs) in scatter.iter().enumerate() {
                let row = &products[(oc * taps + tap) * in_block..][..in_block];
                for &(i, o) in pairs {
                    y[o as usize] += row[i as usize];
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

/// Per kernel tap (row-major), the (input position, output position) pairs it joins,
/// input positions ascending; `None` past u32 positions.
fn scatter(g: &Geometry) -> Option<Vec<Vec<(u32, u32)>>> {
    let rank = g.output.len();
    let in_block: usize = g.input.iter().product();
    let taps: usize = g.kernel.iter().product();
    let out_block: usize = g.output.iter().product();
    u32::try_from(in_block.max(out_block)).ok()?;
    let mut all = Vec::with_capacity(taps);
    for tap in 0..taps {
        // The tap's kernel coordinates, last axis fastest.
        let mut kernel = vec![0usize; rank];
        let mut t = tap;
        for i in (0..rank).rev() {
            kernel[i] = t % g.kernel[i];
            t /= g.kernel[i];
        }
        let mut pairs = Vec::new();
        let mut coord = vec![0usize; rank];
        for i_flat in 0..in_block {
            let mut o_flat = Some(0usize);
            for i in 0..rank {
                let o = (coord[i] * g.stride[i] + kernel[i] * g.dilation[i])
                    .checked_sub(g.padding[i])
                    .filter(|&o| o < g.output[i]);
                o_flat = o_flat.zip(o).map(|(flat, o)| flat * g.output[i] + o);
            }
            if let Some(o) = o_flat {
                pairs.push((i_flat as u32, o as u32));
            }
            for i in (0..rank).rev() {
                coord[i] += 1;
                if coord[i] < g.input[i] {
                    break;
                }
                coord[i] = 0;
            }
        }
        all.push(pairs);
    }
    Some(all)
}
