//! `fuse-quantized-ops`: a convolution, matmul or mm whose operands are all
//! `dequantize.self(_make_*_quantized_tensor(...))` (or `dequantize.self(quantize_*(..))`,
//! as QDQ models quantize activations) is applied to the quantized tensors themselves,
//! in torch-mlir's form:
//!
//! ```text
//! acc = convolution(qx, qw, qb, ...)              : qint32
//! y   = dequantize.self(_make_*(int_repr(acc), x_scale·w_scale, 0[, axis]))   : f32
//! ```
//!
//! `y` replaces the float op's result, so a `quantize_per_tensor` that followed stays.
//! Unlike torch-mlir, per-channel weights fuse too: the accumulator then carries
//! per-channel scales `x_scale·w_scale[c]` along the output-channel axis (1 for a
//! convolution, the last for a matmul), so no axis is dropped and nothing per-channel
//! becomes per-tensor.
//!
//! Asymmetric padding appears as `constant_pad_nd(dequantize(..), pads, 0.0)` before a
//! convolution; torch cannot pad a quantized tensor, so the pad moves onto its integers,
//! filled with the zero point (which dequantizes to exactly the 0.0 the float pad
//! inserted), and `_make_per_tensor_quantized_tensor` makes them quantized again.
//!
//! Left alone: transposed convolutions; per-channel activations; a float bias (folding
//! it into the int32 accumulator would round it, changing results); a bias whose zero
//! point is not a constant 0; a pad with another value.

use crate::ir::matchers::{constant_bool, constant_float, constant_int, defining, named, op_name};
use std::rc::Rc;

use anyhow::{Result, anyhow};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Module, Value, ValueLike};
use melior::{Context, RewriterBase};

use crate::dialect::builder::TorchBuilder;
use crate::dialect::ops::dense_attribute_data;
use crate::dialect::types::{TensorType, tensor_type_of_value as tensor_type};
use crate::no_match;
use crate::onnx::dtype::DType;
use crate::rewrite::{self, FailureLog, Outcome, PatternResult};

const CONVOLUTION: &str = "torch.aten.convolution";
const MATMUL: &str = "torch.aten.matmul";
const MM: &str = "torch.aten.mm";
const DEQUANTIZE: &str = "torch.aten.dequantize.self";
const MAKE_PER_TENSOR: &str = "torch.aten._make_per_tensor_quantized_tensor";
const MAKE_PER_CHANNEL: &str = "torch.aten._make_per_channel_quantized_tensor";
const QUANTIZE_PER_TENSOR: &str = "torch.aten.quantize_per_tensor";
const QUANTIZE_PER_CHANNEL: &str = "torch.aten.quantize_per_channel";

const GENERATED: &[&str] = &[
    CONVOLUTION,
    MATMUL,
    MM,
    DEQUANTIZE,
    MAKE_PER_TENSOR,
    MAKE_PER_CHANNEL,
    "torch.aten.int_repr",
    "torch.aten.constant_pad_nd",
    "torch.aten.mul.float",
    "torch.aten.mul.Scalar",
    "torch.constant.int",
    "torch.vtensor.literal",
];

/// Runs the fusion over `module`.
pub fn fuse_quantized_ops(context: &Context, module: &mut Module) -> Result<()> {
    let log = Rc::new(FailureLog::default());
    let mut patterns = Vec::new();
    for root in [CONVOLUTION, MATMUL, MM] {
        patterns.push(rewrite::op_pattern(
            context,
            root,
            1,
            GENERATED,
            Rc::clone(&log),
            Box::new(fuse),
        ));
    }
    rewrite::apply_greedily(context, module, patterns)
}

/// Whether `v` is known to be zero: `torch.constant.int 0`, a literal of zeros, or
/// `item` of one.
fn is_zero(v: Value) -> bool {
    if let Some(i) = constant_int(v) {
        return i == 0;
    }
    let v = match named(v, "torch.aten.item").and_then(|item| item.operand(0).ok()) {
        Some(inner) => inner,
        None => v,
    };
    let Some(literal) = named(v, "torch.vtensor.literal") else {
        return false;
    };
    let (Ok(attr), Some(ty)) = (literal.attribute("value"), tensor_type(v)) else {
        return false;
    };
    dense_attribute_data(attr, &ty).is_some_and(|d| d.bytes.iter().all(|&b| b == 0))
}

