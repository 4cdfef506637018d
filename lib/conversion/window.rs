//! Sliding-window attributes as conversion reads them (the geometry itself is
//! `onnx::window`, shared with shape inference), and the two torch ops that fix up
//! what torch's symmetric windows cannot express: explicit padding before the op and
//! slicing after it.

use anyhow::{Result, anyhow, bail};
use melior::ir::Value;

use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
pub use crate::onnx::window::AutoPad;
use crate::onnx::window::{self, AxisListError};

/// A per-axis attribute: `default` on every axis when absent, else exactly `n` values,
/// each at least `min`.
pub fn per_axis(b: &Binder, name: &str, n: usize, default: i64, min: i64) -> Result<Vec<i64>> {
    match window::axis_list(b, name, n, min)? {
        None => Ok(vec![default; n]),
        Some(Ok(v)) => Ok(v),
        Some(Err(AxisListError::Length { got, want })) => {
            bail!("attribute '{name}' has {got} entries, expected {want}")
        }
        Some(Err(AxisListError::Below { value, min })) => {
            bail!("attribute '{name}' holds {value}, but must be at least {min}")
        }
    }
}

/// The `pads` attribute split into (begins, ends); zeros when absent.
pub fn explicit_pads(b: &Binder, n: usize) -> Result<(Vec<i64>, Vec<i64>)> {
    let pads = per_axis(b, "pads", 2 * n, 0, 0)?;
    Ok((pads[..n].to_vec(), pads[n..].to_vec()))
}

/// The padding (begins, ends) `mode` gives a window over `x` (N, C, spatial...), read
/// from `pads` when it is NOTSET. `x_name` names `x` in messages.
pub fn window_pads(
    b: &Binder,
    mode: AutoPad,
    x: &TensorType,
    x_name: &str,
    kernel: &[i64],
    strides: &[i64],
    dilations: &[i64],
) -> Result<(Vec<i64>, Vec<i64>)> {
    let n = kernel.len();
    match mode {
        AutoPad::NotSet => explicit_pads(b, n),
        AutoPad::Valid => Ok((vec![0; n], vec![0; n])),
        AutoPad::SameUpper | AutoPad::SameLower => {
            let mut begin = Vec::with_capacity(n);
            let mut end = Vec::with_capacity(n);
            for (i, size) in spatial_dims(x, n).into_iter().enumerate() {
                let Some(size) = size else {
                    bail!(
                        "auto_pad SAME needs static spatial sizes of {x_name}, but {x_name} is {x}"
                    );
                };
                let extent = window::extent(kernel[i], dilations[i]);
                let (pb, pe) =
                    window::same_pads(size, strides[i], extent, mode == AutoPad::SameUpper);
                begin.push(size_of(pb)?);
                end.push(size_of(pe)?);
            }
            Ok((begin, end))
        }
    }
}

/// SAME padding of `x`'s spatial axes, for a window whose input sizes are known only
/// at run time: `constant_pad_nd`'s list (last axis first) and the padded type. Each
/// unknown axis gets `onnx::window::same_pads`'s formula in torch int ops, so one
/// compile serves every input size:
/// `total = max((ceil(size / s) - 1) * s + extent - size, 0)`, split as `auto_pad` says.
pub fn same_pads_at_run_time<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    kernel: &[i64],
    strides: &[i64],
    dilations: &[i64],
    upper: bool,
) -> Result<(Value<'c, 'a>, TensorType)> {
    let n = kernel.len();
    let int = t.torch_type("int")?;
    let mut per_axis: Vec<(Value<'c, 'a>, Value<'c, 'a>)> = Vec::with_capacity(n);
    let mut padded = Vec::with_capacity(n);
    for (i, size) in spatial_dims(x_type, n).into_iter().enumerate() {
        let extent = window::extent(kernel[i], dilations[i]);
        if let Some(size) = size {
            let (pb, pe) = window::same_pads(size, strides[i], extent, upper);
            let (pb, pe) = (size_of(pb)?, size_of(pe)?);
            per_axis.push((t.int(pb)?, t.int(pe)?));
            padded.push(Some(size + pb + pe));
            continue;
        }
        let dim = t.int(i as i64 + 2)?;
        let size = t.aten("size.int", &[x, dim], int)?;
        let stride = t.int(strides[i])?;
        let s_minus_one = t.int(strides[i] - 1)?;
        let rounded = t.aten("add.int", &[size, s_minus_one], int)?;
        let out = t.aten("floordiv.int", &[rounded, stride], int)?;
        let one = t.int(1)?;
        let last = t.aten("sub.int", &[out, one], int)?;
        let start = t.aten("mul.int", &[last, stride], int)?;
        let reach = t.aten("add.int", &[start, t.int(size_of(extent)?)?], int)?;
        let short = t.aten("sub.int", &[reach, size], int)?;
        let zero = t.int(0)?;
        let max = t.op("torch.prim.max.int", &[short, zero], &[int], &[])?;
        let total: Value = max.result(0)?.into();
        let two = t.int(2)?;
        let small = t.aten("floordiv.int", &[total, two], int)?;
        let large = t.aten("sub.int", &[total, small], int)?;
        per_axis.push(if upper {
            (small, large)
        } else {
            (large, small)
        });
        padded.push(None);
    }
    let mut list = Vec::with_capacity(2 * n);
    for (pb, pe) in per_axis.into_iter().rev() {
        list.push(pb);
        list.push(pe);
    }
    Ok((t.list(&list, "int")?, with_spatial(x_type, &padded)))
}

