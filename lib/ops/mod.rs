//! One home for each ONNX op: the table, keyed by (domain, op, since), that names each
//! op's lowering (in a `conversion/` family file) and its shape rule (in an
//! `import/shape_inference/` family file). Conversion, shape inference and folding all
//! look ops up here, so adding an op is one handler and one shape rule registered in
//! the one table.

pub mod opset;
pub mod registry;

use std::sync::OnceLock;

pub use registry::{Registry, split_op_name};

/// Every op qlower knows: its lowerings and its shape rules.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut r = Registry::default();
        crate::conversion::register(&mut r);
        crate::import::shape_inference::register(&mut r);
        r
    })
}

#[cfg(test)]
mod tests {
    /// A row registered twice for one stage would shadow the first silently.
    #[test]
    fn no_op_is_registered_twice_for_a_stage() {
        assert_eq!(super::registry().duplicates(), &[] as &[String]);
    }

    /// Conversion reads the result types shape inference gave at import, so an op
    /// qlower lowers needs a shape rule at every version it lowers.
    #[test]
    fn every_lowered_op_has_a_shape_rule() {
        let r = super::registry();
        let missing: Vec<String> = r
            .entries()
            .into_iter()
            .filter(|&(domain, op, since)| r.shape_rule(domain, op, since).is_none())
            .map(|(domain, op, since)| format!("{domain}:{op} since {since}"))
            .collect();
        assert!(
            missing.is_empty(),
            "lowered without a shape rule: {missing:?}"
        );
    }
}
