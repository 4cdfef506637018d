//! `sink-dequantize` (the CPU pipelines): an op that only moves the elements of a
//! per-tensor dequantized tensor moves its quantized integers instead, and the
//! dequantize follows it: `slice(dequantize(q))` becomes `dequantize(slice(q))`, and
//! likewise reshapes, permutes, squeezes, selections, nearest-neighbour interpolation,
//! a `cat` whose parts share one scale, zero point and type, and a `constant_pad_nd`
//! whose fill is on q's grid (the integers padded with its code). Then
//! `quantize_per_tensor(dequantize(q), s, z)` with q's
//! own parameters is q itself, and a ReLU or Clip that only feeds a quantize which
//! clamps as much is dropped, as ONNX Runtime drops it (`redundant_clamp`).
//!
//! Why: QDQ models wrap Concat, Split, Reshape and Transpose in DequantizeLinear and
//! QuantizeLinear with the neighbours' parameters, and ONNX Runtime drops those pairs.
//! Run as written, each such op dequantizes, moves four times the bytes and quantizes
//! again. Both rewrites are exact: moving elements commutes with a per-tensor
//! dequantize, and quantizing `(q - z)·s` with `s` and `z` in f32 gives back `q`
//! (the quotient is within `|q - z|·2⁻²³` of the integer `q - z`, far from a tie).
//! With the dequantize next to its quantize, `fuse-for-cpu` finds the patterns it fuses
//! (`conv_matmul::quantized` follows the moved integers back to their parameters).

use anyhow::Result;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Module, Type, Value as MlirValue, ValueLike};
use melior::{Context, IrRewriter};

use super::conv_matmul::{Dequantized, quantized};
use super::redundant_clamp;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::ir::matchers::{constant_float, constant_int, defining, named, op_name};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::runtime::ir_values::constant_value;
use crate::transforms::canonicalize_quant::same_value;
use crate::transforms::walk::{module_blocks, operations};

/// Ops whose operand 0 is the tensor they rearrange and whose other operands are
/// indices or sizes: they commute with a per-tensor dequantize, and the backend's
/// kernels for them keep a quantized tensor's parameters.
pub(super) const MOVEMENTS: &[&str] = &[
    "torch.aten.reshape",
    "torch.aten.view",
    "torch.aten._unsafe_view",
    "torch.aten.flatten.using_ints",
    "torch.aten.unflatten.int",
    "torch.aten.squeeze",
    "torch.aten.squeeze.dim",
    "torch.aten.unsqueeze",
    "torch.aten.permute",
    "torch.aten.transpose.int",
    "torch.aten.slice.Tensor",
    "torch.aten.select.int",
    "torch.aten.narrow",
    "torch.aten.flip",
    "torch.aten.index_select",
    "torch.aten.contiguous",
    "torch.aten.clone",
];

/// Rewrites every movement of a dequantized tensor and every quantize of a dequantized
/// tensor with its own parameters; returns how many ops it replaced.
pub fn sink_dequantize(context: &Context, module: &mut Module) -> Result<usize> {
    let rewriter = IrRewriter::new(context);
    let mut rewritten = 0;
    for block in module_blocks(module) {
        // In block order: a chain of movements sinks one op at a time, each finding the
        // dequantize the previous rewrite put after it.
        for op in operations(block) {
            let name = op_name(op);
            let moves = MOVEMENTS.contains(&name.as_str()) || is_nearest_interpolation(op, &name);
            let replacement = if moves {
                sink_movement(context, &rewriter, op, &name)?
            } else if name == "torch.aten.cat" {
                sink_cat(context, &rewriter, op)?
            } else if name == "torch.aten.constant_pad_nd" {
                sink_pad(context, &rewriter, op)?
            } else if name == "torch.aten.quantize_per_tensor" {
                match requantized_self(op) {
                    Some(q) => Some(q),
                    None => quantize_without_clamp(context, &rewriter, op)?,
                }
            } else {
                None
            };
            if let Some(value) = replacement {
                rewriter
                    .as_rewriter_base()
                    .replace_op_with_values(op, &[value]);
                rewritten += 1;
            }
        }
    }
    Ok(rewritten)
}

