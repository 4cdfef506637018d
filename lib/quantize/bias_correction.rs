//! `--bias-correction`: quantizing a weight moves each output channel's mean, because
//! the rounding errors of a channel's weights do not cancel against the input's mean.
//! The expected shift E[W x] - E[Ŵ x] = (W - Ŵ) · E[x] is measured on the calibration
//! samples (E[x] per input channel) and added to the float bias, before the bias is
//! quantized (Nagel et al., "Data-Free Quantization", §4.2, empirical form).
//!
//! A MatMul has no bias input: in transformers its bias is an Add of a constant to its
//! output, which is corrected the same way as Gemm's.
//!
//! For a Conv, E[x] is each input channel's mean over every position, which treats the
//! zero padding at the borders as if it were the mean: the correction is exact for
//! interior positions and slightly off at the border, as in the usual toolkits.

use std::collections::HashMap;

use anyhow::{Context, Result};

use super::calibrate::ChannelAxis;
use super::graph_edit;
use super::targets::Prepared;
use crate::onnx::proto::{GraphProto, NodeProto};

/// The data inputs of the Conv and Gemm nodes with a bias, and of the MatMul nodes
/// followed by an Add of a constant, and the axis of their channels: what calibration
/// must average for `apply`.
pub fn inputs_to_average(graph: &GraphProto) -> HashMap<String, ChannelAxis> {
    graph
        .node
        .iter()
        .filter_map(|n| {
            let has_bias = n.input.len() >= 3 && !n.input[2].is_empty();
            let axis = match n.op_type.as_str() {
                "Conv" if has_bias => ChannelAxis::Second,
                "Gemm" if has_bias && graph_edit::get_int(n, "transA", 0) != 0 => {
                    ChannelAxis::First
                }
                "Gemm" if has_bias => ChannelAxis::Last,
                "MatMul" if n.input.len() == 2 && added_bias(graph, n).is_some() => {
                    ChannelAxis::Last
                }
                _ => return None,
            };
            Some((n.input[0].clone(), axis))
        })
        .collect()
}

