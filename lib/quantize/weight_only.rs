//! Weight-only int4 (`--weight-type int4 --block-size N`): every MatMul whose weight is
//! a constant 2-D float initializer becomes a com.microsoft MatMulNBits with 4-bit
//! codes in blocks of `block_size` along K; activations and every other op stay float.
//!
//! The weights are symmetric (no zero point input: MatMulNBits' default, 8, centres the
//! codes 0..15 on -8..7), which keeps the kernel's work to a scale per block. Each
//! block's scale is chosen to minimise the block's squared error (`scale_search`,
//! divisors of absmax from 4 to 9 and ONNX Runtime's own choice, the value of largest
//! magnitude mapped to -8); so no block is ever worse than ORT's symmetric
//! round-to-nearest on the same weight.

use std::collections::HashSet;

use anyhow::{Result, bail};

use super::encode;
use super::graph_edit::{self, FLOAT, Names, f32_tensor, int_attribute, raw_tensor};
use super::scale_search::Grid;
use crate::onnx::proto::{ModelProto, OperatorSetIdProto};
use crate::onnx::validate::ValidModel;

const UINT8: i32 = 2;
const DOMAIN: &str = "com.microsoft";

/// MatMulNBits' block sizes: powers of two from 16 to 256.
pub fn check_block_size(block: usize) -> Result<()> {
    if !(16..=256).contains(&block) || !block.is_power_of_two() {
        bail!("--block-size {block} is not supported: a power of two from 16 to 256 is");
    }
    Ok(())
}

pub fn quantize(model: ValidModel, block: usize) -> Result<ModelProto> {
    check_block_size(block)?;
    let ValidModel { mut proto, dir, .. } = model;
    let Some(graph) = proto.graph.as_mut() else {
        bail!("the model has no graph");
    };
    let mut names = Names::of(graph);
    let outputs: HashSet<String> = graph.output.iter().map(|o| o.name.clone()).collect();
    let mut count = 0;
    let mut added = Vec::new();
    for i in 0..graph.node.len() {
        let node = &graph.node[i];
        let default_domain = node.domain.is_empty() || node.domain == "ai.onnx";
        if !default_domain || node.op_type != "MatMul" || node.input.len() != 2 {
            continue;
        }
        let w_name = node.input[1].clone();
        let Some((w, dims)) = graph_edit::float_initializer(graph, &w_name, dir.as_deref())? else {
            continue;
        };
        let [k, n] = dims[..] else {
            continue;
        };
        if k == 0 || n == 0 {
            continue;
        }
        let q = quantize_weight(&w, k, n, block);
        let base = if node.name.is_empty() {
            w_name.clone()
        } else {
            node.name.clone()
        };
        let packed = names.fresh(&format!("{w_name}_Q4"));
        let scales = names.fresh(&format!("{w_name}_scales"));
        let k_blocks = k.div_ceil(block);
        added.push(raw_tensor(
            &packed,
            &[n, k_blocks, block / 2],
            UINT8,
            q.packed,
        ));
        added.push(f32_tensor(&scales, &[n, k_blocks], &q.scales));
        let name = names.fresh(&format!("{base}_Q4"));
        let old = &graph.node[i];
        let mut new = graph_edit::node(
            "MatMulNBits",
            &name,
            &[&old.input[0], &packed, &scales],
            &[&old.output[0]],
        );
        new.domain = DOMAIN.to_string();
        new.attribute = vec![
            int_attribute("K", k as i64),
            int_attribute("N", n as i64),
            int_attribute("bits", 4),
            int_attribute("block_size", block as i64),
        ];
        graph.node[i] = new;
        count += 1;
    }
    if count == 0 {
        bail!("no MatMul with a constant 2-D float weight to quantize to int4");
    }
    graph.initializer.extend(added);
    // Float weights nothing reads any more are dropped.
    let read: HashSet<String> = graph
        .node
        .iter()
        .flat_map(|n| n.input.iter().cloned())
        .chain(outputs)
        .collect();
    graph
        .initializer
        .retain(|t| t.data_type != FLOAT || read.contains(&t.name));
    if !proto.opset_import.iter().any(|o| o.domain == DOMAIN) {
        proto.opset_import.push(OperatorSetIdProto {
            domain: DOMAIN.to_string(),
            version: 1,
        });
    }
    encode::finish(proto)
}

