//! ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2 and
//! ReduceSumSquare. The axes are an attribute in early opsets and an optional input
//! later (ReduceSum from 13, the others from 18); no axes means every axis, unless
//! `noop_with_empty_axes` makes the op an identity. Lowered as torch-mlir does:
//! `sum.dim_IntList`, `mean.dim`, `amax`, `amin`, one `prod.dim_int` per axis and
//! `linalg_vector_norm`.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::Binder;
use super::shape_util::{await_constant, normalize_axes, optional_const_ints};
use super::simple_ops::refine;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::ops::Registry;

pub fn register(r: &mut Registry) {
    for (op, new_since) in [
        ("ReduceSum", 13),
        ("ReduceMean", 18),
        ("ReduceMax", 18),
        ("ReduceMin", 18),
        ("ReduceProd", 18),
        ("ReduceL1", 18),
        ("ReduceL2", 18),
        ("ReduceSumSquare", 18),
    ] {
        r.on_op(op, 1, reduce);
        r.on_op(op, new_since, reduce);
    }
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// Whether this op's version takes its axes as input 1.
fn axes_as_input(b: &Binder) -> bool {
    let since = if b.op_type == "ReduceSum" { 13 } else { 18 };
    b.opset >= since
}

/// The reduced axes in `0..rank`, sorted, or `None` for the identity.
fn axes(b: &Binder, rank: usize) -> Result<Option<Vec<usize>>> {
    let (given, what) = if axes_as_input(b) {
        await_constant(b, 1, "axes")?;
        let given = optional_const_ints(b, 1, "axes")?.unwrap_or_default();
        (given, "input 'axes'")
    } else {
        (b.ints("axes", &[])?, "attribute 'axes'")
    };
    if given.is_empty() {
        if axes_as_input(b) && b.int("noop_with_empty_axes", 0)? != 0 {
            return Ok(None);
        }
        return Ok(Some((0..rank).collect()));
    }
    let mut out = normalize_axes(&given, rank, what)?;
    out.sort_unstable();
    Ok(Some(out))
}

fn reduce<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    let result = b.result_type(0)?;
    let Some(rank) = x_type.rank() else {
        bail!("input 'data' has unknown rank, so the reduced axes cannot be resolved");
    };
    let keepdims = b.int("keepdims", 1)? != 0;
    let Some(axes) = axes(b, rank)? else {
        return Ok(vec![refine(t, x, &x_type, &result)?]);
    };
    if b.op_type == "ReduceMean"
        && let Some(d) = x_type.dtype
        && !d.is_float()
    {
        bail!("input 'data' is {x_type}: ReduceMean is lowered for float inputs only");
    }
    let dims: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let keep = t.bool(keepdims)?;
    let y = match b.op_type.as_str() {
        "ReduceSum" => {
            let list = t.int_list(&dims)?;
            let none = t.none()?;
            t.aten_tensor("sum.dim_IntList", &[x, list, keep, none], &result)?
        }
        "ReduceMean" => {
            let list = t.int_list(&dims)?;
            let none = t.none()?;
            t.aten_tensor("mean.dim", &[x, list, keep, none], &result)?
        }
        "ReduceMax" => t.aten_tensor("amax", &[x, t.int_list(&dims)?, keep], &result)?,
        "ReduceMin" => t.aten_tensor("amin", &[x, t.int_list(&dims)?, keep], &result)?,
        "ReduceProd" => product(t, x, &x_type, &axes, keepdims, &result)?,
        "ReduceL1" => norm(t, x, 1.0, &dims, keep, &result)?,
        "ReduceL2" => norm(t, x, 2.0, &dims, keep, &result)?,
        "ReduceSumSquare" => {
            let square = t.aten_tensor("mul.Tensor", &[x, x], &x_type)?;
            let list = t.int_list(&dims)?;
            let none = t.none()?;
            t.aten_tensor("sum.dim_IntList", &[square, list, keep, none], &result)?
        }
        other => bail!("no reduction named {other}"),
    };
    Ok(vec![y])
}

/// `linalg_vector_norm(x, ord, dims, keepdim, dtype = none)`.
fn norm<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    ord: f64,
    dims: &[i64],
    keep: Value<'c, 'a>,
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    let ord = t.float(ord)?;
    let list = t.int_list(dims)?;
    let none = t.none()?;
    t.aten_tensor("linalg_vector_norm", &[x, ord, list, keep, none], result)
}

/// torch's `prod` reduces one dimension at a time: one `prod.dim_int` per axis, the
/// highest first so that, without keepdims, the lower axes keep their numbers.
fn product<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    axes: &[usize],
    keepdims: bool,
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    let mut value = x;
    let mut shape = x_type.shape.clone().unwrap_or_default();
    for (i, &a) in axes.iter().rev().enumerate() {
        if keepdims {
            shape[a] = Some(1);
        } else {
            shape.remove(a);
        }
        let ty = if i + 1 == axes.len() {
            result.clone()
        } else {
            TensorType {
                dtype: result.dtype,
                shape: Some(shape.clone()),
            }
        };
        let (dim, keep, none) = (t.int(a as i64)?, t.bool(keepdims)?, t.none()?);
        value = t.aten_tensor("prod.dim_int", &[value, dim, keep, none], &ty)?;
    }
    if axes.is_empty() {
        return refine(t, value, x_type, result);
    }
    Ok(value)
}
