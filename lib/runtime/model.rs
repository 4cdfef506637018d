//! Loading a model for the backend: an `.onnx` file compiled in memory through the
//! fused pipeline (`--emit fused`), or a lowered `.mlir` file that qlower printed.

use std::path::Path;

use anyhow::{Context as _, Result};

use super::plan::Plan;
use crate::ir::context::new_context;
use crate::ir::parse::parse_module;
use crate::onnx::load::load_model;
use crate::pipeline::{Emit, Options, compile};

/// Plans the model at `path`. The MLIR context is gone when this returns: a plan
/// holds only plain data.
pub fn plan_model(path: &Path) -> Result<Plan> {
    let context = new_context();
    let is_mlir = path.extension().is_some_and(|e| e == "mlir");
    let module = if is_mlir {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read '{}'", path.display()))?;
        parse_module(&context, &text, &path.display().to_string())?
    } else {
        let model = load_model(path)?;
        compile(&context, &model, Emit::Fused, Options::default())?.module
    };
    Plan::new(&module)
}
