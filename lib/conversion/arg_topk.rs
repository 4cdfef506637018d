//! ArgMax, ArgMin and TopK: positions of the extreme elements along an axis. Lowered
//! as torch-mlir does: `argmax` / `argmin(x, dim, keepdim)`, with `select_last_index`
//! as the same op on the flipped axis mapped back (`size - 1 - i`); and
//! `topk(x, k, dim, largest, sorted)`, whose two results are TopK's two outputs.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::shape_util::{await_constant, normalize_axis};
use crate::dialect::builder::TorchBuilder;
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("ArgMax", 1, |b, t| arg_extreme(b, t, "argmax"));
    r.on_op("ArgMin", 1, |b, t| arg_extreme(b, t, "argmin"));
    r.on_op("TopK", 1, top_k);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// A dimension's size as `!torch.int`: a constant when the type knows it, else
/// `size.int` read at run time.
fn size_of<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    known: Option<i64>,
    dim: usize,
) -> Result<Value<'c, 'a>> {
    match known {
        Some(n) => t.int(n),
        None => {
            let d = t.int(dim as i64)?;
            t.aten("size.int", &[x, d], t.torch_type("int")?)
        }
    }
}

fn arg_extreme<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    aten: &str,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    let Some(dims) = x_type.shape.clone() else {
        bail!("input 'data' has unknown rank, so attribute 'axis' cannot be resolved");
    };
    let axis = normalize_axis(b.int("axis", 0)?, dims.len().max(1), "attribute 'axis'")?;
    let keepdims = b.int("keepdims", 1)? != 0;
    let last = b.int("select_last_index", 0)? != 0;
    let result = b.result_type(0)?;
    let keep = t.bool(keepdims)?;
    let dim = t.int(axis as i64)?;
    if !last {
        return Ok(vec![t.aten_tensor(aten, &[x, dim, keep], &result)?]);
    }
    // The first extreme of the flipped axis is the last one of the original.
    let axes = t.int_list(&[axis as i64])?;
    let flipped = t.aten_tensor("flip", &[x, axes], &x_type)?;
    let index = t.aten_tensor(aten, &[flipped, dim, keep], &result)?;
    let size = size_of(t, x, dims.get(axis).copied().flatten(), axis)?;
    let one = t.int(1)?;
    let last_index = t.aten("sub.int", &[size, one], t.torch_type("int")?)?;
    Ok(vec![t.aten_tensor(
        "rsub.Scalar",
        &[index, last_index, one],
        &result,
    )?])
}

fn top_k<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let x_type = b.input_type(0, "X")?;
    let Some(rank) = x_type.rank() else {
        bail!("input X has unknown rank, so attribute 'axis' cannot be resolved");
    };
    let axis = normalize_axis(b.int("axis", -1)?, rank.max(1), "attribute 'axis'")?;
    let k = if b.opset < 10 {
        t.int(b.int("k", 0)?)?
    } else {
        await_constant(b, 1, "K")?;
        let k_type = b.input_type(1, "K")?;
        if !matches!(k_type.shape.as_deref(), Some([Some(1)]) | None) {
            bail!("input K is {k_type}, expected a tensor of one element");
        }
        match b.constant_input(1).and_then(|d| d.to_i64_vec()) {
            Some(v) if v.len() == 1 => t.int(v[0])?,
            Some(v) => bail!("input K has {} elements, expected 1", v.len()),
            None => {
                let k = b.input(1, "K")?;
                t.item_int(k)?
            }
        }
    };
    let largest = t.bool(b.int("largest", 1)? != 0)?;
    let sorted = t.bool(b.int("sorted", 1)? != 0)?;
    let dim = t.int(axis as i64)?;
    let types = [
        t.tensor_type(&b.result_type(0)?)?,
        t.tensor_type(&b.result_type(1)?)?,
    ];
    let op = t.op(
        "torch.aten.topk",
        &[x, k, dim, largest, sorted],
        &types,
        &[],
    )?;
    Ok(vec![op.result(0)?.into(), op.result(1)?.into()])
}
