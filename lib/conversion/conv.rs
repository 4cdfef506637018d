//! Float Conv and ConvTranspose as `torch.aten.convolution` (transposed = false / true).
//! torch pads both sides of an axis alike: Conv pads asymmetric inputs explicitly first,
//! and ConvTranspose, whose padding crops its output, crops the rest with a slice.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::conv_geometry::{
    TorchConvolution, emit_convolution, emit_torch_convolution, read_geometry,
};
use super::window::{
    AutoPad, Cut, check_spatial, cut_spatial, explicit_pads, per_axis, size_of, spatial_dims,
    with_spatial,
};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;
use crate::onnx::window;

pub fn register(r: &mut Lowerings) {
    r.on_op("Conv", 1, conv);
    r.on_op("ConvTranspose", 1, conv_transpose);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// X's float element type, which W (and B when given) must share.
fn float_operands(x: &TensorType, w: &TensorType) -> Result<DType> {
    let dtype = match x.dtype {
        Some(d) if d.is_float() => d,
        _ => bail!("X must be a float tensor, but is {x}"),
    };
    if w.dtype != Some(dtype) {
        bail!("W is {w}, but X is {x}: they must have the same element type");
    }
    Ok(dtype)
}

/// The kernel sizes W gives, checked against a `kernel_shape` attribute when both exist.
fn kernel(b: &Binder, w: &TensorType, n: usize) -> Result<Vec<i64>> {
    let from_w: Vec<Dim> = match &w.shape {
        Some(s) => s.iter().skip(2).copied().collect(),
        None => vec![None; n],
    };
    let Some(attr) = b.optional_ints("kernel_shape")? else {
        return from_w
            .iter()
            .map(|d| d.ok_or_else(|| anyhow::anyhow!("W has a dynamic kernel size: {w}")))
            .collect();
    };
    if attr.len() != n {
        bail!(
            "attribute 'kernel_shape' has {} entries, expected {n}",
            attr.len()
        );
    }
    if attr
        .iter()
        .zip(&from_w)
        .any(|(a, d)| d.is_some_and(|d| d != *a))
    {
        bail!("attribute 'kernel_shape' is {attr:?}, but W is {w}");
    }
    Ok(attr)
}

/// The optional bias B, checked to be 1-D with `channels` elements of `dtype`.
fn bias<'c, 'a>(b: &Binder<'c, 'a>, dtype: DType, channels: Dim) -> Result<Option<Value<'c, 'a>>> {
    let Some(v) = b.optional_input(2) else {
        return Ok(None);
    };
    let ty = b.input_type(2, "B")?;
    if ty.dtype != Some(dtype) {
        bail!("B is {ty}, but X has element type {dtype}");
    }
    match (ty.shape.as_deref(), channels) {
        (Some([Some(len)]), Some(c)) if *len != c => {
            bail!("B has {len} elements, but there are {c} output channels")
        }
        (Some([_]), _) => Ok(Some(v)),
        _ => bail!("B must be 1-D, but is {ty}"),
    }
}

fn conv<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let x_type = b.input_type(0, "X")?;
    let w = b.input(1, "W")?;
    let w_type = b.input_type(1, "W")?;
    let dtype = float_operands(&x_type, &w_type)?;
    let geometry = read_geometry(b, &x_type, &w_type, "X", "W")?;
    kernel(b, &w_type, geometry.kernel.len())?;
    let c_out = w_type.shape.as_ref().and_then(|s| s[0]);
    let bias = bias(b, dtype, c_out)?;
    let result = b.result_type(0)?;
    Ok(vec![emit_convolution(
        t, x, &x_type, w, bias, &geometry, &result,
    )?])
}

/// One spatial axis of a ConvTranspose as torch computes it: symmetric `padding` and
/// `output_padding`, then the slice `start..` that drops `trailing` more at the end.
struct TransposedAxis {
    padding: i64,
    output_padding: i64,
    start: i64,
    trailing: i64,
}

/// torch's transposed convolution crops `padding` from both ends of the full output and
/// extends the end by `output_padding`; ONNX crops `begin` and `end` and extends by
/// `extra`. The smaller pad goes to torch, the larger one's excess to a slice. A
/// negative `end` (an `output_shape` longer than the full output) extends the end too.
fn transposed_axis(begin: i64, end: i64, extra: i64) -> TransposedAxis {
    if end < 0 {
        TransposedAxis {
            padding: 0,
            output_padding: extra - end,
            start: begin,
            trailing: 0,
        }
    } else if begin <= end {
        let excess = end - begin;
        TransposedAxis {
            padding: begin,
            output_padding: (extra - excess).max(0),
            start: 0,
            trailing: (excess - extra).max(0),
        }
    } else {
        TransposedAxis {
            padding: end,
            output_padding: extra,
            start: begin - end,
            trailing: 0,
        }
    }
}

