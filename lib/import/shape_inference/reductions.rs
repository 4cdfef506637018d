//! Reduce* ops (axes as an attribute, or an input from opset 13 for ReduceSum and 18
//! for the rest), ArgMax/ArgMin, and TopK (which keeps K elements along its axis).

use anyhow::{Result, bail};

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use super::dims;
use crate::dialect::types::Dim;
use crate::onnx::dtype::DType;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
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
    r.infer_ops(&["TopK"], 1, top_k);
}

/// Values keep X's type, indices are INT64; along `axis` there are K of each (K is an
/// attribute before opset 10, then a 1-element input).
fn top_k(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let k = if ctx.opset < 10 {
        Some(ctx.attrs().int("k", 0)?)
    } else {
        ctx.ints(1).and_then(|v| (v.len() == 1).then(|| v[0]))
    };
    if let Some(k) = k
        && k < 0
    {
        bail!("K is {k}, expected a non-negative count");
    }
    let shape = match ctx.shape(0) {
        Some(mut x) => {
            let a = dims::axis(ctx.attrs().int("axis", -1)?, x.len(), "attribute 'axis'")?;
            if let (Some(k), Some(Some(n))) = (k, x.get(a))
                && k > *n
            {
                bail!("K is {k}, more than the {n} elements along axis {a}");
            }
            x[a] = k;
            Some(x)
        }
        None => None,
    };
    Ok(vec![
        Inferred::of(ctx.dtype(0), shape.clone()),
        Inferred::of(Some(DType::I64), shape),
    ])
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
    fn top_k_keeps_k_along_the_axis() {
        let n = N::new("TopK", &["X", "K"], 2).int("axis", 1);
        let x = || Some(In::new(DType::F32, &[3, 5]));
        let outs =
            super::super::test_util::run(&n, 11, &[x(), Some(In::ints(&[1], &[2]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::F32, &[3, 2]));
        assert_eq!(outs[1].ty, ty(DType::I64, &[3, 2]));
        let e = super::super::test_util::err(&n, 11, &[x(), Some(In::ints(&[1], &[6]))]);
        assert_eq!(e, "K is 6, more than the 5 elements along axis 1");
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
