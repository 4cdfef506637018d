//! The conversion's op table: which handler lowers each (domain, op, since). Each
//! family file fills it in its `register`; the pipeline builds it once
//! (`crate::op_tables`) and hands it to `convert_onnx_to_torch`.

use anyhow::Result;
use melior::ir::Value;

use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::ops::OpTable;

/// Lowers one op: reads it through the binder, validates it, and only then builds its
/// replacement, returning one value per result of the op.
pub type Handler =
    for<'c, 'a> fn(&Binder<'c, 'a>, &TorchBuilder<'c, 'a>) -> Result<Vec<Value<'c, 'a>>>;

/// Every lowering qlower has, by (domain, op, since).
#[derive(Default)]
pub struct Lowerings(OpTable<Handler>);

impl Lowerings {
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
        self.0.insert(domain, op, since, handler);
    }

    /// The lowering of `op` of `domain` at `version`, with the version it applies from.
    pub fn lowering(&self, domain: &str, op: &str, version: i64) -> Option<(i64, Handler)> {
        self.0
            .get(domain, op, version)
            .map(|(since, &handler)| (since, handler))
    }

    /// Every (domain, op, since) with a lowering, sorted.
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
    use super::*;

    fn lower_nothing<'c, 'a>(
        _: &Binder<'c, 'a>,
        _: &TorchBuilder<'c, 'a>,
    ) -> Result<Vec<Value<'c, 'a>>> {
        Ok(vec![])
    }

    #[test]
    fn lowerings_are_found_by_domain_and_opset() {
        let mut r = Lowerings::default();
        r.on_op("QuantizeLinear", 10, lower_nothing);
        r.on_domain_op("com.microsoft", "QLinearAdd", 1, lower_nothing);
        assert_eq!(r.lowering("", "QuantizeLinear", 13).map(|l| l.0), Some(10));
        assert!(r.lowering("", "QuantizeLinear", 9).is_none());
        assert!(r.lowering("", "QLinearAdd", 1).is_none());
        assert_eq!(
            r.entries(),
            vec![
                ("", "QuantizeLinear", 10),
                ("com.microsoft", "QLinearAdd", 1)
            ]
        );
        r.on_op("QuantizeLinear", 10, lower_nothing);
        assert_eq!(r.duplicates(), [":QuantizeLinear since 10"]);
    }
}
