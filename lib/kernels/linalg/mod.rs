//! Linear algebra: float convolution and matmul over a float GEMM (`sgemm`), and the
//! fast quantized convolution and matmul over an 8-bit integer GEMM (`qgemm`).

pub mod attention;
pub mod conv;
pub mod matmul;
pub mod nbits;
pub mod qconv;
pub(crate) mod qdriver;
pub mod qgemm;
pub mod qmatmul;
pub mod qparams;
pub mod sgemm;
mod strided;
