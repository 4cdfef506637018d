//! Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid, HardSwish and Tanh.

use anyhow::{Result, bail};
use melior::ir::Value;
use melior::ir::operation::OperationLike;

use super::Lowerings;
use super::binder::Binder;
use super::simple_ops::refine;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("Relu", 1, relu);
    r.on_op("LeakyRelu", 1, leaky_relu);
    r.on_op("Clip", 1, clip_attributes);
    r.on_op("Clip", 11, clip_inputs);
    r.on_op("Sigmoid", 1, sigmoid);
    r.on_op("HardSigmoid", 1, hard_sigmoid);
    r.on_op("HardSwish", 14, hard_swish);
    r.on_op("Tanh", 1, tanh);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// `torch.aten.<aten>` of input 0, typed as the op's result.
fn unary<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    input: &str,
    aten: &str,
) -> Lowered<'c, 'a> {
    let x = b.input(0, input)?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor(aten, &[x], &result)?])
}

fn relu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    unary(b, t, "X", "relu")
}

fn sigmoid<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    unary(b, t, "X", "sigmoid")
}

fn hard_swish<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    unary(b, t, "X", "hardswish")
}

fn tanh<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    unary(b, t, "input", "tanh")
}

fn leaky_relu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let alpha = b.float("alpha", 0.01)?;
    let result = b.result_type(0)?;
    let alpha = t.float(alpha)?;
    Ok(vec![t.aten_tensor("leaky_relu", &[x, alpha], &result)?])
}

/// `max(0, min(1, alpha * x + beta))`. torch's `hardsigmoid` is the case alpha = 1/6,
/// beta = 0.5; other parameters are spelled out with mul, add and clamp.
fn hard_sigmoid<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let alpha = b.float("alpha", 0.2)?;
    let beta = b.float("beta", 0.5)?;
    let result = b.result_type(0)?;
    // The attributes are f32, so 1/6 arrives rounded to f32.
    if alpha as f32 == 1.0f32 / 6.0 && beta == 0.5 {
        return Ok(vec![t.aten_tensor("hardsigmoid", &[x], &result)?]);
    }
    let scaled = t.aten_tensor("mul.Scalar", &[x, t.float(alpha)?], &result)?;
    let one = t.int(1)?;
    let shifted = t.aten_tensor("add.Scalar", &[scaled, t.float(beta)?, one], &result)?;
    let (low, high) = (t.float(0.0)?, t.float(1.0)?);
    Ok(vec![t.aten_tensor(
        "clamp",
        &[shifted, low, high],
        &result,
    )?])
}

/// Clip before opset 11: float bounds as attributes, each absent meaning no bound.
fn clip_attributes<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let min = optional_float(b, "min")?;
    let max = optional_float(b, "max")?;
    let result = b.result_type(0)?;
    let bound = |v: Option<f64>| match v {
        Some(v) => t.float(v),
        None => t.none(),
    };
    let (min, max) = (bound(min)?, bound(max)?);
    Ok(vec![t.aten_tensor("clamp", &[x, min, max], &result)?])
}

fn optional_float(b: &Binder, name: &str) -> Result<Option<f64>> {
    if b.op.has_attribute(&format!("torch.onnx.{name}")) {
        Ok(Some(b.float(name, 0.0)?))
    } else {
        Ok(None)
    }
}

/// Clip from opset 11: the bounds are optional scalar inputs of the input's type.
fn clip_inputs<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let x_type = b.input_type(0, "input")?;
    let min = b.optional_input(1);
    let max = b.optional_input(2);
    for (i, name) in [(1, "min"), (2, "max")] {
        if b.has_input(i) {
            check_bound(&b.input_type(i, name)?, &x_type, name)?;
        }
    }
    let result = b.result_type(0)?;
    if min.is_none() && max.is_none() {
        return Ok(vec![refine(t, x, &x_type, &result)?]);
    }
    let bound = |v: Option<Value<'c, 'a>>| match v {
        Some(v) => Ok(v),
        None => t.none(),
    };
    let (min, max) = (bound(min)?, bound(max)?);
    Ok(vec![t.aten_tensor(
        "clamp.Tensor",
        &[x, min, max],
        &result,
    )?])
}

/// A bound must be one element of the input's type: a 0-D tensor, or (as some
/// exporters write it) a 1-element 1-D one, which only a ranked input can absorb.
fn check_bound(bound: &TensorType, x: &TensorType, name: &str) -> Result<()> {
    if let (Some(p), Some(q)) = (bound.dtype, x.dtype)
        && p != q
    {
        bail!("{name} is {p} but input is {q}");
    }
    match bound.shape.as_deref() {
        Some([]) | None => Ok(()),
        Some([Some(1)]) if x.rank().is_some_and(|r| r >= 1) => Ok(()),
        _ => bail!("{name} must be a scalar, but is {bound}"),
    }
}
