//! The op table is the bottom of the op stages: conversion, import (shape inference)
//! and the dialect builders are built on it, and the pipeline fills it with their rules
//! (`crate::op_tables`). So `ops/` names no other module of this crate; before it did,
//! `ops::registry()` called back into the stages that import it. This test reads the
//! sources, so that an import breaking the rule fails here with the file and line named.

use std::path::{Path, PathBuf};

/// The only module of this crate `ops/` may name: itself.
const ALLOWED: &[&str] = &["ops"];

fn ops_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("lib/ops");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("lib/ops is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// How deep a file's module sits below `crate::ops` (`ops/mod.rs` is 0, `ops/table.rs`
/// is 1): the `super::` chain that leaves `ops` from it is one longer, or two from an
/// inline test module.
fn depth(path: &Path) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("lib/ops");
    let rel = path.strip_prefix(&root).unwrap_or(path);
    let parts = rel.components().count();
    if rel.file_name().is_some_and(|f| f == "mod.rs") {
        parts.saturating_sub(1)
    } else {
        parts
    }
}

/// Every place in `text` (a file at `depth`) that names a module outside `ops`.
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
fn the_op_table_names_no_stage_that_uses_it() {
    let files = ops_sources();
    assert!(files.len() >= 3, "found only {} sources", files.len());
    let mut bad = Vec::new();
    // This file names the forbidden paths in its own tests.
    for path in files.iter().filter(|p| !p.ends_with("ops/layering.rs")) {
        let text = std::fs::read_to_string(path).expect("source is readable");
        for v in violations(&text, depth(path)) {
            bad.push(format!("{}: {v}", path.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "ops/ names code built on it:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_catches_each_kind_of_escape() {
    assert!(violations("use crate::ops::table::OpTable;", 1).is_empty());
    assert!(violations("// filled by crate::conversion::register", 1).is_empty());
    assert_eq!(
        violations("use crate::conversion::binder::Binder;", 1),
        ["line 1: crate::conversion"]
    );
    assert_eq!(
        violations("x\npub use crate::import::shape_inference::ShapeRule;", 1),
        ["line 2: crate::import"]
    );
    assert_eq!(
        violations("    let b = crate::dialect::builder::TorchBuilder::new;", 0),
        ["line 1: crate::dialect"]
    );
    assert!(violations("use super::super::table::OpTable;", 1).is_empty());
    assert_eq!(
        violations("use super::super::super::conversion;", 1),
        ["line 1: 3 levels of super::"]
    );
}