/// A window length or pad as an i64, or an error for attributes too large to lower.
pub fn size_of(n: i128) -> Result<i64> {
    window::to_size(n)
        .ok_or_else(|| anyhow!("the window attributes give a size of {n}, out of range"))
}

/// The spatial sizes of `x` (dims 2..), `None` where unknown.
pub fn spatial_dims(x: &TensorType, n: usize) -> Vec<Dim> {
    match &x.shape {
        Some(s) => s.iter().skip(2).copied().collect(),
        None => vec![None; n],
    }
}

/// `x` with `begin[i]`/`end[i]` elements of `fill` added around spatial axis `i`.
pub fn pad_spatial<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    begin: &[i64],
    end: &[i64],
    fill: Value<'c, 'a>,
) -> Result<(Value<'c, 'a>, TensorType)> {
    // constant_pad_nd lists pads from the last dimension backwards.
    let mut pads = Vec::with_capacity(2 * begin.len());
    for i in (0..begin.len()).rev() {
        pads.push(begin[i]);
        pads.push(end[i]);
    }
    let shape = x_type.shape.as_ref().map(|dims| {
        dims.iter()
            .enumerate()
            .map(|(i, d)| match i.checked_sub(2) {
                Some(s) => d.map(|d| d + begin[s] + end[s]),
                None => *d,
            })
            .collect()
    });
    let padded = TensorType {
        dtype: x_type.dtype,
        shape,
    };
    let list = t.int_list(&pads)?;
    let v = t.aten_tensor("constant_pad_nd", &[x, list, fill], &padded)?;
    Ok((v, padded))
}

/// A spatial axis cut down to `start..end` (`None`: to its end), leaving `size`.
pub struct Cut {
    pub axis: usize,
    pub start: i64,
    pub end: Option<i64>,
    pub size: Dim,
}

/// `y`, whose spatial sizes are `spatial`, sliced by each of `cuts` in turn; the last
/// slice has type `result`.
pub fn cut_spatial<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    mut y: Value<'c, 'a>,
    spatial: &[Dim],
    cuts: &[Cut],
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    let mut current = spatial.to_vec();
    for (k, cut) in cuts.iter().enumerate() {
        current[cut.axis] = cut.size;
        let ty = if k + 1 == cuts.len() {
            result.clone()
        } else {
            with_spatial(result, &current)
        };
        let dim = t.int(cut.axis as i64 + 2)?;
        let start = t.int(cut.start)?;
        let end = match cut.end {
            Some(e) => t.int(e)?,
            None => t.none()?,
        };
        let step = t.int(1)?;
        y = t.aten_tensor("slice.Tensor", &[y, dim, start, end, step], &ty)?;
    }
    Ok(y)
}

/// An error when `result` (the op's inferred type) disagrees with the spatial sizes
/// the lowering computed: the torch ops would then produce something else.
pub fn check_spatial(result: &TensorType, computed: &[Dim]) -> Result<()> {
    let Some(dims) = &result.shape else {
        return Ok(());
    };
    if dims.len() != computed.len() + 2 {
        bail!(
            "the output is {result}, but the input has {} spatial dimensions",
            computed.len()
        );
    }
    for (i, (r, c)) in dims[2..].iter().zip(computed).enumerate() {
        if let (Some(r), Some(c)) = (r, c)
            && r != c
        {
            bail!("spatial dimension {i} of the output is {r}, but the attributes give {c}");
        }
    }
    Ok(())
}

/// `t` with spatial sizes `spatial`.
pub fn with_spatial(t: &TensorType, spatial: &[Dim]) -> TensorType {
    let shape = t.shape.as_ref().map(|dims| {
        dims.iter()
            .take(2)
            .copied()
            .chain(spatial.iter().copied())
            .collect()
    });
    TensorType {
        dtype: t.dtype,
        shape,
    }
}
