//! InstanceNormalization and GroupNormalization: normalize X (N, C, D1, ...) over the
//! spatial dimensions of each channel, or of each group of C/num_groups channels, then
//! scale and shift per channel. Lowered to torch's `instance_norm` and `group_norm`,
//! whose weight and bias are per channel.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::shape_util::size_of;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("InstanceNormalization", 1, instance_norm);
    r.on_op("GroupNormalization", 18, group_norm_per_group);
    r.on_op("GroupNormalization", 21, group_norm_per_channel);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// X's type, checked to be a float tensor of rank 2 or more when known, and its
/// channel count when known.
fn check_input(b: &Binder) -> Result<(TensorType, Option<i64>)> {
    let ty = b.input_type(0, "X")?;
    if let Some(d) = ty.dtype
        && !d.is_float()
    {
        bail!("input X is {ty}, expected a float tensor");
    }
    let channels = match ty.shape.as_deref() {
        Some(dims) if dims.len() < 2 => {
            bail!("input X is {ty}, but needs a batch and a channel dimension")
        }
        Some(dims) => dims[1],
        None => None,
    };
    Ok((ty, channels))
}

/// A per-channel or per-group operand: 1-D, of `expected` elements when known.
fn check_vector(ty: &TensorType, name: &str, expected: Option<i64>, what: &str) -> Result<()> {
    let Some(shape) = &ty.shape else {
        return Ok(());
    };
    match (shape.as_slice(), expected) {
        ([Some(n)], Some(e)) if *n != e => {
            bail!("input {name} is {ty}, expected {e} elements (one per {what})")
        }
        ([_], _) => Ok(()),
        _ => bail!("input {name} is {ty}, expected a 1-D tensor (one element per {what})"),
    }
}

fn instance_norm<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let (_, channels) = check_input(b)?;
    let scale = b.input(1, "scale")?;
    let bias = b.input(2, "B")?;
    check_vector(&b.input_type(1, "scale")?, "scale", channels, "channel")?;
    check_vector(&b.input_type(2, "B")?, "B", channels, "channel")?;
    let epsilon = b.float("epsilon", 1e-5)?;
    let result = b.result_type(0)?;
    let none = t.none()?;
    // No running statistics: use_input_stats is true, so momentum is never read.
    let operands = [
        x,
        scale,
        bias,
        none,
        none,
        t.bool(true)?,
        t.float(0.1)?,
        t.float(epsilon)?,
        t.bool(false)?,
    ];
    Ok(vec![t.aten_tensor("instance_norm", &operands, &result)?])
}

/// `num_groups`, checked against the channel count when it is known.
fn num_groups(b: &Binder, channels: Option<i64>) -> Result<i64> {
    let Some(groups) = b.optional_int("num_groups")? else {
        bail!("missing required attribute 'num_groups'");
    };
    if groups < 1 {
        bail!("attribute 'num_groups' is {groups}, expected at least 1");
    }
    if let Some(c) = channels
        && c % groups != 0
    {
        bail!("attribute 'num_groups' is {groups}, which does not divide X's {c} channels");
    }
    Ok(groups)
}

/// Opset 21: scale and bias hold one element per channel, as torch's do.
fn group_norm_per_channel<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (_, channels) = check_input(b)?;
    let groups = num_groups(b, channels)?;
    check_vector(&b.input_type(1, "scale")?, "scale", channels, "channel")?;
    check_vector(&b.input_type(2, "bias")?, "bias", channels, "channel")?;
    let (scale, bias) = (b.input(1, "scale")?, b.input(2, "bias")?);
    group_norm(b, t, groups, scale, bias)
}

/// Opset 18: scale and bias hold one element per group; each is repeated over its
/// group's C/num_groups channels (unsqueeze, expand, reshape) to torch's per-channel
/// form; an unknown channel count is read at run time.
fn group_norm_per_group<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (_, channels) = check_input(b)?;
    let groups = num_groups(b, channels)?;
    check_vector(&b.input_type(1, "scale")?, "scale", Some(groups), "group")?;
    check_vector(&b.input_type(2, "bias")?, "bias", Some(groups), "group")?;
    let scale = per_channel(b, t, 1, "scale", groups, channels)?;
    let bias = per_channel(b, t, 2, "bias", groups, channels)?;
    group_norm(b, t, groups, scale, bias)
}

/// Input `i` ([groups]) with each element repeated channels/groups times ([channels]).
/// An unknown channel count is read from X at run time: the repeat count is then
/// `size(X, 1) // groups` and the result's length stays `?`.
fn per_channel<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    i: usize,
    name: &str,
    groups: i64,
    channels: Option<i64>,
) -> Result<Value<'c, 'a>> {
    let v = b.input(i, name)?;
    let ty = b.input_type(i, name)?;
    if channels == Some(groups) {
        return Ok(v);
    }
    let column = t.aten_tensor(
        "unsqueeze",
        &[v, t.int(1)?],
        &shaped(&ty, &[Some(groups), Some(1)]),
    )?;
    let per_group = channels.map(|c| c / groups);
    let per_group_value = match per_group {
        Some(n) => t.int(n)?,
        None => {
            let c = size_of(t, b.input(0, "X")?, 1)?;
            t.aten("floordiv.int", &[c, t.int(groups)?], t.torch_type("int")?)?
        }
    };
    let repeated = t.aten_tensor(
        "expand",
        &[
            column,
            t.list(&[t.int(groups)?, per_group_value], "int")?,
            t.bool(false)?,
        ],
        &shaped(&ty, &[Some(groups), per_group]),
    )?;
    // -1 lets reshape flatten without the channel count when it is unknown.
    t.aten_tensor(
        "reshape",
        &[repeated, t.int_list(&[channels.unwrap_or(-1)])?],
        &shaped(&ty, &[channels]),
    )
}

/// `ty`'s element type with the known shape `dims`.
fn shaped(ty: &TensorType, dims: &[Option<i64>]) -> TensorType {
    TensorType {
        dtype: ty.dtype,
        shape: Some(dims.to_vec()),
    }
}

fn group_norm<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    groups: i64,
    scale: Value<'c, 'a>,
    bias: Value<'c, 'a>,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let epsilon = b.float("epsilon", 1e-5)?;
    let result = b.result_type(0)?;
    let operands = [
        x,
        t.int(groups)?,
        scale,
        bias,
        t.float(epsilon)?,
        t.bool(false)?,
    ];
    Ok(vec![t.aten_tensor("group_norm", &operands, &result)?])
}
