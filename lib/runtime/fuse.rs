//! Plan-time fusion of quantized convolutions and matrix products. The lowered IR says
//! `quantize_per_tensor(convolution(dequantize(x), dequantize(w), dequantize(b)))`;
//! run literally, the float convolution rounds differently from ONNX Runtime's int32
//! accumulation near ties. Where that pattern appears, the plan runs one fused integer
//! step instead (`kernels::qlinear`), and the float steps it replaces become dead.

use melior::ir::attribute::{BoolAttribute, FloatAttribute, IntegerAttribute};
use melior::ir::operation::{OperationLike, OperationRef, OperationResult};
use melior::ir::{Value as MlirValue, ValueLike};

use super::kernels::{Kernel, qlinear};
use super::value::Value;

/// An operand of a fused step: an IR value, or a constant the matcher supplies.
pub enum Operand<'c, 'a> {
    Ir(MlirValue<'c, 'a>),
    Const(Value),
}

pub struct Fused<'c, 'a> {
    pub kernel: Kernel,
    pub operands: Vec<Operand<'c, 'a>>,
}

fn defining<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    OperationResult::try_from(v).ok().map(|r| r.owner())
}

fn named<'c: 'a, 'a>(v: MlirValue<'c, 'a>, name: &str) -> Option<OperationRef<'c, 'a>> {
    defining(v).filter(|op| op.name().as_string_ref().as_str() == Ok(name))
}

fn is_none(v: MlirValue) -> bool {
    v.r#type().to_string() == "!torch.none"
}

/// The integer tensor, scale and zero point behind `dequantize.self(_make_*(...))`, and
/// the per-channel axis when there is one.
struct Dequantized<'c, 'a> {
    int: MlirValue<'c, 'a>,
    scale: MlirValue<'c, 'a>,
    zero_point: MlirValue<'c, 'a>,
    axis: Option<i64>,
}

fn dequantized<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<Dequantized<'c, 'a>> {
    let dq = named(v, "torch.aten.dequantize.self")?;
    let make = defining(dq.operand(0).ok()?)?;
    let name = make.name().as_string_ref().as_str().ok()?.to_string();
    let operand = |i| make.operand(i).ok();
    match name.as_str() {
        "torch.aten._make_per_tensor_quantized_tensor" => Some(Dequantized {
            int: operand(0)?,
            scale: operand(1)?,
            zero_point: operand(2)?,
            axis: None,
        }),
        "torch.aten._make_per_channel_quantized_tensor" => Some(Dequantized {
            int: operand(0)?,
            scale: operand(1)?,
            zero_point: operand(2)?,
            axis: Some(constant_int(operand(3)?)?),
        }),
        _ => None,
    }
}

fn constant_int(v: MlirValue) -> Option<i64> {
    let op = named(v, "torch.constant.int")?;
    IntegerAttribute::try_from(op.attribute("value").ok()?)
        .ok()
        .map(|i| i.value())
}

fn constant_bool(v: MlirValue) -> Option<bool> {
    let op = named(v, "torch.constant.bool")?;
    BoolAttribute::try_from(op.attribute("value").ok()?)
        .ok()
        .map(|b| b.value())
}

fn constant_float(v: MlirValue) -> Option<f64> {
    let op = named(v, "torch.constant.float")?;
    FloatAttribute::try_from(op.attribute("value").ok()?)
        .ok()
        .map(|f| f.value())
}

/// The fused step for `quantize` (a `torch.aten.quantize_per_tensor`), if its input is a
/// convolution or matmul of dequantized 8-bit operands.
pub fn match_quantized<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<Fused<'c, 'a>> {
    let input = quantize.operand(0).ok()?;
    let y_scale = quantize.operand(1).ok()?;
    let y_zero_point = quantize.operand(2).ok()?;
    let producer = defining(input)?;
    match producer.name().as_string_ref().as_str().ok()? {
        "torch.aten.convolution" => conv(producer, y_scale, y_zero_point),
        "torch.aten.matmul" => matmul(producer, y_scale, y_zero_point),
        _ => None,
    }
}

fn conv<'c: 'a, 'a>(
    conv: OperationRef<'c, 'a>,
    y_scale: MlirValue<'c, 'a>,
    y_zero_point: MlirValue<'c, 'a>,
) -> Option<Fused<'c, 'a>> {
    let operand = |i| conv.operand(i).ok();
    if constant_bool(operand(6)?)? {
        return None;
    }
    // An asymmetric padding appears as constant_pad_nd(x, pads, 0.0) before the conv.
    let (input, pads) = match named(operand(0)?, "torch.aten.constant_pad_nd") {
        Some(pad) => {
            if constant_float(pad.operand(2).ok()?)? != 0.0 {
                return None;
            }
            (pad.operand(0).ok()?, Operand::Ir(pad.operand(1).ok()?))
        }
        None => (operand(0)?, Operand::Const(Value::None)),
    };
    let x = dequantized(input)?;
    let w = dequantized(operand(1)?)?;
    if x.axis.is_some() || w.axis.is_some_and(|a| a != 0) {
        return None;
    }
    let bias = operand(2)?;
    let (bias_int, bias_zero_point) = if is_none(bias) {
        (Operand::Const(Value::None), Operand::Const(Value::None))
    } else {
        let b = dequantized(bias)?;
        (Operand::Ir(b.int), Operand::Ir(b.zero_point))
    };
    Some(Fused {
        kernel: qlinear::qlinear_conv,
        operands: vec![
            Operand::Ir(x.int),
            Operand::Ir(x.scale),
            Operand::Ir(x.zero_point),
            Operand::Ir(w.int),
            Operand::Ir(w.scale),
            Operand::Ir(w.zero_point),
            bias_int,
            bias_zero_point,
            Operand::Ir(operand(3)?),
            Operand::Ir(operand(4)?),
            Operand::Ir(operand(5)?),
            Operand::Ir(operand(8)?),
            pads,
            Operand::Ir(y_scale),
            Operand::Ir(y_zero_point),
        ],
    })
}

fn matmul<'c: 'a, 'a>(
    matmul: OperationRef<'c, 'a>,
    y_scale: MlirValue<'c, 'a>,
    y_zero_point: MlirValue<'c, 'a>,
) -> Option<Fused<'c, 'a>> {
    let a = dequantized(matmul.operand(0).ok()?)?;
    let b = dequantized(matmul.operand(1).ok()?)?;
    if a.axis.is_some() {
        return None;
    }
    // Per-column parameters of b run along its last axis.
    let b_rank = rank_of(b.int)?;
    if b.axis.is_some_and(|axis| axis != b_rank as i64 - 1) {
        return None;
    }
    Some(Fused {
        kernel: qlinear::qlinear_matmul,
        operands: vec![
            Operand::Ir(a.int),
            Operand::Ir(a.scale),
            Operand::Ir(a.zero_point),
            Operand::Ir(b.int),
            Operand::Ir(b.scale),
            Operand::Ir(b.zero_point),
            Operand::Ir(y_scale),
            Operand::Ir(y_zero_point),
        ],
    })
}

fn rank_of(v: MlirValue) -> Option<usize> {
    crate::dialect::types::TensorType::parse(&v.r#type().to_string())?.rank()
}
