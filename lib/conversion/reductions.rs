//! ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
//! ReduceSumSquare, ReduceLogSum and ReduceLogSumExp. The axes are an attribute in early opsets and an optional input
//! later (ReduceSum from 13, the others from 18); no axes means every axis, unless
//! `noop_with_empty_axes` makes the op an identity. Lowered as torch-mlir does:
//! `sum.dim_IntList`, `mean.dim`, `amax`, `amin`, one `prod.dim_int` per axis and
//! `linalg_vector_norm`, `log` of `sum.dim_IntList`, and `logsumexp`.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::shape_util::{await_constant, normalize_axes, optional_const_ints};
use super::simple_ops::refine;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    for (op, new_since) in [
        ("ReduceSum", 13),
        ("ReduceMean", 18),
        ("ReduceMax", 18),
        ("ReduceMin", 18),
        ("ReduceProd", 18),
        ("ReduceL1", 18),
        ("ReduceL2", 18),
        ("ReduceSumSquare", 18),
        ("ReduceLogSum", 18),
        ("ReduceLogSumExp", 18),
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

/// Which axes a reduction takes.
enum Axes<'c, 'a> {
    /// `noop_with_empty_axes` with no axes: the op passes its input through.
    Identity,
    /// Axes known at compile time, in `0..rank`, sorted.
    Known(Vec<usize>),
    /// Axes read at run time from input 'axes' (of known length), as a
    /// `!torch.list<int>`: one `select.int` + `item` per entry, as torch-mlir reads
    /// them. torch's reductions take negative dimensions as they are.
    Run(Value<'c, 'a>, Vec<Value<'c, 'a>>),
}

fn axes<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>, rank: usize) -> Result<Axes<'c, 'a>> {
    let (given, what) = if axes_as_input(b) {
        await_constant(b, 1, "axes")?;
        let run_time = b.has_input(1) && b.constant_input(1).is_none();
        if run_time {
            match run_time_axes(b, t)? {
                Some((list, items)) => return Ok(Axes::Run(list, items)),
                None => (vec![], "input 'axes'"),
            }
        } else {
            let given = optional_const_ints(b, 1, "axes")?.unwrap_or_default();
            (given, "input 'axes'")
        }
    } else {
        (b.ints("axes", &[])?, "attribute 'axes'")
    };
    if given.is_empty() {
        if axes_as_input(b) && b.int("noop_with_empty_axes", 0)? != 0 {
            return Ok(Axes::Identity);
        }
        return Ok(Axes::Known((0..rank).collect()));
    }
    let mut out = normalize_axes(&given, rank, what)?;
    out.sort_unstable();
    Ok(Axes::Known(out))
}

/// The list of a run-time 'axes' input and its entries, or `None` when it is known to
/// be empty.
#[allow(clippy::type_complexity)]
fn run_time_axes<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Option<(Value<'c, 'a>, Vec<Value<'c, 'a>>)>> {
    let axes = b.input(1, "axes")?;
    let ty = b.input_type(1, "axes")?;
    if let Some(d) = ty.dtype
        && d != crate::onnx::dtype::DType::I64
    {
        bail!("input 'axes' is {ty}, expected INT64");
    }
    let n = match ty.shape.as_deref() {
        Some([Some(n)]) => *n,
        _ => bail!("input 'axes' is {ty}: a run-time 'axes' needs a 1-D shape of known length"),
    };
    if n == 0 {
        return Ok(None);
    }
    let element = TensorType {
        dtype: ty.dtype,
        shape: Some(vec![]),
    };
    let mut items = Vec::with_capacity(n as usize);
    for i in 0..n {
        let (dim, index) = (t.int(0)?, t.int(i)?);
        let one = t.aten_tensor("select.int", &[axes, dim, index], &element)?;
        items.push(t.item_int(one)?);
    }
    Ok(Some((t.list(&items, "int")?, items)))
}

fn reduce<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    let result = b.result_type(0)?;
    let Some(rank) = x_type.rank() else {
        bail!("input 'data' has unknown rank, so the reduced axes cannot be resolved");
    };
    let keepdims = b.int("keepdims", 1)? != 0;
    // `axes` is Ok with the axes known at compile time, Err with the `!torch.int`
    // entries read at run time; `dims_list` is either as a `!torch.list<int>`.
    let (axes, dims_list) = match axes(b, t, rank)? {
        Axes::Identity => return Ok(vec![refine(t, x, &x_type, &result)?]),
        Axes::Known(axes) => {
            let dims: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
            let list = t.int_list(&dims)?;
            (Ok(axes), list)
        }
        Axes::Run(list, items) => (Err(items), list),
    };
    if matches!(
        b.op_type.as_str(),
        "ReduceMean" | "ReduceLogSum" | "ReduceLogSumExp"
    ) && let Some(d) = x_type.dtype
        && !d.is_float()
    {
        bail!(
            "input 'data' is {x_type}: {} is lowered for float inputs only",
            b.op_type
        );
    }
    let keep = t.bool(keepdims)?;
    let none = t.none()?;
    let y = match b.op_type.as_str() {
        "ReduceSum" => t.aten_tensor("sum.dim_IntList", &[x, dims_list, keep, none], &result)?,
        "ReduceMean" => t.aten_tensor("mean.dim", &[x, dims_list, keep, none], &result)?,
        "ReduceMax" => t.aten_tensor("amax", &[x, dims_list, keep], &result)?,
        "ReduceMin" => t.aten_tensor("amin", &[x, dims_list, keep], &result)?,
        "ReduceProd" => match axes {
            Ok(axes) => product(t, x, &x_type, &axes, keepdims, &result)?,
            // Each product keeps its dimension (as size 1), so the others keep their
            // numbers whatever order the run-time axes come in. Without keepdims a sum
            // over the same axes then drops them: a sum of one element is that element.
            Err(items) => {
                let mut value = x;
                let kept = TensorType {
                    dtype: result.dtype,
                    shape: Some(vec![None; rank]),
                };
                for (i, dim) in items.iter().enumerate() {
                    let ty = if keepdims && i + 1 == items.len() {
                        &result
                    } else {
                        &kept
                    };
                    let (keep, none) = (t.bool(true)?, t.none()?);
                    value = t.aten_tensor("prod.dim_int", &[value, *dim, keep, none], ty)?;
                }
                if keepdims {
                    value
                } else {
                    t.aten_tensor("sum.dim_IntList", &[value, dims_list, keep, none], &result)?
                }
            }
        },
        "ReduceL1" => norm(t, x, 1.0, dims_list, keep, &result)?,
        "ReduceL2" => norm(t, x, 2.0, dims_list, keep, &result)?,
        "ReduceSumSquare" => {
            let square = t.aten_tensor("mul.Tensor", &[x, x], &x_type)?;
            t.aten_tensor("sum.dim_IntList", &[square, dims_list, keep, none], &result)?
        }
        "ReduceLogSum" => {
            let sum = t.aten_tensor("sum.dim_IntList", &[x, dims_list, keep, none], &result)?;
            t.aten_tensor("log", &[sum], &result)?
        }
        "ReduceLogSumExp" => t.aten_tensor("logsumexp", &[x, dims_list, keep], &result)?,
        other => bail!("no reduction named {other}"),
    };
    Ok(vec![y])
}

/// `linalg_vector_norm(x, ord, dims, keepdim, dtype = none)`.
fn norm<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    ord: f64,
    dims: Value<'c, 'a>,
    keep: Value<'c, 'a>,
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    let ord = t.float(ord)?;
    let none = t.none()?;
    t.aten_tensor("linalg_vector_norm", &[x, ord, dims, keep, none], result)
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
