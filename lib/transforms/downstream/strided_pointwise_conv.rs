//! A 1×1 convolution with stride s > 1 and no padding reads every s-th row and column
//! of its input: it is the stride-1 convolution of `x[..., ::s, ::s]`. When `x` is
//! `dequantize.self(_make_per_tensor_quantized_tensor(q, scale, zp))`, this rewrite
//! subsamples the integers `q` first (`slice.Tensor` with step s on each spatial axis),
//! then quantizes, dequantizes and convolves with stride 1.
//!
//! Why: IREE turns a strided 1×1 convolution into a matmul over a strided
//! `extract_slice` of its input and fuses the element-wise dequantization into the same
//! dispatch; it cannot tile through the strided slice, so the whole dequantized f32
//! input is materialised on the stack (802,816 bytes for a ResNet-18 projection
//! shortcut, over its 32 KiB limit; raising `--iree-llvmcpu-stack-allocation-limit`
//! compiles, but the module then overflows the stack when it runs). Slicing the
//! integers leaves IREE a plain 1×1 stride-1 convolution. The results are the same
//! products and sums, so they are bit-identical on every backend; quantization stays
//! explicit (the same make/dequantize, on fewer elements).

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value, ValueLike};
use melior::{Context, RewriterBase};

use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{TensorType, tensor_type_of_value as tensor_type};
use crate::ir::matchers::{constant_bool, constant_int, named};
use crate::rewrite::{Outcome, PatternResult};

pub const ROOT: &str = "torch.aten.convolution";
pub const GENERATED: &[&str] = &[
    "torch.aten.convolution",
    "torch.aten.slice.Tensor",
    "torch.aten._make_per_tensor_quantized_tensor",
    "torch.aten.dequantize.self",
    "torch.constant.int",
    "torch.prim.ListConstruct",
];

/// The values of a `torch.prim.ListConstruct` of `torch.constant.int`s.
fn int_list(v: Value) -> Option<Vec<i64>> {
    let list = named(v, "torch.prim.ListConstruct")?;
    list.operands().map(constant_int).collect()
}

pub fn rewrite<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    if op.operand_count() != 9 {
        crate::no_match!("a convolution without its 9 operands");
    }
    let operand = |i| op.operand(i);
    let (input, weight) = (operand(0)?, operand(1)?);
    let (Some(x), Some(w)) = (tensor_type(input), tensor_type(weight)) else {
        crate::no_match!("operand types are not tensors");
    };
    let (Some(x_dims), Some(w_dims)) = (x.static_dims(), w.static_dims()) else {
        crate::no_match!("operand shapes are not static");
    };
    if x_dims.len() < 3 || w_dims.len() != x_dims.len() || w_dims[2..].iter().any(|&k| k != 1) {
        crate::no_match!("not a 1x1 convolution");
    }
    let spatial = x_dims.len() - 2;
    let Some(strides) = int_list(operand(3)?) else {
        crate::no_match!("strides are not constant");
    };
    let (Some(pads), Some(dilations)) = (int_list(operand(4)?), int_list(operand(5)?)) else {
        crate::no_match!("padding or dilation is not constant");
    };
    if strides.len() != spatial || strides.iter().all(|&s| s == 1) || strides.iter().any(|&s| s < 1)
    {
        crate::no_match!("not strided");
    }
    if pads.iter().any(|&p| p != 0) || dilations.iter().any(|&d| d != 1) {
        crate::no_match!("padded or dilated");
    }
    if constant_bool(operand(6)?) != Some(false) {
        crate::no_match!("transposed, or not provably plain");
    }
    let Some(dq) = named(input, "torch.aten.dequantize.self") else {
        crate::no_match!("the input is not dequantize.self");
    };
    let Some(make) = named(
        dq.operand(0)?,
        "torch.aten._make_per_tensor_quantized_tensor",
    ) else {
        crate::no_match!("the input does not dequantize _make_per_tensor_quantized_tensor");
    };
    let ints = make.operand(0)?;
    let (Some(int_type), Some(q_type)) = (tensor_type(ints), tensor_type(make.result(0)?.into()))
    else {
        crate::no_match!("the quantized operand types are not tensors");
    };
    let (Some(int_dtype), Some(q_dtype)) = (int_type.dtype, q_type.dtype) else {
        crate::no_match!("unknown element types");
    };
    let b = TorchBuilder::new(context, rewriter, op.location());
    let mut sliced = ints;
    let mut dims = x_dims.clone();
    for (i, &s) in strides.iter().enumerate() {
        if s == 1 {
            continue;
        }
        let axis = i + 2;
        let len = dims[axis];
        dims[axis] = (len + s - 1) / s;
        let operands = [b.int(axis as i64)?, b.int(0)?, b.int(len)?, b.int(s)?];
        sliced = b.aten_tensor(
            "slice.Tensor",
            &[sliced, operands[0], operands[1], operands[2], operands[3]],
            &TensorType::known(int_dtype, &dims),
        )?;
    }
    let made = b.aten_tensor(
        "_make_per_tensor_quantized_tensor",
        &[sliced, make.operand(1)?, make.operand(2)?],
        &TensorType::known(q_dtype, &dims),
    )?;
    let float = b.aten_tensor(
        "dequantize.self",
        &[made],
        &TensorType::known(x.dtype.unwrap_or(crate::onnx::dtype::DType::F32), &dims),
    )?;
    let ones = b.int_list(&vec![1; spatial])?;
    let mut operands: Vec<Value> = op.operands().collect();
    operands[0] = float;
    operands[3] = ones;
    let result = op.result(0)?;
    let conv = b.aten("convolution", &operands, result.r#type())?;
    rewriter.replace_op_with_values(op, &[conv]);
    Ok(Outcome::Rewritten)
}