/// Whether `op` is an `__interpolate` in plain nearest mode (no crop), which only picks
/// elements.
pub(super) fn is_nearest_interpolation(op: OperationRef, name: &str) -> bool {
    if name != "torch.aten.__interpolate.size_list_scale_list" {
        return false;
    }
    let mode = op.operand(3).ok().and_then(defining).map(constant_value);
    let Some(Ok(Some(Value::Str(m)))) = mode else {
        return false;
    };
    let base = m.split(',').next().unwrap_or("");
    base.starts_with("nearest") && !m.contains("tf_crop_and_resize")
}

/// The quantized tensor `v` dequantizes, when `v = dequantize.self(q)` and q is
/// quantized per tensor.
fn dequantized_per_tensor<'c: 'a, 'a>(
    v: MlirValue<'c, 'a>,
) -> Option<(MlirValue<'c, 'a>, Dequantized<'c, 'a>)> {
    let dq = named(v, "torch.aten.dequantize.self")?;
    let q = dq.operand(0).ok()?;
    let params = quantized(q).filter(|d| d.axis.is_none())?;
    Some((q, params))
}

/// Whether two per-tensor quantized tensors provably share scale and zero point.
pub(super) fn same_params(a: &Dequantized, b: &Dequantized) -> bool {
    same_value(a.scale, b.scale) && same_value(a.zero_point, b.zero_point)
}

/// The type of `op`'s one float tensor result with `q`'s quantized element type.
fn moved_type(op: OperationRef, q: MlirValue) -> Option<(TensorType, TensorType)> {
    if op.result_count() != 1 || op.attributes().count() != 0 {
        return None;
    }
    let float = TensorType::parse(&op.result(0).ok()?.r#type().to_string())?;
    let quantized = TensorType::parse(&q.r#type().to_string())?.dtype?;
    if !quantized.is_quantized() || !float.dtype?.is_float() {
        return None;
    }
    Some((float.with_dtype(quantized), float))
}

/// `dequantize(op(q, ...))` for `op(dequantize(q), ...)`, built before `op`.
fn sink_movement<'c: 'a, 'a>(
    context: &'c Context,
    rewriter: &'a IrRewriter<'c>,
    op: OperationRef<'c, 'a>,
    name: &str,
) -> Result<Option<MlirValue<'c, 'a>>> {
    let Some((q, _)) = op.operand(0).ok().and_then(dequantized_per_tensor) else {
        return Ok(None);
    };
    let Some((moved, float)) = moved_type(op, q) else {
        return Ok(None);
    };
    let mut operands: Vec<MlirValue> = op.operands().collect();
    operands[0] = q;
    rewriter.as_rewriter_base().set_insertion_point_before(op);
    let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), op.location());
    let moved: Type = b.tensor_type(&moved)?;
    let moved = b.op(name, &operands, &[moved], &[])?.result(0)?.into();
    Ok(Some(b.aten_tensor("dequantize.self", &[moved], &float)?))
}

/// `dequantize(cat([q₁, …], dim))` for `cat([dequantize(q₁), …], dim)` when every part
/// is quantized per tensor with the same scale, zero point and type.
fn sink_cat<'c: 'a, 'a>(
    context: &'c Context,
    rewriter: &'a IrRewriter<'c>,
    cat: OperationRef<'c, 'a>,
) -> Result<Option<MlirValue<'c, 'a>>> {
    let Some(parts) = cat
        .operand(0)
        .ok()
        .and_then(|l| named(l, "torch.prim.ListConstruct"))
    else {
        return Ok(None);
    };
    let mut quantized_parts = Vec::with_capacity(parts.operand_count());
    for part in parts.operands() {
        let Some(p) = dequantized_per_tensor(part) else {
            return Ok(None);
        };
        quantized_parts.push(p);
    }
    let Some((first, first_params)) = quantized_parts.first() else {
        return Ok(None);
    };
    let first_type = first.r#type();
    let alike = quantized_parts
        .iter()
        .all(|(q, p)| q.r#type() == first_type && same_params(p, first_params));
    let Some((moved, float)) = moved_type(cat, *first).filter(|_| alike) else {
        return Ok(None);
    };
    let Ok(dim) = cat.operand(1) else {
        return Ok(None);
    };
    rewriter.as_rewriter_base().set_insertion_point_before(cat);
    let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), cat.location());
    let qs: Vec<MlirValue> = quantized_parts.iter().map(|(q, _)| *q).collect();
    let list = b.list(&qs, "vtensor")?;
    let joined = b.aten_tensor("cat", &[list, dim], &moved)?;
    Ok(Some(b.aten_tensor("dequantize.self", &[joined], &float)?))
}

