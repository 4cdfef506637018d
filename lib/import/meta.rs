//! The `torch.onnx_meta.*` attributes a graph's function carries, as torch-mlir names them.

use melior::Context;
use melior::ir::attribute::{DictionaryAttribute, IntegerAttribute, StringAttribute};
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Identifier, Type};

use crate::onnx::validate::ValidModel;

pub fn function_attributes<'c>(
    context: &'c Context,
    model: &ValidModel,
) -> Vec<(Identifier<'c>, Attribute<'c>)> {
    let si64: Type = IntegerType::signed(context, 64).into();
    let int = |v: i64| -> Attribute<'c> { IntegerAttribute::new(si64, v).into() };
    let string = |s: &str| -> Attribute<'c> { StringAttribute::new(context, s).into() };
    let id = |name: &str| Identifier::new(context, &format!("torch.onnx_meta.{name}"));
    let p = &model.proto;
    let mut attrs = vec![
        (id("ir_version"), int(p.ir_version)),
        (id("opset_version"), int(model.default_opset())),
        (id("producer_name"), string(&p.producer_name)),
        (id("producer_version"), string(&p.producer_version)),
    ];
    let mut others: Vec<(&String, &i64)> =
        model.opsets.iter().filter(|(d, _)| !d.is_empty()).collect();
    if !others.is_empty() {
        others.sort();
        let entries: Vec<(Identifier, Attribute)> = others
            .into_iter()
            .map(|(d, &v)| (Identifier::new(context, d), int(v)))
            .collect();
        attrs.push((
            id("opset_versions"),
            DictionaryAttribute::new(context, &entries).into(),
        ));
    }
    attrs
}
