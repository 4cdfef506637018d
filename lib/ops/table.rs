//! A table of per-op rules for one stage, keyed like torch-mlir's `onOp`: by domain, op
//! type and the opset version a rule applies from. Conversion keeps its lowerings in
//! one, shape inference its shape rules in another; the pipeline builds both
//! (`op_tables`). For a model's opset, the rule with the highest version not above it
//! wins; an op whose opset is older than every rule has none.

use std::collections::HashMap;

/// One (domain, op, since) row.
struct Row<R> {
    domain: &'static str,
    op: &'static str,
    since: i64,
    rule: R,
}

pub struct OpTable<R> {
    rows: Vec<Row<R>>,
    /// Positions in `rows` of each op's rows, by domain and then op: inference and
    /// conversion look an op up for every node, in models of 100k nodes.
    index: HashMap<&'static str, HashMap<&'static str, Vec<usize>>>,
    /// Rows registered twice; a test keeps this empty, since the second registration
    /// would silently never run.
    duplicates: Vec<String>,
}

impl<R> Default for OpTable<R> {
    fn default() -> Self {
        OpTable {
            rows: Vec::new(),
            index: HashMap::new(),
            duplicates: Vec::new(),
        }
    }
}

impl<R> OpTable<R> {
    /// Adds `rule` for `op` of `domain` (`""` for ONNX's default domain) from opset
    /// `since`. A second rule at the same (domain, op, since) replaces the first and is
    /// recorded in `duplicates`.
    pub fn insert(&mut self, domain: &'static str, op: &'static str, since: i64, rule: R) {
        let at = self.index.entry(domain).or_default().entry(op).or_default();
        match at.iter().copied().find(|&i| self.rows[i].since == since) {
            Some(i) => {
                self.rows[i].rule = rule;
                self.duplicates.push(format!("{domain}:{op} since {since}"));
            }
            None => {
                at.push(self.rows.len());
                self.rows.push(Row {
                    domain,
                    op,
                    since,
                    rule,
                });
            }
        }
    }

    /// The rule for `op` of `domain` at opset `version`, with the version it applies
    /// from.
    pub fn get(&self, domain: &str, op: &str, version: i64) -> Option<(i64, &R)> {
        let at = self.index.get(domain)?.get(op)?;
        at.iter()
            .filter_map(|&i| self.rows.get(i))
            .filter(|row| row.since <= version)
            .max_by_key(|row| row.since)
            .map(|row| (row.since, &row.rule))
    }

    /// Every (domain, op, since) with a rule, sorted, for documentation and tests.
    pub fn entries(&self) -> Vec<(&'static str, &'static str, i64)> {
        let mut v: Vec<_> = self
            .rows
            .iter()
            .map(|row| (row.domain, row.op, row.since))
            .collect();
        v.sort();
        v
    }

    /// The (domain, op, since) rows registered twice, as `domain:op since N`.
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

    #[test]
    fn the_newest_rule_not_above_the_opset_wins() {
        let mut t = OpTable::default();
        t.insert("", "QuantizeLinear", 10, "q10");
        t.insert("", "QuantizeLinear", 19, "q19");
        let at = |v| {
            t.get("", "QuantizeLinear", v)
                .map(|(since, &rule)| (since, rule))
        };
        assert_eq!(at(9), None);
        assert_eq!(at(13), Some((10, "q10")));
        assert_eq!(at(21), Some((19, "q19")));
        assert!(t.get("com.microsoft", "QuantizeLinear", 21).is_none());
        assert!(t.get("", "DequantizeLinear", 21).is_none());
        assert_eq!(
            t.entries(),
            vec![("", "QuantizeLinear", 10), ("", "QuantizeLinear", 19)]
        );
    }

    #[test]
    fn a_second_rule_for_one_row_is_recorded() {
        let mut t = OpTable::default();
        t.insert("", "Softmax", 13, 1);
        t.insert("", "Softmax", 1, 2);
        assert!(t.duplicates().is_empty());
        t.insert("", "Softmax", 13, 3);
        assert_eq!(t.duplicates(), [":Softmax since 13"]);
        assert_eq!(t.get("", "Softmax", 13), Some((13, &3)));
        assert_eq!(t.entries().len(), 2);
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
