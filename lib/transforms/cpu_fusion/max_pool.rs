//! Fusion of max pools of quantized tensors (`qlower.qmax_pool`).
//!
//! QDQ models wrap MaxPool in Q/DQ with the input's own scale and zero point, which
//! lowers to `quantize_per_tensor(max_poolNd(dequantize(q)), scale, zero_point)`. A
//! positive scale keeps order, so the maximum of the dequantized values is the
//! dequantized maximum, and quantizing a dequantized integer with the same parameters
//! gives it back: the pool can run on q's integers, a quarter of the bytes, as ONNX
//! Runtime runs QDQ MaxPool. Where the parameters differ, the pattern is left alone.

use melior::ir::operation::{OperationLike, OperationRef};

use super::elementwise::{dequantized, storage_of};
use super::{Fusion, Operand};
use crate::dialect::qlower;
use crate::ir::matchers::{constant_float, constant_int, defining, op_name};

/// The fused op for `quantize` of a max pool of a dequantized tensor with the same
/// parameters.
pub fn match_quantized<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let pool = defining(quantize.operand(0).ok()?)?;
    if !matches!(
        op_name(pool).as_str(),
        "torch.aten.max_pool1d" | "torch.aten.max_pool2d" | "torch.aten.max_pool3d"
    ) {
        return None;
    }
    let x = dequantized(pool.operand(0).ok()?)?;
    let (y_scale, y_zero_point) = (quantize.operand(1).ok()?, quantize.operand(2).ok()?);
    let same = constant_float(x.scale)? == constant_float(y_scale)?
        && constant_int(x.zero_point)? == constant_int(y_zero_point)?
        && storage_of(x.int)? == storage_of(quantize.result(0).ok()?.into())?;
    if !same || pool.operand_count() != 6 {
        return None;
    }
    let mut operands = vec![Operand::Ir(x.int)];
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
