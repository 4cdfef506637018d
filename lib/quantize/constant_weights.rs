//! Weights that a model stores in Constant nodes instead of initializers (PaddlePaddle's
//! exports do: PP-OCR's classifier has 308 Constant nodes and no initializer). The
//! quantizer reads and replaces weights as initializers, so each Constant that feeds the
//! weight or bias of a Conv, MatMul or Gemm becomes the initializer of the same name,
//! which means the same thing: a constant tensor.

use std::collections::HashSet;

use super::WEIGHT_OPS;
use crate::onnx::proto::GraphProto;

/// Moves into `graph.initializer` every Constant node (default domain, a `value` tensor
/// attribute and nothing else) whose output is input 1 or 2 of a weight op and not a
/// graph output. Returns how many it moved.
pub fn lift(graph: &mut GraphProto) -> usize {
    let weights: HashSet<String> = graph
        .node
        .iter()
        .filter(|n| {
            (n.domain.is_empty() || n.domain == "ai.onnx")
                && WEIGHT_OPS.contains(&n.op_type.as_str())
        })
        .flat_map(|n| n.input.iter().skip(1).take(2).cloned())
        .filter(|name| !name.is_empty())
        .collect();
    let outputs: HashSet<&str> = graph.output.iter().map(|v| v.name.as_str()).collect();
    let mut lifted = Vec::new();
    let mut kept = Vec::with_capacity(graph.node.len());
    for node in std::mem::take(&mut graph.node) {
        let liftable = node.op_type == "Constant"
            && (node.domain.is_empty() || node.domain == "ai.onnx")
            && node.output.len() == 1
            && weights.contains(&node.output[0])
            && !outputs.contains(node.output[0].as_str())
            && node.attribute.len() == 1
            && node.attribute[0].name == "value"
            && node.attribute[0].t.is_some();
        match (liftable, node.attribute.first().and_then(|a| a.t.clone())) {
            (true, Some(mut tensor)) => {
                tensor.name = node.output[0].clone();
                lifted.push(tensor);
            }
            _ => kept.push(node),
        }
    }
    graph.node = kept;
    let count = lifted.len();
    graph.initializer.extend(lifted);
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::proto::{AttributeProto, NodeProto, TensorProto, ValueInfoProto};
    use crate::quantize::graph_edit::{f32_tensor, node};

    fn constant(output: &str, value: TensorProto) -> NodeProto {
        let mut n = node("Constant", output, &[], &[output]);
        n.attribute.push(AttributeProto {
            name: "value".into(),
            r#type: 4,
            t: Some(value),
            ..Default::default()
        });
        n
    }

    #[test]
    fn lifts_the_weight_and_bias_of_a_conv_only() {
        let mut graph = GraphProto {
            node: vec![
                constant("w", f32_tensor("", &[1, 1, 1, 1], &[2.0])),
                constant("b", f32_tensor("", &[1], &[0.5])),
                constant("shape", f32_tensor("", &[1], &[1.0])),
                node("Conv", "conv", &["x", "w", "b"], &["y"]),
                node("Add", "add", &["y", "shape"], &["z"]),
            ],
            ..Default::default()
        };
        assert_eq!(lift(&mut graph), 2);
        let inits: Vec<&str> = graph.initializer.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(inits, ["w", "b"]);
        assert_eq!(graph.initializer[0].raw_data.as_ref(), 2.0f32.to_le_bytes());
        let ops: Vec<&str> = graph.node.iter().map(|n| n.op_type.as_str()).collect();
        assert_eq!(ops, ["Constant", "Conv", "Add"]);
    }

    #[test]
    fn keeps_a_constant_that_is_a_graph_output() {
        let mut graph = GraphProto {
            node: vec![
                constant("w", f32_tensor("", &[1, 1], &[2.0])),
                node("MatMul", "mm", &["x", "w"], &["y"]),
            ],
            output: vec![ValueInfoProto {
                name: "w".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(lift(&mut graph), 0);
        assert_eq!(graph.node.len(), 2);
    }
}
