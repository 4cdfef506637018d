//! The op table and the opset lookup that conversion, shape inference and folding
//! share: `OpTable<R>` keys one stage's rules by (domain, op, since) and finds the rule
//! for a model's opset; `opset::version_for` reads that opset from the IR. This module
//! names no other part of the crate (a test, `layering.rs`, keeps it so): each stage
//! owns its rule type and its table, and the pipeline builds the tables
//! (`crate::op_tables`) and hands them to the stages.
//!
//! Adding an op:
//! 1. its lowering: a handler in the `conversion/` file of its family, reading the op
//!    through the `Binder`, registered there with `r.on_op("Op", since, handler)`
//!    (`on_domain_op` for another domain) in the conversion's `Lowerings`;
//! 2. its shape rule: a function of `Ctx` in the `import/shape_inference/` file of its
//!    family, registered there with `r.infer_ops(&["Op"], 1, rule)` in `ShapeRules`;
//!    window ops use `onnx::window` for their geometry;
//! 3. tests: `test/Conversion/OnnxToTorch/<A-F|G-P|Q-Z|Microsoft>/op.mlir` and
//!    `op_diagnostics.mlir`, and the shape rule's unit tests beside it.
//!
//! A test in `op_tables` refuses an op that has a lowering but no shape rule.

#[cfg(test)]
mod layering;
pub mod opset;
pub mod table;

pub use table::{OpTable, split_op_name};
