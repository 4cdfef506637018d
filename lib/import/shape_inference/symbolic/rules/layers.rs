//! The rules of layers: Transpose, MatMul, Gemm, reductions, Split, convolutions and
//! pools, Resize, recurrent layers, and the leading sizes attention ops keep.

use super::super::Guess;
use super::super::dim::SymDim;
use super::{Input, broadcast_dims, input, known};
use crate::import::shape_inference::ctx::Ctx;
use crate::import::shape_inference::dims;
use crate::import::shape_inference::symbolic::SymValue;

pub(super) fn transpose(ctx: &Ctx, x: &Input) -> Option<Vec<Option<SymDim>>> {
    let d = x.dims()?;
    let perm = match ctx.attrs().optional_ints("perm").ok()? {
        Some(p) => p,
        None => (0..dims::rank_i64(d.len())).rev().collect(),
    };
    if perm.len() != d.len() {
        return None;
    }
    perm.iter()
        .map(|&p| {
            usize::try_from(p)
                .ok()
                .and_then(|p| d.get(p).cloned())
                .map(Some)
        })
        .collect()
}

pub(super) fn matmul(a: &Input, b: &Input) -> Option<Vec<Option<SymDim>>> {
    let (a, b) = (a.dims()?, b.dims()?);
    let (a1, b1) = (a.len() == 1, b.len() == 1);
    let a = if a1 {
        vec![SymDim::constant(1), a[0].clone()]
    } else {
        a
    };
    let b = if b1 {
        vec![b[0].clone(), SymDim::constant(1)]
    } else {
        b
    };
    let (ra, rb) = (a.len(), b.len());
    if ra < 2 || rb < 2 {
        return None;
    }
    let batch = broadcast_dims(&[known(a[..ra - 2].to_vec()), known(b[..rb - 2].to_vec())]);
    let mut out = batch;
    if !a1 {
        out.push(Some(a[ra - 2].clone()));
    }
    if !b1 {
        out.push(Some(b[rb - 1].clone()));
    }
    Some(out)
}

pub(super) fn gemm(ctx: &Ctx, a: &Input, b: &Input) -> Option<Vec<Option<SymDim>>> {
    let (a, b) = (a.dims()?, b.dims()?);
    if a.len() != 2 || b.len() != 2 {
        return None;
    }
    let ta = ctx.attrs().int("transA", 0).ok()? != 0;
    let tb = ctx.attrs().int("transB", 0).ok()? != 0;
    let m = if ta { &a[1] } else { &a[0] };
    let n = if tb { &b[0] } else { &b[1] };
    Some(vec![Some(m.clone()), Some(n.clone())])
}

pub(super) fn reduce(ctx: &Ctx, x: &Input) -> Option<Vec<Option<SymDim>>> {
    let d = x.dims()?;
    let op = ctx.node.op_type;
    let keep = ctx.attrs().int("keepdims", 1).ok()? != 0;
    if op == "ArgMax" || op == "ArgMin" {
        let axis = dims::axis(ctx.attrs().int("axis", 0).ok()?, d.len(), "axis").ok()?;
        return Some(reduced(&d, &[axis], keep));
    }
    // ReduceSum takes its axes as an input from opset 13, the others from 18.
    let since = if op == "ReduceSum" { 13 } else { 18 };
    let axes = if ctx.opset >= since {
        if ctx.present(1) {
            Some(ctx.ints(1)?)
        } else {
            None
        }
    } else {
        ctx.attrs().optional_ints("axes").ok()?
    };
    let axes = match axes {
        Some(a) if !a.is_empty() => dims::axes(&a, d.len(), "axes").ok()?,
        _ if ctx.attrs().int("noop_with_empty_axes", 0).ok()? != 0 => {
            return Some(known(d));
        }
        _ => (0..d.len()).collect(),
    };
    Some(reduced(&d, &axes, keep))
}

fn reduced(d: &[SymDim], axes: &[usize], keep: bool) -> Vec<Option<SymDim>> {
    d.iter()
        .enumerate()
        .filter_map(|(a, x)| match (axes.contains(&a), keep) {
            (true, true) => Some(Some(SymDim::constant(1))),
            (true, false) => None,
            (false, _) => Some(Some(x.clone())),
        })
        .collect()
}

/// Every output keeps the input's shape but along the split axis.
pub(super) fn split(ctx: &Ctx, x: &Input) -> Vec<Guess> {
    let Some(d) = x.dims() else {
        return Vec::new();
    };
    let Ok(axis) = dims::axis(ctx.attrs().int("axis", 0).unwrap_or(0), d.len(), "axis") else {
        return Vec::new();
    };
    let mut out = known(d);
    out[axis] = None;
    vec![
        Guess {
            dims: Some(out),
            elements: None,
        };
        ctx.outputs()
    ]
}

/// The first `n` of `d`, in an output of rank `rank` whose other sizes the concrete
/// rules give.
pub(super) fn leading(d: &[SymDim], n: usize, rank: usize) -> Vec<Option<SymDim>> {
    (0..rank)
        .map(|a| (a < n).then(|| d.get(a).cloned()).flatten())
        .collect()
}

