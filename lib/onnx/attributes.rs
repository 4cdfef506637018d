//! One way to read an ONNX node's attributes, whoever holds them: a `NodeProto` at
//! import, or a `torch.operator`'s `torch.onnx.<name>` attributes in conversion and
//! folding. A source only says what kind of value an attribute holds; the typed
//! getters, their defaults and their error messages are written once, here.

use anyhow::{Result, anyhow, bail};

use super::proto::attribute_proto::AttributeType;
use super::proto::{AttributeProto, NodeProto, TensorProto};

/// One attribute's value as a source sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum AttributeValue<'a> {
    Int(i64),
    /// ONNX floats are f32; they widen to f64 exactly.
    Float(f64),
    /// The raw bytes, which ONNX does not promise are UTF-8.
    String(Vec<u8>),
    Ints(Vec<i64>),
    Floats(Vec<f64>),
    /// An empty MLIR array, which no longer records whether it held ints or floats,
    /// so it reads as an empty list of either.
    EmptyList,
    /// An ONNX tensor attribute (`None`: typed TENSOR but holding none).
    Tensor(Option<&'a TensorProto>),
    /// A `torch.operator`'s dense elements, which only the conversion's `Binder`
    /// decodes (into MLIR attributes, not ONNX tensors).
    Dense,
    /// Any other kind, by its ONNX name (`GRAPH`, `STRINGS`, …).
    Other(&'static str),
}

impl AttributeValue<'_> {
    /// The ONNX name of the kind, for messages.
    fn kind_name(&self) -> &'static str {
        match self {
            AttributeValue::Int(_) => "INT",
            AttributeValue::Float(_) => "FLOAT",
            AttributeValue::String(_) => "STRING",
            AttributeValue::Ints(_) | AttributeValue::EmptyList => "INTS",
            AttributeValue::Floats(_) => "FLOATS",
            AttributeValue::Tensor(_) | AttributeValue::Dense => "TENSOR",
            AttributeValue::Other(kind) => kind,
        }
    }
}

fn wrong_kind(name: &str, got: &AttributeValue, want: &str) -> anyhow::Error {
    anyhow!("attribute '{name}' is {}, expected {want}", got.kind_name())
}

/// A node's attributes. Implementors answer `value`; the getters are shared. A missing
/// attribute takes the default (or is `None`); one of the wrong kind is an error naming it.
pub trait Attributes {
    /// The attribute called `name`, or `None` when the node does not carry it.
    fn value(&self, name: &str) -> Option<AttributeValue<'_>>;

    fn optional_int(&self, name: &str) -> Result<Option<i64>> {
        match self.value(name) {
            None => Ok(None),
            Some(AttributeValue::Int(i)) => Ok(Some(i)),
            Some(other) => Err(wrong_kind(name, &other, "INT")),
        }
    }

    fn int(&self, name: &str, default: i64) -> Result<i64> {
        Ok(self.optional_int(name)?.unwrap_or(default))
    }

    fn optional_float(&self, name: &str) -> Result<Option<f64>> {
        match self.value(name) {
            None => Ok(None),
            Some(AttributeValue::Float(f)) => Ok(Some(f)),
            Some(other) => Err(wrong_kind(name, &other, "FLOAT")),
        }
    }

    fn float(&self, name: &str, default: f64) -> Result<f64> {
        Ok(self.optional_float(name)?.unwrap_or(default))
    }

