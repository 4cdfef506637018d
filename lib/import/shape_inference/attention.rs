//! Result types of ONNX Runtime's attention contrib ops: RotaryEmbedding keeps its
//! input's; MultiHeadAttention and GroupQueryAttention give `[B, S, N·Hv]` and the
//! present key/value `[B, N_kv, P + L, H]` (the past length plus the new one).

use anyhow::Result;

use super::Inferred;
use super::ctx::Ctx;
use crate::dialect::types::Dim;
use crate::ops::Registry;

const MS: &str = "com.microsoft";

pub(crate) fn register(r: &mut Registry) {
    r.infer_domain_ops(MS, &["RotaryEmbedding"], 1, |ctx| {
        Ok(vec![Inferred::of(ctx.dtype(0), ctx.shape(0))])
    });
    r.infer_domain_ops(MS, &["MultiHeadAttention"], 1, multi_head);
    r.infer_domain_ops(MS, &["GroupQueryAttention"], 1, group_query);
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
