//! ONNX node attributes as `torch.onnx.<name>` MLIR attributes, the way torch-mlir's
//! importer spells them: ints as `si64`, floats as `f32`, tensors as dense elements.

use std::path::Path;

use anyhow::{Context as _, Result, bail};
use melior::Context;
use melior::ir::attribute::{ArrayAttribute, FloatAttribute, IntegerAttribute, StringAttribute};
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Identifier, Type};

use crate::dialect::ops::dense_attribute;
use crate::onnx::attributes::kind;
use crate::onnx::proto::AttributeProto;
use crate::onnx::proto::attribute_proto::AttributeType;
use crate::onnx::tensor;

pub fn import_attribute<'c>(
    context: &'c Context,
    a: &AttributeProto,
    model_dir: Option<&Path>,
) -> Result<(Identifier<'c>, Attribute<'c>)> {
    let value = attribute_value(context, a, model_dir)
        .with_context(|| format!("attribute '{}'", a.name))?;
    Ok((
        Identifier::new(context, &format!("torch.onnx.{}", a.name)),
        value,
    ))
}

fn attribute_value<'c>(
    context: &'c Context,
    a: &AttributeProto,
    model_dir: Option<&Path>,
) -> Result<Attribute<'c>> {
    if !a.ref_attr_name.is_empty() {
        bail!(
            "refers to function attribute '{}', which only functions may do",
            a.ref_attr_name
        );
    }
    let si64: Type = IntegerType::signed(context, 64).into();
    let f32 = Type::float32(context);
    let int = |v: i64| -> Attribute<'c> { IntegerAttribute::new(si64, v).into() };
    let float = |v: f32| -> Attribute<'c> { FloatAttribute::new(context, f32, v as f64).into() };
    let string = |b: &[u8]| -> Result<Attribute<'c>> {
        let s = std::str::from_utf8(b).context("string is not valid UTF-8")?;
        Ok(StringAttribute::new(context, s).into())
    };
    let dense =
        |t| -> Result<Attribute<'c>> { dense_attribute(context, &tensor::decode(t, model_dir)?) };
    Ok(match kind(a) {
        AttributeType::Float => float(a.f),
        AttributeType::Int => int(a.i),
        AttributeType::String => string(&a.s)?,
        AttributeType::Tensor => dense(a.t.as_ref().context("holds no tensor")?)?,
        AttributeType::Floats => array(context, a.floats.iter().map(|&v| Ok(float(v))))?,
        AttributeType::Ints => array(context, a.ints.iter().map(|&v| Ok(int(v))))?,
        AttributeType::Strings => array(context, a.strings.iter().map(|s| string(s)))?,
        AttributeType::Tensors => array(context, a.tensors.iter().map(dense))?,
        AttributeType::Graph | AttributeType::Graphs => {
            bail!(
                "holds a subgraph; control flow with subgraphs is supported for If, not for Loop or Scan"
            )
        }
        AttributeType::SparseTensor | AttributeType::SparseTensors => {
            bail!("holds a sparse tensor, which is not supported")
        }
        AttributeType::TypeProto | AttributeType::TypeProtos => {
            bail!("holds a type, which is not supported")
        }
        AttributeType::Undefined => bail!("has no type"),
    })
}

fn array<'c>(
    context: &'c Context,
    values: impl Iterator<Item = Result<Attribute<'c>>>,
) -> Result<Attribute<'c>> {
    let values = values.collect::<Result<Vec<_>>>()?;
    Ok(ArrayAttribute::new(context, &values).into())
}
