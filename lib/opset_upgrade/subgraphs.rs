//! If, Loop and Scan carry their bodies as graph attributes. The nodes inside are
//! converted like the main graph's, with the same names, and their new initializers go
//! to the main graph, which a body may read (outer scope). The facts know nothing of a
//! body's own values, so a conversion there that needs a rank takes its general form,
//! and one that needs an element type refuses.
//!
//! If and Loop only gained types between opsets 11 and 18. Loop-1 and If-1 (before 11)
//! differ from 11 in documentation only; Scan-8 had a batch axis that Scan-9 dropped,
//! so it is refused.

use anyhow::Result;

use super::edit::{At, Edit};
use super::{Report, convert_nodes};
use crate::onnx::attributes::kind;
use crate::onnx::proto::attribute_proto::AttributeType;
use crate::onnx::proto::{GraphProto, NodeProto};

pub fn has_subgraph(node: &NodeProto) -> bool {
    node.attribute
        .iter()
        .any(|a| matches!(kind(a), AttributeType::Graph | AttributeType::Graphs))
}

pub fn convert(edit: &mut Edit, at: &At, report: &mut Report) -> Result<Option<Vec<NodeProto>>> {
    let op = at.node.op_type.as_str();
    match op {
        "If" | "Loop" => {}
        "Scan" if edit.source >= 9 => {}
        "Scan" => {
            return Err(
                at.fail("Scan-8's batch axis and sequence_lens have no equivalent from opset 9 on")
            );
        }
        _ => {
            return Err(at.fail(format!(
                "the opset converter does not know how {op} (with a subgraph) changed from \
                 opset {} to {}",
                edit.source, edit.target
            )));
        }
    }
    let mut node = at.node.clone();
    let mut changed = false;
    let within = format!(" in a body of {}", at.label);
    for attribute in node.attribute.iter_mut() {
        let graphs = attribute.g.iter_mut().chain(attribute.graphs.iter_mut());
        for graph in graphs {
            let nodes = std::mem::take(&mut graph.node);
            let (nodes, body_changed) = convert_nodes(edit, nodes, &within, report)?;
            graph.node = nodes;
            changed |= body_changed;
        }
    }
    Ok(changed.then(|| vec![node]))
}

/// Reserves every name used inside the bodies of `nodes` (at any depth), so new names
/// clash with none, and records what the bodies read.
pub fn reserve_names(nodes: &[NodeProto], edit: &mut Edit) {
    for node in nodes {
        for attribute in &node.attribute {
            for graph in attribute.g.iter().chain(&attribute.graphs) {
                reserve_graph(graph, edit);
            }
        }
    }
}

fn reserve_graph(graph: &GraphProto, edit: &mut Edit) {
    let values = graph
        .input
        .iter()
        .chain(&graph.output)
        .chain(&graph.value_info);
    for v in values {
        edit.names.reserve(&v.name);
    }
    for o in &graph.output {
        edit.read.insert(o.name.clone());
    }
    for t in &graph.initializer {
        edit.names.reserve(&t.name);
    }
    for n in &graph.node {
        for name in n.input.iter().chain(&n.output) {
            edit.names.reserve(name);
        }
        edit.names.reserve(&n.name);
        edit.read.extend(n.input.iter().cloned());
    }
    reserve_names(&graph.node, edit);
}
