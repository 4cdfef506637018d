//! Dynamic mode: weights stored quantized (see `targets`), and the float activation
//! that feeds each quantized MatMul, Gemm or Conv quantized at run time by
//! DynamicQuantizeLinear, then read through a DequantizeLinear (the QDQ form).

use std::collections::{HashMap, HashSet};

use anyhow::Result;

use super::graph_edit;
use super::targets::{self, Prepared};
use super::{Options, encode};
use crate::onnx::proto::{ModelProto, NodeProto};
use crate::onnx::validate::ValidModel;

pub fn quantize(model: ValidModel, options: &Options) -> Result<ModelProto> {
    let mut p = targets::prepare(model, options)?;
    let initializers: HashSet<String> = p
        .graph()
        .initializer
        .iter()
        .map(|t| t.name.clone())
        .collect();
    let weights: HashSet<String> = p.weights.keys().cloned().collect();
    let mut done: HashMap<String, String> = HashMap::new();
    let old = std::mem::take(&mut p.graph_mut().node);
    let mut nodes: Vec<NodeProto> = std::mem::take(&mut p.front);
    for (i, mut node) in old.into_iter().enumerate() {
        let activation = node.input.first().cloned().unwrap_or_default();
        let quantize_input = p.targets.contains(&i)
            && !activation.is_empty()
            && !initializers.contains(&activation)
            && !weights.contains(&activation);
        if quantize_input {
            let dq = match done.get(&activation) {
                Some(dq) => dq.clone(),
                None => {
                    let dq = dynamic_qdq(&mut p, &activation, &mut nodes);
                    done.insert(activation.clone(), dq.clone());
                    dq
                }
            };
            node.input[0] = dq;
        }
        nodes.push(node);
    }
    p.graph_mut().node = nodes;
    encode::finish(p.proto)
}

/// Appends `DynamicQuantizeLinear(x)` and its DequantizeLinear; returns the name of
/// the dequantized tensor.
fn dynamic_qdq(p: &mut Prepared, x: &str, nodes: &mut Vec<NodeProto>) -> String {
    let q = p.names.fresh(&format!("{x}_quantized"));
    let s = p.names.fresh(&format!("{x}_scale"));
    let z = p.names.fresh(&format!("{x}_zero_point"));
    let dq = p.names.fresh(&format!("{x}_dequantized"));
    let qn = p.names.fresh(&format!("{x}_DynamicQuantizeLinear"));
    let dqn = p.names.fresh(&format!("{x}_DequantizeLinear"));
    nodes.push(graph_edit::node(
        "DynamicQuantizeLinear",
        &qn,
        &[x],
        &[&q, &s, &z],
    ));
    nodes.push(graph_edit::node(
        "DequantizeLinear",
        &dqn,
        &[&q, &s, &z],
        &[&dq],
    ));
    dq
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::proto::{GraphProto, OperatorSetIdProto, ValueInfoProto};
    use crate::onnx::validate::validate;
    use crate::quantize::Mode;

    fn value(name: &str) -> ValueInfoProto {
        ValueInfoProto {
            name: name.into(),
            ..Default::default()
        }
    }

    /// y = x @ w, with `w` also a graph output and read by a Relu left in float.
    fn model() -> ValidModel {
        let w: Vec<f32> = (0..12).map(|i| i as f32 - 5.5).collect();
        let graph = GraphProto {
            name: "g".into(),
            node: vec![
                graph_edit::node("MatMul", "mm", &["x", "w"], &["y"]),
                graph_edit::node("Relu", "relu", &["w"], &["wr"]),
            ],
            initializer: vec![graph_edit::f32_tensor("w", &[4, 3], &w)],
            input: vec![value("x")],
            output: vec![value("y"), value("w"), value("wr")],
            ..Default::default()
        };
        let proto = ModelProto {
            ir_version: 10,
            opset_import: vec![OperatorSetIdProto {
                domain: String::new(),
                version: 17,
            }],
            graph: Some(graph),
            ..Default::default()
        };
        validate(proto, None).unwrap()
    }

    #[test]
    fn a_per_channel_weight_read_elsewhere_is_dequantized_once_with_its_axis() {
        let options = Options {
            per_channel: true,
            ..Options::with_defaults(Mode::Dynamic)
        };
        let out = quantize(model(), &options).unwrap();
        let graph = out.graph.unwrap();
        let dqs: Vec<&NodeProto> = graph
            .node
            .iter()
            .filter(|n| n.op_type == "DequantizeLinear" && n.output[0] == "w")
            .collect();
        assert_eq!(dqs.len(), 1);
        assert_eq!(graph_edit::get_int(dqs[0], "axis", -1), 1);
        assert!(graph.initializer.iter().all(|t| t.name != "w"));
        // MatMul, Relu and the graph output all read the one dequantized `w`.
        let readers = graph
            .node
            .iter()
            .filter(|n| n.input.iter().any(|i| i == "w"));
        assert_eq!(readers.count(), 2);
        assert!(
            graph
                .node
                .iter()
                .any(|n| n.op_type == "DynamicQuantizeLinear")
        );
    }
}
