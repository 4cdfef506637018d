//! Float8 (FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ): Cast's `saturate`,
//! and QuantizeLinear / DequantizeLinear to and from them.
//!
//! torch has float8 dtypes but no quantized float8 type, so the quantization stays
//! explicit with torch's own ops, like the 16-bit forms (`quant_params.rs`):
//!
//! - quantize: `div.Tensor(x, scale)` [`add.Tensor(·, zero_point)`] [`clamp(·, -max,
//!   max)`] `to.dtype(·, f8)`, the clamp when `saturate` is set (the default);
//! - dequantize: `to.dtype(x, f32)` [`sub.Tensor(·, zero_point)`] `mul.Tensor(·, scale)`.
//!
//! Scale and zero point are reshaped to broadcast along `axis` when per-axis. The zero
//! point steps are left out when the zero point is absent or a constant zero (the
//! spec requires float8 zero points to be zero; adding +0 would turn -0 into +0).
//! `torch.aten.to.dtype` into float8 rounds to nearest even without saturation, as
//! torch's own float8 casts do, so `saturate` is the clamp before it. Constant folding
//! leaves every op that reads or produces float8 alone (`transforms/fold_constants.rs`).

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::{Binder, tensor_type_of};
use super::quant_params::QuantParams;
use super::quantization::cast;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;
use crate::onnx::dtype::Float8;

/// `x` converted to the float8 type of `to`, clamped to its finite range first when
/// `saturate` is set. Sources that are not floats go through f32 first, so the clamp
/// compares floats.
pub fn cast_to_float8<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    to: &TensorType,
    saturate: bool,
) -> Result<Value<'c, 'a>> {
    let Some(format) = to.dtype.and_then(Float8::of) else {
        bail!("internal error: cast to float8 of a non-float8 type {to}");
    };
    if !saturate {
        return cast(t, x, to);
    }
    let (x, x_type) = match x_type.dtype {
        Some(d) if d.is_float() => (x, x_type.clone()),
        _ => {
            let f = x_type.with_dtype(DType::F32);
            (cast(t, x, &f)?, f)
        }
    };
    let (lo, hi) = (t.float(-format.max())?, t.float(format.max())?);
    let clamped = t.aten_tensor("clamp", &[x, lo, hi], &x_type)?;
    cast(t, clamped, to)
}

/// Whether input `i` of the node being lowered is absent or a constant holding zeros.
pub fn zero_point_is_zero(b: &Binder, i: usize) -> bool {
    if b.optional_input(i).is_none() {
        return true;
    }
    b.constant_input(i)
        .and_then(|d| d.to_f64_vec())
        .is_some_and(|v| v.iter().all(|&x| x == 0.0))
}

/// The shape parameters of `p` broadcast with along a tensor of rank `rank`.
fn param_shape(p: &QuantParams, rank: usize) -> Result<Vec<i64>> {
    match p.axis {
        Some(axis) => {
            let mut shape = vec![1i64; rank];
            let Some(dim) = usize::try_from(axis).ok().and_then(|a| shape.get_mut(a)) else {
                bail!("axis {axis} is out of range for rank {rank}");
            };
            *dim = p.length as i64;
            Ok(shape)
        }
        None => Ok(Vec::new()),
    }
}

/// A scale or zero point as an f32 tensor of `shape`.
fn param_f32<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    v: Value<'c, 'a>,
    shape: &[i64],
) -> Result<Value<'c, 'a>> {
    let dtype = tensor_type_of(v)?.dtype.unwrap_or(DType::F32);
    let dims = t.int_list(shape)?;
    let v = t.aten_tensor("reshape", &[v, dims], &TensorType::known(dtype, shape))?;
    if dtype == DType::F32 {
        return Ok(v);
    }
    cast(t, v, &TensorType::known(DType::F32, shape))
}

/// QuantizeLinear of the f32 tensor `x` to the float8 type `p.storage`.
pub fn quantize_float8<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    p: &QuantParams<'c, 'a>,
    zero_point_is_zero: bool,
    saturate: bool,
) -> Result<Value<'c, 'a>> {
    let Some(rank) = x_type.rank() else {
        bail!("quantization of a tensor of unknown rank");
    };
    let shape = param_shape(p, rank)?;
    let f = x_type.with_dtype(DType::F32);
    let scale = param_f32(t, p.scale, &shape)?;
    let mut q = t.aten_tensor("div.Tensor", &[x, scale], &f)?;
    if let (Some(zp), false) = (p.zero_point, zero_point_is_zero) {
        let zp = param_f32(t, zp, &shape)?;
        let one = t.int(1)?;
        q = t.aten_tensor("add.Tensor", &[q, zp, one], &f)?;
    }
    cast_to_float8(t, q, &f, &x_type.with_dtype(p.storage), saturate)
}

/// DequantizeLinear of the float8 tensor `x`, as f32.
pub fn dequantize_float8<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    p: &QuantParams<'c, 'a>,
    zero_point_is_zero: bool,
) -> Result<Value<'c, 'a>> {
    let Some(rank) = x_type.rank() else {
        bail!("dequantization of a tensor of unknown rank");
    };
    let shape = param_shape(p, rank)?;
    let f = x_type.with_dtype(DType::F32);
    let mut y = cast(t, x, &f)?;
    if let (Some(zp), false) = (p.zero_point, zero_point_is_zero) {
        let zp = param_f32(t, zp, &shape)?;
        let one = t.int(1)?;
        y = t.aten_tensor("sub.Tensor", &[y, zp, one], &f)?;
    }
    let scale = param_f32(t, p.scale, &shape)?;
    t.aten_tensor("mul.Tensor", &[y, scale], &f)
}
