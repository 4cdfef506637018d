//! Fusion of dynamically quantized convolutions and matrix products. ONNX Runtime's
//! dynamic quantization writes `DynamicQuantizeLinear(x)` → ConvInteger or
//! MatMulInteger with 8-bit weights → Cast to float → Mul by
//! `x_scale · w_scale` → optionally Add a bias. Lowered, that is a min and a max over
//! x, the scalar arithmetic of the scale and zero point, a quantize, an int32
//! convolution or matmul of centred operands, and float ops on the result. Where the
//! whole chain appears it becomes one `qlower.dynamic_conv` (or `dynamic_matmul`),
//! which computes the same float32 operations in the same order on the integer tiles.
//!
//! The root is the float op whose result the fused op computes: the Add when the bias
//! is one per output channel, else the Mul. A Mul matched under a matched Add is
//! fused too, and is dead afterwards when the Add was its one user.

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use super::conv_matmul::quantized;
use super::{Fusion, Operand};
use crate::dialect::qlower;
use crate::dialect::types::{TensorType, tensor_type_of_value};
use crate::ir::matchers::{constant_bool, constant_float, constant_int, defining, named};
use crate::kernels::tensor::value::Value;

/// torch's scalar type codes the lowering casts with.
const UINT8: i64 = 0;
const INT32: i64 = 3;
const FLOAT32: i64 = 6;

fn is_none(v: MlirValue) -> bool {
    v.r#type().to_string() == "!torch.none"
}

/// The fused op for `mul.Tensor(float(acc), x_scale · w_scale)`.
pub fn match_mul<'c: 'a, 'a>(mul: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    rescaled(mul, None)
}

/// The fused op for `add.Tensor(mul, bias)` (either order, alpha 1) over a matched Mul,
/// when the bias is one float per output channel.
pub fn match_add<'c: 'a, 'a>(add: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    if constant_int(add.operand(2).ok()?)? != 1 {
        return None;
    }
    let (a, b) = (add.operand(0).ok()?, add.operand(1).ok()?);
    let (mul, bias) = match named(a, "torch.aten.mul.Tensor") {
        Some(m) => (m, b),
        None => (named(b, "torch.aten.mul.Tensor")?, a),
    };
    // The sum keeps the product's shape: the bias only broadcasts.
    if tensor_type_of_value(add.result(0).ok()?.into())?
        != tensor_type_of_value(mul.result(0).ok()?.into())?
    {
        return None;
    }
    rescaled(mul, Some(bias))
}

