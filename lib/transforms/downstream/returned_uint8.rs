//! `materialize-returned-uint8`: a uint8 literal that a function returns becomes
//! `int_repr(quantize_per_tensor(f32 literal, 1.0, 0, quint8))`, which holds the same
//! bytes (each value is a whole number in 0..=255, quantized with scale 1 and zero
//! point 0).
//!
//! Why: torch-mlir's backend pipeline folds a returned uint8 constant back into a
//! `torch.vtensor.literal` whose type it then infers as si8, and verification fails
//! (IREE's torch input does the same). A DynamicQuantizeLinear of a constant returns
//! its zero point so. A quantization of a constant is folded neither by qlower nor by
//! torch-mlir, so the bytes reach the output as a computation. Only the printed
//! `torch` form needs it: qlower's own backend returns literals as they are.

use anyhow::{Result, anyhow};
use bytes::Bytes;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value, ValueLike};
use melior::{Context, IrRewriter};

use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::ir::matchers::{defining, op_name};
use crate::kernels::tensor::Data;
use crate::kernels::tensor::value::Value as Constant;
use crate::onnx::dtype::DType;
use crate::onnx::tensor::TensorData;
use crate::runtime::ir_values::constant_value;
use crate::transforms::walk::{module_blocks, operations};

/// Rewrites every uint8 literal some `func.return` returns; returns how many.
pub fn materialize_returned_uint8(
    context: &Context,
    module: &mut melior::ir::Module,
) -> Result<usize> {
    let mut literals: Vec<OperationRef> = Vec::new();
    for block in module_blocks(module) {
        for op in operations(block) {
            if op_name(op) != "func.return" {
                continue;
            }
            for v in op.operands() {
                if let Some(lit) = defining(v).filter(|d| is_uint8_literal(*d))
                    && !literals.iter().any(|l| l == &lit)
                {
                    literals.push(lit);
                }
            }
        }
    }
    let rewriter = IrRewriter::new(context);
    for &lit in &literals {
        let result: Value = lit.result(0)?.into();
        let ty = TensorType::parse(&result.r#type().to_string()).ok_or_else(|| {
            anyhow!(
                "a returned literal of type {} has no tensor type",
                result.r#type()
            )
        })?;
        let Some(Constant::Tensor(t)) = constant_value(lit)? else {
            continue;
        };
        let Data::U8(values) = &t.data else {
            continue;
        };
        let floats: Vec<u8> = values
            .iter()
            .flat_map(|&v| f32::from(v).to_le_bytes())
            .collect();
        let dims: Vec<i64> = t.shape.iter().map(|&d| d as i64).collect();
        rewriter.as_rewriter_base().set_insertion_point_after(lit);
        let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), lit.location());
        let data = TensorData {
            dtype: DType::F32,
            dims,
            bytes: Bytes::from(floats),
        };
        let float = b.literal(&data)?;
        let (scale, zero, dtype) = (
            b.float(1.0)?,
            b.int(0)?,
            b.int(DType::QUInt8.torch_scalar_type())?,
        );
        let q = b.aten_tensor(
            "quantize_per_tensor",
            &[float, scale, zero, dtype],
            &ty.with_dtype(DType::QUInt8),
        )?;
        let bytes = b.aten_tensor("int_repr", &[q], &ty)?;
        rewriter
            .as_rewriter_base()
            .replace_all_uses_with(result, bytes);
    }
    Ok(literals.len())
}

fn is_uint8_literal(op: OperationRef) -> bool {
    op_name(op) == "torch.vtensor.literal"
        && op.result(0).is_ok_and(|r| {
            TensorType::parse(&r.r#type().to_string()).is_some_and(|t| t.dtype == Some(DType::U8))
        })
}