/// A convolution's or pool's output: the batch, the channels from the concrete rules,
/// and each spatial size, `in + pads - dilation * (kernel - 1)` at stride 1, a rounded
/// quotient (`floor((w-1)/2)+1`) at larger strides.
pub(super) fn windowed(ctx: &Ctx, d: &[SymDim]) -> Vec<Option<SymDim>> {
    let mut out = leading(d, 1, d.len());
    let spatial = d.len().saturating_sub(2);
    let weight = match ctx.node.op_type {
        "QLinearConv" => 3,
        _ => 1,
    };
    let kernel = match ctx.attrs().optional_ints("kernel_shape").ok().flatten() {
        Some(k) => Some(k),
        None if ctx.node.op_type.contains("Conv") => ctx
            .shape(weight)
            .and_then(|s| s.get(2..).map(<[_]>::to_vec))
            .and_then(|k| k.into_iter().collect::<Option<Vec<i64>>>()),
        None => None,
    };
    let Some(kernel) = kernel.filter(|k| k.len() == spatial) else {
        return out;
    };
    let attr = |name: &str, fill: i64, len: usize| {
        ctx.attrs()
            .optional_ints(name)
            .ok()
            .flatten()
            .unwrap_or_else(|| vec![fill; len])
    };
    let strides = attr("strides", 1, spatial);
    let dilations = attr("dilations", 1, spatial);
    let auto_pad = ctx.attrs().string("auto_pad", "NOTSET").unwrap_or_default();
    let pads = match auto_pad.as_str() {
        "NOTSET" => attr("pads", 0, 2 * spatial),
        "VALID" => vec![0; 2 * spatial],
        // SAME: the input's size over the stride, rounded up.
        _ => {
            for (a, &stride) in strides.iter().enumerate().take(spatial) {
                out[a + 2] = d[a + 2].rounded_div(stride, true);
            }
            return out;
        }
    };
    if strides.len() != spatial || dilations.len() != spatial || pads.len() != 2 * spatial {
        return out;
    }
    let ceil = ctx.attrs().int("ceil_mode", 0).unwrap_or(0) != 0;
    for a in 0..spatial {
        // (in + pads - dilation * (kernel - 1) - 1) / stride + 1, rounded down (up in
        // ceil mode).
        let shrink = kernel[a]
            .checked_sub(1)
            .and_then(|k| dilations[a].checked_mul(k))
            .and_then(|k| {
                pads[a]
                    .checked_add(pads[a + spatial])?
                    .checked_sub(k)?
                    .checked_sub(1)
            });
        out[a + 2] = shrink
            .and_then(|c| d[a + 2].add(&SymDim::constant(c)))
            .and_then(|n| n.rounded_div(strides[a], ceil))
            .and_then(|q| q.add(&SymDim::constant(1)));
    }
    out
}

/// A recurrent layer's outputs Y, Y_h (and LSTM's Y_c): the sequence and batch sizes of
/// X, the directions and hidden size from the concrete rules.
pub(super) fn recurrent(ctx: &Ctx, x: &[SymDim]) -> Vec<Guess> {
    let [a, b, _] = x else {
        return Vec::new();
    };
    let batch_first = ctx.attrs().int("layout", 0).unwrap_or(0) != 0;
    // X is [seq, batch, input], or [batch, seq, input] with layout 1.
    let (seq, batch) = if batch_first { (b, a) } else { (a, b) };
    let (seq, batch) = (Some(seq.clone()), Some(batch.clone()));
    let y = if batch_first {
        vec![batch.clone(), seq, None, None]
    } else {
        vec![seq, None, batch.clone(), None]
    };
    let state = if batch_first {
        vec![batch, None, None]
    } else {
        vec![None, batch, None]
    };
    let guess = |dims| Guess {
        dims: Some(dims),
        elements: None,
    };
    vec![guess(y), guess(state.clone()), guess(state)]
}

/// Resize over every axis by whole-number scales (each size times its scale exactly),
/// or to sizes computed at run time (`Concat(Shape(x)[:2], Shape(y)[2:])`); other
/// scales floor a product, which names cannot carry.
pub(super) fn resize(ctx: &Ctx, inputs: &[Option<&SymValue>]) -> Option<Vec<Option<SymDim>>> {
    let d = input(ctx, inputs, 0).dims()?;
    let plain = ctx.attrs().optional_ints("axes").ok()?.is_none()
        && ctx
            .attrs()
            .string("keep_aspect_ratio_policy", "stretch")
            .ok()?
            == "stretch"
        && ctx
            .attrs()
            .string("coordinate_transformation_mode", "half_pixel")
            .ok()?
            != "tf_crop_and_resize";
    if !plain {
        return None;
    }
    let (scales_at, sizes_at) = if ctx.opset >= 11 {
        (2, 3)
    } else {
        (1, usize::MAX)
    };
    if let Some(sizes) = input(ctx, inputs, sizes_at).elements() {
        return (sizes.len() == d.len()).then(|| known(sizes));
    }
    let scales = ctx.value(scales_at)?.to_f64_vec()?;
    if scales.len() != d.len() {
        return None;
    }
    Some(
        d.iter()
            .zip(scales)
            .map(|(x, s)| {
                let whole = s >= 1.0 && s.fract() == 0.0 && s <= f64::from(u16::MAX);
                // `whole` bounds s, so the cast is exact.
                whole.then(|| x.mul(&SymDim::constant(s as i64))).flatten()
            })
            .collect(),
    )
}
