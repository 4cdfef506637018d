//! Import: a validated ONNX model becomes MLIR in the import form of DESIGN.md.

mod attributes;
mod control_flow;
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
pub use graph::NamedShape;
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
    module.body().append_operation(graph::import_graph(
        context,
        model,
        shapes,
        &mut warnings,
        None,
    )?);
    if !module.as_operation().verify() {
        bail!("the imported module does not verify: {}", capture.take());
    }
    Ok((module, warnings))
}

/// Every value of `model` (graph inputs, then each node's outputs in the order the
/// import visits them) with its shape, the dimensions known only at run time named:
/// by the model (`dim_param`), by the symbolic rules, or `?N` where nothing names them.
pub fn named_shapes(model: &ValidModel, shapes: &ShapeRules) -> Result<Vec<NamedShape>> {
    let context = crate::ir::context::new_context();
    let mut report = Vec::new();
    let mut warnings = Vec::new();
    graph::import_graph(&context, model, shapes, &mut warnings, Some(&mut report))?;
    Ok(report)
}
