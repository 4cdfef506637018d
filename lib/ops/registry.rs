//! The table of ONNX ops, keyed like torch-mlir's `onOp`: by domain, op type and the
//! opset version an entry applies from. Each entry names the op's lowering (conversion)
//! and its shape rule (shape inference at import, and folding), so both stages agree on
//! which ops exist at which opset. For each stage, the entry with the highest version
//! not above the model's opset that has a rule for that stage wins; an op whose opset
//! is older than every such entry has none.

use std::collections::HashMap;

use anyhow::Result;
use melior::ir::Value;

use crate::conversion::binder::Binder;
use crate::dialect::builder::TorchBuilder;
pub use crate::import::shape_inference::ShapeRule;

/// Lowers one op: reads it through the binder, validates it, and only then builds its
/// replacement, returning one value per result of the op.
pub type Handler =
    for<'c, 'a> fn(&Binder<'c, 'a>, &TorchBuilder<'c, 'a>) -> Result<Vec<Value<'c, 'a>>>;

/// One (domain, op, since) row: what each stage does with the op from opset `since`.
pub struct Rule {
    pub domain: &'static str,
    pub op: &'static str,
    pub since: i64,
    /// The lowering to torch ops, when qlower converts the op at this version.
    pub handler: Option<Handler>,
    /// The shape and type rule, when qlower infers the op's outputs at this version.
    pub shape: Option<ShapeRule>,
}

#[derive(Default)]
pub struct Registry {
    rules: Vec<Rule>,
    /// Positions in `rules` of each op's rows, by domain and then op: inference and
    /// conversion look an op up for every node, in models of 100k nodes.
    index: HashMap<&'static str, HashMap<&'static str, Vec<usize>>>,
    /// Rows registered twice for the same stage; a test keeps this empty, since the
    /// second registration would silently never run.
    duplicates: Vec<String>,
}

impl Registry {
    /// Registers `handler` for `op` of the default domain from opset `since`.
    pub fn on_op(&mut self, op: &'static str, since: i64, handler: Handler) {
        self.on_domain_op("", op, since, handler);
    }

    pub fn on_domain_op(
        &mut self,
        domain: &'static str,
        op: &'static str,
        since: i64,
        handler: Handler,
    ) {
        let row = self.row(domain, op, since);
        if row.handler.replace(handler).is_some() {
            self.duplicates
                .push(format!("lowering of {domain}:{op} since {since}"));
        }
    }

