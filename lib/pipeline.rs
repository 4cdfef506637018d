//! The compiler's pipelines: which passes run for each `--emit` form, and the registry
//! of passes that `qlower-opt` exposes as flags.

use anyhow::Result;
use melior::Context;
use melior::ir::Module;

use crate::import::import_model;
use crate::onnx::validate::ValidModel;

/// The form `qlower` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The import form: `torch.operator "onnx.X"` for every node.
    Import,
    /// Lowered to the torch dialect with explicit quantization (the default).
    Torch,
}

/// A named transformation of a module, runnable alone from `qlower-opt --NAME`.
pub struct Pass {
    pub name: &'static str,
    pub description: &'static str,
    pub run: for<'c> fn(&'c Context, &mut Module<'c>) -> Result<()>,
}

/// Every pass qlower has, in the order `--help` lists them.
pub fn passes() -> &'static [Pass] {
    &[]
}

/// Imports `model` and runs the passes that produce `emit`.
pub fn compile<'c>(context: &'c Context, model: &ValidModel, emit: Emit) -> Result<Module<'c>> {
    let module = import_model(context, model)?;
    match emit {
        Emit::Import => {}
        // The lowering passes arrive with the conversion; until then both forms agree.
        Emit::Torch => {}
    }
    Ok(module)
}