/// A quantized operand: the `_make_*` or `quantize_*` value behind `dequantize.self`, with its scale and,
/// per channel, the scales tensor and axis.
struct Quantized<'c, 'a> {
    value: Value<'c, 'a>,
    scale: Value<'c, 'a>,
    zero_point: Value<'c, 'a>,
    axis: Option<i64>,
}

fn dequantized<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<Quantized<'c, 'a>> {
    let dq = named(v, DEQUANTIZE)?;
    let value = dq.operand(0).ok()?;
    let make = defining(value)?;
    // Activations of QDQ models are quantized in the graph (canonicalize-quant turns
    // `_make_*(int_repr(quantize_*(x)))` into `quantize_*(x)`); their operands line up
    // with `_make_*`'s.
    let axis = match op_name(make).as_str() {
        MAKE_PER_TENSOR | QUANTIZE_PER_TENSOR => None,
        MAKE_PER_CHANNEL | QUANTIZE_PER_CHANNEL => Some(constant_int(make.operand(3).ok()?)?),
        _ => return None,
    };
    Some(Quantized {
        value,
        scale: make.operand(1).ok()?,
        zero_point: make.operand(2).ok()?,
        axis,
    })
}

fn fuse<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    let is_conv = op_name(op) == CONVOLUTION;
    let operand = |i| op.operand(i).map_err(|e| anyhow!("{e}"));
    // Asymmetric padding appears as constant_pad_nd(x, pads, 0.0) before a convolution.
    let (input, pad) = match named(operand(0)?, "torch.aten.constant_pad_nd") {
        Some(p) if is_conv => {
            let (Some(pads), Some(value), Some(ty)) = (
                p.operand(1).ok(),
                p.operand(2).ok(),
                tensor_type(p.result(0)?.into()),
            ) else {
                no_match!("a malformed constant_pad_nd");
            };
            if constant_float(value) != Some(0.0) && constant_int(value) != Some(0) {
                no_match!("the input is padded with a value other than 0");
            }
            (p.operand(0)?, Some(Pad { pads, ty }))
        }
        _ => (operand(0)?, None),
    };
    let Some(x) = dequantized(input) else {
        no_match!("the first operand is not dequantize.self(_make_*(..))");
    };
    let Some(w) = dequantized(operand(1)?) else {
        no_match!("the second operand is not dequantize.self(_make_*(..))");
    };
    if x.axis.is_some() {
        no_match!("per-channel activations are not fused");
    }
    let Some(result) = tensor_type(op.result(0)?.into()) else {
        no_match!("the result type is not a tensor");
    };
    let Some(rank) = result.rank() else {
        no_match!("the result rank is unknown");
    };
    // The axis of the result that per-channel weight scales run along.
    let result_axis = if is_conv {
        if constant_bool(operand(6)?) != Some(false) {
            no_match!("transposed (or not provably plain) convolutions are not fused");
        }
        if w.axis.is_some_and(|a| a != 0) {
            no_match!("conv weights quantized along axis {:?}, not 0", w.axis);
        }
        1
    } else {
        // Per-column weights (along their last axis, at least 2-D) give per-column
        // accumulators, along the result's last axis.
        let w_rank = tensor_type(w.value).and_then(|t| t.rank()).unwrap_or(0);
        if w.axis.is_some() && (w_rank < 2 || w.axis != Some(w_rank as i64 - 1)) {
            no_match!("matmul weights quantized along an axis other than the last of 2 or more");
        }
        rank as i64 - 1
    };
    let mut operands: Vec<Value> = (0..op.operand_count())
        .map(operand)
        .collect::<Result<_>>()?;
    operands[0] = x.value;
    operands[1] = w.value;
    if is_conv {
        let bias = operand(2)?;
        if bias.r#type().to_string() != "!torch.none" {
            let Some(b) = dequantized(bias) else {
                no_match!("the bias is a float tensor, not dequantize.self(_make_*(int32))");
            };
            let int32 = tensor_type(b.value).and_then(|t| t.dtype) == Some(DType::QInt32);
            if !int32 || !is_zero(b.zero_point) || b.axis.is_some_and(|a| a != 0) {
                no_match!("the bias is not int32 with zero point 0");
            }
            operands[2] = b.value;
        }
    }
    let builder = TorchBuilder::new(context, rewriter, op.location());
    let built = pad_input(&builder, &x, pad.as_ref()).and_then(|padded| {
        if let Some(qx) = padded {
            operands[0] = qx;
        }
        build(&builder, op, &operands, &result, &x, &w, result_axis)
    });
    match built {
        Ok(y) => {
            rewriter.replace_op_with_values(op, &[y]);
            Ok(Outcome::Rewritten)
        }
        Err(e) => {
            builder.erase_inserted();
            Err(e)
        }
    }
}

