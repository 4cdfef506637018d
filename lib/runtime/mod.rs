//! The CPU backend: a plan built once from a lowered function, run many times, on top
//! of the kernel library (`crate::kernels`).

mod fused_kernels;
mod if_step;
pub mod inputs;
pub mod io;
pub mod ir_values;
mod loop_step;
pub mod plan;
pub mod profile;
mod region_step;
mod run;
pub mod threads;
