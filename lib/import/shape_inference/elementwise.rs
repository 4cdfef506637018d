//! Elementwise ops of several inputs: arithmetic, logic and comparisons with numpy
//! broadcasting, Where, Clip and PRelu.

use anyhow::{Result, bail};

use super::ShapeRules;
use super::ctx::Ctx;
use super::{Inferred, broadcast, int_arith, partial};
use crate::dialect::types::Dim;
use crate::onnx::dtype::DType;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(
        &[
            "Add",
            "Sub",
            "Mul",
            "Div",
            "Mod",
            "And",
            "Or",
            "Xor",
            "BitwiseAnd",
            "BitwiseOr",
            "BitwiseXor",
        ],
        1,
        |ctx| binary(ctx, ["A", "B"], false),
    );
    r.infer_ops(&["BitShift"], 1, |ctx| binary(ctx, ["X", "Y"], false));
    r.infer_ops(
        &["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"],
        1,
        |ctx| binary(ctx, ["A", "B"], true),
    );
    r.infer_ops(&["Pow"], 1, pow);
    r.infer_ops(&["Max", "Min", "Sum", "Mean"], 1, variadic);
    r.infer_ops(&["Where"], 1, select);
    r.infer_ops(&["Clip"], 1, clip);
    r.infer_ops(&["PRelu"], 1, prelu);
}

fn named(ctx: &Ctx, i: usize, name: &str) -> (String, Option<Vec<Dim>>) {
    (format!("input '{name}'"), ctx.shape(i))
}

/// Before opset 7, binary ops broadcast B onto A only (the `broadcast` attribute), so
/// the result always has A's shape.
fn legacy_shape(ctx: &Ctx) -> Option<Vec<Dim>> {
    ctx.shape(0)
}

fn binary(ctx: &Ctx, names: [&str; 2], comparison: bool) -> Result<Vec<Inferred>> {
    let dtype = ctx.shared_dtype(&[
        (0, format!("input '{}'", names[0])),
        (1, format!("input '{}'", names[1])),
    ])?;
    let shape = if ctx.opset < 7 {
        legacy_shape(ctx)
    } else {
        broadcast::shapes(&[named(ctx, 0, names[0]), named(ctx, 1, names[1])])?
    };
    let dtype = if comparison { Some(DType::Bool) } else { dtype };
    let value = match (ctx.value(0), ctx.value(1)) {
        (Some(a), Some(b)) if ctx.opset >= 7 => int_arith::binary(ctx.node.op_type, a, b),
        _ => None,
    };
    // Shape arithmetic on a partly known shape (`shape * [1, 2]`): elementwise.
    let elements = match (ctx.elements(0), ctx.elements(1)) {
        (Some(a), Some(b)) if ctx.opset >= 7 => partial::binary(ctx.node.op_type, &a, &b),
        _ => None,
    };
    Ok(vec![
        Inferred::of(dtype, shape)
            .with_value(value)
            .with_elements(elements),
    ])
}

/// Pow's exponent may have another type; the result has the base's.
fn pow(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let shape = if ctx.opset < 7 {
        legacy_shape(ctx)
    } else {
        broadcast::shapes(&[named(ctx, 0, "X"), named(ctx, 1, "Y")])?
    };
    Ok(vec![Inferred::of(ctx.dtype(0), shape)])
}

fn variadic(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let n = ctx.input_slots();
    let names: Vec<(usize, String)> = (0..n).map(|i| (i, format!("input {i}"))).collect();
    let dtype = ctx.shared_dtype(&names)?;
    let shapes: Vec<(String, Option<Vec<Dim>>)> = names
        .iter()
        .map(|(i, name)| (name.clone(), ctx.shape(*i)))
        .collect();
    let shape = if ctx.opset < 8 && n > 0 {
        // Before opset 8 these ops did not broadcast: all inputs share one shape.
        shapes.iter().find_map(|(_, s)| s.clone())
    } else {
        broadcast::shapes(&shapes)?
    };
    let value = match (n, ctx.value(0), ctx.value(1)) {
        (1, Some(a), _) if ctx.node.op_type != "Mean" => super::fold::small(a).cloned(),
        (2, Some(a), Some(b)) => match ctx.node.op_type {
            "Sum" => int_arith::binary("Add", a, b),
            "Max" | "Min" => int_arith::binary(ctx.node.op_type, a, b),
            _ => None,
        },
        _ => None,
    };
    Ok(vec![Inferred::of(dtype, shape).with_value(value)])
}

fn select(ctx: &Ctx) -> Result<Vec<Inferred>> {
    if let Some(d) = ctx.dtype(0).filter(|&d| d != DType::Bool) {
        bail!("input 'condition' has element type {d}, expected BOOL");
    }
    let dtype = ctx.shared_dtype(&[(1, "input 'X'".into()), (2, "input 'Y'".into())])?;
    let shape = broadcast::shapes(&[
        named(ctx, 0, "condition"),
        named(ctx, 1, "X"),
        named(ctx, 2, "Y"),
    ])?;
    let value = match (ctx.value(0), ctx.value(1), ctx.value(2)) {
        (Some(c), Some(x), Some(y)) => int_arith::select(c, x, y),
        _ => None,
    };
    Ok(vec![Inferred::of(dtype, shape).with_value(value)])
}

