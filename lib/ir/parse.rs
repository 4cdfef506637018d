//! Reads `.mlir` text into a module, with MLIR's own messages on failure.

use anyhow::{Result, bail};
use melior::Context;
use melior::ir::Module;
use melior::ir::operation::OperationLike;

use super::diagnostics::DiagnosticCapture;

/// Parses and verifies `source`. `name` is used in messages only.
pub fn parse_module<'c>(context: &'c Context, source: &str, name: &str) -> Result<Module<'c>> {
    // melior passes the text on as a C string, and panics on an interior NUL (found by
    // the mlir_plan fuzz target); no valid MLIR contains one.
    if let Some(at) = source.find('\0') {
        bail!("cannot parse '{name}' as MLIR: byte {at} is NUL, and MLIR text has none");
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::context::new_context;

    /// Regression (mlir_plan fuzz target): a NUL byte made melior panic.
    #[test]
    fn a_nul_byte_is_an_error() {
        let context = new_context();
        let e = parse_module(&context, "func.func @f() {\0}", "x.mlir").unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot parse 'x.mlir' as MLIR: byte 16 is NUL, and MLIR text has none"
        );
    }
}
