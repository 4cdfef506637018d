//! The compiler's pipelines: which passes run for each `--emit` form, and the registry
//! of passes that `qlower-opt` exposes as flags.

use anyhow::{Result, bail};
use melior::Context;
use melior::ir::Module;

use crate::conversion::{Leftovers, convert_onnx_to_torch};
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

/// A named transformation of a module, runnable alone from `qlower-opt --NAME`. It
/// returns warnings for the user (ops it left alone, for instance).
pub struct Pass {
    pub name: &'static str,
    pub description: &'static str,
    pub run: for<'c> fn(&'c Context, &mut Module<'c>) -> Result<Vec<String>>,
}

/// Every pass qlower has, in the order `--help` lists them.
pub fn passes() -> &'static [Pass] {
    &[Pass {
        name: "convert-onnx-to-torch",
        description: "Lower torch.operator \"onnx.X\" ops to torch ops with explicit quantization",
        run: run_conversion,
    }]
}

fn run_conversion<'c>(context: &'c Context, module: &mut Module<'c>) -> Result<Vec<String>> {
    let leftovers = convert_onnx_to_torch(context, module)?;
    Ok(leftover_warning(&leftovers).into_iter().collect())
}

fn leftover_warning(leftovers: &Leftovers) -> Option<String> {
    if leftovers.is_empty() {
        return None;
    }
    let n: usize = leftovers.ops.values().sum();
    let noun = if n == 1 { "op has" } else { "ops have" };
    Some(format!(
        "{n} {noun} no lowering and stayed in import form: {}",
        leftovers.summary()
    ))
}

/// How `compile` treats ops that have no lowering.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Make ops without a lowering an error instead of a warning.
    pub strict: bool,
}

pub struct Compiled<'c> {
    pub module: Module<'c>,
    pub warnings: Vec<String>,
}

/// Imports `model` and runs the passes that produce `emit`.
pub fn compile<'c>(
    context: &'c Context,
    model: &ValidModel,
    emit: Emit,
    options: Options,
) -> Result<Compiled<'c>> {
    let mut module = import_model(context, model)?;
    let mut warnings = Vec::new();
    if emit == Emit::Torch {
        let leftovers = convert_onnx_to_torch(context, &mut module)?;
        if let Some(w) = leftover_warning(&leftovers) {
            if options.strict {
                bail!("{w} (--strict)");
            }
            warnings.push(w);
        }
    }
    Ok(Compiled { module, warnings })
}
