//! `compose-lookups` (the backend form, after `fuse-for-cpu`): a quantized product or
//! sum of a tensor and a table lookup of that same tensor,
//! `qlower.qlinear_mul(x, qlower.qlinear_lookup(x))` (SiLU and Swish in QDQ models:
//! x·sigmoid(x)), is a function of x alone. It becomes one `qlower.qlinear_lookup` of x
//! whose table is the product's own kernel evaluated on every byte x can hold, beside
//! the first table's value for it. The binary kernel computes each element from its
//! two operands' elements only, so the table gives its bytes exactly; one pass over x
//! replaces two. So is a product or sum of x and a constant that holds one value, or
//! one per channel along an axis of x (a bias or a BatchNorm's scale kept as its own
//! QOperator node): a lookup with one row per channel. The pass also moves float
//! lookups past max pools (`pooled_lookup`) and into the quantize that reads them
//! (`requantized_lookup`).

use anyhow::Result;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Module, Value as MlirValue, ValueLike};
use melior::{Context, IrRewriter};

use super::{pooled_lookup, requantized_lookup};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::qlower;
use crate::ir::matchers::{constant_float, constant_int, defining, named, op_name};
use crate::kernels::quantized::qlinear_binary::{qlinear_add, qlinear_mul};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::tensor_type::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, ResultType};
use crate::runtime::ir_values::constant_value;
use crate::transforms::constants::materialize;
use crate::transforms::walk::{module_blocks, operations};

/// Replaces every product or sum of a tensor and its own lookup, quantize of a float
/// lookup and max pool of an ascending one; returns how many.
pub fn compose_lookups(context: &Context, module: &mut Module) -> Result<usize> {
    let rewriter = IrRewriter::new(context);
    let mut composed = 0;
    for block in module_blocks(module) {
        for op in operations(block) {
            // Block order: a pool rewritten here feeds the quantize visited after it.
            // Each table rewrite gives x, the axis operand, the table, and where `op`'s
            // output scale and zero point are.
            let binary = |kernel| {
                composition(op, kernel)
                    .map(|(x, axis, t)| (x, Axis::Ir(axis), t))
                    .or_else(|| with_constant(op, kernel))
                    .map(|f| (f, 6))
            };
            let found = match op_name(op).as_str() {
                qlower::QLINEAR_MUL => binary(qlinear_mul),
                qlower::QLINEAR_ADD => binary(qlinear_add),
                "torch.aten.quantize_per_tensor" => requantized_lookup::match_quantize(op)
                    .map(|(x, axis, t)| ((x, Axis::Ir(axis), t), 1)),
                _ => {
                    composed += pool_bytes(context, &rewriter, op)?;
                    continue;
                }
            };
            let Some(((x, axis, table), y_params)) = found else {
                continue;
            };
            rewriter.as_rewriter_base().set_insertion_point_before(op);
            let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), op.location());
            let table = materialize(&b, &table)?;
            let axis = match axis {
                Axis::Ir(v) => v,
                Axis::Const(a) => b.int(a)?,
            };
            let operands = [
                x,
                table,
                axis,
                op.operand(y_params)?,
                op.operand(y_params + 1)?,
            ];
            let ty = op.result(0)?.r#type();
            let lookup = b.op(qlower::QLINEAR_LOOKUP, &operands, &[ty], &[])?;
            let result: MlirValue = lookup.result(0)?.into();
            rewriter
                .as_rewriter_base()
                .replace_op_with_values(op, &[result]);
            composed += 1;
        }
    }
    Ok(composed)
}

/// The lookup's axis operand: one already in the IR, or one to write.
enum Axis<'c, 'a> {
    Ir(MlirValue<'c, 'a>),
    Const(i64),
}

