//! One home for each ONNX op: the table, keyed by (domain, op, since), that names each
//! op's lowering (in a `conversion/` family file) and its shape rule (in an
//! `import/shape_inference/` family file). Conversion, shape inference and folding all
//! look ops up here, and all read the op's attributes through `onnx::attributes`.
//!
//! Adding an op:
//! 1. its lowering: a handler in the `conversion/` file of its family, reading the op
//!    through the `Binder`, registered there with `r.on_op("Op", since, handler)`
//!    (`on_domain_op` for another domain);
//! 2. its shape rule: a function of `Ctx` in the `import/shape_inference/` file of its
//!    family, registered there with `r.infer_ops(&["Op"], 1, rule)`; window ops use
//!    `onnx::window` for their geometry;
//! 3. tests: `test/Conversion/OnnxToTorch/<A-F|G-P|Q-Z|Microsoft>/op.mlir` and
//!    `op_diagnostics.mlir`, and the shape rule's unit tests beside it.
//!
//! A test here refuses an op that has a lowering but no shape rule.

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
