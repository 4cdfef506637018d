//! Result types of ONNX Runtime's attention contrib ops (and the embedding block of
//! the encoders that use them): RotaryEmbedding keeps its
//! input's; MultiHeadAttention and GroupQueryAttention give `[B, S, N·Hv]` and the
//! present key/value `[B, N_kv, P + L, H]` (the past length plus the new one).
//! ONNX's own RotaryEmbedding (opset 23) keeps its input's type too; its Attention gives
//! Y in Q's layout and the same present key/value.

use anyhow::Result;

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use crate::dialect::types::Dim;
use crate::onnx::dtype::DType;

const MS: &str = "com.microsoft";

pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_domain_ops(MS, &["RotaryEmbedding"], 1, |ctx| {
        Ok(vec![Inferred::of(ctx.dtype(0), ctx.shape(0))])
    });
    r.infer_domain_ops(MS, &["MultiHeadAttention"], 1, multi_head);
    r.infer_ops(&["RotaryEmbedding"], 23, |ctx| {
        Ok(vec![Inferred::of(ctx.dtype(0), ctx.shape(0))])
    });
    r.infer_ops(&["Attention"], 23, onnx_attention);
    r.infer_domain_ops(MS, &["GroupQueryAttention"], 1, group_query);
    r.infer_domain_ops(MS, &["Attention"], 1, |ctx| packed(ctx, 4));
    r.infer_domain_ops(MS, &["QAttention"], 1, |ctx| packed(ctx, 8));
    r.infer_domain_ops(MS, &["EmbedLayerNormalization"], 1, |ctx| {
        embed(ctx, ctx.dtype(2))
    });
    r.infer_domain_ops(MS, &["QEmbedLayerNormalization"], 1, |ctx| {
        embed(ctx, Some(DType::F32))
    });
}

/// (Q)EmbedLayerNormalization: output and embedding_sum `[B, S, H]` of `dtype`,
/// mask_index `[B]` int32.
fn embed(ctx: &Ctx, dtype: Option<DType>) -> Result<Vec<Inferred>> {
    let ids = ctx.shape(0);
    let hidden = dim(&ctx.shape(2), 1);
    let y = Inferred::of(dtype, Some(vec![dim(&ids, 0), dim(&ids, 1), hidden]));
    let mask_index = Inferred::of(Some(DType::I32), Some(vec![dim(&ids, 0)]));
    Ok(outputs(ctx, vec![y.clone(), mask_index, y]))
}

/// Attention and QAttention: output `[B, S, D_v]` (float), present
/// `[2, B, N, P + S, H]`, with the past at input `past`.
fn packed(ctx: &Ctx, past: usize) -> Result<Vec<Inferred>> {
    let heads = ctx.attrs().int("num_heads", 0)?;
    let x = ctx.shape(0);
    let width = dim(&ctx.shape(1), 1);
    let sizes = match ctx.attrs().optional_ints("qkv_hidden_sizes")? {
        Some(s) if s.len() == 3 => Some((s[0], s[2])),
        _ => width.map(|w| (w / 3, w / 3)),
    };
    let dtype = Some(DType::F32);
    let output = vec![dim(&x, 0), dim(&x, 1), sizes.map(|s| s.1)];
    let head = sizes.filter(|_| heads > 0).map(|s| s.0 / heads);
    let total = if ctx.present(past) {
        sum(dim(&ctx.shape(past), 3), dim(&x, 1))
    } else {
        dim(&x, 1)
    };
    let present = vec![Some(2), dim(&x, 0), Some(heads), total, head];
    Ok(outputs(
        ctx,
        vec![
            Inferred::of(dtype, Some(output)),
            Inferred::of(dtype, Some(present)),
        ],
    ))
}

fn dim(shape: &Option<Vec<Dim>>, i: usize) -> Dim {
    shape.as_ref().and_then(|s| s.get(i).copied().flatten())
}

fn sum(a: Dim, b: Dim) -> Dim {
    Some(a? + b?)
}

/// The sequence length of the cache after this call: past (if given) plus new.
fn present_length(ctx: &Ctx, past: usize, new: Dim) -> Dim {
    if ctx.present(past) {
        sum(dim(&ctx.shape(past), 2), new)
    } else {
        new
    }
}

fn outputs(ctx: &Ctx, results: Vec<Inferred>) -> Vec<Inferred> {
    let mut results = results;
    results.truncate(ctx.outputs().max(1));
    results
}

fn multi_head(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let heads = ctx.attrs().int("num_heads", 0)?;
    let q = ctx.shape(0);
    let (k, v) = (ctx.shape(1), ctx.shape(2));
    let dtype = ctx.dtype(0);
    let (head, value_head, new) = if k.as_ref().is_some_and(|k| k.len() == 4) {
        (dim(&k, 3), dim(&v, 3), dim(&k, 2))
    } else {
        let per_head = |d: Dim| d.filter(|_| heads > 0).map(|d| d / heads);
        (per_head(dim(&q, 2)), per_head(dim(&v, 2)), dim(&k, 1))
    };
    let total = present_length(ctx, 6, new);
    let output = vec![dim(&q, 0), dim(&q, 1), value_head.map(|h| h * heads)];
    let cache = |h: Dim| Inferred::of(dtype, Some(vec![dim(&q, 0), Some(heads), total, h]));
    Ok(outputs(
        ctx,
        vec![
            Inferred::of(dtype, Some(output)),
            cache(head),
            cache(value_head),
        ],
    ))
}

