//! Einsum (opset 12): `torch.aten.einsum(equation, [operands], path = none)`, as
//! torch-mlir lowers it. The equation is checked against the operands by the shape
//! rule; here only what the op itself needs is refused.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("Einsum", 12, einsum);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

fn einsum<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let Some(equation) = b.optional_string("equation")? else {
        bail!("missing required attribute 'equation'");
    };
    let n = b.input_count();
    let terms = equation.split("->").next().unwrap_or("").split(',').count();
    if n == 0 || terms != n {
        bail!(
            "attribute 'equation' is '{equation}', with {terms} operand terms, but the node has {n} inputs"
        );
    }
    let mut operands = Vec::with_capacity(n);
    let mut dtype = None;
    for i in 0..n {
        let name = format!("Inputs {i}");
        operands.push(b.input(i, &name)?);
        let ty = b.input_type(i, &name)?;
        match (dtype, ty.dtype) {
            (Some(d), Some(e)) if d != e => bail!("input 0 is {d} but input {i} is {e}"),
            (None, e) => dtype = e,
            _ => {}
        }
    }
    let list = t.list(&operands, "vtensor")?;
    let equation = t.str(&equation)?;
    let path = t.none()?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor(
        "einsum",
        &[equation, list, path],
        &result,
    )?])
}
