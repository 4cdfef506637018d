//! Element-wise ops with com.microsoft QLinear forms: Add and Mul (broadcasting, each
//! input with its own parameters), Sigmoid and LeakyRelu (a lookup table in ORT). All
//! inputs and the output share one 8-bit type.

use super::graph::Rewrite;
use super::linear::only_output;
use super::{Converted, MICROSOFT, node_like};
use crate::onnx::proto::NodeProto;

pub fn convert(r: &mut Rewrite, node: &NodeProto) -> Option<Converted> {
    let arity = match node.op_type.as_str() {
        "Add" | "Mul" => 2,
        _ => 1,
    };
    if node.input.len() != arity {
        return None;
    }
    let xs = node
        .input
        .iter()
        .map(|x| r.activation_dq(x))
        .collect::<Option<Vec<_>>>()?;
    let y = r.q_of(only_output(node)?)?;
    if xs.iter().any(|x| x.qtype != y.qtype) {
        return None;
    }
    let mut inputs = Vec::new();
    for x in xs {
        inputs.extend([x.q, x.scale, x.zero_point]);
    }
    inputs.extend([y.scale, y.zero_point]);
    let op = format!("QLinear{}", node.op_type);
    Some(Converted {
        nodes: vec![node_like(&op, MICROSOFT, node, inputs, vec![y.y], &[])],
        absorbed: vec![y.node],
    })
}