/// A [K, N] weight as MatMulNBits' inputs B ([N, k_blocks, block/2], codes low-first)
/// and scales ([N, k_blocks]).
struct Quantized {
    packed: Vec<u8>,
    scales: Vec<f32>,
}

fn quantize_weight(w: &[f32], k: usize, n: usize, block: usize) -> Quantized {
    let k_blocks = k.div_ceil(block);
    let mut packed = vec![0u8; n * k_blocks * block / 2];
    let mut scales = vec![0f32; n * k_blocks];
    let mut values = Vec::with_capacity(block);
    for col in 0..n {
        for j in 0..k_blocks {
            values.clear();
            values.extend((j * block..((j + 1) * block).min(k)).map(|r| w[r * n + col]));
            let scale = best_scale(&values);
            scales[col * k_blocks + j] = scale;
            let at = (col * k_blocks + j) * block / 2;
            for (i, &v) in values.iter().enumerate() {
                let code = code_of(v, scale);
                packed[at + i / 2] |= code << (4 * (i % 2));
            }
            // Codes past K (a last partial block) stay 0; the kernels never read them.
        }
    }
    Quantized { packed, scales }
}

/// The 4-bit code (0..15, zero point 8) of `v` at `scale`.
fn code_of(v: f32, scale: f32) -> u8 {
    (Grid::INT4.code(v, scale) + 8) as u8
}

/// The scale of least squared error, never worse than ONNX Runtime's (the value of
/// largest magnitude mapped exactly to -8).
fn best_scale(values: &[f32]) -> f32 {
    let Some(&extreme) = values.iter().max_by(|a, b| a.abs().total_cmp(&b.abs())) else {
        return 0.0;
    };
    Grid::INT4.best_scale(values, extreme / -8.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chosen_scale_is_never_worse_than_the_extreme_on_minus_eight() {
        let values: Vec<f32> = (0..32)
            .map(|i| ((i * 7919 % 97) as f32 - 48.0) / 13.0)
            .collect();
        let extreme = values
            .iter()
            .copied()
            .max_by(|a, b| a.abs().total_cmp(&b.abs()))
            .unwrap();
        let s = best_scale(&values);
        assert!(
            Grid::INT4.squared_error(&values, s)
                <= Grid::INT4.squared_error(&values, extreme / -8.0)
        );
        assert_eq!(best_scale(&[0.0; 16]), 0.0);
        assert_eq!(code_of(1.0, 0.0), 8);
    }

    #[test]
    fn codes_pack_low_nibble_first_in_column_blocks() {
        // K = 3 (one partial block of 16), N = 2: column 0 is [8, -8, 0]·s.
        let w = [8.0, 1.0, -8.0, 2.0, 0.0, 3.0];
        let q = quantize_weight(&w, 3, 2, 16);
        assert_eq!(q.packed.len(), 2 * 8);
        assert_eq!(q.scales.len(), 2);
        let s = q.scales[0];
        let decode = |c: u8| (c as f32 - 8.0) * s;
        let (c0, c1, c2) = (q.packed[0] & 15, q.packed[0] >> 4, q.packed[1] & 15);
        assert!((decode(c0) - 8.0).abs() <= s / 2.0 + 1e-6);
        assert!((decode(c1) + 8.0).abs() <= s / 2.0 + 1e-6);
        assert_eq!(c2, 8);
        assert!(q.packed[2..8].iter().all(|&b| b == 0));
    }
}