    fn optional_string(&self, name: &str) -> Result<Option<String>> {
        match self.value(name) {
            None => Ok(None),
            Some(AttributeValue::String(bytes)) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| anyhow!("attribute '{name}' is not valid UTF-8")),
            Some(other) => Err(wrong_kind(name, &other, "STRING")),
        }
    }

    fn string(&self, name: &str, default: &str) -> Result<String> {
        Ok(self
            .optional_string(name)?
            .unwrap_or_else(|| default.to_string()))
    }

    fn optional_ints(&self, name: &str) -> Result<Option<Vec<i64>>> {
        match self.value(name) {
            None => Ok(None),
            Some(AttributeValue::Ints(v)) => Ok(Some(v)),
            Some(AttributeValue::EmptyList) => Ok(Some(Vec::new())),
            Some(other) => Err(wrong_kind(name, &other, "INTS")),
        }
    }

    fn ints(&self, name: &str, default: &[i64]) -> Result<Vec<i64>> {
        Ok(self
            .optional_ints(name)?
            .unwrap_or_else(|| default.to_vec()))
    }

    fn optional_floats(&self, name: &str) -> Result<Option<Vec<f64>>> {
        match self.value(name) {
            None => Ok(None),
            Some(AttributeValue::Floats(v)) => Ok(Some(v)),
            Some(AttributeValue::EmptyList) => Ok(Some(Vec::new())),
            Some(other) => Err(wrong_kind(name, &other, "FLOATS")),
        }
    }

    /// A tensor attribute in ONNX form. A source that holds the tensor in another form
    /// (a `torch.operator`'s dense elements) refuses, so that a caller never mistakes
    /// the tensor for an absent attribute.
    fn onnx_tensor(&self, name: &str) -> Result<Option<&TensorProto>> {
        match self.value(name) {
            None => Ok(None),
            Some(AttributeValue::Tensor(Some(t))) => Ok(Some(t)),
            Some(AttributeValue::Tensor(None)) => bail!("attribute '{name}' holds no tensor"),
            Some(AttributeValue::Dense) => {
                bail!("attribute '{name}' is a tensor that is not in ONNX form here")
            }
            Some(other) => Err(wrong_kind(name, &other, "TENSOR")),
        }
    }
}

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

impl Attributes for NodeProto {
    fn value(&self, name: &str) -> Option<AttributeValue<'_>> {
        let a = find(self, name)?;
        Some(match kind(a) {
            AttributeType::Int => AttributeValue::Int(a.i),
            AttributeType::Float => AttributeValue::Float(f64::from(a.f)),
            AttributeType::String => AttributeValue::String(a.s.to_vec()),
            AttributeType::Ints => AttributeValue::Ints(a.ints.clone()),
            AttributeType::Floats => {
                AttributeValue::Floats(a.floats.iter().copied().map(f64::from).collect())
            }
            AttributeType::Tensor => AttributeValue::Tensor(a.t.as_ref()),
            other => AttributeValue::Other(other.as_str_name()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(attribute: Vec<AttributeProto>) -> NodeProto {
        NodeProto {
            attribute,
            ..Default::default()
        }
    }

    fn attr(name: &str, r#type: AttributeType) -> AttributeProto {
        AttributeProto {
            name: name.to_string(),
            r#type: r#type as i32,
            ..Default::default()
        }
    }

    #[test]
    fn getters_take_defaults_and_name_wrong_kinds() {
        let mut strides = attr("strides", AttributeType::Ints);
        strides.ints = vec![2, 2];
        let mut alpha = attr("alpha", AttributeType::Float);
        alpha.f = 0.5;
        let n = node(vec![strides, alpha]);
        assert_eq!(n.ints("strides", &[1]).unwrap(), vec![2, 2]);
        assert_eq!(n.ints("dilations", &[1, 1]).unwrap(), vec![1, 1]);
        assert_eq!(n.float("alpha", 1.0).unwrap(), 0.5);
        assert_eq!(n.int("group", 1).unwrap(), 1);
        assert_eq!(
            n.optional_int("alpha").unwrap_err().to_string(),
            "attribute 'alpha' is FLOAT, expected INT"
        );
        assert_eq!(
            n.optional_floats("strides").unwrap_err().to_string(),
            "attribute 'strides' is INTS, expected FLOATS"
        );
    }

    #[test]
    fn untyped_attributes_are_read_by_their_payload() {
        let mut a = attr("mode", AttributeType::Undefined);
        a.s = b"linear".to_vec().into();
        let n = node(vec![a]);
        assert_eq!(n.string("mode", "nearest").unwrap(), "linear");
    }

    #[test]
    fn a_tensor_without_onnx_form_is_refused_not_absent() {
        struct Dense;
        impl Attributes for Dense {
            fn value(&self, _: &str) -> Option<AttributeValue<'_>> {
                Some(AttributeValue::Dense)
            }
        }
        assert!(Dense.onnx_tensor("value").is_err());
        assert!(node(vec![]).onnx_tensor("value").unwrap().is_none());
    }
}