/// The chain under the Mul `mul`, with `bias` added when given.
fn rescaled<'c: 'a, 'a>(
    mul: OperationRef<'c, 'a>,
    bias: Option<MlirValue<'c, 'a>>,
) -> Option<Fusion<'c, 'a>> {
    let (a, b) = (mul.operand(0).ok()?, mul.operand(1).ok()?);
    let (acc, scales) = match float_of_int32(a) {
        Some(c) => (c, b),
        None => (float_of_int32(b)?, a),
    };
    // The product keeps the accumulator's shape: the scales only broadcast.
    let out = tensor_type_of_value(mul.result(0).ok()?.into())?;
    if out.shape.is_none() || out.shape != tensor_type_of_value(acc)?.shape {
        return None;
    }
    let rank = out.rank()?;
    let acc = defining(acc)?;
    let (op, channel_axis) = match acc.name().as_string_ref().as_str().ok()? {
        "torch.aten.convolution" => (qlower::DYNAMIC_CONV, 1),
        "torch.aten.matmul" => (qlower::DYNAMIC_MATMUL, rank.checked_sub(1)?),
        _ => return None,
    };
    // x_scale · w_scale, w_scale holding one value or one per channel.
    let product = named(scales, "torch.aten.mul.Tensor")?;
    let (s0, s1) = (product.operand(0).ok()?, product.operand(1).ok()?);
    let per_channel = |v: MlirValue| channel_count(&tensor_type_of_value(v)?, rank, channel_axis);
    per_channel(scales)?;
    if let Some(bias) = bias {
        named(bias, "torch.vtensor.literal")?;
        (tensor_type_of_value(bias)?.dtype? == crate::onnx::dtype::DType::F32).then_some(())?;
        per_channel(bias)?;
    }
    let input = acc.operand(0).ok()?;
    let (input, pads) = match named(input, "torch.aten.constant_pad_nd") {
        Some(pad) if op == qlower::DYNAMIC_CONV => {
            (constant_float(pad.operand(2).ok()?)? == 0.0).then_some(())?;
            (pad.operand(0).ok()?, Operand::Ir(pad.operand(1).ok()?))
        }
        _ => (input, Operand::Const(Value::None)),
    };
    let dynamic = dynamically_quantized(input)?;
    let w_scale = if s0 == dynamic.scale {
        s1
    } else if s1 == dynamic.scale {
        s0
    } else {
        return None;
    };
    (tensor_type_of_value(w_scale)?.dtype? == crate::onnx::dtype::DType::F32).then_some(())?;
    let weights = centred_weights(acc.operand(1).ok()?)?;
    let bias = bias.map_or(Operand::Const(Value::None), Operand::Ir);
    let mut operands = vec![
        Operand::Ir(dynamic.x),
        Operand::Ir(weights.int),
        Operand::Ir(weights.zero_point),
        Operand::Ir(w_scale),
        bias,
    ];
    if op == qlower::DYNAMIC_CONV {
        let operand = |i| acc.operand(i).ok().map(Operand::Ir);
        // No bias in the integer convolution, not transposed.
        (is_none(acc.operand(2).ok()?) && !constant_bool(acc.operand(6).ok()?)?).then_some(())?;
        // Per-channel weight parameters run along the output channels.
        (weights.axis.unwrap_or(0) == 0).then_some(())?;
        operands.extend([operand(3)?, operand(4)?, operand(5)?, operand(8)?, pads]);
    } else {
        // A 2-D b, per column along its last axis.
        let b_rank = tensor_type_of_value(weights.int)?.rank()?;
        (b_rank == 2 && weights.axis.unwrap_or(1) == 1).then_some(())?;
    }
    Some(Fusion { op, operands })
}

/// The int32 tensor behind `to.dtype(acc, float32)`.
fn float_of_int32<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<MlirValue<'c, 'a>> {
    let cast = named(v, "torch.aten.to.dtype")?;
    (constant_int(cast.operand(1).ok()?)? == FLOAT32).then_some(())?;
    let acc = cast.operand(0).ok()?;
    (tensor_type_of_value(acc)?.dtype? == crate::onnx::dtype::DType::I32).then_some(acc)
}

/// How many values a float operand of a product of rank `rank` holds when it holds one
/// value, or one per index of `axis` (broadcast along no other dimension).
fn channel_count(t: &TensorType, rank: usize, axis: usize) -> Option<usize> {
    let shape = t.shape.as_ref()?;
    if shape.len() > rank {
        return None;
    }
    let lead = rank - shape.len();
    let mut count = 1;
    for (i, d) in shape.iter().enumerate() {
        let d = (*d)?;
        if lead + i == axis {
            count = usize::try_from(d).ok()?;
        } else if d != 1 {
            return None;
        }
    }
    Some(count)
}

/// The float input behind DynamicQuantizeLinear, and the scale tensor it computed.
struct Dynamic<'c, 'a> {
    x: MlirValue<'c, 'a>,
    scale: MlirValue<'c, 'a>,
}