/// The constant that an Add adds to `matmul`'s output: an initializer, the Add's other
/// input, when exactly one Add reads the output that way.
fn added_bias(graph: &GraphProto, matmul: &NodeProto) -> Option<String> {
    let out = matmul.output.first()?;
    let mut found = graph.node.iter().filter_map(|n| {
        if n.op_type != "Add" || !n.domain.is_empty() || n.input.len() != 2 {
            return None;
        }
        let other = match (&n.input[0] == out, &n.input[1] == out) {
            (true, false) => &n.input[1],
            (false, true) => &n.input[0],
            _ => return None,
        };
        graph
            .initializer
            .iter()
            .any(|t| &t.name == other)
            .then(|| other.clone())
    });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// Corrects the bias of every quantized Conv and Gemm, and the added bias of every
/// quantized MatMul, whose weight error and input
/// mean are known and whose bias only it reads. Returns how many it corrected.
pub fn apply(p: &mut Prepared, means: &HashMap<String, Vec<f64>>) -> Result<usize> {
    let mut corrected = 0;
    for i in p.targets.clone() {
        let node = p.graph().node[i].clone();
        let b = match node.op_type.as_str() {
            "MatMul" if node.input.len() == 2 => added_bias(p.graph(), &node),
            _ if node.input.len() >= 3 && !node.input[2].is_empty() => Some(node.input[2].clone()),
            _ => None,
        };
        let Some(b) = b else {
            continue;
        };
        let (x, w, b) = (&node.input[0], &node.input[1], &b);
        let (Some((error, dims)), Some(mean)) = (p.weight_error.get(w), means.get(x)) else {
            continue;
        };
        let shift = match node.op_type.as_str() {
            "Conv" => conv_shift(error, dims, mean, graph_edit::get_int(&node, "group", 1)),
            "MatMul" => gemm_shift(error, dims, mean, false),
            "Gemm" => {
                let beta = graph_edit::get_float(&node, "beta", 1.0);
                let alpha = graph_edit::get_float(&node, "alpha", 1.0);
                let trans_b = graph_edit::get_int(&node, "transB", 0) != 0;
                gemm_shift(error, dims, mean, trans_b)
                    .filter(|_| beta != 0.0)
                    .map(|s| s.iter().map(|v| v * (alpha / beta) as f64).collect())
            }
            _ => None,
        };
        let Some(shift) = shift else {
            continue;
        };
        if super::static_qdq::uses(p, b) > 1 {
            continue;
        }
        let dir = p.dir.clone();
        let Some((mut bias, bdims)) = graph_edit::float_initializer(p.graph(), b, dir.as_deref())
            .with_context(|| format!("bias '{b}'"))?
        else {
            continue;
        };
        // MatMul's added bias may carry leading axes of 1 ([1, 1, N]).
        let vector = bdims
            .split_last()
            .is_some_and(|(_, lead)| lead.iter().all(|&d| d == 1));
        if !vector || bias.len() != shift.len() {
            continue;
        }
        for (v, s) in bias.iter_mut().zip(&shift) {
            *v += *s as f32;
        }
        let graph = p.graph_mut();
        if let Some(t) = graph.initializer.iter_mut().find(|t| &t.name == b) {
            *t = graph_edit::f32_tensor(b, &bdims, &bias);
            corrected += 1;
        }
    }
    Ok(corrected)
}

/// Σ over a group's input channels and taps of error[m, c, taps] · mean[group c].
fn conv_shift(error: &[f32], dims: &[usize], mean: &[f64], group: i64) -> Option<Vec<f64>> {
    let (&m, &cg) = (dims.first()?, dims.get(1)?);
    let group = usize::try_from(group).ok().filter(|&g| g > 0)?;
    let taps: usize = dims[2..].iter().product();
    let ok = m % group == 0 && mean.len() == cg * group && error.len() == m * cg * taps;
    if !ok || m == 0 {
        return None;
    }
    let per_group = m / group;
    Some(
        (0..m)
            .map(|o| {
                let g = o / per_group;
                (0..cg)
                    .map(|c| {
                        let row = &error[(o * cg + c) * taps..(o * cg + c + 1) * taps];
                        row.iter().map(|&e| e as f64).sum::<f64>() * mean[g * cg + c]
                    })
                    .sum()
            })
            .collect(),
    )
}

/// Σ_k error(k, n) · mean[k], the weight [K, N] (or [N, K] with transB).
fn gemm_shift(error: &[f32], dims: &[usize], mean: &[f64], trans_b: bool) -> Option<Vec<f64>> {
    let [a, b] = dims[..] else {
        return None;
    };
    let (k, n) = if trans_b { (b, a) } else { (a, b) };
    if mean.len() != k || error.len() != k * n {
        return None;
    }
    let at = |k_: usize, n_: usize| {
        if trans_b {
            error[n_ * k + k_]
        } else {
            error[k_ * n + n_]
        }
    };
    Some(
        (0..n)
            .map(|j| (0..k).map(|i| at(i, j) as f64 * mean[i]).sum())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conv_shift_sums_each_group_over_its_own_inputs() {
        // 2 outputs, group 2, one input channel each, 1x2 taps.
        let error = [1.0, 2.0, -1.0, 0.5];
        let shift = conv_shift(&error, &[2, 1, 1, 2], &[10.0, 4.0], 2).unwrap();
        assert_eq!(shift, vec![30.0, -2.0]);
        assert!(conv_shift(&error, &[2, 1, 1, 2], &[1.0], 2).is_none());
        assert!(conv_shift(&error, &[2, 1, 1, 2], &[1.0, 1.0], 0).is_none());
    }

    #[test]
    fn gemm_shift_reads_the_weight_either_way() {
        // K = 2, N = 3.
        let error = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let mean = [1.0, -1.0];
        assert_eq!(
            gemm_shift(&error, &[2, 3], &mean, false).unwrap(),
            vec![-3.0, -3.0, -3.0]
        );
        // As [N, K] = [3, 2]: rows (1, 2), (3, 4), (5, 6).
        assert_eq!(
            gemm_shift(&error, &[3, 2], &mean, true).unwrap(),
            vec![-1.0, -1.0, -1.0]
        );
    }
}
