//! The op tables the pipeline hands to its stages: the conversion's lowerings and shape
//! inference's shape rules, each an `ops::OpTable` filled by its stage's family files.
//! They are built here, above the stages, so that `ops/` (the table and the opset
//! lookup) names none of the stages that use it.
//!
//! Built once per process and kept (`op_tables`): the rewrite patterns of conversion
//! and folding hold a table for as long as MLIR keeps them, and `qlower-opt`'s passes,
//! the opset converter and `quantize` run without a compile to build one in.

use std::sync::OnceLock;

use crate::conversion::{self, Lowerings};
use crate::import::shape_inference::{self, ShapeRules};

/// Every op qlower knows: how it lowers and how its outputs are typed.
pub struct OpTables {
    pub lowerings: Lowerings,
    pub shapes: ShapeRules,
}

impl OpTables {
    /// Both tables, filled by every family file of conversion and shape inference.
    pub fn build() -> OpTables {
        let mut lowerings = Lowerings::default();
        conversion::register(&mut lowerings);
        let mut shapes = ShapeRules::default();
        shape_inference::register(&mut shapes);
        OpTables { lowerings, shapes }
    }
}

/// The tables, built on first use.
pub fn op_tables() -> &'static OpTables {
    static TABLES: OnceLock<OpTables> = OnceLock::new();
    TABLES.get_or_init(OpTables::build)
}

#[cfg(test)]
mod tests {
    use super::op_tables;

    /// A row registered twice in one table would shadow the first silently.
    #[test]
    fn no_op_is_registered_twice_in_a_table() {
        let t = op_tables();
        assert_eq!(t.lowerings.duplicates(), &[] as &[String]);
        assert_eq!(t.shapes.duplicates(), &[] as &[String]);
    }

    /// Conversion reads the result types shape inference gave at import, so an op
    /// qlower lowers needs a shape rule at every version it lowers.
    #[test]
    fn every_lowered_op_has_a_shape_rule() {
        let t = op_tables();
        let missing: Vec<String> = t
            .lowerings
            .entries()
            .into_iter()
            .filter(|&(domain, op, since)| t.shapes.rule(domain, op, since).is_none())
            .map(|(domain, op, since)| format!("{domain}:{op} since {since}"))
            .collect();
        assert!(
            missing.is_empty(),
            "lowered without a shape rule: {missing:?}"
        );
    }
}
