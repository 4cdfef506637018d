//! Ops that average or join their inputs, with com.microsoft QLinear forms:
//! AveragePool, GlobalAveragePool (channels first) and Concat (each input with its own
//! parameters, requantized to the output's).

use super::graph::Rewrite;
use super::linear::only_output;
use super::{Converted, MICROSOFT, node_like};
use crate::onnx::proto::NodeProto;
use crate::quantize::graph_edit;

pub fn convert(r: &mut Rewrite, node: &NodeProto) -> Option<Converted> {
    let y = r.q_of(only_output(node)?)?;
    let xs = node
        .input
        .iter()
        .map(|x| r.activation_dq(x))
        .collect::<Option<Vec<_>>>()?;
    if xs.is_empty() || xs.iter().any(|x| x.qtype != y.qtype) {
        return None;
    }
    let op = node.op_type.as_str();
    let mut inputs = Vec::new();
    if op == "Concat" {
        inputs.extend([y.scale.clone(), y.zero_point.clone()]);
        for x in xs {
            inputs.extend([x.q, x.scale, x.zero_point]);
        }
    } else {
        let [x] = xs.as_slice() else {
            return None;
        };
        inputs.extend([x.q.clone(), x.scale.clone(), x.zero_point.clone()]);
        inputs.extend([y.scale.clone(), y.zero_point.clone()]);
    }
    let mut converted = node_like(
        &format!("QLinear{op}"),
        MICROSOFT,
        node,
        inputs,
        vec![y.y],
        &[],
    );
    if op == "GlobalAveragePool" {
        converted
            .attribute
            .push(graph_edit::int_attribute("channels_last", 0));
    }
    Some(Converted {
        nodes: vec![converted],
        absorbed: vec![y.node],
    })
}
