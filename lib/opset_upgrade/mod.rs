//! Raises a model's default-domain opset (from 7..12 to 13..=18) by rewriting every node
//! whose signature or meaning changed on the way, so that per-channel quantization
//! (DequantizeLinear's `axis`, opset 13) can be applied to older models.
//!
//! Each op family has its file; `convert_node` says which applies, and `subgraphs.rs`
//! takes the bodies of If, Loop and Scan. A node of an op this converter does not know
//! is refused with its name, never carried over unchanged on the hope that nothing
//! changed. Ops of other domains are left alone. The result is validated again, so it
//! has a fresh node order.

mod axes;
mod bounds;
mod compatible;
mod edit;
mod facts;
mod legacy;
mod resize;
mod slice_topk;
mod softmax;
mod subgraphs;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use anyhow::{Result, bail};

use crate::import::shape_inference::ShapeRules;
use crate::onnx::names::Names;
use crate::onnx::node_label;
use crate::onnx::proto::NodeProto;
use crate::onnx::validate::{ValidModel, canonical_domain, validate};
use edit::{At, Edit};
use facts::Facts;

/// The oldest default opset the converter reads.
pub const MIN_SOURCE: i64 = 7;
/// The opsets it can write: 13 (per-channel DequantizeLinear) up to the newest whose
/// changes it knows.
pub const MIN_TARGET: i64 = 13;
pub const MAX_TARGET: i64 = 18;

/// What an upgrade did: the opsets, and how many nodes of each op it rewrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub from: i64,
    pub to: i64,
    pub converted: BTreeMap<String, usize>,
}

impl Report {
    pub fn changed(&self) -> bool {
        self.from != self.to
    }
}

impl fmt::Display for Report {
    /// `11 → 13 (converted 3 Softmax, 2 Squeeze)`, or `(no node needed a change)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} → {} ", self.from, self.to)?;
        if self.converted.is_empty() {
            return write!(f, "(no node needed a change)");
        }
        let parts: Vec<String> = self
            .converted
            .iter()
            .map(|(op, n)| format!("{n} {op}"))
            .collect();
        write!(f, "(converted {})", parts.join(", "))
    }
}

/// Raises `model`'s default opset to `target`. A model already at `target` or newer
/// comes back unchanged, with a report whose `from` equals `to`. `shapes` (the
/// pipeline's, `crate::op_tables`) gives the ranks and constants the converters read.
pub fn upgrade(
    model: ValidModel,
    target: i64,
    shapes: &ShapeRules,
) -> Result<(ValidModel, Report)> {
    if !(MIN_TARGET..=MAX_TARGET).contains(&target) {
        bail!(
            "cannot convert to opset {target}: the converter writes opsets {MIN_TARGET} to \
             {MAX_TARGET}"
        );
    }
    let source = model.default_opset();
    if source >= target {
        return Ok((
            model,
            Report {
                from: source,
                to: source,
                ..Default::default()
            },
        ));
    }
    if source < MIN_SOURCE {
        bail!(
            "the model imports default opset {source}; the converter reads opsets \
             {MIN_SOURCE} and newer"
        );
    }
    let ValidModel {
        mut proto,
        dir,
        order,
        opsets,
        ..
    } = model;
    let Some(graph) = proto.graph.as_mut() else {
        bail!("model has no graph");
    };
    let names = Names::of(graph);
    let mut nodes = std::mem::take(&mut graph.node);
    let nodes: Vec<NodeProto> = order
        .iter()
        .filter_map(|&i| nodes.get_mut(i).map(std::mem::take))
        .collect();
    let facts = Facts::of(graph, &nodes, &opsets, dir.as_deref(), shapes);
    let read: HashSet<String> = nodes
        .iter()
        .flat_map(|n| n.input.iter().cloned())
        .chain(graph.output.iter().map(|o| o.name.clone()))
        .collect();
    let mut edit = Edit {
        names,
        facts,
        initializers: Vec::new(),
        source,
        target,
        read,
    };
    let mut report = Report {
        from: source,
        to: target,
        ..Default::default()
    };
    subgraphs::reserve_names(&nodes, &mut edit);
    graph.node = convert_nodes(&mut edit, nodes, "", &mut report)?.0;
    graph.initializer.append(&mut edit.initializers);
    for opset in proto.opset_import.iter_mut() {
        if canonical_domain(&opset.domain).is_empty() {
            opset.version = target;
        }
    }
    // Each opset comes with a minimum IR version (onnx/helper.py's table).
    let ir = if target >= 15 { 8 } else { 7 };
    proto.ir_version = proto.ir_version.max(ir);
    let model = validate(proto, dir)?;
    Ok((model, report))
}

/// `nodes` converted one by one (`within` names the node whose body they are, for
/// messages), counted in `report`; also says whether any changed.
fn convert_nodes(
    edit: &mut Edit,
    nodes: Vec<NodeProto>,
    within: &str,
    report: &mut Report,
) -> Result<(Vec<NodeProto>, bool)> {
    let mut converted = Vec::with_capacity(nodes.len());
    let mut changed = false;
    for (i, node) in nodes.into_iter().enumerate() {
        if !canonical_domain(&node.domain).is_empty() {
            converted.push(node);
            continue;
        }
        let label = format!("{}{within}", node_label(&node, i));
        let at = At {
            node: &node,
            label: &label,
        };
        let new = if subgraphs::has_subgraph(&node) {
            subgraphs::convert(edit, &at, report)?
        } else {
            convert_node(edit, &at)?
        };
        match new {
            Some(new) => {
                *report.converted.entry(node.op_type.clone()).or_default() += 1;
                converted.extend(new);
                changed = true;
            }
            None => converted.push(node),
        }
    }
    Ok((converted, changed))
}

/// The node(s) replacing `at.node` (which has no subgraph) at the target opset, or
/// `None` to keep it.
fn convert_node(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let (source, target) = (edit.source, edit.target);
    let op = at.node.op_type.as_str();
    match op {
        "Softmax" | "LogSoftmax" | "Hardmax" => softmax::convert(edit, at),
        "Squeeze" => axes::to_input(edit, at, "axes", 1, false),
        "Unsqueeze" => axes::to_input(edit, at, "axes", 1, true),
        "ReduceSum" => axes::to_input(edit, at, "axes", 1, false),
        _ if compatible::REDUCE_AXES_AT_18.contains(&op) => {
            if target >= 18 {
                axes::to_input(edit, at, "axes", 1, false)
            } else {
                Ok(None)
            }
        }
        "Split" => axes::split(edit, at),
        "Clip" if source < 11 => bounds::clip(edit, at),
        "Pad" if source < 11 => bounds::pad(edit, at),
        "Slice" if source < 10 => slice_topk::slice(edit, at),
        "TopK" if source < 10 => slice_topk::top_k(edit, at),
        "Clip" | "Pad" | "Slice" | "TopK" => Ok(None),
        "Upsample" => resize::upsample(edit, at),
        "Resize" if source < 11 => resize::resize_10(edit, at),
        "Scatter" => legacy::scatter(edit, at),
        "Dropout" => legacy::dropout(edit, at),
        "BatchNormalization" => legacy::batch_norm(edit, at),
        "RoiAlign" => legacy::roi_align(edit, at),
        _ if compatible::UNCHANGED.contains(&op) => Ok(None),
        _ => Err(at.fail(format!(
            "the opset converter does not know how {op} changed from opset {source} to \
             {target}, so it cannot convert this node"
        ))),
    }
}
