//! Element types. `DType` is plain data the kernels compute on, so it lives in the
//! kernel library (`crate::kernels::tensor::dtype`); the ONNX side names it here.

pub use crate::kernels::tensor::dtype::{ALL, DType, FOUR_BIT, QUANTIZED, onnx_type_name};
pub use crate::kernels::tensor::float8::Float8;
