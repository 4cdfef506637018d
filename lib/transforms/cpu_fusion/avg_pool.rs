//! Fusion of quantized average pools.
//!
//! QLinearGlobalAveragePool lowers to `quantize_per_tensor(mean.dim(dequantize(x),
//! spatial dims, keepdim))`; ONNX Runtime computes it on the integers, and it becomes
//! `qlower.qglobal_avg_pool`.
//!
//! QLinearAveragePool (and QDQ `DequantizeLinear → AveragePool → QuantizeLinear`, which
//! ONNX Runtime rewrites into it) lowers to `quantize_per_tensor(avg_poolNd(
//! dequantize(x)))`, with `permute`s around the pool for channels-last layouts. The
//! float average is what ONNX Runtime computes too, but it rounds after adding the zero
//! point; where the pattern appears, the final quantize becomes
//! `qlower.qavg_pool` (or `qlower.qavg_pool_over_inputs`). A pool whose float result something else reads too, or whose
//! input is not a dequantized 8-bit tensor, is left as it is.

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use super::elementwise::{dequantized, storage_of, users_after};
use super::{Fusion, Operand};
use crate::dialect::qlower;
use crate::dialect::types::TensorType;
use crate::ir::matchers::{constant_bool, constant_float, constant_int, defining, named, op_name};
use crate::kernels::tensor::value::Value;
use crate::onnx::dtype::DType;

/// `v` without the `permute`s and `slice.Tensor`s (which only pick or move elements)
/// that produce it, and those ops, the last applied first.
fn through_views<'c: 'a, 'a>(
    v: MlirValue<'c, 'a>,
) -> Option<(MlirValue<'c, 'a>, Vec<OperationRef<'c, 'a>>)> {
    let mut v = v;
    let mut views = Vec::new();
    while let Some(op) = defining(v) {
        if !matches!(
            op_name(op).as_str(),
            "torch.aten.permute" | "torch.aten.slice.Tensor"
        ) {
            break;
        }
        views.push(op);
        v = op.operand(0).ok()?;
    }
    Some((v, views))
}

/// `v`, or the input of the `permute` defining it.
fn through_permute<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<MlirValue<'c, 'a>> {
    match named(v, "torch.aten.permute") {
        Some(p) => p.operand(0).ok(),
        None => Some(v),
    }
}

