//! Quantized kernels: quantize and dequantize, and the steps that reproduce ONNX
//! Runtime's integer arithmetic for QLinear ops (convolution and matmul through
//! `linalg`, elementwise, pooling, softmax), exactly, rounding included.

pub mod dynamic_linear;
mod dynamic_range;
mod lookup_gather;
pub mod lookup_table;
pub mod qlinear;
pub mod qlinear_binary;
pub mod qlinear_concat;
pub mod qlinear_pool;
pub mod qlinear_softmax;
pub mod quant;
pub mod quantized_operands;
mod quotient;
