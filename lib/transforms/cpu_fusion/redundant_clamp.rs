//! Part of `sink-dequantize`: a ReLU or Clip whose only reader is a quantize that
//! clamps at least as much, as ONNX Runtime finds them (its ReluQuantFusion and
//! ClipQuantFusion) and removes them before it fuses QDQ node groups. Without them,
//! DequantizeLinear → Add → Relu → QuantizeLinear is the QLinearAdd ONNX Runtime runs,
//! and `fuse-for-cpu` finds it as such; kept, it would run as literal float ops, which
//! round differently near ties.
//!
//! - ReLU: the quantize's zero point is the lowest value of its 8-bit type. Quantizing
//!   then clamps every negative value to the zero point, which is what 0 quantizes to,
//!   so the ReLU changes nothing (with a positive scale, which is also required).
//! - Clip (`clamp`, `clamp.Tensor`) with constant bounds (an absent one is ±f32::MAX):
//!   the range the quantize can represent, `scale·(lowest - zero point)` to
//!   `scale·(highest - zero point)` in f32, reaches past neither bound by more than
//!   f32's epsilon. That is ONNX Runtime's test, tolerance included, so both drop the
//!   same Clips.

use melior::ir::Value as MlirValue;
use melior::ir::ValueLike;
use melior::ir::operation::{OperationLike, OperationRef};

use super::elementwise::users_after;
use crate::dialect::types::TensorType;
use crate::ir::matchers::{constant_float, constant_int, defining, op_name};
use crate::kernels::tensor::Data;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::runtime::ir_values::constant_value;

/// What `quantize` (a `torch.aten.quantize_per_tensor`) should read instead of its
/// operand, when that operand is a ReLU or Clip it makes redundant.
pub(super) fn unclamped<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<MlirValue<'c, 'a>> {
    let clamp = defining(quantize.operand(0).ok()?)?;
    let (lowest, highest): (i64, i64) =
        match TensorType::parse(&quantize.result(0).ok()?.r#type().to_string())?.dtype? {
            DType::QUInt8 => (0, 255),
            DType::QInt8 => (-128, 127),
            _ => return None,
        };
    let scale = constant_float(quantize.operand(1).ok()?)? as f32;
    let zero_point = constant_int(quantize.operand(2).ok()?)?;
    let result: MlirValue = clamp.result(0).ok()?.into();
    if clamp.result_count() != 1 || users_after(clamp, result).len() != 1 {
        return None;
    }
    let redundant = match op_name(clamp).as_str() {
        "torch.aten.relu" => zero_point == lowest && scale > 0.0,
        "torch.aten.clamp" | "torch.aten.clamp.Tensor" => {
            let min = bound(clamp.operand(1).ok()?, f32::MIN)?;
            let max = bound(clamp.operand(2).ok()?, f32::MAX)?;
            // Saturating: a zero point in the IR may be any i64.
            let lower = scale * lowest.saturating_sub(zero_point) as f32;
            let upper = scale * highest.saturating_sub(zero_point) as f32;
            !(f32::EPSILON < min - lower || f32::EPSILON < upper - max)
        }
        _ => false,
    };
    let x = clamp.operand(0).ok()?;
    let float_input = TensorType::parse(&x.r#type().to_string())?.dtype? == DType::F32;
    (redundant && float_input).then_some(x)
}

/// A clamp bound: a constant float, a one-element f32 tensor, or none (`absent`).
fn bound(v: MlirValue, absent: f32) -> Option<f32> {
    match constant_value(defining(v)?).ok()?? {
        Value::None => Some(absent),
        Value::Float(f) => Some(f as f32),
        Value::Tensor(t) => match &t.data {
            Data::F32(d) if d.len() == 1 => Some(d[0]),
            _ => None,
        },
        _ => None,
    }
}