/// `dequantize(_make_per_tensor(constant_pad_nd(int_repr(q), pads, c), s, z))` for
/// `constant_pad_nd(dequantize(q), pads, v)` when the fill `v` is exactly what code `c`
/// dequantizes to (0.0 is the zero point), so every element, padding included, is
/// the same f32: the pad then moves bytes instead of floats, and a quantize after it
/// with q's parameters goes (`requantized_self`). The pad kernel takes no quantized
/// tensor, hence the integers and `_make_per_tensor_quantized_tensor`.
fn sink_pad<'c: 'a, 'a>(
    context: &'c Context,
    rewriter: &'a IrRewriter<'c>,
    pad: OperationRef<'c, 'a>,
) -> Result<Option<MlirValue<'c, 'a>>> {
    let Some((q, params)) = pad.operand(0).ok().and_then(dequantized_per_tensor) else {
        return Ok(None);
    };
    // Only the QDQ Pad (every use a quantize), or the pad of a MaxPool whose result is
    // quantized again with q's parameters (auto_pad SAME in a QDQ model, padded with
    // -inf): a pad feeding an average pool is what `avg_pool` fuses into one kernel
    // with ONNX Runtime's rounding.
    let Ok(result) = pad.result(0) else {
        return Ok(None);
    };
    let users = super::elementwise::users_after(pad, result.into());
    let quantizes = users
        .iter()
        .all(|&u| op_name(u) == "torch.aten.quantize_per_tensor");
    let max_pools = users.iter().all(|&u| requantized_max_pool(u, q, &params));
    if users.is_empty() || !quantizes && !max_pools {
        return Ok(None);
    }
    let Some((moved, float)) = moved_type(pad, q) else {
        return Ok(None);
    };
    let (Ok(pads), Ok(fill)) = (pad.operand(1), pad.operand(2)) else {
        return Ok(None);
    };
    let (Some(fill), Some(scale), Some(zero)) = (
        constant_float(fill),
        constant_float(params.scale),
        constant_int(params.zero_point),
    ) else {
        return Ok(None);
    };
    let Some(quantized) = moved.dtype else {
        return Ok(None);
    };
    let storage = quantized.storage();
    let code = match code_of(fill as f32, scale as f32, zero, storage) {
        Some(code) => code,
        // A fill below every code's value loses every max to the window's elements;
        // a window wholly in the padding yields the fill, which the quantize clamps to
        // the lowest code, as it keeps the lowest code itself.
        None if max_pools => match lowest_code_below(fill as f32, scale as f32, zero, storage) {
            Some(code) => code,
            None => return Ok(None),
        },
        None => return Ok(None),
    };
    rewriter.as_rewriter_base().set_insertion_point_before(pad);
    let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), pad.location());
    let q_type = TensorType::parse(&q.r#type().to_string())
        .ok_or_else(|| anyhow::anyhow!("constant_pad_nd: the quantized input has no type"))?;
    let ints = b.aten_tensor("int_repr", &[q], &q_type.with_dtype(storage))?;
    let code = b.int(code)?;
    let padded = b.aten_tensor(
        "constant_pad_nd",
        &[ints, pads, code],
        &moved.with_dtype(storage),
    )?;
    let made = b.aten_tensor(
        "_make_per_tensor_quantized_tensor",
        &[padded, params.scale, params.zero_point],
        &moved,
    )?;
    Ok(Some(b.aten_tensor("dequantize.self", &[made], &float)?))
}

