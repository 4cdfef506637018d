//! If: the import types its results from its branches (`import/control_flow.rs`),
//! which a rule of one node cannot see; seen alone (an import-form op being folded,
//! the opset converter's facts), its results are unknown.

use anyhow::Result;

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;

/// Registers the shape rule of each op this file covers.
pub(super) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["If"], 1, unknown_results);
}

fn unknown_results(_: &Ctx) -> Result<Vec<Inferred>> {
    Ok(Vec::new())
}
