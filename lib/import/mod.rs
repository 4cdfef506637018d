//! Import: a validated ONNX model becomes MLIR in the import form of DESIGN.md.

mod attributes;
mod graph;
mod meta;
pub mod shape_inference;
pub(crate) mod value_types;

use anyhow::{Result, bail};
use melior::Context;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{Location, Module};

use crate::ir::diagnostics::DiagnosticCapture;
use crate::onnx::validate::ValidModel;
use shape_inference::ShapeRules;

/// Imports `model` into a new module of `context`, and verifies it. Also returns
/// warnings for the user: the declared types the model's ops contradict, which the
/// import does not follow. `shapes` are the shape rules the pipeline built
/// (`crate::op_tables`).
pub fn import_model<'c>(
    context: &'c Context,
    model: &ValidModel,
    shapes: &ShapeRules,
) -> Result<(Module<'c>, Vec<String>)> {
    let capture = DiagnosticCapture::new(context);
    let module = Module::new(Location::unknown(context));
    let mut warnings = Vec::new();
    module
        .body()
        .append_operation(graph::import_graph(context, model, shapes, &mut warnings)?);
    if !module.as_operation().verify() {
        bail!("the imported module does not verify: {}", capture.take());
    }
    Ok((module, warnings))
}