/// `sub.Tensor(to.dtype(int_repr(quantize_per_tensor(x, item(scale), item(zp)))),
/// to.dtype(zp), 1)` where scale and zp are exactly the lowering of
/// DynamicQuantizeLinear on x (`conversion::quantization::dynamic_params`).
fn dynamically_quantized<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<Dynamic<'c, 'a>> {
    let sub = named(v, "torch.aten.sub.Tensor")?;
    (constant_int(sub.operand(2).ok()?)? == 1).then_some(())?;
    let wide = cast_of(sub.operand(0).ok()?, INT32)?;
    let zp_wide = cast_of(sub.operand(1).ok()?, INT32)?;
    let int_repr = named(wide, "torch.aten.int_repr")?;
    let q = named(int_repr.operand(0).ok()?, "torch.aten.quantize_per_tensor")?;
    let x = q.operand(0).ok()?;
    let scale = item_of(q.operand(1).ok()?)?;
    let zp = item_of(q.operand(2).ok()?)?;
    (zp == zp_wide && constant_int(q.operand(3).ok()?)? == 13).then_some(())?;
    // The scale: (max(max(x), 0) - min(min(x), 0)) / 255.
    let div = named(scale, "torch.aten.div.Scalar")?;
    (constant_float(div.operand(1).ok()?)? == 255.0).then_some(())?;
    let range = named(div.operand(0).ok()?, "torch.aten.sub.Tensor")?;
    (constant_int(range.operand(2).ok()?)? == 1).then_some(())?;
    bounded(
        range.operand(0).ok()?,
        "torch.aten.clamp_min",
        "torch.aten.max",
        x,
    )?;
    let lo_value = range.operand(1).ok()?;
    bounded(lo_value, "torch.aten.clamp_max", "torch.aten.min", x)?;
    // The zero point: u8(clamp(round(-(lo / scale)), 0, 255)).
    let zp_u8 = cast_of(zp, UINT8)?;
    let clamp = named(zp_u8, "torch.aten.clamp")?;
    (constant_float(clamp.operand(1).ok()?)? == 0.0).then_some(())?;
    (constant_float(clamp.operand(2).ok()?)? == 255.0).then_some(())?;
    let round = named(clamp.operand(0).ok()?, "torch.aten.round")?;
    let neg = named(round.operand(0).ok()?, "torch.aten.neg")?;
    let ratio = named(neg.operand(0).ok()?, "torch.aten.div.Tensor")?;
    (ratio.operand(0).ok()? == lo_value && ratio.operand(1).ok()? == scale).then_some(())?;
    Some(Dynamic { x, scale })
}

/// `clamp(extreme(x), 0.0)` with the named clamp and extreme.
fn bounded<'c: 'a, 'a>(
    v: MlirValue<'c, 'a>,
    clamp: &str,
    extreme: &str,
    x: MlirValue<'c, 'a>,
) -> Option<()> {
    let c = named(v, clamp)?;
    (constant_float(c.operand(1).ok()?)? == 0.0).then_some(())?;
    let e = named(c.operand(0).ok()?, extreme)?;
    (e.operand(0).ok()? == x).then_some(())
}

/// The tensor that `to.dtype(v, code, false, false, none)` converts.
fn cast_of<'c: 'a, 'a>(v: MlirValue<'c, 'a>, code: i64) -> Option<MlirValue<'c, 'a>> {
    let cast = named(v, "torch.aten.to.dtype")?;
    (constant_int(cast.operand(1).ok()?)? == code).then_some(())?;
    cast.operand(0).ok()
}

/// The tensor that `torch.aten.item` reads.
fn item_of<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<MlirValue<'c, 'a>> {
    named(v, "torch.aten.item")?.operand(0).ok()
}

/// The 8-bit weights behind `to.dtype(dequantize.self(_make_*(w, 1, zero_point)),
/// int32)`, the centring `conversion::integer_ops` writes.
struct Weights<'c, 'a> {
    int: MlirValue<'c, 'a>,
    zero_point: MlirValue<'c, 'a>,
    axis: Option<i64>,
}

fn centred_weights<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<Weights<'c, 'a>> {
    let dq = named(cast_of(v, INT32)?, "torch.aten.dequantize.self")?;
    let w = quantized(dq.operand(0).ok()?)?;
    // Only the form of the lowering, at scale 1. The weights are usually a literal, or
    // quantized from one at run time (a model that quantized its float weights with
    // DynamicQuantizeLinear too), which the plan evaluates once; the kernel packs any
    // other tensor on each call.
    let unit = match w.axis {
        None => constant_float(w.scale)? == 1.0,
        Some(_) => all_ones(w.scale),
    };
    unit.then_some(Weights {
        int: w.int,
        zero_point: w.zero_point,
        axis: w.axis,
    })
}

/// Whether `v` is a float32 literal of ones.
fn all_ones(v: MlirValue) -> bool {
    let (Some(op), Some(ty)) = (named(v, "torch.vtensor.literal"), tensor_type_of_value(v)) else {
        return false;
    };
    let Ok(attr) = op.attribute("value") else {
        return false;
    };
    if ty.dtype != Some(crate::onnx::dtype::DType::F32) {
        return false;
    }
    crate::dialect::ops::dense_attribute_data(attr, &ty).is_some_and(|d| {
        d.bytes
            .chunks_exact(4)
            .all(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) == 1.0)
    })
}
