//! `--format qoperator`: the QDQ model the modes write, rewritten into ONNX Runtime's
//! QOperator form. Each group DequantizeLinear → op → QuantizeLinear whose parameters
//! the integer op can take becomes that op (QLinearConv, QLinearMatMul, com.microsoft
//! QGemm, QLinearAdd, ...); in dynamic mode DynamicQuantizeLinear → DequantizeLinear →
//! MatMul/Conv becomes MatMulInteger/ConvInteger scaled back to float; data-movement
//! ops whose input and output share parameters run on the integers. Anything else
//! stays float between its DequantizeLinear and QuantizeLinear, so calibration and
//! ranges are the QDQ form's, and a group that cannot convert is still a valid model.
//! One file per op family; `graph` is what they read.

mod data_movement;
mod elementwise;
mod graph;
mod integer;
mod linear;
mod pool;

use anyhow::{Context, Result};

use crate::onnx::proto::{AttributeProto, ModelProto, NodeProto, OperatorSetIdProto};
use graph::Rewrite;

/// What a rule puts in place of one op: its nodes, and the QuantizeLinear nodes of the
/// outputs it now writes itself.
pub struct Converted {
    pub nodes: Vec<NodeProto>,
    pub absorbed: Vec<usize>,
}

pub const MICROSOFT: &str = "com.microsoft";

/// Rewrites every group that a QOperator op can compute; the rest keeps its Q/DQ.
pub fn convert(mut model: ModelProto) -> Result<ModelProto> {
    let graph = model
        .graph
        .as_mut()
        .context("the quantized model has no graph")?;
    let mut r = Rewrite::of(graph);
    let mut contrib = false;
    let mut i = 0;
    while i < r.nodes.len() {
        let Some(node) = r.node(i).cloned() else {
            i += 1;
            continue;
        };
        let default_domain = node.domain.is_empty() || node.domain == "ai.onnx";
        let converted = if default_domain {
            rule(&mut r, &node)
        } else {
            None
        };
        match converted {
            Some(c) => {
                contrib |= c.nodes.iter().any(|n| n.domain == MICROSOFT);
                let k = c.nodes.len();
                r.replace(i, c.nodes, &c.absorbed);
                i += k;
            }
            None => i += 1,
        }
    }
    r.finish(graph);
    if contrib && !model.opset_import.iter().any(|o| o.domain == MICROSOFT) {
        model.opset_import.push(OperatorSetIdProto {
            domain: MICROSOFT.to_string(),
            version: 1,
        });
    }
    Ok(model)
}

fn rule(r: &mut Rewrite, node: &NodeProto) -> Option<Converted> {
    match node.op_type.as_str() {
        "Conv" => linear::conv(r, node).or_else(|| integer::conv(r, node)),
        "MatMul" => linear::matmul(r, node).or_else(|| integer::matmul(r, node)),
        "Gemm" => linear::gemm(r, node),
        "Add" | "Mul" | "Sigmoid" | "LeakyRelu" => elementwise::convert(r, node),
        "AveragePool" | "GlobalAveragePool" | "Concat" => pool::convert(r, node),
        op if data_movement::OPS.contains(&op) => data_movement::convert(r, node),
        _ => None,
    }
}

/// A node of `op` in `domain` named after `like`, with `like`'s attributes except
/// those in `drop`.
pub fn node_like(
    op: &str,
    domain: &str,
    like: &NodeProto,
    inputs: Vec<String>,
    outputs: Vec<String>,
    drop: &[&str],
) -> NodeProto {
    let attribute: Vec<AttributeProto> = like
        .attribute
        .iter()
        .filter(|a| !drop.contains(&a.name.as_str()))
        .cloned()
        .collect();
    NodeProto {
        op_type: op.to_string(),
        domain: domain.to_string(),
        name: format!("{}_{op}", like.name),
        input: inputs,
        output: outputs,
        attribute,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests;
