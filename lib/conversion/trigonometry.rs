//! The trigonometric and hyperbolic functions (Cos, Sin, Tan, their inverses, Sinh,
//! Cosh and theirs) and the float predicates IsNaN and IsInf. Each is torch's op of
//! the same name, typed as the ONNX result.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("Cos", 7, |b, t| function(b, t, "cos"));
    r.on_op("Sin", 7, |b, t| function(b, t, "sin"));
    r.on_op("Tan", 7, |b, t| function(b, t, "tan"));
    r.on_op("Acos", 7, |b, t| function(b, t, "acos"));
    r.on_op("Asin", 7, |b, t| function(b, t, "asin"));
    r.on_op("Atan", 7, |b, t| function(b, t, "atan"));
    r.on_op("Sinh", 9, |b, t| function(b, t, "sinh"));
    r.on_op("Cosh", 9, |b, t| function(b, t, "cosh"));
    r.on_op("Asinh", 9, |b, t| function(b, t, "asinh"));
    r.on_op("Acosh", 9, |b, t| function(b, t, "acosh"));
    r.on_op("Atanh", 9, |b, t| function(b, t, "atanh"));
    r.on_op("IsNaN", 9, is_nan);
    r.on_op("IsInf", 10, is_inf);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// `torch.aten.<aten>(input)` of a float input.
fn function<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>, aten: &str) -> Lowered<'c, 'a> {
    let x = float_input(b, "input")?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor(aten, &[x], &result)?])
}

fn float_input<'c, 'a>(b: &Binder<'c, 'a>, name: &str) -> Result<Value<'c, 'a>> {
    let ty = b.input_type(0, name)?;
    if let Some(d) = ty.dtype
        && !d.is_float()
    {
        bail!("input '{name}' is {ty}, expected a float tensor");
    }
    b.input(0, name)
}

fn is_nan<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = float_input(b, "X")?;
    let result = b.result_type(0)?.with_dtype(DType::Bool);
    Ok(vec![t.aten_tensor("isnan", &[x], &result)?])
}

/// `isinf`, or `isposinf` / `isneginf` when `detect_negative` / `detect_positive` turn
/// one sign off; with both off nothing is detected.
fn is_inf<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = float_input(b, "X")?;
    let negative = b.int("detect_negative", 1)?;
    let positive = b.int("detect_positive", 1)?;
    let result = b.result_type(0)?.with_dtype(DType::Bool);
    let y = match (negative != 0, positive != 0) {
        (true, true) => t.aten_tensor("isinf", &[x], &result)?,
        (false, true) => t.aten_tensor("isposinf", &[x], &result)?,
        (true, false) => t.aten_tensor("isneginf", &[x], &result)?,
        (false, false) => {
            let none = t.none()?;
            let dtype = t.int(DType::Bool.torch_scalar_type())?;
            let operands = [x, dtype, none, none, none, none];
            t.aten_tensor("zeros_like", &operands, &result)?
        }
    };
    Ok(vec![y])
}
