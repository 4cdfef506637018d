//! Typed reads of a node's attributes. A missing attribute is `Ok(None)`; an attribute of
//! the wrong type is an error naming it.

use anyhow::{Result, bail};

use super::proto::attribute_proto::AttributeType;
use super::proto::{AttributeProto, NodeProto, TensorProto};

pub fn find<'a>(node: &'a NodeProto, name: &str) -> Option<&'a AttributeProto> {
    node.attribute.iter().find(|a| a.name == name)
}

/// The attribute's type; older writers leave `type` unset, so it is guessed from the payload.
pub fn kind(a: &AttributeProto) -> AttributeType {
    match AttributeType::try_from(a.r#type).unwrap_or(AttributeType::Undefined) {
        AttributeType::Undefined => guess_kind(a),
        k => k,
    }
}

fn guess_kind(a: &AttributeProto) -> AttributeType {
    if a.t.is_some() {
        AttributeType::Tensor
    } else if a.g.is_some() {
        AttributeType::Graph
    } else if !a.floats.is_empty() {
        AttributeType::Floats
    } else if !a.ints.is_empty() {
        AttributeType::Ints
    } else if !a.strings.is_empty() {
        AttributeType::Strings
    } else if !a.tensors.is_empty() {
        AttributeType::Tensors
    } else if !a.graphs.is_empty() {
        AttributeType::Graphs
    } else if !a.s.is_empty() {
        AttributeType::String
    } else if a.f != 0.0 {
        AttributeType::Float
    } else {
        AttributeType::Int
    }
}

fn expect(a: &AttributeProto, want: AttributeType) -> Result<()> {
    let got = kind(a);
    if got != want {
        bail!(
            "attribute '{}' is {}, expected {}",
            a.name,
            got.as_str_name(),
            want.as_str_name()
        );
    }
    Ok(())
}

pub fn int(node: &NodeProto, name: &str) -> Result<Option<i64>> {
    find(node, name)
        .map(|a| expect(a, AttributeType::Int).map(|_| a.i))
        .transpose()
}

pub fn float(node: &NodeProto, name: &str) -> Result<Option<f32>> {
    find(node, name)
        .map(|a| expect(a, AttributeType::Float).map(|_| a.f))
        .transpose()
}

pub fn ints(node: &NodeProto, name: &str) -> Result<Option<Vec<i64>>> {
    find(node, name)
        .map(|a| expect(a, AttributeType::Ints).map(|_| a.ints.clone()))
        .transpose()
}

pub fn floats(node: &NodeProto, name: &str) -> Result<Option<Vec<f32>>> {
    find(node, name)
        .map(|a| expect(a, AttributeType::Floats).map(|_| a.floats.clone()))
        .transpose()
}

pub fn string(node: &NodeProto, name: &str) -> Result<Option<String>> {
    find(node, name)
        .map(|a| {
            expect(a, AttributeType::String)?;
            String::from_utf8(a.s.to_vec())
                .map_err(|_| anyhow::anyhow!("attribute '{name}' is not valid UTF-8"))
        })
        .transpose()
}

pub fn tensor<'a>(node: &'a NodeProto, name: &str) -> Result<Option<&'a TensorProto>> {
    find(node, name)
        .map(|a| {
            expect(a, AttributeType::Tensor)?;
            a.t.as_ref()
                .ok_or_else(|| anyhow::anyhow!("attribute '{name}' holds no tensor"))
        })
        .transpose()
}
