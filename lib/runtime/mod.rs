//! The CPU backend: a plan built once from a lowered function, run many times, on top
//! of the kernel library (`crate::kernels`).

mod fuse;
mod fuse_elementwise;
mod fuse_max_pool;
mod fuse_pool;
pub mod io;
pub mod model;
pub mod plan;
mod run;