/// x, the axis and the table, when `op` (a `qlinear_mul` or `qlinear_add` with constant
/// parameters) reads x and a constant that is one value, or one per channel along one
/// axis of x (a BatchNorm's scale or shift, or a bias, kept as its own QOperator
/// node): then each output byte is a function of its x byte and its channel, a row of
/// the table per channel, evaluated with the op's own kernel.
fn with_constant<'c: 'a, 'a>(
    op: OperationRef<'c, 'a>,
    kernel: Kernel,
) -> Option<(MlirValue<'c, 'a>, Axis<'c, 'a>, Value)> {
    let constant = |v: MlirValue| match constant_value(defining(v)?) {
        Ok(Some(Value::Tensor(t))) => Some(t),
        _ => None,
    };
    let (a, b) = (op.operand(0).ok()?, op.operand(3).ok()?);
    let (x, c, x_is_a) = match (constant(a), constant(b)) {
        (None, Some(c)) => (a, c, true),
        (Some(c), None) => (b, c, false),
        _ => return None,
    };
    let x_type = TensorType::parse(&x.r#type().to_string())?;
    let x_shape = x_type.shape.as_ref()?;
    if c.rank() > x_shape.len() || x_shape.is_empty() {
        return None;
    }
    // The constant's sizes against x's, right-aligned: all 1 but at most one axis,
    // where x's size is known and equal.
    let lead = x_shape.len() - c.rank();
    let mut axis = None;
    for (i, &n) in c.shape.iter().enumerate() {
        if n == 1 {
            continue;
        }
        if axis.is_some() || x_shape[lead + i] != Some(n as i64) {
            return None;
        }
        axis = Some(lead + i);
    }
    let rows = axis.map_or(1, |a| x_shape[a].unwrap_or(1) as usize);
    if let Some(a) = axis
        && !fast_per_channel(rows, &x_shape[a + 1..])
    {
        return None;
    }
    let x_bytes = every_byte(x_type.dtype?, rows)?;
    let column = Tensor::new(vec![rows, 1], c.data.clone()).ok()?;
    let (first, second) = if x_is_a {
        (x_bytes, column)
    } else {
        (column, x_bytes)
    };
    let table = evaluate(op, kernel, first, second)?;
    let table = Tensor::new(vec![rows, 256], table.data).ok()?;
    Some((
        x,
        Axis::Const(axis.unwrap_or(0) as i64),
        Value::tensor(table),
    ))
}

/// Whether a lookup of `rows` per-channel rows, each channel's elements in runs of the
/// product of `inner` (x's sizes after the channel axis), is faster than the binary
/// kernel. Runs of 16 or more (or of a size known only at run time: a spatial plane)
/// take whole registers of one row; channels along the last axis gather from the
/// table, which only pays while it stays near the core (PP-OCR rec's classifier bias,
/// 6625 channels of 256 bytes, was 9× slower as a lookup). Tables of more than 1 MB
/// are not built.
fn fast_per_channel(rows: usize, inner: &[Option<i64>]) -> bool {
    const MAX_ROWS: usize = 4096;
    const MAX_GATHERED_ROWS: usize = 512;
    let run: Option<i64> = inner.iter().copied().product();
    match run {
        _ if rows > MAX_ROWS => false,
        None => true,
        Some(1) => rows <= MAX_GATHERED_ROWS,
        Some(n) => n >= 16,
    }
}

/// Rewrites `op` when it is a max pool of a float lookup (`pooled_lookup`); 1 if it
/// did.
fn pool_bytes<'c>(
    context: &'c Context,
    rewriter: &IrRewriter<'c>,
    op: OperationRef<'c, '_>,
) -> Result<usize> {
    let Some(m) = pooled_lookup::match_pool(op) else {
        return Ok(0);
    };
    rewriter.as_rewriter_base().set_insertion_point_before(op);
    let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), op.location());
    // No scale and zero point: the pooled bytes keep x's own.
    let none = b.none()?;
    let mut operands = vec![m.x];
    for i in 1..6 {
        operands.push(op.operand(i)?);
    }
    operands.extend([none, none]);
    let pooled = b.op(
        qlower::QMAX_POOL,
        &operands,
        &[b.tensor_type(&m.pooled_type)?],
        &[],
    )?;
    let ty = op.result(0)?.r#type();
    let lookup = b.op(
        qlower::DEQUANTIZED_LOOKUP,
        &[pooled.result(0)?.into(), m.table, m.axis],
        &[ty],
        &[],
    )?;
    let result: MlirValue = lookup.result(0)?.into();
    rewriter
        .as_rewriter_base()
        .replace_op_with_values(op, &[result]);
    Ok(1)
}

