//! `compose-lookups` (the backend form, after `fuse-for-cpu`): a quantized product or
//! sum of a tensor and a table lookup of that same tensor,
//! `qlower.qlinear_mul(x, qlower.qlinear_lookup(x))` (SiLU and Swish in QDQ models:
//! x·sigmoid(x)), is a function of x alone. It becomes one `qlower.qlinear_lookup` of x
//! whose table is the product's own kernel evaluated on every byte x can hold, beside
//! the first table's value for it. The binary kernel computes each element from its
//! two operands' elements only, so the table gives its bytes exactly; one pass over x
//! replaces two. The pass also moves float lookups past max pools (`pooled_lookup`)
//! and into the quantize that reads them (`requantized_lookup`).

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
            let found = match op_name(op).as_str() {
                qlower::QLINEAR_MUL => composition(op, qlinear_mul).map(|f| (f, 6)),
                qlower::QLINEAR_ADD => composition(op, qlinear_add).map(|f| (f, 6)),
                "torch.aten.quantize_per_tensor" => {
                    requantized_lookup::match_quantize(op).map(|f| (f, 1))
                }
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
    let x_bytes = match TensorType::parse(&x.r#type().to_string())?.dtype? {
        DType::U8 | DType::QUInt8 => Data::U8((0..=255).collect()),
        DType::I8 | DType::QInt8 => Data::I8((0..=255u8).map(|v| v as i8).collect()),
        _ => return None,
    };
    let looked_up = Tensor::new(vec![256], table.data.clone()).ok()?;
    let x_bytes = Tensor::new(vec![256], x_bytes).ok()?;
    let (first, second) = if x_is_a {
        (x_bytes, looked_up)
    } else {
        (looked_up, x_bytes)
    };
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
    let Some(Value::Tensor(y)) = out.into_iter().next() else {
        return None;
    };
    let composed = Tensor::new(vec![1, 256], y.data.clone()).ok()?;
    Some((x, lookup.operand(2).ok()?, Value::tensor(composed)))
}
