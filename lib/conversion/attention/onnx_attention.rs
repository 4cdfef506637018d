//! ONNX Attention (opsets 23 to 25, standard domain) through the grouped core:
//! - Q `[B, Nq, S, H]`, K `[B, Nkv, L, H]`, V `[B, Nkv, L, Hv]`, or all three `[B, S|L,
//!   hidden]` split into `q_num_heads` / `kv_num_heads` heads;
//! - present K/V = past K/V `[B, Nkv, P, H]` followed by the new ones (4-D either way);
//! - scores `Q·Kᵀ · scale` (default `1/√H`), soft-capped, then `attn_mask` (a bool mask
//!   removes the keys it holds false; a float mask is added), broadcast against
//!   `[B, Nq, S, T]`, and the causal, window and padding rules (`onnx_masks`);
//! - a query left no key at all gets zeros (in Y and in the softmax scores).
//!
//! Outputs: Y in the layout of Q (`[B, Nq, S, Hv]` or `[B, S, Nq·Hv]`), present_key,
//! present_value, and `qk_matmul_output` `[B, Nq, S, T]`: by `qk_matmul_output_mode`
//! the scaled scores (0), the soft-capped ones (1), those plus the bias and mask, with
//! `-inf` where a key is removed (2), or the softmax weights (3).

use anyhow::{Result, bail};
use melior::ir::Value;

use super::core::{
    ScoresStage, Scoring, attend_heads_capturing, default_scale, grouped_bias, split_heads,
};
use super::onnx_masks::{Offset, Visibility, mask_rank4, valid_lengths, visible_keys};
use crate::conversion::binder::Binder;
use crate::conversion::typed_ops::{Ops, Tensor, optional, tensor};
use crate::dialect::builder::TorchBuilder;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

/// The heads of a 3-D input (`[B, S, N·H]`) from the attribute `attribute`.
fn heads_attribute(b: &Binder, attribute: &str) -> Result<i64> {
    match b.int(attribute, 0)? {
        n if n > 0 => Ok(n),
        n => bail!("3-D inputs need a positive {attribute}, but it is {n}"),
    }
}

/// `left_window_size` or `right_window_size`: −1 (unbounded) or a count of keys.
fn window_attribute(b: &Binder, attribute: &str) -> Result<i64> {
    match b.int(attribute, -1)? {
        n if n >= -1 => Ok(n),
        n => bail!("{attribute} must be -1 or non-negative, but is {n}"),
    }
}

/// The step of the scores the fourth output holds, when the node has one.
fn captured_stage(b: &Binder) -> Result<Option<ScoresStage>> {
    if b.result_count() < 4 {
        return Ok(None);
    }
    Ok(Some(match b.int("qk_matmul_output_mode", 0)? {
        0 => ScoresStage::Scaled,
        1 => ScoresStage::Capped,
        2 => ScoresStage::Masked,
        3 => ScoresStage::Weights,
        mode => bail!("qk_matmul_output_mode {mode} is not one of 0, 1, 2, 3"),
    }))
}

/// `past` followed by `new` along the sequence axis.
fn with_past<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    past: &Tensor<'c, 'a>,
    new: &Tensor<'c, 'a>,
    name: &str,
) -> Result<Tensor<'c, 'a>> {
    if past.rank() != 4 {
        bail!(
            "{name} has rank {}; it must be [B, kv_num_heads, P, head_size]",
            past.rank()
        );
    }
    o.cat(&[past, new], 2)
}

