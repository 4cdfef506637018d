//! Small edits of a `ModelProto`'s graph: reading a float initializer, adding
//! initializers and nodes, and fresh names that clash with nothing in the graph.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result};
use bytes::Bytes;

use crate::onnx::dtype::DType;
use crate::onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    attribute_proto,
};
use crate::onnx::tensor;

pub use crate::onnx::names::Names;

/// ONNX `TensorProto.DataType` codes used here.
pub const FLOAT: i32 = 1;
pub const INT32: i32 = 6;

/// A float initializer's elements and shape; `None` when `name` is not a float
/// initializer.
pub fn float_initializer(
    graph: &GraphProto,
    name: &str,
    dir: Option<&Path>,
) -> Result<Option<(Vec<f32>, Vec<usize>)>> {
    let Some(init) = graph.initializer.iter().find(|t| t.name == name) else {
        return Ok(None);
    };
    if init.data_type != FLOAT {
        return Ok(None);
    }
    let data = tensor::decode(init, dir).with_context(|| format!("initializer '{name}'"))?;
    if data.dtype != DType::F32 {
        return Ok(None);
    }
    let values = data
        .bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let dims = data.dims.iter().map(|&d| d.max(0) as usize).collect();
    Ok(Some((values, dims)))
}

/// A tensor stored as little-endian `raw_data`.
pub fn raw_tensor(name: &str, dims: &[usize], data_type: i32, raw: Vec<u8>) -> TensorProto {
    TensorProto {
        name: name.to_string(),
        dims: dims.iter().map(|&d| d as i64).collect(),
        data_type,
        raw_data: Bytes::from(raw),
        ..Default::default()
    }
}

pub fn f32_tensor(name: &str, dims: &[usize], values: &[f32]) -> TensorProto {
    let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    raw_tensor(name, dims, FLOAT, raw)
}

pub fn i32_tensor(name: &str, dims: &[usize], values: &[i32]) -> TensorProto {
    let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    raw_tensor(name, dims, INT32, raw)
}

/// 16-bit QuantizeLinear and DequantizeLinear came with opset 21; before it, ONNX
/// Runtime's quantizer writes them in the com.microsoft domain, whose ops take 16-bit
/// types at version 1. Moves the 16-bit ones there (the zero point's type says which)
/// when the model's opset is older, and imports the domain.
pub fn wide_qdq_domain(model: &mut ModelProto) {
    const WIDE: [i32; 2] = [4, 5]; // UINT16, INT16
    let opset = model
        .opset_import
        .iter()
        .find(|o| o.domain.is_empty() || o.domain == "ai.onnx")
        .map_or(1, |o| o.version);
    if opset >= 21 {
        return;
    }
    let Some(graph) = model.graph.as_mut() else {
        return;
    };
    let wide: HashSet<String> = graph
        .initializer
        .iter()
        .filter(|t| WIDE.contains(&t.data_type))
        .map(|t| t.name.clone())
        .collect();
    let mut moved = false;
    for n in graph.node.iter_mut() {
        let qdq = matches!(n.op_type.as_str(), "QuantizeLinear" | "DequantizeLinear");
        if qdq && n.domain.is_empty() && n.input.get(2).is_some_and(|z| wide.contains(z)) {
            n.domain = "com.microsoft".to_string();
            moved = true;
        }
    }
    if moved
        && !model
            .opset_import
            .iter()
            .any(|o| o.domain == "com.microsoft")
    {
        model.opset_import.push(OperatorSetIdProto {
            domain: "com.microsoft".to_string(),
            version: 1,
        });
    }
}

pub fn node(op: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: op.to_string(),
        name: name.to_string(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

pub fn int_attribute(name: &str, value: i64) -> AttributeProto {
    AttributeProto {
        name: name.to_string(),
        r#type: attribute_proto::AttributeType::Int as i32,
        i: value,
        ..Default::default()
    }
}

/// An integer attribute of `node`, or `default`.
pub fn get_int(node: &NodeProto, name: &str, default: i64) -> i64 {
    node.attribute
        .iter()
        .find(|a| a.name == name)
        .map_or(default, |a| a.i)
}

/// A float attribute of `node`, or `default`.
pub fn get_float(node: &NodeProto, name: &str, default: f32) -> f32 {
    node.attribute
        .iter()
        .find(|a| a.name == name)
        .map_or(default, |a| a.f)
}

/// Makes every consumer of `from` (node inputs only, not graph outputs) read `to`,
/// except the nodes whose index is in `skip`.
pub fn rewire(graph: &mut GraphProto, from: &str, to: &str, skip: &[usize]) {
    for (i, n) in graph.node.iter_mut().enumerate() {
        if skip.contains(&i) {
            continue;
        }
        for input in n.input.iter_mut().filter(|s| *s == from) {
            *input = to.to_string();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(opset: i64, zp_type: i32) -> ModelProto {
        let zp = TensorProto {
            name: "z".into(),
            data_type: zp_type,
            raw_data: vec![0, 0].into(),
            ..Default::default()
        };
        ModelProto {
            opset_import: vec![OperatorSetIdProto {
                domain: String::new(),
                version: opset,
            }],
            graph: Some(GraphProto {
                node: vec![
                    node("QuantizeLinear", "q", &["x", "s", "z"], &["xq"]),
                    node("DequantizeLinear", "dq", &["xq", "s", "z"], &["y"]),
                    node("Relu", "r", &["y"], &["o"]),
                ],
                initializer: vec![zp],
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn sixteen_bit_qdq_moves_to_com_microsoft_before_opset_21_only() {
        let mut m = model(17, 4);
        wide_qdq_domain(&mut m);
        let domains: Vec<&str> = m
            .graph
            .as_ref()
            .unwrap()
            .node
            .iter()
            .map(|n| n.domain.as_str())
            .collect();
        assert_eq!(domains, ["com.microsoft", "com.microsoft", ""]);
        assert!(
            m.opset_import
                .iter()
                .any(|o| o.domain == "com.microsoft" && o.version == 1)
        );
        for (opset, zp_type) in [(21, 4), (17, 2)] {
            let mut m = model(opset, zp_type);
            wide_qdq_domain(&mut m);
            assert!(m.graph.unwrap().node.iter().all(|n| n.domain.is_empty()));
            assert_eq!(m.opset_import.len(), 1);
        }
    }
}
