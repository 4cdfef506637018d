//! CumSum, Trilu, GatherElements and ScatterND: ops that place elements by position.
//! Lowered to torch-mlir's ops: `cumsum` (reverse as `flip` around it, exclusive as
//! the input shifted one place along the axis: `slice.Tensor` then `constant_pad_nd`),
//! `triu` / `tril`, `gather` (negative indices wrapped with `where.self`), and
//! `index_put` with one index tensor per leading dimension that ScatterND addresses.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::scatter_nd_reduce::{scatter_nd_reduce, torch_reduction};
use super::shape_util::{await_constant, normalize_axis};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("CumSum", 11, cumsum);
    r.on_op("Trilu", 14, trilu);
    r.on_op("GatherElements", 11, gather_elements);
    r.on_op("ScatterND", 11, scatter_nd);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// The one integer of a constant scalar (or one-element) input.
fn constant_scalar(b: &Binder, i: usize, name: &str) -> Result<i64> {
    await_constant(b, i, name)?;
    let Some(data) = b.constant_input(i) else {
        bail!("input '{name}' must be a constant known at compile time");
    };
    match data.to_i64_vec().as_deref() {
        Some([v]) => Ok(*v),
        Some(v) => bail!("input '{name}' has {} elements, expected 1", v.len()),
        None => bail!("input '{name}' must be an integer, but is {}", data.dtype),
    }
}

fn cumsum<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "x")?;
    let x_type = b.input_type(0, "x")?;
    let Some(dims) = x_type.shape.clone() else {
        bail!("input 'x' has unknown rank, so input 'axis' cannot be resolved");
    };
    let rank = dims.len();
    let exclusive = b.int("exclusive", 0)? != 0;
    let reverse = b.int("reverse", 0)? != 0;
    let result = b.result_type(0)?;
    await_constant(b, 1, "axis")?;
    // A constant axis is checked here; one known only at run time is read with `item`
    // (torch's dimension operands count negative ones from the end, as ONNX does).
    let static_axis = match b.constant_input(1) {
        Some(_) => Some(normalize_axis(
            constant_scalar(b, 1, "axis")?,
            rank.max(1),
            "input 'axis'",
        )?),
        None => None,
    };
    let dim = match static_axis {
        Some(a) => t.int(a as i64)?,
        None => {
            let axis = b.input(1, "axis")?;
            t.item_int(axis)?
        }
    };
    let flip_list = if reverse {
        Some(t.list(&[dim], "int")?)
    } else {
        None
    };
    let mut value = x;
    if let Some(list) = flip_list {
        value = t.aten_tensor("flip", &[value, list], &x_type)?;
    }
    let none = t.none()?;
    let summed = match (exclusive, static_axis) {
        (false, _) => t.aten_tensor("cumsum", &[value, dim, none], &result)?,
        (true, Some(axis)) => {
            // Drop the last element along the axis and put a zero in front of the
            // first, so the running sum adds exactly what the exclusive one does.
            let mut cut = dims.clone();
            if let Some(d) = cut.get_mut(axis) {
                *d = d.map(|n| (n - 1).max(0));
            }
            let cut_type = TensorType {
                dtype: x_type.dtype,
                shape: Some(cut),
            };
            let (start, end, step) = (t.int(0)?, t.int(-1)?, t.int(1)?);
            let head = t.aten_tensor("slice.Tensor", &[value, dim, start, end, step], &cut_type)?;
            let mut pads = vec![0i64; 2 * (rank - axis)];
            if let Some(p) = pads.get_mut(2 * (rank - axis - 1)) {
                *p = 1;
            }
            let pads = t.int_list(&pads)?;
            let zero = t.int(0)?;
            let shifted = t.aten_tensor("constant_pad_nd", &[head, pads, zero], &x_type)?;
            t.aten_tensor("cumsum", &[shifted, dim, none], &result)?
        }
        (true, None) => {
            // The padding needs the axis's position, so with a run-time axis the
            // exclusive sum is the inclusive one minus each element.
            let inclusive = t.aten_tensor("cumsum", &[value, dim, none], &result)?;
            let one = t.int(1)?;
            t.aten_tensor("sub.Tensor", &[inclusive, value, one], &result)?
        }
    };
    if let Some(list) = flip_list {
        return Ok(vec![t.aten_tensor("flip", &[summed, list], &result)?]);
    }
    Ok(vec![summed])
}

