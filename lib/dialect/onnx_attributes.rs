//! The ONNX attributes of an import-form op (`torch.operator "onnx.X"`), which the
//! importer spells `torch.onnx.<name>`, read through the same `Attributes` getters
//! as a `NodeProto`'s.

use melior::ir::Attribute;
use melior::ir::attribute::{
    ArrayAttribute, DenseElementsAttribute, FloatAttribute, IntegerAttribute, StringAttribute,
};
use melior::ir::operation::{OperationLike, OperationRef};

use crate::onnx::attributes::{AttributeValue, Attributes};

/// The `torch.onnx.*` attributes of one op.
#[derive(Clone, Copy)]
pub struct OperatorAttributes<'c, 'a>(pub OperationRef<'c, 'a>);

impl OperatorAttributes<'_, '_> {
    /// The attribute `torch.onnx.<name>`; its value borrows nothing from the op.
    pub fn read(&self, name: &str) -> Option<AttributeValue<'static>> {
        let a = self.0.attribute(&format!("torch.onnx.{name}")).ok()?;
        Some(classify(a))
    }
}

impl Attributes for OperatorAttributes<'_, '_> {
    fn value(&self, name: &str) -> Option<AttributeValue<'_>> {
        self.read(name)
    }
}

fn classify(a: Attribute<'_>) -> AttributeValue<'static> {
    if let Ok(i) = IntegerAttribute::try_from(a) {
        AttributeValue::Int(i.value())
    } else if let Ok(f) = FloatAttribute::try_from(a) {
        AttributeValue::Float(f.value())
    } else if let Ok(s) = StringAttribute::try_from(a) {
        AttributeValue::String(s.value().as_bytes().to_vec())
    } else if DenseElementsAttribute::try_from(a).is_ok() {
        AttributeValue::Dense
    } else if let Ok(array) = ArrayAttribute::try_from(a) {
        list(array)
    } else {
        AttributeValue::Other("an attribute of another kind")
    }
}

/// An array as INTS or FLOATS when every element is one kind; the importer writes
/// lists of strings and tensors as arrays too.
fn list(array: ArrayAttribute<'_>) -> AttributeValue<'static> {
    if array.is_empty() {
        return AttributeValue::EmptyList;
    }
    let elements: Option<Vec<Attribute>> =
        (0..array.len()).map(|i| array.element(i).ok()).collect();
    let Some(elements) = elements else {
        return AttributeValue::Other("a list of unreadable elements");
    };
    let ints: Option<Vec<i64>> = elements
        .iter()
        .map(|e| IntegerAttribute::try_from(*e).ok().map(|i| i.value()))
        .collect();
    if let Some(ints) = ints {
        return AttributeValue::Ints(ints);
    }
    let floats: Option<Vec<f64>> = elements
        .iter()
        .map(|e| FloatAttribute::try_from(*e).ok().map(|f| f.value()))
        .collect();
    match floats {
        Some(floats) => AttributeValue::Floats(floats),
        None => AttributeValue::Other("a list of neither ints nor floats"),
    }
}