/// x, the lookup's axis operand and the composed `[1, 256]` table, when `op` (operands
/// a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point) reads x
/// and a one-row lookup of x, and every parameter is a constant.
fn composition<'c: 'a, 'a>(
    op: OperationRef<'c, 'a>,
    kernel: Kernel,
) -> Option<(MlirValue<'c, 'a>, MlirValue<'c, 'a>, Value)> {
    let (a, b) = (op.operand(0).ok()?, op.operand(3).ok()?);
    let lookup_of = |v: MlirValue<'c, 'a>, x: MlirValue<'c, 'a>| {
        named(v, qlower::QLINEAR_LOOKUP).filter(|l| l.operand(0).ok() == Some(x))
    };
    let (x, lookup, x_is_a) = match (lookup_of(b, a), lookup_of(a, b)) {
        (Some(l), _) => (a, l, true),
        (None, Some(l)) => (b, l, false),
        (None, None) => return None,
    };
    let Ok(Some(Value::Tensor(table))) = constant_value(defining(lookup.operand(1).ok()?)?) else {
        return None;
    };
    if table.shape != [1, 256] {
        return None;
    }
    let x_bytes = every_byte(TensorType::parse(&x.r#type().to_string())?.dtype?, 1)?;
    let looked_up = Tensor::new(vec![1, 256], table.data.clone()).ok()?;
    let (first, second) = if x_is_a {
        (x_bytes, looked_up)
    } else {
        (looked_up, x_bytes)
    };
    let y = evaluate(op, kernel, first, second)?;
    let composed = Tensor::new(vec![1, 256], y.data).ok()?;
    Some((x, lookup.operand(2).ok()?, Value::tensor(composed)))
}

/// `rows` rows of every value of an 8-bit `dtype` in byte order, `[rows, 256]`: what a
/// table's rows are evaluated on.
fn every_byte(dtype: DType, rows: usize) -> Option<Tensor> {
    let bytes = (0..rows).flat_map(|_| 0..=255u8);
    let data = match dtype {
        DType::U8 | DType::QUInt8 => Data::U8(bytes.collect()),
        DType::I8 | DType::QInt8 => Data::I8(bytes.map(|v| v as i8).collect()),
        _ => return None,
    };
    Tensor::new(vec![rows, 256], data).ok()
}

/// `op`'s kernel on `first` and `second` with `op`'s constant scales and zero points
/// (operands 1, 2, 4, 5, 6, 7), giving `op`'s declared element type.
fn evaluate(op: OperationRef, kernel: Kernel, first: Tensor, second: Tensor) -> Option<Tensor> {
    let float = |i| constant_float(op.operand(i).ok()?).map(Value::Float);
    let int = |i| constant_int(op.operand(i).ok()?).map(Value::Int);
    let args = [
        Value::tensor(first),
        float(1)?,
        int(2)?,
        Value::tensor(second),
        float(4)?,
        int(5)?,
        float(6)?,
        int(7)?,
    ];
    let declared = TensorType::parse(&op.result(0).ok()?.r#type().to_string())?;
    let results = [ResultType::Tensor(TensorType {
        dtype: declared.dtype,
        shape: None,
    })];
    let out = kernel(&Call {
        args: &args,
        results: &results,
    })
    .ok()?;
    match out.into_iter().next() {
        Some(Value::Tensor(y)) => Some(std::sync::Arc::unwrap_or_clone(y)),
        _ => None,
    }
}