pub fn attention<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    let capture = captured_stage(b)?;
    let rules = Visibility {
        causal: b.int("is_causal", 0)? != 0,
        left_window: window_attribute(b, "left_window_size")?,
        right_window: window_attribute(b, "right_window_size")?,
    };
    let (query, key, value) = (tensor(b, 0, "Q")?, tensor(b, 1, "K")?, tensor(b, 2, "V")?);
    let three_d = match (query.rank(), key.rank(), value.rank()) {
        (3, 3, 3) => true,
        (4, 4, 4) => false,
        (q, k, v) => bail!("Q, K and V have ranks {q}, {k} and {v}; they must all be 3 or all 4"),
    };
    let (q, k, v) = if three_d {
        let heads = heads_attribute(b, "q_num_heads")?;
        let kv_heads = heads_attribute(b, "kv_num_heads")?;
        (
            split_heads(&o, &query, heads, "Q")?,
            split_heads(&o, &key, kv_heads, "K")?,
            split_heads(&o, &value, kv_heads, "V")?,
        )
    } else {
        (query, key, value)
    };
    let (Some(heads), Some(kv_heads)) = (q.dims[1], k.dims[1]) else {
        bail!("the numbers of heads of Q and K must be known at compile time");
    };
    if kv_heads <= 0 || heads % kv_heads != 0 {
        bail!("q_num_heads {heads} is not a multiple of kv_num_heads {kv_heads}");
    }
    let (past_key, past_value) = (optional(b, 4, "past_key")?, optional(b, 5, "past_value")?);
    let valid = optional(b, 6, "nonpad_kv_seqlen")?;
    let (k, v, offset) = match (past_key, past_value, valid) {
        (Some(_), Some(_), Some(_)) => {
            bail!("nonpad_kv_seqlen cannot be combined with past_key and past_value")
        }
        (Some(pk), Some(pv), None) => {
            let past_length = o.size(&pk, 2)?;
            (
                with_past(&o, &pk, &k, "past_key")?,
                with_past(&o, &pv, &v, "past_value")?,
                Offset::Past(past_length),
            )
        }
        (None, None, Some(valid)) => (k, v, Offset::Valid(valid_lengths(&o, valid)?)),
        (None, None, None) => (k, v, Offset::Zero),
        _ => bail!("past_key and past_value must be given together"),
    };
    // Rules that can leave a query no key, which the spec then gives zeros.
    let may_empty_rows =
        matches!(offset, Offset::Valid(_)) || rules.left_window >= 0 || rules.right_window >= 0;
    let Some(head_size) = q.dims[3] else {
        bail!("the head size must be known at compile time");
    };
    let (seq, total) = (o.size(&q, 2)?, o.size(&k, 2)?);
    let group = heads / kv_heads;

    let mut additive = Vec::new();
    let mut allowed = None;
    let mut mask_is_bool = false;
    if let Some(mask) = optional(b, 3, "attn_mask")? {
        let mask = grouped_bias(&o, &mask_rank4(&o, mask, total)?, kv_heads, group)?;
        if mask.dtype == DType::Bool {
            mask_is_bool = true;
            allowed = Some(mask);
        } else {
            additive.push(o.cast(&mask, q.dtype)?);
        }
    }
    if let Some(visible) = visible_keys(&o, &rules, &offset, seq, total)? {
        allowed = Some(match allowed {
            Some(mask) => o.binary("logical_and", &mask, &visible, DType::Bool)?,
            None => visible,
        });
    }
    let any_key = match &allowed {
        Some(allowed) if mask_is_bool || may_empty_rows => Some(any_allowed(&o, allowed, q.dtype)?),
        _ => None,
    };
    let scoring = Scoring {
        scale: default_scale(b.float("scale", 0.0)?, head_size),
        softcap: b.float("softcap", 0.0)?,
        additive,
        allowed,
    };
    let (mut y, scores) = attend_heads_capturing(&o, &q, &k, &v, &scoring, capture)?;
    if let Some(any_key) = &any_key {
        y = zero_empty_rows(&o, &y, any_key, kv_heads, group)?;
    }
    if three_d {
        y = merge_heads(&o, &y)?;
    }
    let mut values = vec![y.value, k.value, v.value];
    if let Some(mut scores) = scores {
        if let (Some(any_key), Some(ScoresStage::Weights)) = (&any_key, capture) {
            scores = o.mul(&scores, any_key)?;
        }
        let sizes = [o.size(&q, 0)?, o.int(heads)?, seq, total];
        values.push(o.reshape(&scores, &sizes)?.value);
    }
    Ok(values.into_iter().take(b.result_count().max(1)).collect())
}

/// 1 where a query has at least one key allowed, else 0: `[B|1, Nkv|1, G|1, S, 1]`.
fn any_allowed<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    allowed: &Tensor<'c, 'a>,
    dtype: DType,
) -> Result<Tensor<'c, 'a>> {
    let ones = o.cast(allowed, dtype)?;
    let mut dims = ones.dims.clone();
    if let Some(last) = dims.last_mut() {
        *last = Some(1);
    }
    let operands = [ones.value, o.t.int_list(&[-1])?, o.t.bool(true)?];
    let ty = crate::dialect::types::TensorType::new(dtype, dims.clone());
    let value = o.t.aten_tensor("amax", &operands, &ty)?;
    Ok(Tensor { value, dims, dtype })
}

/// `y` `[B, Nq, S, Hv]` with the rows of queries that have no key set to 0.
fn zero_empty_rows<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    y: &Tensor<'c, 'a>,
    any_key: &Tensor<'c, 'a>,
    kv_heads: i64,
    group: i64,
) -> Result<Tensor<'c, 'a>> {
    let sizes = [o.size(y, 0)?, o.size(y, 1)?, o.size(y, 2)?, o.size(y, 3)?];
    let grouped = o.reshape(
        y,
        &[
            sizes[0],
            o.int(kv_heads)?,
            o.int(group)?,
            sizes[2],
            sizes[3],
        ],
    )?;
    o.reshape(&o.mul(&grouped, any_key)?, &sizes)
}

/// `[B, N, S, Hv]` as `[B, S, N·Hv]`.
fn merge_heads<'c, 'a>(o: &Ops<'_, 'c, 'a>, y: &Tensor<'c, 'a>) -> Result<Tensor<'c, 'a>> {
    let (Some(heads), Some(value_size)) = (y.dims[1], y.dims[3]) else {
        bail!("the numbers of heads and the value head size must be known at compile time");
    };
    let (batch, seq) = (o.size(y, 0)?, o.size(y, 2)?);
    let tokens = o.permute(y, &[0, 2, 1, 3])?;
    o.reshape(&tokens, &[batch, seq, o.int(heads * value_size)?])
}
