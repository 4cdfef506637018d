//! Dynamic mode's MatMul and Conv: the activation's DynamicQuantizeLinear codes and the
//! 8-bit weight go to MatMulInteger or ConvInteger, whose int32 result is cast to float
//! and multiplied by x_scale·w_scale (then the Conv bias added), as ONNX Runtime's
//! dynamic QOperator form does.

use super::graph::{Dq, FLOAT, Rewrite};
use super::linear::{constant_weight, only_output};
use super::{Converted, node_like};
use crate::onnx::proto::NodeProto;
use crate::quantize::graph_edit;

pub fn matmul(r: &mut Rewrite, node: &NodeProto) -> Option<Converted> {
    let x = runtime_dq(r, node.input.first()?)?;
    let w = constant_weight(r, node.input.get(1)?, 1)?;
    let rank = r.initializers.get(&w.q)?.dims.len();
    if w.channels > 1 && rank != 2 {
        return None;
    }
    let y = only_output(node)?.clone();
    let int = node_like(
        "MatMulInteger",
        "",
        node,
        vec![x.q.clone(), w.q.clone(), x.zero_point.clone(), w.zero_point],
        vec![r.fresh(&format!("{y}_int32"))],
        &[],
    );
    let scale = w.scale.clone();
    Some(Converted {
        nodes: scale_back(r, node, int, &x, &scale, None, &y),
        absorbed: vec![],
    })
}

/// ConvInteger takes one weight zero point, so a per-channel weight converts when its
/// zero points are all 0 (symmetric int8); its scales multiply per output channel.
pub fn conv(r: &mut Rewrite, node: &NodeProto) -> Option<Converted> {
    let x = runtime_dq(r, node.input.first()?)?;
    let w = constant_weight(r, node.input.get(1)?, 0)?;
    let bias = node.input.get(2).filter(|b| !b.is_empty()).cloned();
    if bias.as_ref().is_some_and(|b| r.producer_op(b).is_some()) {
        return None; // only a float initializer bias is added back as it is
    }
    if bias.as_ref().is_some_and(|b| {
        r.initializers
            .get(b)
            .is_none_or(|t| t.data_type != FLOAT || t.dims.len() != 1)
    }) {
        return None;
    }
    if w.channels > 1 && !r.all_zero(&w.zero_point) {
        return None;
    }
    let rank = r.initializers.get(&w.q)?.dims.len();
    let y = only_output(node)?.clone();
    // Per channel: scales shaped [C, 1, ...] to broadcast over the output's N, C, ....
    let channel_dims = |c: usize| {
        let mut d = vec![c];
        d.extend(std::iter::repeat_n(1, rank.saturating_sub(2)));
        d
    };
    let zero_point = if w.channels > 1 {
        let name = r.fresh(&format!("{}_scalar", w.zero_point));
        r.add_initializer(graph_edit::raw_tensor(&name, &[], w.qtype, vec![0]));
        name
    } else {
        w.zero_point.clone()
    };
    let scale = if w.channels > 1 {
        let values = r.f32s(&w.scale)?;
        let name = r.fresh(&format!("{}_per_channel", w.scale));
        r.add_initializer(graph_edit::f32_tensor(
            &name,
            &channel_dims(values.len()),
            &values,
        ));
        name
    } else {
        w.scale.clone()
    };
    let int = node_like(
        "ConvInteger",
        "",
        node,
        vec![x.q.clone(), w.q.clone(), x.zero_point.clone(), zero_point],
        vec![r.fresh(&format!("{y}_int32"))],
        &[],
    );
    let bias = match bias {
        Some(b) => {
            let c = r.initializers.get(&b)?.dims[0].max(0) as usize;
            let shape = r.fresh(&format!("{b}_shape"));
            let dims: Vec<i64> = channel_dims(c).iter().map(|&d| d as i64).collect();
            let raw = dims.iter().flat_map(|d| d.to_le_bytes()).collect();
            r.add_initializer(graph_edit::raw_tensor(&shape, &[dims.len()], 7, raw));
            Some((b, shape))
        }
        None => None,
    };
    Some(Converted {
        nodes: scale_back(r, node, int, &x, &scale, bias, &y),
        absorbed: vec![],
    })
}

/// The DequantizeLinear of a DynamicQuantizeLinear's codes.
fn runtime_dq(r: &Rewrite, name: &str) -> Option<Dq> {
    let x = r.dq(name, true)?;
    (r.producer_op(&x.q) == Some("DynamicQuantizeLinear")).then_some(x)
}

/// `int` then Cast to float, times x_scale·w_scale, plus the bias reshaped by `shape`.
fn scale_back(
    r: &mut Rewrite,
    node: &NodeProto,
    int: NodeProto,
    x: &Dq,
    w_scale: &str,
    bias: Option<(String, String)>,
    y: &str,
) -> Vec<NodeProto> {
    let acc = int.output[0].clone();
    let float = r.fresh(&format!("{y}_float"));
    let scale = r.fresh(&format!("{y}_scale"));
    let scaled = if bias.is_some() {
        r.fresh(&format!("{y}_scaled"))
    } else {
        y.to_string()
    };
    let name = |op: &str| format!("{}_{op}", node.name);
    let mut cast = graph_edit::node("Cast", &name("Cast"), &[&acc], &[&float]);
    cast.attribute
        .push(graph_edit::int_attribute("to", FLOAT as i64));
    let mut nodes = vec![
        int,
        cast,
        graph_edit::node(
            "Mul",
            &name("scale_product"),
            &[&x.scale, w_scale],
            &[&scale],
        ),
        graph_edit::node("Mul", &name("scale"), &[&float, &scale], &[&scaled]),
    ];
    if let Some((b, shape)) = bias {
        let shaped = r.fresh(&format!("{b}_reshaped"));
        nodes.push(graph_edit::node(
            "Reshape",
            &name("bias_reshape"),
            &[&b, &shape],
            &[&shaped],
        ));
        nodes.push(graph_edit::node(
            "Add",
            &name("bias"),
            &[&scaled, &shaped],
            &[y],
        ));
    }
    nodes
}
