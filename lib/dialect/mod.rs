//! The torch-like dialect qlower emits: types and op builders, as unregistered MLIR.

pub mod builder;
pub mod onnx_attributes;
pub mod ops;
pub mod qdq;
pub mod qlower;
pub mod quantize_arithmetic;
pub mod types;
