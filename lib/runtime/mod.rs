//! The CPU backend: a plan built once from a lowered function, run many times.

mod fused_kernels;
pub mod io;
pub mod ir_values;
pub mod kernels;
pub mod plan;
mod run;
pub mod tensor;
pub mod value;