fn group_query(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let heads = ctx.attrs().int("num_heads", 0)?;
    let kv_heads = ctx.attrs().int("kv_num_heads", 0)?;
    let q = ctx.shape(0);
    let dtype = ctx.dtype(0);
    let head = if ctx.present(1) {
        dim(&q, 2).filter(|_| heads > 0).map(|d| d / heads)
    } else {
        let all = heads + 2 * kv_heads;
        dim(&q, 2).filter(|_| all > 0).map(|d| d / all)
    };
    let total = present_length(ctx, 3, dim(&q, 1));
    let output = vec![dim(&q, 0), dim(&q, 1), head.map(|h| h * heads)];
    let cache = Inferred::of(dtype, Some(vec![dim(&q, 0), Some(kv_heads), total, head]));
    Ok(outputs(
        ctx,
        vec![Inferred::of(dtype, Some(output)), cache.clone(), cache],
    ))
}

/// ONNX Attention: Y `[B, Nq, S, Hv]` for 4-D inputs, `[B, S, Nq·Hv]` for 3-D ones;
/// present key/value `[B, Nkv, P + L, H|Hv]`; qk_matmul_output `[B, Nq, S, P + L]`.
fn onnx_attention(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let (q, k, v) = (ctx.shape(0), ctx.shape(1), ctx.shape(2));
    let dtype = ctx.dtype(0);
    let four_d = q.as_ref().is_some_and(|q| q.len() == 4);
    let (heads, kv_heads, seq, new, head, value_head) = if four_d {
        (
            dim(&q, 1),
            dim(&k, 1),
            dim(&q, 2),
            dim(&k, 2),
            dim(&k, 3),
            dim(&v, 3),
        )
    } else {
        let heads = Some(ctx.attrs().int("q_num_heads", 0)?).filter(|&n| n > 0);
        let kv_heads = Some(ctx.attrs().int("kv_num_heads", 0)?).filter(|&n| n > 0);
        let per_head = |d: Dim| Some(d? / kv_heads?);
        (
            heads,
            kv_heads,
            dim(&q, 1),
            dim(&k, 1),
            per_head(dim(&k, 2)),
            per_head(dim(&v, 2)),
        )
    };
    let batch = dim(&q, 0);
    let y = if four_d {
        vec![batch, heads, seq, value_head]
    } else {
        vec![batch, seq, value_head.and_then(|h| Some(h * heads?))]
    };
    let total = present_length(ctx, 4, new);
    let cache = |h: Dim| Inferred::of(dtype, Some(vec![batch, kv_heads, total, h]));
    let scores = Inferred::of(dtype, Some(vec![batch, heads, seq, total]));
    Ok(outputs(
        ctx,
        vec![
            Inferred::of(dtype, Some(y)),
            cache(head),
            cache(value_head),
            scores,
        ],
    ))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, run, ty};
    use crate::onnx::dtype::DType;

    fn types(node: &N, inputs: &[Option<In>]) -> Vec<crate::dialect::types::TensorType> {
        match run(node, 23, inputs) {
            Ok(v) => v.into_iter().map(|i| i.ty).collect(),
            Err(e) => panic!("inference failed: {e}"),
        }
    }

    #[test]
    fn onnx_attention_3d_gives_merged_heads_and_4d_caches() {
        let n = N::new(
            "Attention",
            &["Q", "K", "V", "", "past_key", "past_value"],
            3,
        )
        .int("q_num_heads", 4)
        .int("kv_num_heads", 2);
        let f = |dims: &[i64]| Some(In::new(DType::F32, dims));
        let ins = [
            f(&[2, 3, 32]),
            f(&[2, 3, 16]),
            f(&[2, 3, 20]),
            None,
            f(&[2, 2, 5, 8]),
            f(&[2, 2, 5, 10]),
        ];
        assert_eq!(
            types(&n, &ins),
            vec![
                ty(DType::F32, &[2, 3, 40]),
                ty(DType::F32, &[2, 2, 8, 8]),
                ty(DType::F32, &[2, 2, 8, 10]),
            ]
        );
    }

    #[test]
    fn onnx_attention_4d_keeps_heads() {
        let n = N::new("Attention", &["Q", "K", "V"], 1);
        let f = |dims: &[i64]| Some(In::new(DType::F32, dims));
        let ins = [f(&[2, 6, -1, 8]), f(&[2, 2, 7, 8]), f(&[2, 2, 7, 10])];
        assert_eq!(types(&n, &ins), vec![ty(DType::F32, &[2, 6, -1, 10])]);
    }
}
