//! The state one conversion works with: fresh names, the initializers it adds, what
//! is known of each value, and small builders for the nodes and constants that the op
//! converters write. Every error names the node being converted.

use std::collections::HashSet;

use anyhow::{Result, anyhow, bail};
use bytes::Bytes;

use super::facts::Facts;
use crate::onnx::attributes::Attributes;
use crate::onnx::dtype::DType;
use crate::onnx::names::Names;
use crate::onnx::proto::attribute_proto::AttributeType;
use crate::onnx::proto::{AttributeProto, NodeProto, TensorProto};

pub struct Edit {
    pub names: Names,
    pub facts: Facts,
    /// Initializers added by conversions (axes, bounds, pads, scales).
    pub initializers: Vec<TensorProto>,
    /// The default-domain opset the model imports, and the one it is raised to.
    pub source: i64,
    pub target: i64,
    /// Values some node or the graph's outputs read.
    pub read: HashSet<String>,
}

/// One node being converted: the node and how messages name it.
pub struct At<'a> {
    pub node: &'a NodeProto,
    pub label: &'a str,
}

impl At<'_> {
    /// A node attribute through the shared reader, its error naming the node.
    pub fn read<T>(&self, get: impl FnOnce(&NodeProto) -> Result<T>) -> Result<T> {
        get(self.node).map_err(|e| anyhow!("{}: {e}", self.label))
    }

    pub fn int(&self, name: &str, default: i64) -> Result<i64> {
        self.read(|n| n.int(name, default))
    }

    pub fn optional_ints(&self, name: &str) -> Result<Option<Vec<i64>>> {
        self.read(|n| n.optional_ints(name))
    }

    pub fn string(&self, name: &str, default: &str) -> Result<String> {
        self.read(|n| n.string(name, default))
    }

    /// Input `i`, which the op requires.
    pub fn input(&self, i: usize) -> Result<&str> {
        match self.node.input.get(i).map(String::as_str) {
            Some(name) if !name.is_empty() => Ok(name),
            _ => bail!("{}: input {i} is missing", self.label),
        }
    }

    /// Output `i`, which the op requires.
    pub fn output(&self, i: usize) -> Result<&str> {
        match self.node.output.get(i).map(String::as_str) {
            Some(name) if !name.is_empty() => Ok(name),
            _ => bail!("{}: output {i} is missing", self.label),
        }
    }

    /// The node without the named attributes, everything else kept.
    pub fn without(&self, names: &[&str]) -> NodeProto {
        let mut node = self.node.clone();
        node.attribute.retain(|a| !names.contains(&a.name.as_str()));
        node
    }

    pub fn fail(&self, why: impl std::fmt::Display) -> anyhow::Error {
        anyhow!("{}: {why}", self.label)
    }
}

impl Edit {
    /// A new initializer holding `values` as int64 with shape `[len]` (`[]` when
    /// `scalar`), named after `base`.
    pub fn int64s(&mut self, base: &str, values: &[i64], scalar: bool) -> String {
        let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let dims = if scalar { vec![] } else { vec![values.len()] };
        self.add(base, &dims, DType::I64, raw)
    }

    /// A new 1-D float32 initializer.
    pub fn floats(&mut self, base: &str, values: &[f32]) -> String {
        let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.add(base, &[values.len()], DType::F32, raw)
    }

    /// A new float32 scalar initializer.
    pub fn floats_scalar(&mut self, base: &str, value: f32) -> String {
        self.add(base, &[], DType::F32, value.to_le_bytes().to_vec())
    }

    pub fn is_read(&self, name: &str) -> bool {
        self.read.contains(name)
    }

    /// A new scalar initializer of the float type `dtype` (Clip's bounds and Pad's value
    /// must have the data's type). `None` for other types.
    pub fn float_scalar(&mut self, base: &str, dtype: DType, value: f64) -> Option<String> {
        let raw = match dtype {
            DType::F32 => (value as f32).to_le_bytes().to_vec(),
            DType::F64 => value.to_le_bytes().to_vec(),
            DType::F16 => half::f16::from_f64(value).to_le_bytes().to_vec(),
            DType::BF16 => half::bf16::from_f64(value).to_le_bytes().to_vec(),
            _ => return None,
        };
        Some(self.add(base, &[], dtype, raw))
    }

    fn add(&mut self, base: &str, dims: &[usize], dtype: DType, raw: Vec<u8>) -> String {
        let name = self.names.fresh(base);
        self.initializers.push(TensorProto {
            name: name.clone(),
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type: dtype.to_onnx(),
            raw_data: Bytes::from(raw),
            ..Default::default()
        });
        name
    }

    /// A new default-domain node with a fresh name made from `base`; its inputs and
    /// outputs are the given names.
    pub fn node(
        &mut self,
        op: &str,
        base: &str,
        inputs: &[&str],
        outputs: &[&str],
        attributes: Vec<AttributeProto>,
    ) -> NodeProto {
        NodeProto {
            op_type: op.to_string(),
            name: self.names.fresh(base),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: outputs.iter().map(|s| s.to_string()).collect(),
            attribute: attributes,
            ..Default::default()
        }
    }
}

pub fn int_attribute(name: &str, value: i64) -> AttributeProto {
    AttributeProto {
        name: name.to_string(),
        r#type: AttributeType::Int as i32,
        i: value,
        ..Default::default()
    }
}

pub fn string_attribute(name: &str, value: &str) -> AttributeProto {
    AttributeProto {
        name: name.to_string(),
        r#type: AttributeType::String as i32,
        s: Bytes::from(value.as_bytes().to_vec()),
        ..Default::default()
    }
}

/// Sets (or replaces) an attribute of `node`.
pub fn set_attribute(node: &mut NodeProto, attribute: AttributeProto) {
    node.attribute.retain(|a| a.name != attribute.name);
    node.attribute.push(attribute);
}

/// Puts `name` at input position `i`, padding skipped optional inputs with "".
pub fn set_input(node: &mut NodeProto, i: usize, name: &str) {
    if node.input.len() <= i {
        node.input.resize(i + 1, String::new());
    }
    node.input[i] = name.to_string();
}
