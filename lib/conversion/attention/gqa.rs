//! com.microsoft GroupQueryAttention, as ONNX Runtime's CPU kernel computes it for a
//! cache that is not shared between past and present (ORT GenAI's CPU form):
//! - query `[B, S, N·H]`, key and value `[B, S, N_kv·H]` (or all three packed in the
//!   query when key is absent), each split into heads;
//! - with `do_rotary`, Q and K rotated at the positions `past_b + s` (or
//!   `position_ids`), where `past_b = seqlens_k[b] + 1 − S`;
//! - present K/V = past K/V `[B, N_kv, P, H]` followed by the new ones;
//! - query `s` of batch `b` attends keys `j ≤ past_b + s` (and, with a local window
//!   `w`, `j > past_b + s − w`), with scale (default `1/√H`), softcap and an optional
//!   attention bias.
//!
//! Outputs: output `[B, S, N·H]`, present_key, present_value.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::core::{Scoring, attend, default_scale, grouped_bias, split_heads};
use super::rotary::{Angles, offset_positions, rotate};
use crate::conversion::binder::Binder;
use crate::conversion::typed_ops::{Ops, Size, Tensor, optional, tensor};
use crate::dialect::builder::TorchBuilder;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

/// Query, key and value split into heads: `[B, N, S, H]`, `[B, N_kv, S, H]` twice.
fn heads<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    b: &Binder<'c, 'a>,
    num_heads: i64,
    kv_heads: i64,
) -> Result<[Tensor<'c, 'a>; 3]> {
    let query = tensor(b, 0, "query")?;
    if b.has_input(1) {
        let key = tensor(b, 1, "key")?;
        let value = tensor(b, 2, "value")?;
        return Ok([
            split_heads(o, &query, num_heads, "query")?,
            split_heads(o, &key, kv_heads, "key")?,
            split_heads(o, &value, kv_heads, "value")?,
        ]);
    }
    // Packed: [B, S, (N + 2·N_kv)·H].
    let Some(hidden) = query.dims.get(2).copied().flatten() else {
        bail!("the hidden size of the packed query must be known at compile time");
    };
    let all = num_heads + 2 * kv_heads;
    if hidden % all != 0 {
        bail!("the packed query's hidden size {hidden} is not a multiple of {all} heads");
    }
    let h = hidden / all;
    let (q_end, k_end) = (num_heads * h, (num_heads + kv_heads) * h);
    Ok([
        split_heads(o, &o.slice(&query, -1, 0, q_end)?, num_heads, "query")?,
        split_heads(o, &o.slice(&query, -1, q_end, k_end)?, kv_heads, "key")?,
        split_heads(o, &o.slice(&query, -1, k_end, hidden)?, kv_heads, "value")?,
    ])
}

/// `past` followed by `new` along the sequence axis, or `new` alone.
fn present<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    past: Option<Tensor<'c, 'a>>,
    new: &Tensor<'c, 'a>,
) -> Result<Tensor<'c, 'a>> {
    match past {
        Some(past) if past.rank() != 4 => {
            bail!(
                "past key/value has rank {}; it must be [B, N_kv, P, H]",
                past.rank()
            )
        }
        Some(past) => o.cat(&[&past, new], 2),
        None => Ok(new.clone()),
    }
}

/// Which keys each query may attend, `[B, 1, 1, S, T]`: `j ≤ past_b + s`, and with a
/// local window the last `window` of those (ONNX Runtime 1.31's sliding window, which
/// counts the query's own position).
fn causal_window<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    query_positions: &Tensor<'c, 'a>,
    total: Size<'c, 'a>,
    window: i64,
) -> Result<Tensor<'c, 'a>> {
    let keys = o.unsqueeze(&o.unsqueeze(&o.arange(total)?, 0)?, 0)?;
    let last = o.unsqueeze(query_positions, 2)?;
    let mut allowed = o.binary("le.Tensor", &keys, &last, DType::Bool)?;
    if window > 0 {
        let first = o.scalar("sub.Scalar", &last, o.t.int(window - 1)?)?;
        let inside = o.binary("ge.Tensor", &keys, &first, DType::Bool)?;
        allowed = o.binary("logical_and", &allowed, &inside, DType::Bool)?;
    }
    o.unsqueeze(&o.unsqueeze(&allowed, 1)?, 1)
}