fn trilu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let x_type = b.input_type(0, "input")?;
    if x_type.rank().is_some_and(|r| r < 2) {
        bail!("input is {x_type}: Trilu needs at least 2 dimensions");
    }
    let k = if !b.has_input(1) {
        t.int(0)?
    } else if b.constant_input(1).is_some() {
        t.int(constant_scalar(b, 1, "k")?)?
    } else {
        let k = b.input(1, "k")?;
        t.item_int(k)?
    };
    let result = b.result_type(0)?;
    let upper = b.int("upper", 1)?;
    match upper {
        1 => Ok(vec![t.aten_tensor("triu", &[x, k], &result)?]),
        0 => Ok(vec![t.aten_tensor("tril", &[x, k], &result)?]),
        other => bail!("attribute 'upper' is {other}, expected 0 or 1"),
    }
}

fn gather_elements<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let data = b.input(0, "data")?;
    let data_type = b.input_type(0, "data")?;
    let indices = b.input(1, "indices")?;
    let idx_type = b.input_type(1, "indices")?;
    let Some(dims) = data_type.shape.clone() else {
        bail!("input 'data' has unknown rank, so attribute 'axis' cannot be resolved");
    };
    if let Some(d) = idx_type.dtype
        && d != DType::I32
        && d != DType::I64
    {
        bail!("input 'indices' is {idx_type}, expected INT32 or INT64");
    }
    let axis = normalize_axis(b.int("axis", 0)?, dims.len().max(1), "attribute 'axis'")?;
    let result = b.result_type(0)?;
    let all_non_negative = b
        .constant_input(1)
        .and_then(|d| d.to_i64_vec())
        .is_some_and(|v| v.iter().all(|&i| i >= 0));
    let index = if all_non_negative {
        indices
    } else {
        // ONNX counts negative indices from the end; torch's gather does not.
        let size = match dims.get(axis).copied().flatten() {
            Some(n) => t.int(n)?,
            None => {
                let d = t.int(axis as i64)?;
                t.aten("size.int", &[data, d], t.torch_type("int")?)?
            }
        };
        let mask_type = idx_type.with_dtype(DType::Bool);
        let zero = t.int(0)?;
        let negative = t.aten_tensor("lt.Scalar", &[indices, zero], &mask_type)?;
        let one = t.int(1)?;
        let wrapped = t.aten_tensor("add.Scalar", &[indices, size, one], &idx_type)?;
        t.aten_tensor("where.self", &[negative, wrapped, indices], &idx_type)?
    };
    let dim = t.int(axis as i64)?;
    let sparse = t.bool(false)?;
    Ok(vec![t.aten_tensor(
        "gather",
        &[data, dim, index, sparse],
        &result,
    )?])
}

fn scatter_nd<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let data = b.input(0, "data")?;
    let data_type = b.input_type(0, "data")?;
    let indices = b.input(1, "indices")?;
    let idx_type = b.input_type(1, "indices")?;
    let updates = b.input(2, "updates")?;
    let accumulate = match b.string("reduction", "none")?.as_str() {
        "none" => false,
        "add" => true,
        other => match torch_reduction(other) {
            Some(reduce) => return scatter_nd_reduce(b, t, reduce),
            None => {
                bail!("attribute 'reduction' is '{other}', not one of none, add, mul, max, min")
            }
        },
    };
    let Some(idx_dims) = idx_type.shape.clone() else {
        bail!("input 'indices' has unknown rank");
    };
    let Some(Some(k)) = idx_dims.last().copied() else {
        bail!("input 'indices' is {idx_type}: its last dimension must be known");
    };
    if let Some(r) = data_type.rank()
        && (k < 1 || k as usize > r)
    {
        bail!("input 'indices' addresses {k} dimensions, but data has rank {r}");
    }
    if let Some(d) = idx_type.dtype
        && d != DType::I64
    {
        bail!("input 'indices' is {idx_type}, expected INT64");
    }
    let one_index = TensorType {
        dtype: Some(DType::I64),
        shape: Some(idx_dims[..idx_dims.len() - 1].to_vec()),
    };
    let last = t.int(idx_dims.len() as i64 - 1)?;
    let mut parts = Vec::with_capacity(k as usize);
    for j in 0..k {
        let j = t.int(j)?;
        parts.push(t.aten_tensor("select.int", &[indices, last, j], &one_index)?);
    }
    let list = t.list(&parts, "optional<vtensor>")?;
    let accumulate = t.bool(accumulate)?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor(
        "index_put",
        &[data, list, updates, accumulate],
        &result,
    )?])
}
