//! Conv, MatMul and Gemm between 8-bit DequantizeLinear inputs and a QuantizeLinear
//! output: QLinearConv, QLinearMatMul and com.microsoft QGemm, each adding the int32
//! bias (scale x_scale·w_scale, zero point 0) to its accumulator.

use super::graph::{Dq, INT8, INT32, Rewrite, UINT8, get_int};
use super::{Converted, MICROSOFT, node_like};
use crate::onnx::proto::NodeProto;

pub fn conv(r: &mut Rewrite, node: &NodeProto) -> Option<Converted> {
    let x = r.activation_dq(node.input.first()?)?;
    let w = constant_weight(r, node.input.get(1)?, 0)?;
    let y = r.q_of(only_output(node)?)?;
    if y.qtype != x.qtype {
        return None;
    }
    let bias = match node.input.get(2).filter(|b| !b.is_empty()) {
        Some(b) => Some(int32_bias(r, b, &x, &w)?),
        None => None,
    };
    let mut inputs = vec![
        x.q,
        x.scale,
        x.zero_point,
        w.q,
        w.scale,
        w.zero_point,
        y.scale,
        y.zero_point,
    ];
    inputs.extend(bias);
    Some(Converted {
        nodes: vec![node_like("QLinearConv", "", node, inputs, vec![y.y], &[])],
        absorbed: vec![y.node],
    })
}

pub fn matmul(r: &mut Rewrite, node: &NodeProto) -> Option<Converted> {
    let a = r.activation_dq(node.input.first()?)?;
    let b_name = node.input.get(1)?;
    // B per column ([K, N], axis 1) or per tensor; an activation B is per tensor.
    let b = match r.activation_dq(b_name) {
        Some(b) => b,
        None => constant_weight(r, b_name, 1).filter(|b| rank(r, &b.q) == Some(2))?,
    };
    let y = r.q_of(only_output(node)?)?;
    if y.qtype != a.qtype {
        return None;
    }
    let inputs = vec![
        a.q,
        a.scale,
        a.zero_point,
        b.q,
        b.scale,
        b.zero_point,
        y.scale,
        y.zero_point,
    ];
    Some(Converted {
        nodes: vec![node_like("QLinearMatMul", "", node, inputs, vec![y.y], &[])],
        absorbed: vec![y.node],
    })
}

/// QGemm computes `alpha·A·B + C` with C the int32 bias, so a bias needs beta = 1 and
/// alpha = 1 (its scale is x_scale·w_scale). Without a QuantizeLinear reading it, the
/// output stays float (QGemm without y_scale), as ONNX Runtime writes a last Gemm.
pub fn gemm(r: &mut Rewrite, node: &NodeProto) -> Option<Converted> {
    if get_int(node, "transA", 0) != 0 {
        return None;
    }
    let a = r.activation_dq(node.input.first()?)?;
    let axis = if get_int(node, "transB", 0) != 0 {
        0
    } else {
        1
    };
    let b = constant_weight(r, node.input.get(1)?, axis).filter(|b| rank(r, &b.q) == Some(2))?;
    let y = r.q_of(only_output(node)?);
    if y.as_ref().is_some_and(|y| y.qtype != a.qtype) {
        return None;
    }
    let bias = match node.input.get(2).filter(|c| !c.is_empty()) {
        Some(c) => {
            let unit = |n: &str| float_attribute(node, n).is_none_or(|v| v == 1.0);
            if !unit("alpha") || !unit("beta") {
                return None;
            }
            int32_bias(r, c, &a, &b)?
        }
        None => String::new(),
    };
    let mut inputs = vec![a.q, a.scale, a.zero_point, b.q, b.scale, b.zero_point, bias];
    let (outputs, absorbed) = match y {
        Some(y) => {
            inputs.extend([y.scale, y.zero_point]);
            (vec![y.y], vec![y.node])
        }
        None => {
            while inputs.last().is_some_and(String::is_empty) {
                inputs.pop();
            }
            (vec![only_output(node)?.clone()], vec![])
        }
    };
    Some(Converted {
        nodes: vec![node_like(
            "QGemm",
            MICROSOFT,
            node,
            inputs,
            outputs,
            &["beta"],
        )],
        absorbed,
    })
}

/// The one output of `node`.
pub fn only_output(node: &NodeProto) -> Option<&String> {
    match node.output.as_slice() {
        [y] => Some(y),
        _ => None,
    }
}

/// An 8-bit constant weight, per tensor or per channel along `axis`.
pub fn constant_weight(r: &Rewrite, name: &str, axis: i64) -> Option<Dq> {
    let w = r.dq(name, false)?;
    let along = w.channels == 1 || w.axis == Some(axis);
    (matches!(w.qtype, UINT8 | INT8) && along && r.initializers.contains_key(&w.q)).then_some(w)
}

fn rank(r: &Rewrite, name: &str) -> Option<usize> {
    r.initializers.get(name).map(|t| t.dims.len())
}

fn float_attribute(node: &NodeProto, name: &str) -> Option<f32> {
    node.attribute.iter().find(|a| a.name == name).map(|a| a.f)
}

/// The int32 bias behind `name`'s DequantizeLinear when its zero points are 0 and its
/// scales are exactly x_scale·w_scale, the scale of the integer op's accumulator.
fn int32_bias(r: &Rewrite, name: &str, x: &Dq, w: &Dq) -> Option<String> {
    let b = r.dq(name, false)?;
    if b.qtype != INT32 || !r.initializers.contains_key(&b.q) || !r.all_zero(&b.zero_point) {
        return None;
    }
    let xs = r.f32s(&x.scale)?;
    let ws = r.f32s(&w.scale)?;
    let bs = r.f32s(&b.scale)?;
    let [xs] = xs.as_slice() else {
        return None;
    };
    let matches = if ws.len() == 1 {
        bs.iter().all(|&s| s == xs * ws[0])
    } else {
        bs.len() == ws.len() && bs.iter().zip(&ws).all(|(&s, &w)| s == xs * w)
    };
    matches.then_some(b.q)
}