fn is_8bit_quantized(v: MlirValue) -> bool {
    TensorType::parse(&v.r#type().to_string())
        .and_then(|t| t.dtype)
        .is_some_and(|d| matches!(d, DType::QUInt8 | DType::QInt8))
}

/// The fused op for `quantize` (a `torch.aten.quantize_per_tensor`) of an average
/// pool of a dequantized 8-bit tensor.
pub fn match_quantized<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<Fusion<'c, 'a>> {
    let input = quantize.operand(0).ok()?;
    if let Some(fused) = global_average(quantize, input) {
        return Some(fused);
    }
    if let Some(fused) = average_over_inputs(quantize, input) {
        return Some(fused);
    }
    let pool = defining(through_views(input)?.0)?;
    if !op_name(pool).starts_with("torch.aten.avg_pool") {
        return None;
    }
    // Asymmetric padding appears as a zero pad before a pool that counts padding:
    // adding zeros to a float sum changes nothing, so the averages stay ONNX Runtime's.
    let pool_input = pool.operand(0).ok()?;
    let (source, padded) = match named(pool_input, "torch.aten.constant_pad_nd") {
        Some(pad) => {
            let counts_padding = constant_bool(pool.operand(5).ok()?) == Some(true);
            (constant_float(pad.operand(2).ok()?) == Some(0.0) && counts_padding)
                .then_some((pad.operand(0).ok()?, true))?
        }
        None => (pool_input, false),
    };
    let dq_input = through_permute(source)?;
    let channels_last = dq_input != source;
    let dq = named(dq_input, "torch.aten.dequantize.self")?;
    let result: MlirValue = quantize.result(0).ok()?.into();
    if !is_8bit_quantized(dq.operand(0).ok()?) || !is_8bit_quantized(result) {
        return None;
    }
    let producer = defining(input)?;
    if users_after(producer, input).len() != 1 {
        return None;
    }
    if !padded && let Some(fused) = whole_plane(quantize, pool, dq_input, channels_last) {
        return Some(fused);
    }
    Some(Fusion {
        op: qlower::QAVG_POOL,
        operands: (0..quantize.operand_count())
            .map(|i| quantize.operand(i).ok().map(Operand::Ir))
            .collect::<Option<Vec<_>>>()?,
    })
}

/// The constant ints of a `torch.prim.ListConstruct`.
fn int_list(v: MlirValue) -> Option<Vec<i64>> {
    let list = named(v, "torch.prim.ListConstruct")?;
    (0..list.operand_count())
        .map(|i| constant_int(list.operand(i).ok()?))
        .collect()
}

/// ONNX Runtime runs an average pool whose kernel covers the whole unpadded plane as
/// its global average pool, on the integers: the same op as `global_average`.
fn whole_plane<'c: 'a, 'a>(
    quantize: OperationRef<'c, 'a>,
    pool: OperationRef<'c, 'a>,
    dequantized_input: MlirValue<'c, 'a>,
    channels_last: bool,
) -> Option<Fusion<'c, 'a>> {
    let kernel = int_list(pool.operand(1).ok()?)?;
    let padding = int_list(pool.operand(3).ok()?)?;
    let divisor_none = pool.operand(6).ok()?.r#type().to_string() == "!torch.none";
    let shape = TensorType::parse(&pool.operand(0).ok()?.r#type().to_string())?.shape?;
    let spatial = shape.get(shape.len().checked_sub(kernel.len())?..)?;
    let whole = spatial.iter().zip(&kernel).all(|(d, &k)| *d == Some(k));
    if !whole || !padding.iter().all(|&p| p == 0) || !divisor_none || shape.len() < 3 {
        return None;
    }
    let x = dequantized(dequantized_input)?;
    let rank = shape.len() as i64;
    let dims: Vec<i64> = if channels_last {
        (1..rank - 1).collect()
    } else {
        (2..rank).collect()
    };
    Some(Fusion {
        op: qlower::QGLOBAL_AVG_POOL,
        operands: [
            x.tensor.operands().to_vec(),
            vec![
                Operand::Const(Value::IntList(dims)),
                Operand::Const(Value::Bool(true)),
                Operand::Ir(quantize.operand(1).ok()?),
                Operand::Ir(quantize.operand(2).ok()?),
            ],
        ]
        .concat(),
    })
}

/// The spatial dims of a rank-`rank` tensor, channels first or last.
fn is_spatial(dims: &[i64], rank: usize) -> bool {
    let r = rank as i64;
    let first: Vec<i64> = (2..r).collect();
    let last: Vec<i64> = (1..r - 1).collect();
    rank >= 3 && (dims == first.as_slice() || dims == last.as_slice())
}

/// `quantize(mean.dim(dequantize(x), spatial dims, keepdim = true, dtype = none))`.
fn global_average<'c: 'a, 'a>(
    quantize: OperationRef<'c, 'a>,
    input: MlirValue<'c, 'a>,
) -> Option<Fusion<'c, 'a>> {
    let mean = named(input, "torch.aten.mean.dim")?;
    let x = dequantized(mean.operand(0).ok()?)?;
    let list = named(mean.operand(1).ok()?, "torch.prim.ListConstruct")?;
    let dims = (0..list.operand_count())
        .map(|i| constant_int(list.operand(i).ok()?))
        .collect::<Option<Vec<i64>>>()?;
    let rank = TensorType::parse(&x.tensor.int.r#type().to_string())?.rank()?;
    let none = mean.operand(3).ok()?.r#type().to_string() == "!torch.none";
    let keepdim = constant_bool(mean.operand(2).ok()?)?;
    let result: MlirValue = quantize.result(0).ok()?.into();
    if !is_spatial(&dims, rank)
        || !keepdim
        || !none
        || storage_of(x.tensor.int)? != storage_of(result)?
    {
        return None;
    }
    if users_after(mean, input).len() != 1 {
        return None;
    }
    Some(Fusion {
        op: qlower::QGLOBAL_AVG_POOL,
        operands: [
            x.tensor.operands().to_vec(),
            vec![
                Operand::Ir(mean.operand(1).ok()?),
                Operand::Ir(mean.operand(2).ok()?),
                Operand::Ir(quantize.operand(1).ok()?),
                Operand::Ir(quantize.operand(2).ok()?),
            ],
        ]
        .concat(),
    })
}

/// `quantize(div.Tensor(avg_poolNd(pad(x)), avg_poolNd(pad(ones_like(x)))))`, maybe
/// permuted back to channels-last: an average pool over asymmetric padding that does
/// not count it, where `x` is a dequantized 8-bit tensor (maybe permuted).
fn average_over_inputs<'c: 'a, 'a>(
    quantize: OperationRef<'c, 'a>,
    input: MlirValue<'c, 'a>,
) -> Option<Fusion<'c, 'a>> {
    let (quotient, views) = through_views(input)?;
    let div = named(quotient, "torch.aten.div.Tensor")?;
    let sums = defining(div.operand(0).ok()?)?;
    let counts = defining(div.operand(1).ok()?)?;
    let name = op_name(sums);
    if !matches!(
        name.as_str(),
        "torch.aten.avg_pool2d" | "torch.aten.avg_pool3d"
    ) || op_name(counts) != name
    {
        return None;
    }
    // One geometry for both, counting padding (the explicit pad), no divisor.
    for i in 1..=5 {
        (sums.operand(i).ok()? == counts.operand(i).ok()?).then_some(())?;
    }
    if constant_bool(sums.operand(5).ok()?) != Some(true)
        || sums.operand(6).ok()?.r#type().to_string() != "!torch.none"
    {
        return None;
    }
    let pad_x = named(sums.operand(0).ok()?, "torch.aten.constant_pad_nd")?;
    let pad_ones = named(counts.operand(0).ok()?, "torch.aten.constant_pad_nd")?;
    named(pad_ones.operand(0).ok()?, "torch.aten.ones_like")?;
    if constant_float(pad_x.operand(2).ok()?) != Some(0.0)
        || pad_x.operand(1).ok()? != pad_ones.operand(1).ok()?
    {
        return None;
    }
    let dq = named(
        through_permute(pad_x.operand(0).ok()?)?,
        "torch.aten.dequantize.self",
    )?;
    let result: MlirValue = quantize.result(0).ok()?.into();
    if !is_8bit_quantized(dq.operand(0).ok()?) || !is_8bit_quantized(result) {
        return None;
    }
    if users_after(defining(input)?, input).len() != 1 {
        return None;
    }
    let mut operands = vec![
        Operand::Ir(sums.operand(0).ok()?),
        Operand::Ir(sums.operand(1).ok()?),
        Operand::Ir(sums.operand(2).ok()?),
        Operand::Ir(sums.operand(3).ok()?),
        Operand::Ir(sums.operand(4).ok()?),
        Operand::Ir(counts.operand(0).ok()?),
        Operand::Ir(quantize.operand(1).ok()?),
        Operand::Ir(quantize.operand(2).ok()?),
        Operand::Ir(quantize.operand(3).ok()?),
    ];
    // Then each view, first applied first: its name and its operands after the input.
    for view in views.iter().rev() {
        operands.push(Operand::Const(Value::Str(op_name(*view))));
        for i in 1..view.operand_count() {
            operands.push(Operand::Ir(view.operand(i).ok()?));
        }
    }
    Some(Fusion {
        op: qlower::QAVG_POOL_OVER_INPUTS,
        operands,
    })
}
