//! The table of lowering rules, keyed like torch-mlir's `onOp`: by domain, op type and
//! the opset version a rule applies from. The rule with the highest version not above
//! the model's opset wins; an op whose opset is older than every rule has none.

use anyhow::Result;
use melior::ir::Value;

use crate::conversion::binder::Binder;
use crate::dialect::builder::TorchBuilder;

/// Lowers one op: reads it through the binder, validates it, and only then builds its
/// replacement, returning one value per result of the op.
pub type Handler =
    for<'c, 'a> fn(&Binder<'c, 'a>, &TorchBuilder<'c, 'a>) -> Result<Vec<Value<'c, 'a>>>;

pub struct Rule {
    pub domain: &'static str,
    pub op: &'static str,
    pub since: i64,
    pub handler: Handler,
}

#[derive(Default)]
pub struct Registry {
    rules: Vec<Rule>,
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
        self.rules.push(Rule {
            domain,
            op,
            since,
            handler,
        });
    }

    /// The rule for `op` of `domain` at `version`.
    pub fn lookup(&self, domain: &str, op: &str, version: i64) -> Option<&Rule> {
        self.rules
            .iter()
            .filter(|r| r.domain == domain && r.op == op && r.since <= version)
            .max_by_key(|r| r.since)
    }

    /// Every (domain, op, since) with a rule, sorted, for documentation and tests.
    pub fn entries(&self) -> Vec<(&'static str, &'static str, i64)> {
        let mut v: Vec<_> = self
            .rules
            .iter()
            .map(|r| (r.domain, r.op, r.since))
            .collect();
        v.sort();
        v
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

    fn lower_nothing<'c, 'a>(
        _: &Binder<'c, 'a>,
        _: &TorchBuilder<'c, 'a>,
    ) -> Result<Vec<Value<'c, 'a>>> {
        Ok(vec![])
    }

    #[test]
    fn the_newest_rule_not_above_the_opset_wins() {
        let mut r = Registry::default();
        r.on_op("QuantizeLinear", 10, lower_nothing);
        r.on_op("QuantizeLinear", 19, lower_nothing);
        assert_eq!(r.lookup("", "QuantizeLinear", 9).map(|r| r.since), None);
        assert_eq!(
            r.lookup("", "QuantizeLinear", 13).map(|r| r.since),
            Some(10)
        );
        assert_eq!(
            r.lookup("", "QuantizeLinear", 21).map(|r| r.since),
            Some(19)
        );
        assert!(r.lookup("com.microsoft", "QuantizeLinear", 21).is_none());
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
