//! qlower: lowers quantized ONNX models into MLIR with explicit quantization.

pub mod budget;
pub mod conversion;
#[cfg(test)]
mod cpu_fusion_tests;
#[cfg(test)]
mod deep_graph_tests;
pub mod dialect;
pub mod import;
pub mod ir;
pub mod kernels;
pub mod onnx;
pub mod op_tables;
pub mod ops;
pub mod opset_upgrade;
pub mod output;
pub mod pipeline;
pub mod progress;
pub mod quantize;
pub mod rewrite;
pub mod runtime;
pub mod timing;
pub mod transforms;
