//! The quantization ops: the one named set every transform consults. Constant folding
//! never folds an op of this set, even when all its operands are constants, because
//! folding them is what collapses a quantized model into a float one.

/// Operation names of the Q/DQ set, in the import form and in the torch form.
pub const QDQ_OPS: &[&str] = &[
    "onnx.QuantizeLinear",
    "onnx.DequantizeLinear",
    "onnx.DynamicQuantizeLinear",
    "com.microsoft.QuantizeLinear",
    "com.microsoft.DequantizeLinear",
    "torch.aten.quantize_per_tensor",
    "torch.aten.quantize_per_channel",
    "torch.aten.dequantize.self",
    "torch.aten.dequantize.tensor",
    "torch.aten._make_per_tensor_quantized_tensor",
    "torch.aten._make_per_channel_quantized_tensor",
    "torch.aten.int_repr",
];

/// Whether the op named `name` is a quantization op. In the import form ops are all
/// named `torch.operator`, so callers pass the `name` attribute for those.
pub fn is_qdq(name: &str) -> bool {
    QDQ_OPS.contains(&name)
}