    /// Registers the shape rule `shape` for each of `ops` of the default domain from
    /// opset `since`.
    pub fn infer_ops(&mut self, ops: &[&'static str], since: i64, shape: ShapeRule) {
        self.infer_domain_ops("", ops, since, shape);
    }

    pub fn infer_domain_ops(
        &mut self,
        domain: &'static str,
        ops: &[&'static str],
        since: i64,
        shape: ShapeRule,
    ) {
        for &op in ops {
            let row = self.row(domain, op, since);
            if row.shape.replace(shape).is_some() {
                self.duplicates
                    .push(format!("shape rule of {domain}:{op} since {since}"));
            }
        }
    }

    fn row(&mut self, domain: &'static str, op: &'static str, since: i64) -> &mut Rule {
        let rows = self.index.entry(domain).or_default().entry(op).or_default();
        let at = match rows.iter().copied().find(|&i| self.rules[i].since == since) {
            Some(at) => at,
            None => {
                rows.push(self.rules.len());
                self.rules.push(Rule {
                    domain,
                    op,
                    since,
                    handler: None,
                    shape: None,
                });
                self.rules.len() - 1
            }
        };
        &mut self.rules[at]
    }

    /// The newest row for `op` of `domain` at `version` that `has` a rule for a stage.
    fn newest(
        &self,
        domain: &str,
        op: &str,
        version: i64,
        has: fn(&Rule) -> bool,
    ) -> Option<&Rule> {
        let rows = self.index.get(domain)?.get(op)?;
        rows.iter()
            .filter_map(|&i| self.rules.get(i))
            .filter(|r| r.since <= version && has(r))
            .max_by_key(|r| r.since)
    }

    /// The lowering of `op` of `domain` at `version`, with the version it applies from.
    pub fn lowering(&self, domain: &str, op: &str, version: i64) -> Option<(i64, Handler)> {
        let row = self.newest(domain, op, version, |r| r.handler.is_some())?;
        Some((row.since, row.handler?))
    }

    /// The shape rule of `op` of `domain` at `version`, with the version it applies from.
    pub fn shape_rule(&self, domain: &str, op: &str, version: i64) -> Option<(i64, ShapeRule)> {
        let row = self.newest(domain, op, version, |r| r.shape.is_some())?;
        Some((row.since, row.shape?))
    }

    /// Every (domain, op, since) with a lowering, sorted, for documentation and tests.
    pub fn entries(&self) -> Vec<(&'static str, &'static str, i64)> {
        let mut v: Vec<_> = self
            .rules
            .iter()
            .filter(|r| r.handler.is_some())
            .map(|r| (r.domain, r.op, r.since))
            .collect();
        v.sort();
        v
    }

    /// Every (domain, op) with a shape rule, sorted.
    pub fn shape_entries(&self) -> Vec<(&'static str, &'static str, i64)> {
        let mut v: Vec<_> = self
            .rules
            .iter()
            .filter(|r| r.shape.is_some())
            .map(|r| (r.domain, r.op, r.since))
            .collect();
        v.sort();
        v
    }

    /// Rows registered twice for one stage (see `duplicates`).
    pub fn duplicates(&self) -> &[String] {
        &self.duplicates
    }
}

/// Splits an import-form op name: `onnx.Conv` is `("", "Conv")`,
/// `com.microsoft.QLinearAdd` is `("com.microsoft", "QLinearAdd")`.
pub fn split_op_name(name: &str) -> (&str, &str) {
    match name.rsplit_once('.') {
        Some(("onnx", op)) => ("", op),
        Some((domain, op)) => (domain, op),
        None => ("", name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::shape_inference::{Ctx, Inferred};

    fn lower_nothing<'c, 'a>(
        _: &Binder<'c, 'a>,
        _: &TorchBuilder<'c, 'a>,
    ) -> Result<Vec<Value<'c, 'a>>> {
        Ok(vec![])
    }

    fn infer_nothing(_: &Ctx<'_>) -> Result<Vec<Inferred>> {
        Ok(vec![])
    }

    #[test]
    fn the_newest_rule_not_above_the_opset_wins() {
        let mut r = Registry::default();
        r.on_op("QuantizeLinear", 10, lower_nothing);
        r.on_op("QuantizeLinear", 19, lower_nothing);
        let since = |v| r.lowering("", "QuantizeLinear", v).map(|(since, _)| since);
        assert_eq!(since(9), None);
        assert_eq!(since(13), Some(10));
        assert_eq!(since(21), Some(19));
        assert!(r.lowering("com.microsoft", "QuantizeLinear", 21).is_none());
    }

    /// A shape rule from opset 1 serves every version, even where a newer row only
    /// changes the lowering.
    #[test]
    fn each_stage_finds_its_own_newest_row() {
        let mut r = Registry::default();
        r.infer_ops(&["Softmax"], 1, infer_nothing);
        r.on_op("Softmax", 13, lower_nothing);
        assert!(r.shape_rule("", "Softmax", 21).is_some());
        assert!(r.lowering("", "Softmax", 11).is_none());
        assert_eq!(r.entries(), vec![("", "Softmax", 13)]);
        assert_eq!(r.shape_entries(), vec![("", "Softmax", 1)]);
        assert!(r.duplicates().is_empty());
        r.infer_ops(&["Softmax"], 1, infer_nothing);
        assert_eq!(r.duplicates().len(), 1);
    }

    #[test]
    fn op_names_split_into_domain_and_type() {
        assert_eq!(split_op_name("onnx.Conv"), ("", "Conv"));
        assert_eq!(
            split_op_name("com.microsoft.QLinearAdd"),
            ("com.microsoft", "QLinearAdd")
        );
    }
}
