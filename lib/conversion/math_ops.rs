//! Element-wise math: the one-input functions (Erf, Sqrt, Reciprocal, Exp, Log, Neg,
//! Abs, Sign, Floor, Ceil, Round), Gelu, Pow and Mod. Each is one torch op typed as the
//! ONNX result: ONNX keeps the input's element type, which is also what torch gives
//! for these ops on the types ONNX allows.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("Erf", 9, |b, t| unary(b, t, "erf"));
    r.on_op("Sqrt", 1, |b, t| unary(b, t, "sqrt"));
    r.on_op("Reciprocal", 1, |b, t| unary(b, t, "reciprocal"));
    r.on_op("Exp", 1, |b, t| unary(b, t, "exp"));
    r.on_op("Log", 1, |b, t| unary(b, t, "log"));
    r.on_op("Neg", 1, |b, t| unary(b, t, "neg"));
    r.on_op("Abs", 1, |b, t| unary(b, t, "abs"));
    r.on_op("Sign", 9, |b, t| unary(b, t, "sign"));
    r.on_op("Floor", 1, |b, t| unary(b, t, "floor"));
    r.on_op("Ceil", 1, |b, t| unary(b, t, "ceil"));
    r.on_op("Round", 11, |b, t| unary(b, t, "round"));
    r.on_op("Gelu", 20, gelu);
    r.on_op("Pow", 7, pow);
    r.on_op("Mod", 10, modulo);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// `torch.aten.<aten>(X)`, typed as the op's result.
fn unary<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>, aten: &str) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor(aten, &[x], &result)?])
}

/// `gelu(X, approximate)`, with ONNX's `approximate` ("none" or "tanh") as torch's.
fn gelu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let approximate = b.string("approximate", "none")?;
    if approximate != "none" && approximate != "tanh" {
        bail!("attribute 'approximate' is '{approximate}', expected 'none' or 'tanh'");
    }
    let result = b.result_type(0)?;
    let mode = t.str(&approximate)?;
    Ok(vec![t.aten_tensor("gelu", &[x, mode], &result)?])
}

/// `pow.Tensor_Tensor(X, Y)` typed as X: ONNX's result keeps the base's type even when
/// the exponent is of another one.
fn pow<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let y = b.input(1, "Y")?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor(
        "pow.Tensor_Tensor",
        &[x, y],
        &result,
    )?])
}

/// Mod with `fmod` = 1 is C's fmod (the dividend's sign): `fmod.Tensor`; with 0 it is
/// Python's % (the divisor's sign): `remainder.Tensor`. The spec asks for fmod = 1 on
/// floats, but its own tests (and ONNX Runtime) run floats with 0 as Python's %.
fn modulo<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let a = b.input(0, "A")?;
    let d = b.input(1, "B")?;
    let a_type = b.input_type(0, "A")?;
    let d_type = b.input_type(1, "B")?;
    check_same_dtype(&a_type, &d_type)?;
    let fmod = b.int("fmod", 0)?;
    let result = b.result_type(0)?;
    let y = match fmod {
        1 => t.aten_tensor("fmod.Tensor", &[a, d], &result)?,
        0 => t.aten_tensor("remainder.Tensor", &[a, d], &result)?,
        other => bail!("attribute 'fmod' is {other}, expected 0 or 1"),
    };
    Ok(vec![y])
}

fn check_same_dtype(a: &TensorType, b: &TensorType) -> Result<()> {
    if let (Some(x), Some(y)) = (a.dtype, b.dtype)
        && x != y
    {
        bail!("A is {x} but B is {y}");
    }
    Ok(())
}