pub fn group_query_attention<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    let num_heads = b.int("num_heads", 0)?;
    let kv_heads = b.int("kv_num_heads", 0)?;
    if num_heads <= 0 || kv_heads <= 0 || num_heads % kv_heads != 0 {
        bail!("num_heads {num_heads} must be a positive multiple of kv_num_heads {kv_heads}");
    }
    if b.int("smooth_softmax", 0)? != 0 || b.has_input(11) {
        bail!("smooth_softmax and head_sink are not supported");
    }
    if b.int("qk_output", 0)? != 0 || (b.result_count() > 3 && b.is_result_used(3)) {
        bail!("output_qk is not supported");
    }
    let [q, k, v] = heads(&o, b, num_heads, kv_heads)?;
    let seq = o.size(&q, 2)?;

    // past_b = seqlens_k[b] + 1 − S: the keys before this call's tokens.
    let seqlens = o.cast(&tensor(b, 5, "seqlens_k")?, DType::I64)?;
    if seqlens.rank() != 1 {
        bail!("seqlens_k has rank {}; it must be [B]", seqlens.rank());
    }
    let totals = o.scalar("add.Scalar", &seqlens, t.int(1)?)?;
    let past = o.scalar("sub.Scalar", &totals, seq.value)?;
    let query_positions = offset_positions(&o, &past, seq)?;

    let (q, k) = if b.int("do_rotary", 0)? != 0 {
        let cos = tensor(b, 7, "cos_cache")?;
        let sin = tensor(b, 8, "sin_cache")?;
        let positions = optional(b, 9, "position_ids")?.unwrap_or_else(|| query_positions.clone());
        let angles = Angles::gather(&o, &cos, &sin, &positions)?.unsqueezed(&o, 1)?;
        let interleaved = b.int("rotary_interleaved", 0)? != 0;
        (
            rotate(&o, &q, &angles, interleaved)?,
            rotate(&o, &k, &angles, interleaved)?,
        )
    } else {
        (q, k)
    };

    let present_k = present(&o, optional(b, 3, "past_key")?, &k)?;
    let present_v = present(&o, optional(b, 4, "past_value")?, &v)?;
    let total = o.size(&present_k, 2)?;
    // A cache shared between past and present (total_sequence_length shorter than
    // the cache) would place the new keys elsewhere: refused at run time.
    let stated = t.item_int(b.input(6, "total_sequence_length")?)?;
    let same = t.aten("eq.int", &[stated, total.value], t.torch_type("bool")?)?;
    t.runtime_assert(
        same,
        "GroupQueryAttention: total_sequence_length must be the past length plus the sequence length (a shared past/present buffer is not supported)",
    )?;

    let Some(head_size) = q.dims[3] else {
        bail!("the head size must be known at compile time");
    };
    let mut additive = Vec::new();
    if let Some(bias) = optional(b, 10, "attention_bias")? {
        additive.push(grouped_bias(&o, &bias, kv_heads, num_heads / kv_heads)?);
    }
    let scoring = Scoring {
        scale: default_scale(b.float("scale", 0.0)?, head_size),
        softcap: b.float("softcap", 0.0)?,
        additive,
        allowed: Some(causal_window(
            &o,
            &query_positions,
            total,
            b.int("local_window_size", -1)?,
        )?),
    };
    let output = attend(&o, &q, &present_k, &present_v, &scoring)?;
    let values = [output.value, present_k.value, present_v.value];
    Ok(values.into_iter().take(b.result_count().max(1)).collect())
}
