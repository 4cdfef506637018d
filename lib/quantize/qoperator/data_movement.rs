//! Ops that only move, pick or copy elements: on codes that share one scale and zero
//! point they give the codes of the float result, so when every output is quantized
//! with the input's parameters the op runs on the integers and the Q/DQ around it go.

use super::Converted;
use super::graph::Rewrite;
use crate::onnx::proto::NodeProto;

pub const OPS: &[&str] = &[
    "MaxPool",
    "Reshape",
    "Transpose",
    "Flatten",
    "Squeeze",
    "Unsqueeze",
    "Split",
    "Slice",
    "Gather",
    "Resize",
    "DepthToSpace",
    "SpaceToDepth",
];

pub fn convert(r: &mut Rewrite, node: &NodeProto) -> Option<Converted> {
    if node.op_type == "Resize" && !nearest(node) {
        return None; // interpolating modes compute new values
    }
    if node.op_type == "MaxPool" && node.output.len() != 1 {
        return None; // Indices are not codes
    }
    let x = r.activation_dq(node.input.first()?)?;
    let mut outputs = Vec::new();
    let mut absorbed = Vec::new();
    for o in &node.output {
        let q = r.q_of(o)?;
        if !r.same_params((&x.scale, &x.zero_point), (&q.scale, &q.zero_point)) {
            return None;
        }
        outputs.push(q.y);
        absorbed.push(q.node);
    }
    let mut moved = node.clone();
    moved.input[0] = x.q;
    moved.output = outputs;
    Some(Converted {
        nodes: vec![moved],
        absorbed,
    })
}

fn nearest(node: &NodeProto) -> bool {
    node.attribute
        .iter()
        .find(|a| a.name == "mode")
        .is_none_or(|a| a.s.as_ref() == b"nearest")
}
