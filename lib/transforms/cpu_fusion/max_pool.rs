//! Fusion of max pools of quantized tensors (`qlower.qmax_pool`).
//!
//! QDQ models wrap MaxPool in Q/DQ with the input's own scale and zero point, which
//! lowers to `quantize_per_tensor(max_poolNd(dequantize(q)), scale, zero_point)`. A
//! positive scale keeps order, so the maximum of the dequantized values is the
//! dequantized maximum, and quantizing a dequantized integer with the same parameters
//! gives it back: the pool can run on q's integers, a quarter of the bytes, as ONNX
//! Runtime runs QDQ MaxPool. Where the parameters differ, the pattern is left alone.
//!
//! ONNX MaxPool also takes 8-bit integers directly (QOperator models pool their uint8
//! activations): a `max_poolNd` of the bytes (`match_bytes`). `--target` writes it as a
//! float pool between casts so that downstream compilers pool them unsigned
//! (`transforms/downstream/unsigned_max_pool.rs`):
//! `to.dtype(to.dtype(max_poolNd(to.dtype(x, f32)), si32), x's type)`, or with one cast
//! back, and `qlower run` of that printed form matches it too (`match_integer`). Every
//! byte is exact in f32 and the maximum is one of the window's values, so the casts
//! give back that byte: the same pool of x's bytes, with no float copy of x. A window
//! wholly in the padding (-inf in the float pool, no byte in the byte pool) declines.

use melior::ir::ValueLike;
use melior::ir::operation::{OperationLike, OperationRef};

use super::elementwise::{dequantized, storage_of};
use super::pooled_lookup::every_window_reads_input;
use super::{Fusion, Operand};
use crate::dialect::qlower;
use crate::dialect::types::TensorType;
use crate::ir::matchers::{constant_float, constant_int, defining, op_name};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;

/// How many axes `op` slides over, when it is a `torch.aten.max_poolNd`.
pub(super) fn spatial_axes(op: OperationRef) -> Option<usize> {
    match op_name(op).as_str() {
        "torch.aten.max_pool1d" => Some(1),
        "torch.aten.max_pool2d" => Some(2),
        "torch.aten.max_pool3d" => Some(3),
        _ => None,
    }
}

/// The fused op for `quantize` of a max pool of a dequantized tensor with the same
/// parameters.
pub fn match_quantized<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let pool = defining(quantize.operand(0).ok()?)?;
    spatial_axes(pool)?;
    let x = dequantized(pool.operand(0).ok()?)?;
    let (y_scale, y_zero_point) = (quantize.operand(1).ok()?, quantize.operand(2).ok()?);
    let same = constant_float(x.tensor.scale)? == constant_float(y_scale)?
        && constant_int(x.tensor.zero_point)? == constant_int(y_zero_point)?
        && storage_of(x.tensor.int)? == storage_of(quantize.result(0).ok()?.into())?;
    if !same || pool.operand_count() != 6 {
        return None;
    }
    let mut operands = vec![Operand::Ir(x.tensor.int)];
    for i in 1..6 {
        operands.push(Operand::Ir(pool.operand(i).ok()?));
    }
    operands.push(Operand::Ir(y_scale));
    operands.push(Operand::Ir(y_zero_point));
    Some(Fusion {
        op: qlower::QMAX_POOL,
        operands,
    })
}

/// The fused op for `pool`, a max pool of 8-bit integers into the same type.
pub fn match_bytes<'c: 'a, 'a>(pool: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let spatial = spatial_axes(pool)?;
    let x = pool.operand(0).ok()?;
    let x_type = TensorType::parse(&x.r#type().to_string())?;
    let out_type = TensorType::parse(&pool.result(0).ok()?.r#type().to_string())?;
    let dtype = x_type.dtype?;
    if !matches!(dtype, DType::U8 | DType::I8)
        || out_type.dtype? != dtype
        || pool.operand_count() != 6
        || !every_window_reads_input(pool, spatial, &x_type, &out_type)
    {
        return None;
    }
    byte_pool(pool, x)
}

/// `qlower.qmax_pool` of the bytes `x` with `pool`'s window operands; no scale or zero
/// point: the result keeps x's (here none).
fn byte_pool<'c: 'a, 'a>(
    pool: OperationRef<'c, 'a>,
    x: melior::ir::Value<'c, 'a>,
) -> Option<Fusion<'c, 'a>> {
    let mut operands = vec![Operand::Ir(x)];
    for i in 1..6 {
        operands.push(Operand::Ir(pool.operand(i).ok()?));
    }
    operands.extend([Operand::Const(Value::None), Operand::Const(Value::None)]);
    Some(Fusion {
        op: qlower::QMAX_POOL,
        operands,
    })
}

/// The fused op for `cast`, a `to.dtype` back to 8-bit integers of a float max pool of
/// the same integers cast to f32 (through si32 or not).
pub fn match_integer<'c: 'a, 'a>(cast: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let dtype = |v: melior::ir::Value| TensorType::parse(&v.r#type().to_string())?.dtype;
    let out = dtype(cast.result(0).ok()?.into())?;
    if !matches!(out, DType::U8 | DType::I8) {
        return None;
    }
    let mut pool = defining(cast.operand(0).ok()?)?;
    if op_name(pool) == "torch.aten.to.dtype" && dtype(pool.result(0).ok()?.into())? == DType::I32 {
        pool = defining(pool.operand(0).ok()?)?;
    }
    let spatial = spatial_axes(pool)?;
    if pool.operand_count() != 6 || dtype(pool.result(0).ok()?.into())? != DType::F32 {
        return None;
    }
    let widen = defining(pool.operand(0).ok()?)?;
    if op_name(widen) != "torch.aten.to.dtype" {
        return None;
    }
    let x = widen.operand(0).ok()?;
    let x_type = TensorType::parse(&x.r#type().to_string())?;
    let out_type = TensorType::parse(&pool.result(0).ok()?.r#type().to_string())?;
    if x_type.dtype? != out || !every_window_reads_input(pool, spatial, &x_type, &out_type) {
        return None;
    }
    byte_pool(pool, x)
}
