//! The torch-like dialect qlower emits: types and op builders, as unregistered MLIR.

pub mod ops;
pub mod types;
