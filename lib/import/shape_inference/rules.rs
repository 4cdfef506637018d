//! Shape inference's op table: which rule infers each (domain, op, since). Each family
//! file fills it in its `register`; the pipeline builds it once (`crate::op_tables`)
//! and hands it to the import, folding and the opset converter, which call `infer`.

use super::ShapeRule;
use crate::ops::OpTable;

/// Every shape rule qlower has, by (domain, op, since).
#[derive(Default)]
pub struct ShapeRules(OpTable<ShapeRule>);

impl ShapeRules {
    /// Registers the shape rule `rule` for each of `ops` of the default domain from
    /// opset `since`.
    pub fn infer_ops(&mut self, ops: &[&'static str], since: i64, rule: ShapeRule) {
        self.infer_domain_ops("", ops, since, rule);
    }

    pub fn infer_domain_ops(
        &mut self,
        domain: &'static str,
        ops: &[&'static str],
        since: i64,
        rule: ShapeRule,
    ) {
        for &op in ops {
            self.0.insert(domain, op, since, rule);
        }
    }

    /// The shape rule of `op` of `domain` at `version`, with the version it applies from.
    pub fn rule(&self, domain: &str, op: &str, version: i64) -> Option<(i64, ShapeRule)> {
        self.0
            .get(domain, op, version)
            .map(|(since, &rule)| (since, rule))
    }

    /// Every (domain, op, since) with a shape rule, sorted.
    pub fn entries(&self) -> Vec<(&'static str, &'static str, i64)> {
        self.0.entries()
    }

    /// The rows registered twice (the second would silently never run).
    pub fn duplicates(&self) -> &[String] {
        self.0.duplicates()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Ctx, Inferred};
    use super::*;

    fn infer_nothing(_: &Ctx<'_>) -> anyhow::Result<Vec<Inferred>> {
        Ok(vec![])
    }

    #[test]
    fn a_rule_from_opset_1_serves_every_version_of_its_ops() {
        let mut r = ShapeRules::default();
        r.infer_ops(&["Softmax", "LogSoftmax"], 1, infer_nothing);
        r.infer_domain_ops("com.microsoft", &["QLinearSoftmax"], 1, infer_nothing);
        assert_eq!(r.rule("", "Softmax", 21).map(|s| s.0), Some(1));
        assert!(r.rule("", "QLinearSoftmax", 21).is_none());
        assert_eq!(r.entries().len(), 3);
        assert!(r.duplicates().is_empty());
        r.infer_ops(&["Softmax"], 1, infer_nothing);
        assert_eq!(r.duplicates(), [":Softmax since 1"]);
    }
}
