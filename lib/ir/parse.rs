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
    check_nesting(source).map_err(|e| anyhow::anyhow!("cannot parse '{name}' as MLIR: {e}"))?;
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

/// How deeply regions, types and attributes may nest. MLIR's parser recurses once per
/// level, and about 5,000 levels of regions (or of `tuple<...>`) overflow the main
/// thread's 8 MiB stack; the text qlower prints nests fewer than ten.
pub const MAX_NESTING: usize = 256;

/// Refuses text whose brackets (`{`, `(`, `[`, `<`, outside string literals) nest more
/// than `MAX_NESTING` deep, before MLIR's recursive parser sees it. `->` and `>=` are
/// not closing brackets; counting them would only make the estimate lower.
fn check_nesting(source: &str) -> Result<()> {
    let bytes = source.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'(' | b'[' | b'<' => {
                depth += 1;
                if depth > MAX_NESTING {
                    let line = 1 + bytes[..i].iter().filter(|&&c| c == b'\n').count();
                    bail!("line {line}: brackets nest more than {MAX_NESTING} deep");
                }
            }
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' if bytes.get(i + 1) == Some(&b'=') => {}
            b'}' | b')' | b']' | b'>' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
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

    /// Deeply nested regions or types overflowed the stack in MLIR's parser.
    #[test]
    fn deep_nesting_is_an_error() {
        let context = new_context();
        let n = 100_000;
        let regions = format!(
            "func.func @f() {{\n{}\"t.end\"() : () -> ()\n{}return\n}}",
            "\"t.op\"() ({\n".repeat(n),
            "}) : () -> ()\n".repeat(n)
        );
        let e = parse_module(&context, &regions, "x.mlir").unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot parse 'x.mlir' as MLIR: line 129: brackets nest more than 256 deep"
        );
        let types = format!(
            "func.func @f(%a: {}i32{}) {{ return }}",
            "tuple<".repeat(n),
            ">".repeat(n)
        );
        assert!(parse_module(&context, &types, "x.mlir").is_err());
        // Arrows, comparisons and brackets inside strings do not count.
        let shallow = format!(
            "func.func @f() -> () attributes {{s = \"{}\"}} {{ return }}",
            "((((".repeat(1000)
        );
        parse_module(&context, &shallow, "x.mlir").unwrap();
        let arrows = format!(
            "func.func @f() {{ {} return }}",
            "\"t.op\"() : () -> ()\n".repeat(1000)
        );
        parse_module(&context, &arrows, "x.mlir").unwrap();
    }

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
