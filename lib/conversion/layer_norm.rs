//! LayerNormalization (opset 17): normalizes X over every dimension from `axis` on,
//! then scales and shifts. Lowered as torch-mlir does: `native_layer_norm` when the
//! node lists the Mean or InvStdDev output (its three results are ONNX's three
//! outputs), else `layer_norm`. The normalized shape is X's trailing sizes; a size known only at
//! run time is read with `size.int`.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("LayerNormalization", 17, layer_norm);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

fn layer_norm<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let x_type = b.input_type(0, "X")?;
    let scale = b.input(1, "Scale")?;
    let bias = b.optional_input(2);
    let Some(dims) = x_type.shape.clone() else {
        bail!("input X has unknown rank, so attribute 'axis' cannot be resolved");
    };
    if let Some(d) = x_type.dtype
        && !d.is_float()
    {
        bail!("input X is {x_type}, expected a float tensor");
    }
    let rank = dims.len() as i64;
    let axis = b.int("axis", -1)?;
    if axis < -rank || axis >= rank {
        bail!("attribute 'axis' is {axis}, outside the range of X's rank {rank}");
    }
    let axis = if axis < 0 { axis + rank } else { axis } as usize;
    let tail = &dims[axis..];
    check_affine(&b.input_type(1, "Scale")?, tail, "Scale")?;
    if bias.is_some() {
        check_affine(&b.input_type(2, "B")?, tail, "B")?;
    }
    let epsilon = b.float("epsilon", 1e-5)?;

    let normalized_shape = trailing_sizes(t, x, &dims, axis)?;
    let bias = match bias {
        Some(v) => v,
        None => t.none()?,
    };
    let eps = t.float(epsilon)?;
    let y_type = b.result_type(0)?;
    let operands = [x, normalized_shape, scale, bias, eps];
    if b.result_count() > 1 {
        return native(b, t, &operands, &y_type);
    }
    let cudnn = t.bool(false)?;
    let mut operands = operands.to_vec();
    operands.push(cudnn);
    Ok(vec![t.aten_tensor("layer_norm", &operands, &y_type)?])
}

/// The sizes of `x`'s dimensions from `axis` on as a `!torch.list<int>`, each read
/// with `size.int` when it is known only at run time.
pub(super) fn trailing_sizes<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    dims: &[Option<i64>],
    axis: usize,
) -> Result<Value<'c, 'a>> {
    let sizes = dims[axis..]
        .iter()
        .enumerate()
        .map(|(i, d)| match d {
            Some(n) => t.int(*n),
            None => {
                let dim = t.int((axis + i) as i64)?;
                t.aten("size.int", &[x, dim], t.torch_type("int")?)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    t.list(&sizes, "int")
}

/// `native_layer_norm` with its three results typed as ONNX's outputs (InvStdDev
/// typed as Mean when the node lists only two).
fn native<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    operands: &[Value<'c, 'a>],
    y_type: &TensorType,
) -> Lowered<'c, 'a> {
    let mean_type = b.result_type(1)?;
    let rstd_type = if b.result_count() > 2 {
        b.result_type(2)?
    } else {
        mean_type.clone()
    };
    let types = [
        t.tensor_type(y_type)?,
        t.tensor_type(&mean_type)?,
        t.tensor_type(&rstd_type)?,
    ];
    let op = t.op("torch.aten.native_layer_norm", operands, &types, &[])?;
    (0..b.result_count())
        .map(|i| Ok(op.result(i)?.into()))
        .collect()
}

/// Scale and B broadcast onto the normalized dimensions (ONNX allows fewer leading
/// ones).
fn check_affine(ty: &TensorType, tail: &[Option<i64>], name: &str) -> Result<()> {
    let Some(shape) = &ty.shape else {
        return Ok(());
    };
    let fits = shape.len() <= tail.len()
        && shape
            .iter()
            .rev()
            .zip(tail.iter().rev())
            .all(|(a, b)| match (a, b) {
                (Some(a), Some(b)) => a == b || *a == 1,
                _ => true,
            });
    if !fits {
        let tail: Vec<String> = tail
            .iter()
            .map(|d| d.map_or("?".to_string(), |n| n.to_string()))
            .collect();
        bail!(
            "input {name} is {ty}, which does not broadcast to the normalized shape [{}]",
            tail.join(",")
        );
    }
    Ok(())
}
