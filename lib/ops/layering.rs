//! The op table is the bottom of the op stages: conversion, import (shape inference)
//! and the dialect builders are built on it, and the pipeline fills it with their rules
//! (`crate::op_tables`). So `ops/` names no other module of this crate; before it did,
//! `ops::registry()` called back into the stages that import it. This test reads the
//! sources (with the kernel library's wall reader, `kernels::testing::layering`), so
//! that an import breaking the rule fails here with the file and line named.

use crate::kernels::testing::layering::Wall;

/// The only module of this crate `ops/` may name: itself.
const OPS: Wall = Wall {
    folder: "ops",
    allowed: &["ops"],
    forbidden_crates: &[],
};

fn violations(text: &str, depth: usize) -> Vec<String> {
    OPS.violations(text, depth)
}

#[test]
fn the_op_table_names_no_stage_that_uses_it() {
    // This file names the forbidden paths in its own tests.
    let bad = OPS.breaches("ops/layering.rs", 3);
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