fn clip(ctx: &Ctx) -> Result<Vec<Inferred>> {
    Ok(vec![Inferred::of(ctx.dtype(0), ctx.shape(0))])
}

/// The slope broadcasts onto X only, so the result has X's shape.
fn prelu(ctx: &Ctx) -> Result<Vec<Inferred>> {
    if let (Some(x), Some(slope)) = (ctx.shape(0), ctx.shape(1))
        && ctx.opset >= 7
        && !broadcast::onto(&slope, &x)
    {
        bail!(
            "input 'slope' has shape {}, which does not broadcast to input 'X' {}",
            super::dims::fmt_shape(&slope),
            super::dims::fmt_shape(&x)
        );
    }
    Ok(vec![Inferred::of(ctx.dtype(0), ctx.shape(0))])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ints, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn add_broadcasts_multidirectionally() {
        let n = N::new("Add", &["a", "b"], 1);
        let t = out_ty(
            &n,
            14,
            &[
                Some(In::new(DType::F32, &[2, 1, 4])),
                Some(In::new(DType::F32, &[3, 1])),
            ],
        );
        assert_eq!(t, ty(DType::F32, &[2, 3, 4]));
        let d = out_ty(
            &n,
            14,
            &[
                Some(In::new(DType::F32, &[-1, 3])),
                Some(In::new(DType::F32, &[5, 1])),
            ],
        );
        assert_eq!(d, ty(DType::F32, &[5, 3]));
    }

    #[test]
    fn add_conflicts_are_errors_naming_the_input() {
        let n = N::new("Add", &["a", "b"], 1);
        let e = err(
            &n,
            14,
            &[
                Some(In::new(DType::F32, &[2, 3])),
                Some(In::new(DType::F32, &[3, 4])),
            ],
        );
        assert_eq!(
            e,
            "input 'B' has shape [3,4], which does not broadcast with [2,3]"
        );
        let e = err(
            &n,
            14,
            &[
                Some(In::new(DType::F32, &[2])),
                Some(In::new(DType::I64, &[2])),
            ],
        );
        assert_eq!(
            e,
            "input 'B' has element type INT64, but input 'A' has FLOAT"
        );
    }

    #[test]
    fn unknown_inputs_leave_the_shape_unknown() {
        let n = N::new("Mul", &["a", "b"], 1);
        let t = out_ty(&n, 14, &[Some(In::new(DType::F32, &[2])), None]);
        assert_eq!(t.dtype, Some(DType::F32));
        assert_eq!(t.shape, None);
    }

    #[test]
    fn comparisons_are_boolean_and_int_arithmetic_folds() {
        let n = N::new("Less", &["a", "b"], 1);
        let t = out_ty(
            &n,
            13,
            &[
                Some(In::new(DType::F32, &[4])),
                Some(In::new(DType::F32, &[])),
            ],
        );
        assert_eq!(t, ty(DType::Bool, &[4]));
        let n = N::new("Mul", &["a", "b"], 1);
        let outs = run(
            &n,
            14,
            &[Some(In::ints(&[2], &[3, 4])), Some(In::ints(&[], &[2]))],
        );
        assert_eq!(out_ints(&outs.unwrap(), 0), Some(vec![6, 8]));
    }

    #[test]
    fn arithmetic_on_a_partly_known_shape_is_elementwise() {
        let n = N::new("Mul", &["a", "b"], 1);
        let shape = || Some(In::partial(&[None, Some(400), Some(384)]));
        let outs = run(&n, 14, &[shape(), Some(In::ints(&[], &[2]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[3]));
        assert_eq!(outs[0].partial, Some(vec![None, Some(800), Some(768)]));
        let n = N::new("Div", &["a", "b"], 1);
        let outs = run(&n, 14, &[shape(), Some(In::ints(&[3], &[1, 1, 6]))]).unwrap();
        assert_eq!(outs[0].partial, Some(vec![None, Some(400), Some(64)]));
        let n = N::new("Mod", &["a", "b"], 1);
        let outs = run(&n, 14, &[shape(), Some(In::ints(&[], &[7]))]).unwrap();
        assert_eq!(outs[0].partial, None);
    }

    #[test]
    fn where_broadcasts_three_inputs() {
        let n = N::new("Where", &["c", "x", "y"], 1);
        let t = out_ty(
            &n,
            16,
            &[
                Some(In::new(DType::Bool, &[2, 1])),
                Some(In::new(DType::F32, &[1, 3])),
                Some(In::new(DType::F32, &[])),
            ],
        );
        assert_eq!(t, ty(DType::F32, &[2, 3]));
    }

    #[test]
    fn clip_and_prelu_keep_the_input_shape() {
        let n = N::new("Clip", &["x", "", "max"], 1);
        let t = out_ty(&n, 13, &[Some(In::new(DType::U8, &[5])), None, None]);
        assert_eq!(t, ty(DType::U8, &[5]));
        let n = N::new("PRelu", &["x", "slope"], 1);
        let t = out_ty(
            &n,
            16,
            &[
                Some(In::new(DType::F32, &[1, 8, 4, 4])),
                Some(In::new(DType::F32, &[8, 1, 1])),
            ],
        );
        assert_eq!(t, ty(DType::F32, &[1, 8, 4, 4]));
    }
}
