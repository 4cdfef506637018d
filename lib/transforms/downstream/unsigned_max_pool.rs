//! A max pool of `ui8` integers pools their f32 values: `to.dtype(to.dtype(max_poolNd(
//! to.dtype(x, f32), ...), si32), ui8)`. The values are small integers, exact in f32, and the maximum of
//! exact values is exact, so the result is the same on every backend.
//!
//! Why: IREE's integers are signless, and torch-mlir lowers an integer max pool with
//! signed comparisons (and a signed minimum as the padding value), so 200 loses to 100
//! in a `ui8` pool. A QOperator model's MaxPool runs on the `ui8` integers (ResNet-18's
//! stem pool gave results off by up to 174). Conversions from and to `ui8` are lowered
//! as unsigned except f32 to ui8 (hence the si32 step), and an f32 max pool is what both compile best.

use melior::ir::Value;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::{Context, RewriterBase};

use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::tensor_type_of_value as tensor_type;
use crate::onnx::dtype::DType;
use crate::rewrite::{Outcome, PatternResult};

pub const ROOTS: [&str; 3] = [
    "torch.aten.max_pool1d",
    "torch.aten.max_pool2d",
    "torch.aten.max_pool3d",
];
pub const GENERATED: &[&str] = &[
    "torch.aten.max_pool1d",
    "torch.aten.max_pool2d",
    "torch.aten.max_pool3d",
    "torch.aten.to.dtype",
    "torch.constant.int",
    "torch.constant.bool",
    "torch.constant.none",
];

pub fn rewrite<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    if op.result_count() != 1 || op.operand_count() == 0 {
        crate::no_match!("not a single-result max pool");
    }
    let input = op.operand(0)?;
    let result = op.result(0)?;
    let (Some(x), Some(y)) = (tensor_type(input), tensor_type(result.into())) else {
        crate::no_match!("operand or result is not a tensor");
    };
    if x.dtype != Some(DType::U8) || y.dtype != Some(DType::U8) {
        crate::no_match!("not a max pool of ui8 integers");
    }
    let name = op.name().as_string_ref().as_str()?.to_string();
    let Some(short) = name.strip_prefix("torch.aten.") else {
        crate::no_match!("not an aten op");
    };
    let b = TorchBuilder::new(context, rewriter, op.location());
    let xf = b.cast(input, &x.with_dtype(DType::F32))?;
    let mut operands: Vec<Value> = op.operands().collect();
    operands[0] = xf;
    let pooled = b.aten_tensor(short, &operands, &y.with_dtype(DType::F32))?;
    // Through si32: torch-mlir converts f32 to ui8 as if to si8 (saturating at 127);
    // f32 to si32 and the truncation of si32 to ui8 are exact here.
    let wide = b.cast(pooled, &y.with_dtype(DType::I32))?;
    let back = b.cast(wide, &y)?;
    rewriter.replace_op_with_values(op, &[back]);
    Ok(Outcome::Rewritten)
}
