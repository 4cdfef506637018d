//! Fusion of quantized convolutions and matrix products. The lowered IR says
//! `quantize_per_tensor(convolution(dequantize(x), dequantize(w), dequantize(b)))`;
//! run literally, the float convolution rounds differently from ONNX Runtime's int32
//! accumulation near ties. Where that pattern appears, it becomes one
//! `qlower.qlinear_conv` (or `qlower.qlinear_matmul`), which the backend runs as one
//! integer kernel, and the float ops it replaces become dead.
//!
//! The same holds for the form `fuse-quantized-ops` writes, where the convolution is
//! applied to the quantized tensors and its qint32 accumulator is dequantized with the
//! scale `x_scale·w_scale`: requantized, it becomes the same fused integer op; used as
//! floats, it becomes the float convolution of the dequantized operands, exactly as the
//! unfused IR does, so fusing never changes a result.

use crate::ir::matchers::{constant_bool, constant_float, constant_int, defining, named};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use super::{Fusion, Operand};
use crate::dialect::qlower;
use crate::kernels::tensor::value::Value;

fn is_none(v: MlirValue) -> bool {
    v.r#type().to_string() == "!torch.none"
}

/// The integer tensor, scale and zero point behind `dequantize.self(_make_*(...))`, and
/// the per-channel axis when there is one.
pub(super) struct Dequantized<'c, 'a> {
    pub int: MlirValue<'c, 'a>,
    pub scale: MlirValue<'c, 'a>,
    pub zero_point: MlirValue<'c, 'a>,
    pub axis: Option<i64>,
}

impl<'c, 'a> Dequantized<'c, 'a> {
    /// The integers, scale and zero point, as the first three operands of a `qlower.` op
    /// that reads this quantized tensor.
    pub fn operands(&self) -> [Operand<'c, 'a>; 3] {
        [
            Operand::Ir(self.int),
            Operand::Ir(self.scale),
            Operand::Ir(self.zero_point),
        ]
    }
}

fn dequantized<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<Dequantized<'c, 'a>> {
    let dq = named(v, "torch.aten.dequantize.self")?;
    quantized(dq.operand(0).ok()?)
}

/// The operands of `_make_*_quantized_tensor` that produced `v`; for `quantize_*`, which
/// QDQ models quantize activations with, `v` itself holds the integers.
pub(super) fn quantized<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<Dequantized<'c, 'a>> {
    let make = defining(v)?;
    let name = make.name().as_string_ref().as_str().ok()?.to_string();
    let operand = |i| make.operand(i).ok();
    match name.as_str() {
        "torch.aten.quantize_per_tensor" => Some(Dequantized {
            int: v,
            scale: operand(1)?,
            zero_point: operand(2)?,
            axis: None,
        }),
        "torch.aten.quantize_per_channel" => Some(Dequantized {
            int: v,
            scale: operand(1)?,
            zero_point: operand(2)?,
            axis: Some(constant_int(operand(3)?)?),
        }),
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
        // Integers `sink-dequantize` moved: the parameters of what they were moved
        // from, per tensor only (that pass moves nothing else).
        name if super::sink_dequantize::MOVEMENTS.contains(&name)
            || super::sink_dequantize::is_nearest_interpolation(make, name) =>
        {
            moved(v, quantized(operand(0)?)?)
        }
        "torch.aten.cat" => {
            let parts = named(operand(0)?, "torch.prim.ListConstruct")?;
            let mut params = parts.operands().map(quantized);
            let first = params.next()??;
            for p in params {
                if !super::sink_dequantize::same_params(&p?, &first) {
                    return None;
                }
            }
            moved(v, first)
        }
        _ => None,
    }
}

/// `source`'s per-tensor parameters for `v`, quantized integers moved from it.
fn moved<'c: 'a, 'a>(
    v: MlirValue<'c, 'a>,
    source: Dequantized<'c, 'a>,
) -> Option<Dequantized<'c, 'a>> {
    if source.axis.is_some() || !v.r#type().to_string().contains("!torch.q") {
        return None;
    }
    Some(Dequantized {
        int: v,
        axis: None,
        ..source
    })
}

/// How the operands of a convolution or matmul reach their integers: through
/// `dequantize.self(_make_*)` in the unfused IR, straight from `_make_*` in the fused.
type Resolve<'c, 'a> = fn(MlirValue<'c, 'a>) -> Option<Dequantized<'c, 'a>>;

/// The fused op for `quantize` (a `torch.aten.quantize_per_tensor`), if its input is a
/// convolution or matmul of dequantized 8-bit operands, or the dequantized accumulator
/// of one applied to quantized operands.
pub fn match_quantized<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let input = quantize.operand(0).ok()?;
    let y_scale = quantize.operand(1).ok()?;
    let y_zero_point = quantize.operand(2).ok()?;
    let (producer, resolve): (_, Resolve<'c, 'a>) = match fused_accumulator(input) {
        Some(op) => (op, quantized),
        None => (defining(input)?, dequantized),
    };
    match producer.name().as_string_ref().as_str().ok()? {
        "torch.aten.convolution" => conv(producer, resolve, y_scale, y_zero_point),
        "torch.aten.matmul" | "torch.aten.mm" => matmul(producer, resolve, y_scale, y_zero_point),
        _ => None,
    }
}

/// The fused op for `int_repr(quantize_per_tensor(...))`, writing the integers
/// straight away; the pass asks only when the int_repr is the quantize's one use, so
/// the quantize becomes dead.
pub fn match_int_repr<'c: 'a, 'a>(int_repr: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let quantize = named(int_repr.operand(0).ok()?, "torch.aten.quantize_per_tensor")?;
    match_quantized(quantize)
}