/// The code of `storage` that dequantizes (`(c - zero) as f32 * scale`, as the kernel
/// does) to exactly `fill`, sign of zero included.
fn code_of(fill: f32, scale: f32, zero: i64, storage: DType) -> Option<i64> {
    let (low, high) = code_range(storage)?;
    if !(scale.is_finite() && scale > 0.0 && fill.is_finite()) {
        return None;
    }
    let code = (fill / scale).round() as i64 + zero;
    let exact = ((code - zero) as f32 * scale).to_bits() == fill.to_bits();
    ((low..=high).contains(&code) && exact).then_some(code)
}

/// The codes of an 8-bit `storage`, lowest and highest.
fn code_range(storage: DType) -> Option<(i64, i64)> {
    match storage {
        DType::U8 => Some((0, 255)),
        DType::I8 => Some((-128, 127)),
        _ => None,
    }
}

/// The lowest code of `storage` when `fill` is at most what it dequantizes to (-inf
/// included; NaN is not).
fn lowest_code_below(fill: f32, scale: f32, zero: i64, storage: DType) -> Option<i64> {
    let (low, _) = code_range(storage)?;
    let least = (low - zero) as f32 * scale;
    (scale.is_finite() && scale > 0.0 && fill <= least).then_some(low)
}

/// Whether `op` is a max pool whose every use quantizes it with `q`'s parameters into
/// q's type: then it pools q's integers (`max_pool::match_quantized`).
fn requantized_max_pool(op: OperationRef, q: MlirValue, params: &Dequantized) -> bool {
    let (Some(_), Ok(result)) = (super::max_pool::spatial_axes(op), op.result(0)) else {
        return false;
    };
    let dtype = |v: MlirValue| TensorType::parse(&v.r#type().to_string()).and_then(|t| t.dtype);
    let users = super::elementwise::users_after(op, result.into());
    !users.is_empty()
        && users.iter().all(|&u| {
            op_name(u) == "torch.aten.quantize_per_tensor"
                && u.operand(1).is_ok_and(|s| same_value(params.scale, s))
                && u.operand(2).is_ok_and(|z| same_value(params.zero_point, z))
                && u.result(0).is_ok_and(|r| dtype(r.into()) == dtype(q))
        })
}

/// `quantize_per_tensor(x, s, z, dtype)` for a quantize of a ReLU or clamp of x that
/// ONNX Runtime drops (`redundant_clamp`).
fn quantize_without_clamp<'c: 'a, 'a>(
    context: &'c Context,
    rewriter: &'a IrRewriter<'c>,
    quantize: OperationRef<'c, 'a>,
) -> Result<Option<MlirValue<'c, 'a>>> {
    let Some(x) = redundant_clamp::unclamped(quantize) else {
        return Ok(None);
    };
    let mut operands: Vec<MlirValue> = quantize.operands().collect();
    operands[0] = x;
    rewriter
        .as_rewriter_base()
        .set_insertion_point_before(quantize);
    let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), quantize.location());
    let ty = quantize.result(0)?.r#type();
    let op = b.op("torch.aten.quantize_per_tensor", &operands, &[ty], &[])?;
    Ok(Some(op.result(0)?.into()))
}

/// q, for `quantize_per_tensor(dequantize(q), s, z, dtype)` where q has scale s, zero
/// point z and the result's type.
fn requantized_self<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<MlirValue<'c, 'a>> {
    let (q, params) = dequantized_per_tensor(quantize.operand(0).ok()?)?;
    let same = same_value(params.scale, quantize.operand(1).ok()?)
        && same_value(params.zero_point, quantize.operand(2).ok()?)
        && q.r#type() == quantize.result(0).ok()?.r#type();
    same.then_some(q)
}
