//! Reduce* ops (axes as an attribute, or an input from opset 13 for ReduceSum and 18
//! for the rest) and ArgMax/ArgMin.

use anyhow::Result;

use super::Inferred;
use super::ctx::Ctx;
use super::dims;
use crate::dialect::types::Dim;
use crate::onnx::dtype::DType;
use crate::ops::Registry;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut Registry) {
    r.infer_ops(
        &[
            "ReduceMean",
            "ReduceSum",
            "ReduceMax",
            "ReduceMin",
            "ReduceProd",
            "ReduceL1",
            "ReduceL2",
            "ReduceLogSum",
            "ReduceLogSumExp",
            "ReduceSumSquare",
        ],
        1,
        reduce,
    );
    r.infer_ops(&["ArgMax", "ArgMin"], 1, arg);
}

/// Drops (or, with keepdims, sets to 1) the reduced axes.
fn reduced(input: &[Dim], axes: &[usize], keep: bool) -> Vec<Dim> {
    input
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| match (axes.contains(&i), keep) {
            (false, _) => Some(d),
            (true, true) => Some(Some(1)),
            (true, false) => None,
        })
        .collect()
}

fn reduce(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let keep = ctx.attrs().int("keepdims", 1)? != 0;
    let axes_as_input = if ctx.node.op_type == "ReduceSum" {
        ctx.opset >= 13
    } else {
        ctx.opset >= 18
    };
    let Some(input) = ctx.shape(0) else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let r = input.len();
    let (axes, what) = if axes_as_input {
        if ctx.present(1) && ctx.ints(1).is_none() {
            // Which axes go is unknown: with keepdims only their sizes are lost.
            let shape = if keep {
                Some(vec![None; r])
            } else {
                dims::vector_len(ctx.shape(1))
                    .and_then(|k| r.checked_sub(k))
                    .map(|n| vec![None; n])
            };
            return Ok(vec![Inferred::of(dtype, shape)]);
        }
        (ctx.ints(1), "input 'axes'")
    } else {
        (ctx.attrs().optional_ints("axes")?, "attribute 'axes'")
    };
    let axes = axes.unwrap_or_default();
    let axes: Vec<usize> = if axes.is_empty() {
        if axes_as_input && ctx.attrs().int("noop_with_empty_axes", 0)? != 0 {
            return Ok(vec![Inferred::of(dtype, Some(input))]);
        }
        (0..r).collect()
    } else {
        dims::axes(&axes, r, what)?
    };
    Ok(vec![Inferred::of(
        dtype,
        Some(reduced(&input, &axes, keep)),
    )])
}

fn arg(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let keep = ctx.attrs().int("keepdims", 1)? != 0;
    let shape = match ctx.shape(0) {
        Some(input) => {
            let a = dims::axis(ctx.attrs().int("axis", 0)?, input.len(), "attribute 'axis'")?;
            Some(reduced(&input, &[a], keep))
        }
        None => None,
    };
    Ok(vec![Inferred::of(Some(DType::I64), shape)])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, out_ty, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn reduce_mean_by_attribute_and_input() {
        let x = || Some(In::new(DType::F32, &[2, 3, 4, 5]));
        let n = N::new("ReduceMean", &["data"], 1).ints("axes", &[2, 3]);
        assert_eq!(out_ty(&n, 13, &[x()]), ty(DType::F32, &[2, 3, 1, 1]));
        let n = N::new("ReduceMean", &["data", "axes"], 1).int("keepdims", 0);
        let t = out_ty(&n, 18, &[x(), Some(In::ints(&[1], &[-1]))]);
        assert_eq!(t, ty(DType::F32, &[2, 3, 4]));
        let n = N::new("ReduceSum", &["data"], 1).int("keepdims", 0);
        assert_eq!(out_ty(&n, 13, &[x()]), ty(DType::F32, &[]));
        let noop = N::new("ReduceSum", &["data"], 1).int("noop_with_empty_axes", 1);
        assert_eq!(out_ty(&noop, 13, &[x()]), ty(DType::F32, &[2, 3, 4, 5]));
    }

    #[test]
    fn argmax_gives_int64() {
        let n = N::new("ArgMax", &["data"], 1)
            .int("axis", 1)
            .int("keepdims", 0);
        let t = out_ty(&n, 13, &[Some(In::new(DType::F32, &[2, 10]))]);
        assert_eq!(t, ty(DType::I64, &[2]));
    }
}
