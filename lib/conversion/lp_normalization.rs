//! LpNormalization: X divided by its L1 or L2 norm along `axis`, as
//! `div.Tensor(x, linalg_vector_norm(x, p, [axis], keepdim = true))`. A zero norm (all
//! of its elements zero) gives zeros, as ONNX Runtime and the ONNX reference give, not
//! 0/0: the norm is replaced by 1 there.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("LpNormalization", 1, lp_normalization);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

fn lp_normalization<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let x_type = b.input_type(0, "input")?;
    if let Some(d) = x_type.dtype
        && !d.is_float()
    {
        bail!("input 'input' is {x_type}, expected a float tensor");
    }
    let Some(dims) = x_type.shape.clone() else {
        bail!("input 'input' has unknown rank, so attribute 'axis' cannot be resolved");
    };
    let rank = dims.len() as i64;
    let axis = b.int("axis", -1)?;
    if axis < -rank || axis >= rank {
        bail!("attribute 'axis' is {axis}, outside the range of the input's rank {rank}");
    }
    let axis = if axis < 0 { axis + rank } else { axis };
    let p = b.int("p", 2)?;
    if p != 1 && p != 2 {
        bail!("attribute 'p' is {p}, expected 1 or 2");
    }
    let mut reduced = dims;
    reduced[axis as usize] = Some(1);
    let norm_type = TensorType {
        dtype: x_type.dtype,
        shape: Some(reduced),
    };
    let operands = [
        x,
        t.float(p as f64)?,
        t.int_list(&[axis])?,
        t.bool(true)?,
        t.none()?,
    ];
    let norm = t.aten_tensor("linalg_vector_norm", &operands, &norm_type)?;
    let zero = t.aten_tensor(
        "eq.Scalar",
        &[norm, t.int(0)?],
        &norm_type.with_dtype(DType::Bool),
    )?;
    let divisor = t.aten_tensor("where.ScalarSelf", &[zero, t.float(1.0)?, norm], &norm_type)?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor("div.Tensor", &[x, divisor], &result)?])
}
