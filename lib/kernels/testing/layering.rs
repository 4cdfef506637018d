//! The kernel library stands alone: it names no MLIR crate (`melior`, `mlir_sys`) and,
//! of this crate, only itself and `budget` (the process-wide tensor size limit). The
//! IR, dialect, transforms, conversion, import, pipeline, backend and ONNX modules are
//! all built on top of it. These tests read the library's sources, so that an import
//! breaking the rule fails here with the file and line named.

use std::path::{Path, PathBuf};

/// A folder of `lib/` whose code may name, of this crate, only the modules in `allowed`,
/// and no crate of `forbidden_crates`. The kernel library's wall is here; `ops/` checks
/// its own with the same reader.
pub(crate) struct Wall<'a> {
    pub folder: &'a str,
    pub allowed: &'a [&'a str],
    pub forbidden_crates: &'a [&'a str],
}

const KERNELS: Wall = Wall {
    folder: "kernels",
    allowed: &["kernels", "budget"],
    forbidden_crates: &["melior", "mlir_sys"],
};

/// Every `.rs` file under `lib/<folder>`, in every subfolder, sorted.
pub(crate) fn sources_under(folder: &str) -> Vec<PathBuf> {
    let mut pending = vec![
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("lib")
            .join(folder),
    ];
    let mut files = Vec::new();
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dir).expect("source directory is readable") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

impl Wall<'_> {
    /// How deep a file's module sits below the folder's (`mod.rs` there is 0, a file
    /// beside it 1): the `super::` chain that leaves the folder from it is one longer,
    /// or two from an inline test module.
    fn depth(&self, path: &Path) -> usize {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("lib")
            .join(self.folder);
        let rel = path.strip_prefix(&root).unwrap_or(path);
        let parts = rel.components().count();
        if rel.file_name().is_some_and(|f| f == "mod.rs") {
            parts.saturating_sub(1)
        } else {
            parts
        }
    }

    /// Every place in `text` (a file at `depth`) that names something outside the wall.
    pub fn violations(&self, text: &str, depth: usize) -> Vec<String> {
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
                if !self.allowed.contains(&module.as_str()) {
                    found.push(format!("line {}: crate::{module}", n + 1));
                }
            }
            for name in self.forbidden_crates {
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

    /// Every violation in the folder's files but `test_file` (the test that names the
    /// forbidden paths itself), each with its file; at least `min_files` files are read.
    pub fn breaches(&self, test_file: &str, min_files: usize) -> Vec<String> {
        let files = sources_under(self.folder);
        assert!(
            files.len() >= min_files,
            "found only {} sources",
            files.len()
        );
        let mut bad = Vec::new();
        for path in files.iter().filter(|p| !p.ends_with(test_file)) {
            let text = std::fs::read_to_string(path).expect("source is readable");
            for v in self.violations(&text, self.depth(path)) {
                bad.push(format!("{}: {v}", path.display()));
            }
        }
        bad
    }
}

fn violations(text: &str, depth: usize) -> Vec<String> {
    KERNELS.violations(text, depth)
}

#[test]
fn the_library_imports_nothing_built_on_mlir() {
    let bad = KERNELS.breaches("testing/layering.rs", 41);
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
