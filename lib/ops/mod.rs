//! One home for each ONNX op: the table, keyed by (domain, op, since), that names each
//! op's lowering and its shape rule.

pub mod registry;

pub use registry::{Registry, split_op_name};
