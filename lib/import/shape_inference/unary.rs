//! Ops whose outputs have the shape of their first input: activations, rounding,
//! Identity, Dropout and the boolean predicates.

use anyhow::Result;

use super::ShapeRules;
use super::ctx::Ctx;
use super::{Inferred, fold};
use crate::onnx::dtype::DType;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(
        &[
            "Abs",
            "Acos",
            "Acosh",
            "Asin",
            "Asinh",
            "Atan",
            "Atanh",
            "BitwiseNot",
            "Ceil",
            "Celu",
            "Cos",
            "Cosh",
            "CumSum",
            "Elu",
            "Erf",
            "Exp",
            "Floor",
            "Gelu",
            "HardSigmoid",
            "HardSwish",
            "LeakyRelu",
            "Log",
            "Mish",
            "Neg",
            "Reciprocal",
            "Relu",
            "ReverseSequence",
            "Round",
            "ScatterND",
            "Selu",
            "Shrink",
            "Sigmoid",
            "Sign",
            "Sin",
            "Sinh",
            "Softplus",
            "Softsign",
            "Sqrt",
            "Swish",
            "Tan",
            "Tanh",
            "ThresholdedRelu",
            "Trilu",
        ],
        1,
        same,
    );
    r.infer_ops(&["IsNaN", "IsInf"], 1, predicate);
    r.infer_ops(&["Identity"], 1, identity);
    r.infer_ops(&["Not"], 1, not);
    r.infer_ops(&["Dropout"], 1, dropout);
}

fn same(ctx: &Ctx) -> Result<Vec<Inferred>> {
    Ok(vec![Inferred::of(ctx.dtype(0), ctx.shape(0))])
}

/// Not, whose small values are negated at import: exporters test shapes with it
/// (`If(Not(Equal(Size(shape), 3)))` guards a batch squeeze).
fn not(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let value = ctx
        .value(0)
        .and_then(fold::small)
        .filter(|v| v.dtype == DType::Bool)
        .map(|v| crate::onnx::tensor::TensorData {
            dtype: DType::Bool,
            dims: v.dims.clone(),
            bytes: v
                .bytes
                .iter()
                .map(|&b| u8::from(b == 0))
                .collect::<Vec<u8>>()
                .into(),
        });
    Ok(vec![
        Inferred::of(ctx.dtype(0), ctx.shape(0)).with_value(value),
    ])
}

fn predicate(ctx: &Ctx) -> Result<Vec<Inferred>> {
    Ok(vec![Inferred::of(Some(DType::Bool), ctx.shape(0))])
}

fn identity(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let value = ctx.value(0).and_then(fold::small).cloned();
    Ok(vec![
        Inferred::of(ctx.dtype(0), ctx.shape(0))
            .with_value(value)
            .with_elements(ctx.elements(0)),
    ])
}

/// Dropout in inference passes its input through; the optional mask is boolean
/// (opset 10 on; before that it had the input's type).
fn dropout(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let mask = if ctx.opset >= 10 {
        Some(DType::Bool)
    } else {
        ctx.dtype(0)
    };
    Ok(vec![
        Inferred::of(ctx.dtype(0), ctx.shape(0)),
        Inferred::of(mask, ctx.shape(0)),
    ])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, out_ints, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn activations_keep_type_and_shape() {
        for op in [
            "Relu",
            "LeakyRelu",
            "Sigmoid",
            "HardSwish",
            "Erf",
            "Sqrt",
            "Abs",
            "Mish",
            "Softplus",
            "Softsign",
            "Elu",
            "Selu",
            "Celu",
            "ThresholdedRelu",
            "Cos",
            "Atanh",
        ] {
            let n = N::new(op, &["X"], 1);
            let t = out_ty(&n, 13, &[Some(In::new(DType::F32, &[1, -1, 4]))]);
            assert_eq!(t, ty(DType::F32, &[1, -1, 4]), "{op}");
        }
    }

    #[test]
    fn predicates_are_boolean_and_identity_forwards_values() {
        let n = N::new("IsNaN", &["X"], 1);
        let t = out_ty(&n, 13, &[Some(In::new(DType::F32, &[2]))]);
        assert_eq!(t, ty(DType::Bool, &[2]));
        let outs = run(
            &N::new("Identity", &["x"], 1),
            13,
            &[Some(In::ints(&[2], &[4, 5]))],
        );
        assert_eq!(out_ints(&outs.unwrap(), 0), Some(vec![4, 5]));
        let outs = run(
            &N::new("Identity", &["x"], 1),
            13,
            &[Some(In::partial(&[None, Some(5)]))],
        );
        assert_eq!(outs.unwrap()[0].partial, Some(vec![None, Some(5)]));
    }

    #[test]
    fn dropout_mask_is_boolean() {
        let n = N::new("Dropout", &["data"], 2);
        let outs = run(&n, 13, &[Some(In::new(DType::F32, &[3]))]).unwrap();
        assert_eq!(outs[1].ty, ty(DType::Bool, &[3]));
    }
}