/// The `constant_pad_nd` of a float input the convolution reads.
struct Pad<'c, 'a> {
    pads: Value<'c, 'a>,
    ty: TensorType,
}

/// The quantized input padded with its zero point, which dequantizes to the 0.0 the
/// float pad inserts: `_make_per_tensor(constant_pad_nd(ints, pads, zp), scale, zp)`.
/// The ints are `_make_*`'s operand, or `int_repr` of a `quantize_per_tensor`.
fn pad_input<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    x: &Quantized<'c, 'a>,
    pad: Option<&Pad<'c, 'a>>,
) -> Result<Option<Value<'c, 'a>>> {
    let Some(pad) = pad else {
        return Ok(None);
    };
    let Some(qtype) = tensor_type(x.value).and_then(|t| t.dtype) else {
        anyhow::bail!("the quantized input has no known dtype");
    };
    let storage = qtype.storage();
    let ints = match named(x.value, MAKE_PER_TENSOR) {
        Some(make) => make.operand(0)?,
        None => b.aten_tensor("int_repr", &[x.value], &x_type(x)?.with_dtype(storage))?,
    };
    let padded = b.aten_tensor(
        "constant_pad_nd",
        &[ints, pad.pads, x.zero_point],
        &pad.ty.with_dtype(storage),
    )?;
    let made = b.aten_tensor(
        "_make_per_tensor_quantized_tensor",
        &[padded, x.scale, x.zero_point],
        &pad.ty.with_dtype(qtype),
    )?;
    Ok(Some(made))
}

fn x_type(x: &Quantized) -> Result<TensorType> {
    tensor_type(x.value).ok_or_else(|| anyhow!("the quantized input is not a tensor"))
}

/// Emits the quantized op, its accumulator's scale and the dequantize that replaces
/// the float result.
fn build<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    op: OperationRef<'c, 'a>,
    operands: &[Value<'c, 'a>],
    result: &TensorType,
    x: &Quantized<'c, 'a>,
    w: &Quantized<'c, 'a>,
    result_axis: i64,
) -> Result<Value<'c, 'a>> {
    let name = op_name(op);
    let acc_type = b.tensor_type(&result.with_dtype(DType::QInt32))?;
    let acc: Value = b.op(&name, operands, &[acc_type], &[])?.result(0)?.into();
    let ints = b.aten_tensor("int_repr", &[acc], &result.with_dtype(DType::I32))?;
    let q_type = result.with_dtype(DType::QInt32);
    let requantized = match w.axis {
        None => {
            let scale = b.aten("mul.float", &[x.scale, w.scale], b.torch_type("float")?)?;
            let zero = b.int(0)?;
            b.aten_tensor(
                "_make_per_tensor_quantized_tensor",
                &[ints, scale, zero],
                &q_type,
            )?
        }
        Some(_) => {
            let Some(scales_type) = tensor_type(w.scale) else {
                anyhow::bail!("the weight scales are not a tensor");
            };
            let channels = match scales_type.static_dims().as_deref() {
                Some(&[c]) => c,
                _ => anyhow::bail!("the weight scales are not a 1-D tensor of known length"),
            };
            let scales = b.aten_tensor(
                "mul.Scalar",
                &[w.scale, x.scale],
                &scales_type.with_dtype(DType::F32),
            )?;
            let zeros = b.literal(&crate::onnx::tensor::TensorData {
                dtype: DType::I64,
                dims: vec![channels],
                bytes: vec![0u8; 8 * usize::try_from(channels)?].into(),
            })?;
            let axis = b.int(result_axis)?;
            b.aten_tensor(
                "_make_per_channel_quantized_tensor",
                &[ints, scales, zeros, axis],
                &q_type,
            )?
        }
    };
    b.aten_tensor(
        DEQUANTIZE.trim_start_matches("torch.aten."),
        &[requantized],
        result,
    )
}
