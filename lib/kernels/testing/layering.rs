//! The kernel library stands alone: it names no MLIR crate (`melior`, `mlir_sys`) and,
//! of this crate, only itself and `budget` (the process-wide tensor size limit). The
//! IR, dialect, transforms, conversion, import, pipeline, backend and ONNX modules are
//! all built on top of it. These tests read the library's sources, so that an import
//! breaking the rule fails here with the file and line named.

use std::path::Path;

use super::library_sources;

/// The only modules of this crate the library may name.
const ALLOWED: &[&str] = &["kernels", "budget"];

/// Crates the library must not name at all.
const FORBIDDEN_CRATES: &[&str] = &["melior", "mlir_sys"];

/// How deep a file's module sits below `crate::kernels` (`kernels/mod.rs` is 0,
/// `kernels/isa.rs` and `kernels/ops/mod.rs` are 1): the `super::` chain that leaves
/// the library from it is one longer, or two from an inline test module.
fn depth(path: &Path) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("lib/kernels");
    let rel = path.strip_prefix(&root).unwrap_or(path);
    let parts = rel.components().count();
    if rel.file_name().is_some_and(|f| f == "mod.rs") {
        parts - 1
    } else {
        parts
    }
}

/// Every place in `text` (a file at `depth`) that names something outside the library.
fn violations(text: &str, depth: usize) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("crate::") {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let module: String = code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !ALLOWED.contains(&module.as_str()) {
                found.push(format!("line {}: crate::{module}", n + 1));
            }
        }
        for name in FORBIDDEN_CRATES {
            for (at, _) in code.match_indices(name) {
                let before = code[..at].chars().next_back();
                let after = code[at + name.len()..].chars().next();
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                if !word(before) && !word(after) {
                    found.push(format!("line {}: {name}", n + 1));
                }
            }
        }
        let supers = code
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .map(|path| path.matches("super::").count())
            .max()
            .unwrap_or(0);
        if supers > depth + 1 {
            found.push(format!("line {}: {supers} levels of super::", n + 1));
        }
    }
    found
}

#[test]
fn the_library_imports_nothing_built_on_mlir() {
    let files = library_sources();
    assert!(files.len() > 40, "found only {} sources", files.len());
    let mut bad = Vec::new();
    // This file names the forbidden paths in its own tests.
    for path in files.iter().filter(|p| !p.ends_with("testing/layering.rs")) {
        let text = std::fs::read_to_string(path).expect("source is readable");
        for v in violations(&text, depth(path)) {
            bad.push(format!("{}: {v}", path.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "the kernel library names outside code:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_catches_each_kind_of_escape() {
    assert!(
        violations(
            "use crate::kernels::tensor::Tensor;\nuse crate::budget::x;",
            2
        )
        .is_empty()
    );
    assert!(violations("// see crate::runtime::plan", 2).is_empty());
    assert_eq!(
        violations("use crate::ir::context;", 2),
        ["line 1: crate::ir"]
    );
    assert_eq!(
        violations(
            "x\n    let t = crate::dialect::types::TensorType::unknown();",
            2
        ),
        ["line 2: crate::dialect"]
    );
    assert_eq!(violations("use melior::ir::Module;", 0), ["line 1: melior"]);
    assert_eq!(
        violations("mlir_sys::mlirContextCreate()", 0),
        ["line 1: mlir_sys"]
    );
    assert!(violations("use super::super::qgemm;", 2).is_empty());
    assert_eq!(
        violations("use super::super::super::super::runtime;", 2),
        ["line 1: 4 levels of super::"]
    );
}
