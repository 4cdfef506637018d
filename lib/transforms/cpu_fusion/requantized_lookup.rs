//! Part of `compose-lookups`: `quantize_per_tensor(qlower.dequantized_lookup(x, table))`
//! becomes `qlower.qlinear_lookup(x, quantize_per_tensor(table))`. Quantizing computes
//! each element from that element alone, so quantizing the table's entries with the
//! quantize's own kernel gives the bytes the two ops would have given, in one pass over
//! x's bytes instead of a float tensor written and read again. It arises where another
//! rewrite moved a lookup past an op that `fuse-for-cpu` could not see through (see
//! `pooled_lookup`).

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use crate::dialect::qlower;
use crate::ir::matchers::{constant_float, constant_int, defining, named};
use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::tensor_type::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, ResultType, lookup};
use crate::runtime::ir_values::constant_value;

/// x, the lookup's axis operand and the quantized table, when `quantize` (a
/// `torch.aten.quantize_per_tensor` with constant parameters) reads a
/// `qlower.dequantized_lookup` with a constant table.
pub(super) fn match_quantize<'c: 'a, 'a>(
    quantize: OperationRef<'c, 'a>,
) -> Option<(MlirValue<'c, 'a>, MlirValue<'c, 'a>, Value)> {
    let dequantized = named(quantize.operand(0).ok()?, qlower::DEQUANTIZED_LOOKUP)?;
    let Ok(Some(Value::Tensor(table))) = constant_value(defining(dequantized.operand(1).ok()?)?)
    else {
        return None;
    };
    let args = [
        Value::Tensor(table),
        Value::Float(constant_float(quantize.operand(1).ok()?)?),
        Value::Int(constant_int(quantize.operand(2).ok()?)?),
        Value::Int(constant_int(quantize.operand(3).ok()?)?),
    ];
    let declared = TensorType::parse(&quantize.result(0).ok()?.r#type().to_string())?;
    let results = [ResultType::Tensor(TensorType {
        dtype: declared.dtype,
        shape: None,
    })];
    let out = lookup("torch.aten.quantize_per_tensor")?(&Call {
        args: &args,
        results: &results,
    })
    .ok()?;
    let Some(Value::Tensor(q)) = out.into_iter().next() else {
        return None;
    };
    // The table holds the integers; the result's type carries the parameters.
    let quantized = Tensor::new(q.shape.clone(), q.data.clone()).ok()?;
    Some((
        dequantized.operand(0).ok()?,
        dequantized.operand(2).ok()?,
        Value::tensor(quantized),
    ))
}
