//! Sliding-window attributes that pools and ConvTranspose read per spatial axis
//! (kernel, strides, dilations, pads, auto_pad), and the two torch ops that fix up
//! what torch's symmetric windows cannot express: explicit padding before the op and
//! slicing after it.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::attributes::Attributes as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoPad {
    NotSet,
    SameUpper,
    SameLower,
    Valid,
}

pub fn auto_pad(b: &Binder) -> Result<AutoPad> {
    Ok(match b.string("auto_pad", "NOTSET")?.as_str() {
        // Some exporters write an empty string for the default.
        "NOTSET" | "" => AutoPad::NotSet,
        "SAME_UPPER" => AutoPad::SameUpper,
        "SAME_LOWER" => AutoPad::SameLower,
        "VALID" => AutoPad::Valid,
        other => bail!(
            "attribute 'auto_pad' is '{other}', expected NOTSET, SAME_UPPER, SAME_LOWER or VALID"
        ),
    })
}

/// A per-axis attribute: `default` on every axis when absent, else exactly `n` values,
/// each at least `min`.
pub fn per_axis(b: &Binder, name: &str, n: usize, default: i64, min: i64) -> Result<Vec<i64>> {
    let Some(v) = b.optional_ints(name)? else {
        return Ok(vec![default; n]);
    };
    if v.len() != n {
        bail!("attribute '{name}' has {} entries, expected {n}", v.len());
    }
    if let Some(bad) = v.iter().find(|&&x| x < min) {
        bail!("attribute '{name}' holds {bad}, but must be at least {min}");
    }
    Ok(v)
}

/// The `pads` attribute split into (begins, ends); zeros when absent.
pub fn explicit_pads(b: &Binder, n: usize) -> Result<(Vec<i64>, Vec<i64>)> {
    let pads = per_axis(b, "pads", 2 * n, 0, 0)?;
    Ok((pads[..n].to_vec(), pads[n..].to_vec()))
}

/// The dilated extent of a kernel of size `k`.
pub fn extent(k: i64, dilation: i64) -> i64 {
    (k - 1) * dilation + 1
}

/// SAME padding of one axis of size `size`: the output has ceil(size / stride) windows;
/// an odd total puts the extra element at the end (SAME_UPPER) or the beginning.
pub fn same_pads(size: i64, stride: i64, extent: i64, upper: bool) -> (i64, i64) {
    let out = (size + stride - 1) / stride;
    let total = ((out - 1) * stride + extent - size).max(0);
    let small = total / 2;
    if upper {
        (small, total - small)
    } else {
        (total - small, small)
    }
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
