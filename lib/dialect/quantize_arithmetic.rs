//! Quantization written as the arithmetic ONNX defines, `saturate(round(x / scale) +
//! zero_point)`, in torch ops (`div.Tensor`, `round`, `add.Tensor`, `clamp`,
//! `to.dtype`). Two callers need it:
//! - the conversion, for the integer types torch has no quantized type for (16 and 4
//!   bits), whose QuantizeLinear has no `quantize_*` op to become;
//! - `decompose-quantize-per-channel` (`--target iree|torch-mlir`), because torch-mlir
//!   and IREE have no lowering of `quantize_per_channel`.
//!
//! The ops compute the same integers as qlower's quantize kernel: the f32 quotient,
//! rounded half to even, plus the zero point (exact in f32 below 2^24; beyond that both
//! saturate; to int32 the sum is taken in si64, as f32 cannot hold every int32).

use anyhow::{Result, bail};
use melior::ir::Value;

use super::builder::TorchBuilder;
use super::types::TensorType;
use crate::onnx::dtype::DType;

/// The parameters of one quantization, as values of the function being rewritten.
pub struct ArithmeticQuant<'c, 'a> {
    /// The scales: a one-element tensor per tensor, a 1-D one per axis.
    pub scale: Value<'c, 'a>,
    pub scale_dtype: DType,
    /// The zero points, a tensor of `storage` shaped like the scales.
    pub zero_point: Value<'c, 'a>,
    /// The integer type quantized to.
    pub storage: DType,
    /// `Some(axis)` (non-negative) per axis.
    pub axis: Option<i64>,
    /// The number of scales along the axis (1 per tensor).
    pub length: usize,
}

/// The integers of `x` (of type `x_type`) quantized with `p`, typed like `x` with
/// element type `p.storage`.
pub fn quantize_by_arithmetic<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    p: &ArithmeticQuant<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    let (lo, hi) = match p.storage {
        DType::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
        DType::U8 => (0.0, 255.0),
        DType::I8 => (-128.0, 127.0),
        DType::U16 => (0.0, 65535.0),
        DType::I16 => (-32768.0, 32767.0),
        DType::I4 => (-8.0, 7.0),
        DType::U4 => (0.0, 15.0),
        other => bail!("quantization to {other} by arithmetic is not supported"),
    };
    let Some(rank) = x_type.rank() else {
        bail!("quantization of a tensor of unknown rank");
    };
    let shape = match p.axis {
        Some(axis) => {
            let mut shape = vec![1i64; rank];
            let Some(dim) = usize::try_from(axis).ok().and_then(|a| shape.get_mut(a)) else {
                bail!("axis {axis} is out of range for rank {rank}");
            };
            *dim = p.length as i64;
            shape
        }
        None => Vec::new(),
    };
    let floats = TensorType::known(DType::F32, &shape);
    let dims = b.int_list(&shape)?;
    let mut scale = b.aten_tensor(
        "reshape",
        &[p.scale, dims],
        &TensorType::known(p.scale_dtype, &shape),
    )?;
    if p.scale_dtype != DType::F32 {
        scale = b.cast(scale, &floats)?;
    }
    let zp = b.aten_tensor(
        "reshape",
        &[p.zero_point, dims],
        &TensorType::known(p.storage, &shape),
    )?;
    let wide = p.storage == DType::I32;
    let zp_f32 = if wide { zp } else { b.cast(zp, &floats)? };
    let f = x_type.with_dtype(DType::F32);
    let q = b.aten_tensor("div.Tensor", &[x, scale], &f)?;
    let q = b.aten_tensor("round", &[q], &f)?;
    let one = b.int(1)?;
    if wide {
        // f32 cannot hold every int32, but the rounded quotient is an integer f32 value,
        // exact in si64, so the zero point is added and the sum saturated there. The
        // quotient is first bounded to ±2^33, beyond which the sum saturates anyway.
        let bound = 8_589_934_592.0;
        let (neg, pos) = (b.float(-bound)?, b.float(bound)?);
        let q = b.aten_tensor("clamp", &[q, neg, pos], &f)?;
        let wide = x_type.with_dtype(DType::I64);
        let q = b.cast(q, &wide)?;
        let zp = b.cast(zp, &TensorType::known(DType::I64, &shape))?;
        let q = b.aten_tensor("add.Tensor", &[q, zp, one], &wide)?;
        let (lo, hi) = (b.int(lo as i64)?, b.int(hi as i64)?);
        let q = b.aten_tensor("clamp", &[q, lo, hi], &wide)?;
        return b.cast(q, &x_type.with_dtype(DType::I32));
    }
    let q = b.aten_tensor("add.Tensor", &[q, zp_f32, one], &f)?;
    let (lo, hi) = (b.float(lo)?, b.float(hi)?);
    let q = b.aten_tensor("clamp", &[q, lo, hi], &f)?;
    // Through si32: torch-mlir converts f32 to ui8 as if to si8 (saturating at 127);
    // f32 to si32 and the truncation of si32 to the 4-, 8- or 16-bit type are exact here.
    let q = b.cast(q, &x_type.with_dtype(DType::I32))?;
    b.cast(q, &x_type.with_dtype(p.storage))
}