/// The per-axis attributes of a ConvTranspose.
struct Transposed {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    /// `output_padding`: what ONNX adds at the end of each axis.
    extra: Vec<i64>,
}

impl Transposed {
    /// The length of axis `i` before any cropping, for an input of `size`.
    fn full(&self, i: usize, size: i64) -> Result<i64> {
        let extent = window::extent(self.kernel[i], self.dilations[i]);
        size_of(window::transposed_full(size, self.strides[i], extent, 0))
    }
}

/// Pads (begins, ends) that make a ConvTranspose output `out` long from `input`: the
/// ONNX formula for an explicit `output_shape` or SAME auto_pad. `why` names the
/// attribute asking for it.
fn pads_for_output(
    g: &Transposed,
    input: &[Dim],
    out: &[i64],
    upper: bool,
    why: &str,
) -> Result<(Vec<i64>, Vec<i64>)> {
    let mut begin = Vec::with_capacity(out.len());
    let mut end = Vec::with_capacity(out.len());
    for i in 0..out.len() {
        let Some(size) = input[i] else {
            bail!("{why} needs static spatial sizes of X");
        };
        let full = g.full(i, size)? + g.extra[i];
        let total = full - out[i];
        // Longer than the full output: ONNX Runtime extends the end (with the bias
        // alone), by less than a stride (checked with output_padding's bound).
        let (b, e) = if total < 0 {
            (0, total)
        } else {
            let (b, e) = window::split_total(total.into(), upper);
            (size_of(b)?, size_of(e)?)
        };
        begin.push(b);
        end.push(e);
    }
    Ok((begin, end))
}

/// The (begins, ends) a ConvTranspose crops: from `output_shape` when given, else from
/// auto_pad or `pads`.
fn transposed_pads(b: &Binder, g: &Transposed, x: &TensorType) -> Result<(Vec<i64>, Vec<i64>)> {
    let n = g.kernel.len();
    let input = spatial_dims(x, n);
    let mode = AutoPad::read(b)?;
    let upper = mode == AutoPad::SameUpper;
    match b.optional_ints("output_shape")? {
        // Some exporters write the whole output shape, not only its spatial part.
        Some(s) if s.len() == n + 2 => {
            return pads_for_output(g, &input, &s[2..], upper, "attribute 'output_shape'");
        }
        Some(s) if s.len() == n => {
            return pads_for_output(g, &input, &s, upper, "attribute 'output_shape'");
        }
        Some(s) => bail!(
            "attribute 'output_shape' has {} entries, expected {n}",
            s.len()
        ),
        None => {}
    }
    match mode {
        AutoPad::SameUpper | AutoPad::SameLower => {
            let mut out = Vec::with_capacity(n);
            for (i, d) in input.iter().enumerate() {
                let Some(d) = d else {
                    bail!("auto_pad SAME needs static spatial sizes of X, but X is {x}");
                };
                out.push(d * g.strides[i]);
            }
            pads_for_output(g, &input, &out, upper, "auto_pad SAME")
        }
        AutoPad::Valid => Ok((vec![0; n], vec![0; n])),
        AutoPad::NotSet => explicit_pads(b, n),
    }
}

