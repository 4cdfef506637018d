//! Fusion of quantized element-wise add and multiply. QLinearAdd and
//! QLinearMul (and QDQ `DequantizeLinear → Add/Mul → QuantizeLinear`, which ONNX Runtime
//! rewrites into them) lower to `quantize_per_tensor(add.Tensor(dequantize(a),
//! dequantize(b), 1))` or the same with `mul.Tensor`. ONNX Runtime does not compute that
//! literally: it folds scales and zero points into float32 ratios and an offset, and
//! near a rounding tie its result differs by one step, which the next layers of a deep
//! network spread. Where the pattern appears, it becomes `qlower.qlinear_add` or
//! `qlower.qlinear_mul`, and the float ops it replaces become dead.
//!
//! Anything else declines, and runs op by op: per-channel operands, operands or a
//! result whose 8-bit types differ (ONNX Runtime fuses only one type), an `alpha`
//! other than 1, and a float sum or product that something else reads too (ONNX
//! Runtime keeps such a node unfused).

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use super::conv_matmul;
use super::{Fusion, Operand};
use crate::dialect::qlower;
use crate::dialect::types::TensorType;
use crate::ir::matchers::{constant_float, constant_int, defining, named, op_name};
use crate::onnx::dtype::DType;

/// An 8-bit operand: its integers, scale and zero point, and whether ONNX Runtime
/// would see it as a QuantizeLinear → DequantizeLinear pair of its own.
pub(super) struct Quantized<'c, 'a> {
    pub int: MlirValue<'c, 'a>,
    pub scale: MlirValue<'c, 'a>,
    pub zero_point: MlirValue<'c, 'a>,
    qdq_pair: bool,
}

/// The storage type (U8 or I8) of a value typed as 8-bit integers or 8-bit quantized.
pub(super) fn storage_of(v: MlirValue) -> Option<DType> {
    let ty = TensorType::parse(&v.r#type().to_string())?;
    match ty.dtype? {
        DType::U8 | DType::QUInt8 => Some(DType::U8),
        DType::I8 | DType::QInt8 => Some(DType::I8),
        _ => None,
    }
}

/// `v = dequantize.self(q)` where `q` is a per-tensor quantized tensor: made from
/// integers (`_make_per_tensor_quantized_tensor`, QOperator models) or quantized in
/// the graph (`quantize_per_tensor`, QDQ models, where `q` holds the integers itself).
pub(super) fn dequantized<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<Quantized<'c, 'a>> {
    let dq = named(v, "torch.aten.dequantize.self")?;
    let q = dq.operand(0).ok()?;
    let operand = conv_matmul::quantized(q).filter(|d| d.axis.is_none())?;
    let make = defining(q)?;
    // Only int8 pairs matter (see `match_quantized`); the scan is linear.
    let qdq_pair = op_name(make) == "torch.aten.quantize_per_tensor"
        && storage_of(q) == Some(DType::I8)
        && is_lone_pair(make, q, dq);
    Some(Quantized {
        int: operand.int,
        scale: operand.scale,
        zero_point: operand.zero_point,
        qdq_pair,
    })
}

/// Whether `quantize` (defining `q`) and `dq` form a QuantizeLinear → DequantizeLinear
/// pair that ONNX Runtime turns uint8: `dq` dequantizes `q`, nothing else reads `q`, and
/// one op reads `dq`'s floats (ONNX Runtime first gives every consumer of a shared
/// DequantizeLinear its own copy, and then leaves a QuantizeLinear with several alone).
fn is_lone_pair<'c: 'a, 'a>(
    quantize: OperationRef<'c, 'a>,
    q: MlirValue<'c, 'a>,
    dq: OperationRef<'c, 'a>,
) -> bool {
    op_name(dq) == "torch.aten.dequantize.self"
        && users_after(quantize, q).len() == 1
        && dq
            .result(0)
            .is_ok_and(|r| users_after(dq, r.into()).len() == 1)
}

/// The ops after `op` in its block that read `v`, once per operand: the lowered
/// function is one flat block, and a value is only read after its definition.
pub(super) fn users_after<'c: 'a, 'a>(
    op: OperationRef<'c, 'a>,
    v: MlirValue,
) -> Vec<OperationRef<'c, 'a>> {
    let mut users = Vec::new();
    let mut next = op.next_in_block();
    while let Some(o) = next {
        for i in 0..o.operand_count() {
            if o.operand(i).is_ok_and(|x| x == v) {
                users.push(o);
            }
        }
        next = o.next_in_block();
    }
    users
}

