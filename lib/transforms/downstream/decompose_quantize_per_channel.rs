//! `int_repr(quantize_per_channel(x, scales, zero_points, axis, dtype))` becomes the
//! arithmetic ONNX defines for a per-axis QuantizeLinear, `saturate(round(x / s[c]) +
//! z[c])` (`dialect::quantize_arithmetic`), with the scales and zero points reshaped
//! along `axis`. The integers are the same bytes: qlower's quantize kernel and these ops
//! take the same f32 quotient, round it half to even and saturate.
//!
//! Why: torch-mlir (and so IREE, which takes its torch input through it) has no
//! lowering of `quantize_per_channel` (`failed to legalize operation
//! 'torch.constant.int'` on its dtype operand), while the canonical form, like
//! torch-mlir's own ONNX importer, writes a per-axis QuantizeLinear with it. The
//! `_make_per_channel_quantized_tensor` that reads the integers keeps its scales, zero
//! points and axis, so the quantization stays explicit.

use melior::ir::operation::{OperationLike, OperationRef};
use melior::{Context, RewriterBase};

use crate::dialect::builder::TorchBuilder;
use crate::dialect::quantize_arithmetic::{ArithmeticQuant, quantize_by_arithmetic};
use crate::dialect::types::tensor_type_of_value as tensor_type;
use crate::ir::matchers::{constant_int, named};
use crate::rewrite::{Outcome, PatternResult};

pub const ROOT: &str = "torch.aten.int_repr";
pub const GENERATED: &[&str] = &[
    "torch.aten.reshape",
    "torch.aten.div.Tensor",
    "torch.aten.round",
    "torch.aten.add.Tensor",
    "torch.aten.clamp",
    "torch.aten.to.dtype",
    "torch.constant.int",
    "torch.constant.float",
    "torch.constant.bool",
    "torch.constant.none",
    "torch.prim.ListConstruct",
];

pub fn rewrite<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    let Some(quantize) = named(op.operand(0)?, "torch.aten.quantize_per_channel") else {
        crate::no_match!("int_repr does not read quantize_per_channel");
    };
    if quantize.operand_count() != 5 {
        crate::no_match!("quantize_per_channel without its 5 operands");
    }
    let (x, scale, zero_point) = (
        quantize.operand(0)?,
        quantize.operand(1)?,
        quantize.operand(2)?,
    );
    let Some(axis) = constant_int(quantize.operand(3)?) else {
        crate::no_match!("the axis is not a constant");
    };
    let ints = op.result(0)?;
    let (Some(x_type), Some(scale_type), Some(int_type)) =
        (tensor_type(x), tensor_type(scale), tensor_type(ints.into()))
    else {
        crate::no_match!("operand or result types are not tensors");
    };
    let (Some(storage), Some(scale_dtype)) = (int_type.dtype, scale_type.dtype) else {
        crate::no_match!("unknown element types");
    };
    let Some(&[length]) = scale_type.static_dims().as_deref() else {
        crate::no_match!("the scales are not a 1-D tensor of known length");
    };
    let (Some(rank), Ok(length)) = (x_type.rank(), usize::try_from(length)) else {
        crate::no_match!("the input's rank or the scales' length is unknown");
    };
    let axis = if axis < 0 { axis + rank as i64 } else { axis };
    if !(0..rank as i64).contains(&axis) {
        crate::no_match!("axis {axis} is out of range for rank {rank}");
    }
    let b = TorchBuilder::new(context, rewriter, op.location());
    let params = ArithmeticQuant {
        scale,
        scale_dtype,
        zero_point,
        storage,
        axis: Some(axis),
        length,
    };
    let q = match quantize_by_arithmetic(&b, x, &x_type, &params) {
        Ok(q) => q,
        Err(e) => {
            b.erase_inserted();
            crate::no_match!("{e}");
        }
    };
    rewriter.replace_op_with_values(op, &[q]);
    Ok(Outcome::Rewritten)
}