fn conv_transpose<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let x_type = b.input_type(0, "X")?;
    let w = b.input(1, "W")?;
    let w_type = b.input_type(1, "W")?;
    let dtype = float_operands(&x_type, &w_type)?;
    let Some(rank) = x_type.rank() else {
        bail!("X has an unknown rank");
    };
    if rank < 3 {
        bail!("X has rank {rank}; a convolution needs at least 3 (N, C, spatial)");
    }
    if let Some(wr) = w_type.rank()
        && wr != rank
    {
        bail!("W has rank {wr}, but X has rank {rank}");
    }
    let n = rank - 2;
    let g = Transposed {
        kernel: kernel(b, &w_type, n)?,
        strides: per_axis(b, "strides", n, 1, 1)?,
        dilations: per_axis(b, "dilations", n, 1, 1)?,
        extra: per_axis(b, "output_padding", n, 0, 0)?,
    };
    let group = b.int("group", 1)?;
    if group < 1 {
        bail!("attribute 'group' must be positive, but is {group}");
    }
    // W is (C, M / group, k...), as torch's transposed weight is.
    let w_dims = w_type.shape.clone().unwrap_or_else(|| vec![None; rank]);
    let c = x_type.shape.as_ref().and_then(|s| s[1]);
    if let (Some(c), Some(wc)) = (c, w_dims[0])
        && c != wc
    {
        bail!("X has {c} channels, but W has {wc} input channels");
    }
    if let Some(c) = c.or(w_dims[0])
        && c % group != 0
    {
        bail!("{c} input channels do not divide into {group} groups");
    }
    let c_out = w_dims[1].map(|m| m * group);
    let bias = bias(b, dtype, c_out)?;
    let (begin, end) = transposed_pads(b, &g, &x_type)?;
    let input = spatial_dims(&x_type, n);

    let axes: Vec<TransposedAxis> = (0..n)
        .map(|i| transposed_axis(begin[i], end[i], g.extra[i]))
        .collect();
    for (i, a) in axes.iter().enumerate() {
        if end[i] < 0 && a.output_padding >= g.strides[i] {
            bail!(
                "attribute 'output_shape' asks for {} more elements along spatial axis {i} \
                 than the transposed convolution gives, but output_padding and these must \
                 stay below the stride {}",
                -end[i],
                g.strides[i]
            );
        }
        if a.output_padding >= g.strides[i] && a.output_padding >= g.dilations[i] {
            bail!(
                "output_padding {} along spatial axis {i} is not smaller than the stride {} or the dilation {}",
                a.output_padding,
                g.strides[i],
                g.dilations[i]
            );
        }
    }
    let mut produced: Vec<Dim> = Vec::with_capacity(n);
    let mut wanted: Vec<Dim> = Vec::with_capacity(n);
    for i in 0..n {
        let full = input[i].map(|d| g.full(i, d)).transpose()?;
        produced.push(full.map(|f| f - 2 * axes[i].padding + axes[i].output_padding));
        wanted.push(full.map(|f| f + g.extra[i] - begin[i] - end[i]));
    }
    if let Some(i) = (0..n).find(|&i| wanted[i].is_some_and(|w| w <= 0)) {
        bail!("spatial axis {i} of the output would be empty");
    }
    let result = b.result_type(0)?;
    check_spatial(&result, &wanted)?;

    // A negative end counts from the end, so dynamic sizes need no arithmetic.
    let cuts: Vec<Cut> = axes
        .iter()
        .enumerate()
        .filter(|(_, a)| a.start > 0 || a.trailing > 0)
        .map(|(i, a)| Cut {
            axis: i,
            start: a.start,
            end: (a.trailing > 0).then_some(-a.trailing),
            size: wanted[i],
        })
        .collect();
    let conv_type = if cuts.is_empty() {
        result.clone()
    } else {
        with_spatial(&result, &produced)
    };
    let torch_pads: Vec<i64> = axes.iter().map(|a| a.padding).collect();
    let torch_extra: Vec<i64> = axes.iter().map(|a| a.output_padding).collect();
    let params = TorchConvolution {
        strides: &g.strides,
        padding: &torch_pads,
        dilations: &g.dilations,
        transposed: true,
        output_padding: &torch_extra,
        groups: group,
    };
    let y = emit_torch_convolution(t, x, w, bias, &params, &conv_type)?;
    Ok(vec![cut_spatial(t, y, &produced, &cuts, &result)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Crops an output of the full length `full` + `extra` as torch does for `axis`,
    /// and returns the kept range of the full output's coordinates.
    fn kept(full: i64, a: &TransposedAxis) -> (i64, i64) {
        let torch_len = full - 2 * a.padding + a.output_padding;
        let start = a.padding + a.start;
        let end = a.padding + torch_len - a.trailing;
        (start, end)
    }

    #[test]
    fn asymmetric_pads_crop_like_onnx() {
        for (begin, end, extra) in [
            (0, 0, 0),
            (1, 2, 0),
            (2, 1, 0),
            (0, 3, 1),
            (3, 0, 1),
            (1, 2, 2),
            (0, -1, 0),
            (0, -2, 1),
        ] {
            let full = 11;
            let a = transposed_axis(begin, end, extra);
            assert_eq!(
                kept(full, &a),
                (begin, full + extra - end),
                "pads {begin}/{end}, output_padding {extra}"
            );
        }
    }
}
