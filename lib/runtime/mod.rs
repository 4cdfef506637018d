//! The CPU backend: a plan built once from a lowered function, run many times.

// The fusion matchers are moving to transforms::cpu_fusion, where they become a pass;
// until then the plan still includes them from there.
#[path = "../transforms/cpu_fusion/conv_matmul.rs"]
mod fuse;
#[path = "../transforms/cpu_fusion/elementwise.rs"]
mod fuse_elementwise;
#[path = "../transforms/cpu_fusion/max_pool.rs"]
mod fuse_max_pool;
#[path = "../transforms/cpu_fusion/avg_pool.rs"]
mod fuse_pool;
pub mod io;
pub mod kernels;
pub mod model;
pub mod plan;
mod run;
pub mod tensor;
pub mod value;