/// The fused op for `quantize` (a `torch.aten.quantize_per_tensor`) of the sum or
/// product of two dequantized 8-bit tensors.
pub fn match_quantized<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let input = quantize.operand(0).ok()?;
    let float_op = defining(input)?;
    if op_name(float_op) == "torch.aten.softmax.int" {
        return softmax(quantize, float_op);
    }
    // (as computed, as computed in uint8)
    let names: [&'static str; 2] = match op_name(float_op).as_str() {
        "torch.aten.add.Tensor" => {
            let alpha = float_op.operand(2).ok()?;
            if constant_int(alpha) != Some(1) && constant_float(alpha) != Some(1.0) {
                return None;
            }
            [qlower::QLINEAR_ADD, qlower::QLINEAR_ADD_AS_UINT8]
        }
        "torch.aten.mul.Tensor" => [qlower::QLINEAR_MUL, qlower::QLINEAR_MUL_AS_UINT8],
        _ => return None,
    };
    let a = dequantized(float_op.operand(0).ok()?)?;
    let b = dequantized(float_op.operand(1).ok()?)?;
    let result: MlirValue = quantize.result(0).ok()?.into();
    let storage = storage_of(result)?;
    if storage_of(a.int)? != storage || storage_of(b.int)? != storage {
        return None;
    }
    if users_after(float_op, input).len() != 1 {
        return None;
    }
    // ONNX Runtime on x86-64 runs every int8 QuantizeLinear → DequantizeLinear pair as
    // uint8 (zero point + 128), and fuses only when all three are alike.
    let mut name = names[0];
    if storage == DType::I8 {
        let users = users_after(quantize, result);
        let output_pair = users.len() == 1 && is_lone_pair(quantize, result, users[0]);
        match (a.qdq_pair, b.qdq_pair, output_pair) {
            (true, true, true) => name = names[1],
            (false, false, false) => {}
            _ => return None,
        }
    }
    Some(Fusion {
        op: name,
        operands: vec![
            Operand::Ir(a.int),
            Operand::Ir(a.scale),
            Operand::Ir(a.zero_point),
            Operand::Ir(b.int),
            Operand::Ir(b.scale),
            Operand::Ir(b.zero_point),
            Operand::Ir(quantize.operand(1).ok()?),
            Operand::Ir(quantize.operand(2).ok()?),
        ],
    })
}

/// Whether ONNX Runtime on x86-64 computes this int8 result as uint8: it turns every
/// int8 QuantizeLinear → DequantizeLinear pair into a uint8 one, and fuses only when
/// the operands' pairs and the result's are alike. `None` when they are not (no
/// fusion); always `Some(false)` for uint8.
fn as_uint8(quantize: OperationRef, operands: &[&Quantized]) -> Option<bool> {
    let result: MlirValue = quantize.result(0).ok()?.into();
    if storage_of(result)? != DType::I8 {
        return Some(false);
    }
    let users = users_after(quantize, result);
    let output_pair = users.len() == 1 && is_lone_pair(quantize, result, users[0]);
    operands
        .iter()
        .all(|o| o.qdq_pair == output_pair)
        .then_some(output_pair)
}

/// `quantize(softmax.int(dequantize(x), dim, none))`: ONNX Runtime's QLinearSoftmax.
fn softmax<'c: 'a, 'a>(
    quantize: OperationRef<'c, 'a>,
    softmax: OperationRef<'c, 'a>,
) -> Option<Fusion<'c, 'a>> {
    let x = dequantized(softmax.operand(0).ok()?)?;
    let result: MlirValue = quantize.result(0).ok()?.into();
    let none = softmax.operand(2).ok()?.r#type().to_string() == "!torch.none";
    let float: MlirValue = softmax.result(0).ok()?.into();
    if !none || storage_of(x.int)? != storage_of(result)? || users_after(softmax, float).len() != 1
    {
        return None;
    }
    let name = if as_uint8(quantize, &[&x])? {
        qlower::QLINEAR_SOFTMAX_AS_UINT8
    } else {
        qlower::QLINEAR_SOFTMAX
    };
    Some(Fusion {
        op: name,
        operands: vec![
            Operand::Ir(x.int),
            Operand::Ir(x.scale),
            Operand::Ir(softmax.operand(1).ok()?),
            Operand::Ir(quantize.operand(1).ok()?),
            Operand::Ir(quantize.operand(2).ok()?),
            Operand::Ir(quantize.operand(3).ok()?),
        ],
    })
}
