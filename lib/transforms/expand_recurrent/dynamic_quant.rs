//! DynamicQuantizeLSTM's H at each step, as ONNX Runtime multiplies it by R: quantized
//! to uint8 from its own range (widened to hold 0) as DynamicQuantizeLinear does, then
//! dequantized. The quantization stays explicit and in the form torch-mlir's importer
//! writes (`quantize_per_tensor` → `int_repr` → `_make_per_tensor_quantized_tensor` →
//! `dequantize.self`), which torch-mlir and IREE lower.

use anyhow::Result;
use melior::ir::Value;

use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;

/// `h` (of type `ty`, f32) quantized dynamically and dequantized.
pub(super) fn round_trip<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    h: Value<'c, 'a>,
    ty: &TensorType,
) -> Result<Value<'c, 'a>> {
    let scalar = |d| TensorType::known(d, &[]);
    let f32s = scalar(DType::F32);
    let zero = b.float(0.0)?;
    let one = b.int(1)?;
    let qmax = b.float(255.0)?;
    let lo = b.aten_tensor("min", &[h], &f32s)?;
    let hi = b.aten_tensor("max", &[h], &f32s)?;
    let lo = b.aten_tensor("clamp_max", &[lo, zero], &f32s)?;
    let hi = b.aten_tensor("clamp_min", &[hi, zero], &f32s)?;
    let range = b.aten_tensor("sub.Tensor", &[hi, lo, one], &f32s)?;
    let scale = b.aten_tensor("div.Scalar", &[range, qmax], &f32s)?;
    // An H of zeros (the default initial state) has no range; its integers are all the
    // zero point whatever the scale, so any non-zero scale keeps the division defined.
    let empty = b.aten_tensor("eq.Scalar", &[scale, zero], &scalar(DType::Bool))?;
    let unit = b.float(1.0)?;
    let scale = b.aten_tensor("where.ScalarSelf", &[empty, unit, scale], &f32s)?;
    let ratio = b.aten_tensor("div.Tensor", &[lo, scale], &f32s)?;
    let negated = b.aten_tensor("neg", &[ratio], &f32s)?;
    let rounded = b.aten_tensor("round", &[negated], &f32s)?;
    let zp = b.aten_tensor("clamp", &[rounded, zero, qmax], &f32s)?;
    // The zero point goes through si64, not ui8: IREE's integers are signless, and a
    // zero point of 255 read back from an 8-bit tensor would be -1.
    let zp = b.cast(zp, &scalar(DType::I64))?;
    let (scale, zp) = (b.item_float(scale)?, b.item_int(zp)?);
    let quint8 = b.int(DType::QUInt8.torch_scalar_type())?;
    let q = b.aten_tensor(
        "quantize_per_tensor",
        &[h, scale, zp, quint8],
        &ty.with_dtype(DType::QUInt8),
    )?;
    let ints = b.aten_tensor("int_repr", &[q], &ty.with_dtype(DType::U8))?;
    let made = b.aten_tensor(
        "_make_per_tensor_quantized_tensor",
        &[ints, scale, zp],
        &ty.with_dtype(DType::QUInt8),
    )?;
    b.aten_tensor("dequantize.self", &[made], ty)
}
