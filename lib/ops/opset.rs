//! The opset version an op is lowered at: the enclosing function's
//! `torch.onnx_meta.opset_version` for the default domain, or its entry in
//! `torch.onnx_meta.opset_versions` for another domain.

use melior::ir::attribute::{DictionaryAttribute, IntegerAttribute};
use melior::ir::operation::{OperationLike, OperationRef};

pub fn version_for(op: OperationRef<'_, '_>, domain: &str) -> i64 {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        if parent.name().as_string_ref().as_str() == Ok("func.func") {
            return read(parent, domain).unwrap_or(0);
        }
        current = parent.parent_operation();
    }
    0
}

fn read(func: OperationRef<'_, '_>, domain: &str) -> Option<i64> {
    if domain.is_empty() {
        let a = func.attribute("torch.onnx_meta.opset_version").ok()?;
        return IntegerAttribute::try_from(a).ok().map(|i| i.value());
    }
    let dict = func.attribute("torch.onnx_meta.opset_versions").ok()?;
    let dict = DictionaryAttribute::try_from(dict).ok()?;
    let v = dict.element_by_name(domain)?;
    IntegerAttribute::try_from(v).ok().map(|i| i.value())
}