/// The float op for `dequantize` (a `torch.aten.dequantize.self`) of a fused
/// accumulator: the convolution or matmul of the dequantized operands, which is what
/// the unfused IR computes. A requantized accumulator matches `match_quantized` too,
/// and then this op is dead and removed.
pub fn match_dequantized<'c: 'a, 'a>(dequantize: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let op = fused_accumulator(dequantize.result(0).ok()?.into())?;
    let name = match op.name().as_string_ref().as_str().ok()? {
        "torch.aten.convolution" => qlower::DEQUANTIZED_CONV,
        "torch.aten.matmul" => qlower::DEQUANTIZED_MATMUL,
        "torch.aten.mm" => qlower::DEQUANTIZED_MM,
        _ => return None,
    };
    let operands = (0..op.operand_count())
        .map(|i| op.operand(i).ok().map(Operand::Ir))
        .collect::<Option<Vec<_>>>()?;
    Some(Fusion { op: name, operands })
}

/// The convolution or matmul behind `dequantize.self(_make_*(int_repr(op)))` when that
/// is the form `fuse-quantized-ops` writes: `op` applied to `_make_*` operands, and the
/// accumulator's scale `x_scale·w_scale` (per channel: along the output's channel axis)
/// with zero point 0. Anything else is not fused, and runs op by op.
fn fused_accumulator<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let dq = named(v, "torch.aten.dequantize.self")?;
    let acc = quantized(dq.operand(0).ok()?)?;
    let int_repr = named(acc.int, "torch.aten.int_repr")?;
    let op = defining(int_repr.operand(0).ok()?)?;
    let name = op.name().as_string_ref().as_str().ok()?.to_string();
    if !matches!(
        name.as_str(),
        "torch.aten.convolution" | "torch.aten.matmul" | "torch.aten.mm"
    ) {
        return None;
    }
    let x = quantized(op.operand(0).ok()?)?;
    let w = quantized(op.operand(1).ok()?)?;
    let same = |a: MlirValue, b: MlirValue| a == b;
    match (w.axis, acc.axis) {
        (None, None) => {
            let mul = named(acc.scale, "torch.aten.mul.float")?;
            let scale_ok =
                same(mul.operand(0).ok()?, x.scale) && same(mul.operand(1).ok()?, w.scale);
            (scale_ok && constant_int(acc.zero_point)? == 0).then_some(())?;
        }
        (Some(_), Some(axis)) => {
            let mul = named(acc.scale, "torch.aten.mul.Scalar")?;
            let scale_ok =
                same(mul.operand(0).ok()?, w.scale) && same(mul.operand(1).ok()?, x.scale);
            let rank = rank_of(op.result(0).ok()?.into())? as i64;
            let channel_axis = if name == "torch.aten.convolution" {
                1
            } else {
                rank - 1
            };
            (scale_ok && axis == channel_axis && zeros_literal(acc.zero_point)).then_some(())?;
        }
        _ => return None,
    }
    Some(op)
}

/// Whether `v` is a literal of zeros.
fn zeros_literal(v: MlirValue) -> bool {
    let Some(op) = named(v, "torch.vtensor.literal") else {
        return false;
    };
    let (Ok(attr), Some(ty)) = (
        op.attribute("value"),
        crate::dialect::types::TensorType::parse(&v.r#type().to_string()),
    ) else {
        return false;
    };
    crate::dialect::ops::dense_attribute_data(attr, &ty)
        .is_some_and(|d| d.bytes.iter().all(|&b| b == 0))
}

fn conv<'c: 'a, 'a>(
    conv: OperationRef<'c, 'a>,
    resolve: Resolve<'c, 'a>,
    y_scale: MlirValue<'c, 'a>,
    y_zero_point: MlirValue<'c, 'a>,
) -> Option<Fusion<'c, 'a>> {
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
    let x = resolve(input)?;
    let w = resolve(operand(1)?)?;
    if x.axis.is_some() || w.axis.is_some_and(|a| a != 0) {
        return None;
    }
    let bias = operand(2)?;
    let (bias_int, bias_zero_point) = if is_none(bias) {
        (Operand::Const(Value::None), Operand::Const(Value::None))
    } else {
        let b = resolve(bias)?;
        (Operand::Ir(b.int), Operand::Ir(b.zero_point))
    };
    Some(Fusion {
        op: qlower::QLINEAR_CONV,
        operands: [
            x.operands().to_vec(),
            w.operands().to_vec(),
            vec![
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
        ]
        .concat(),
    })
}

fn matmul<'c: 'a, 'a>(
    matmul: OperationRef<'c, 'a>,
    resolve: Resolve<'c, 'a>,
    y_scale: MlirValue<'c, 'a>,
    y_zero_point: MlirValue<'c, 'a>,
) -> Option<Fusion<'c, 'a>> {
    let a = resolve(matmul.operand(0).ok()?)?;
    let b = resolve(matmul.operand(1).ok()?)?;
    if a.axis.is_some() {
        return None;
    }
    // Per-column parameters of b run along its last axis.
    let b_rank = rank_of(b.int)?;
    if b.axis.is_some_and(|axis| axis != b_rank as i64 - 1) {
        return None;
    }
    Some(Fusion {
        op: qlower::QLINEAR_MATMUL,
        operands: [
            a.operands().to_vec(),
            b.operands().to_vec(),
            vec![Operand::Ir(y_scale), Operand::Ir(y_zero_point)],
        ]
        .concat(),
    })
}

fn rank_of(v: MlirValue) -> Option<usize> {
    crate::dialect::types::TensorType::parse(&v.r#type().to_string())?.rank()
}
