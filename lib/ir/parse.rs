//! Reads `.mlir` text into a module, with MLIR's own messages on failure.

use anyhow::{Result, bail};
use melior::Context;
use melior::ir::Module;
use melior::ir::operation::OperationLike;

use super::diagnostics::DiagnosticCapture;

/// Parses and verifies `source`. `name` is used in messages only.
pub fn parse_module<'c>(context: &'c Context, source: &str, name: &str) -> Result<Module<'c>> {
    let capture = DiagnosticCapture::new(context);
    let Some(module) = Module::parse(context, source) else {
        // MLIR names a buffer parsed from memory "-"; say which file it was.
        let why = capture.take().replace("-:", &format!("{name}:"));
        bail!(
            "cannot parse '{name}' as MLIR: {}",
            first_line_or(&why, "no diagnostic")
        );
    };
    if !module.as_operation().verify() {
        let why = capture.take();
        bail!(
            "'{name}' does not verify: {}",
            first_line_or(&why, "no diagnostic")
        );
    }
    Ok(module)
}

fn first_line_or<'a>(s: &'a str, fallback: &'a str) -> &'a str {
    s.lines()
        .next()
        .filter(|l| !l.is_empty())
        .unwrap_or(fallback)
}
