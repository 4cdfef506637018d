//! ONNX Attention (opset 23, standard domain) through the grouped core:
//! - Q `[B, Nq, S, H]`, K `[B, Nkv, L, H]`, V `[B, Nkv, L, Hv]`, or all three `[B, S|L,
//!   hidden]` split into `q_num_heads` / `kv_num_heads` heads;
//! - present K/V = past K/V `[B, Nkv, P, H]` followed by the new ones (4-D either way);
//! - scores `Q·Kᵀ · scale` (default `1/√H`), soft-capped, then `attn_mask` (a bool mask
//!   removes the keys it holds false; a float mask is added), broadcast against
//!   `[B, Nq, S, T]`; with `is_causal` query `i` attends keys `j ≤ i + P` (aligned to
//!   the past, so top-left when there is none).
//!
//! Outputs: Y in the layout of Q (`[B, Nq, S, Hv]` or `[B, S, Nq·Hv]`), present_key,
//! present_value. The fourth output (the scores for `qk_matmul_output_mode`),
//! `nonpad_kv_seqlen` (opset 24) and the window sizes (opset 25) are refused by name.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::core::{Scoring, attend_heads, default_scale, grouped_bias, split_heads};
use crate::conversion::binder::Binder;
use crate::conversion::typed_ops::{Ops, Size, Tensor, optional, tensor};
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

/// The attributes and inputs of later opsets, which this lowering does not implement.
fn refuse_unsupported(b: &Binder) -> Result<()> {
    if b.has_input(6) {
        bail!("input nonpad_kv_seqlen is not supported");
    }
    for window in ["left_window_size", "right_window_size"] {
        if b.int(window, -1)? != -1 {
            bail!("attribute {window} is not supported");
        }
    }
    if b.result_count() > 3 {
        bail!(
            "output qk_matmul_output is not supported (qk_matmul_output_mode {})",
            b.int("qk_matmul_output_mode", 0)?
        );
    }
    Ok(())
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

/// `attn_mask` (any rank up to 4, broadcasting against `[B, Nq, S, T]`) as rank 4.
fn mask_rank4<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    mask: Tensor<'c, 'a>,
    total: Size<'c, 'a>,
) -> Result<Tensor<'c, 'a>> {
    if mask.rank() == 0 || mask.rank() > 4 {
        bail!(
            "attn_mask has rank {}; it must broadcast against [B, q_num_heads, S, T]",
            mask.rank()
        );
    }
    if let (Some(Some(last)), Some(t)) = (mask.dims.last(), total.known)
        && *last != t
        && *last != 1
    {
        bail!(
            "attn_mask covers {last} keys but there are {t} (past plus new); padding a shorter mask is not supported"
        );
    }
    let mut mask = mask;
    while mask.rank() < 4 {
        mask = o.unsqueeze(&mask, 0)?;
    }
    Ok(mask)
}

/// Query `i` may attend key `j` when `j ≤ i + past`: `[1, 1, 1, S, T]`.
fn causal<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    seq: Size<'c, 'a>,
    total: Size<'c, 'a>,
    past: Option<Size<'c, 'a>>,
) -> Result<Tensor<'c, 'a>> {
    let keys = o.unsqueeze(&o.arange(total)?, 0)?;
    let mut last = o.arange(seq)?;
    if let Some(past) = past {
        last = o.scalar("add.Scalar", &last, past.value)?;
    }
    let allowed = o.binary("le.Tensor", &keys, &o.unsqueeze(&last, 1)?, DType::Bool)?;
    let mut allowed = allowed;
    for _ in 0..3 {
        allowed = o.unsqueeze(&allowed, 0)?;
    }
    Ok(allowed)
}

pub fn attention<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    refuse_unsupported(b)?;
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
    let (k, v, past_length) = match (past_key, past_value) {
        (Some(pk), Some(pv)) => {
            let past_length = o.size(&pk, 2)?;
            (
                with_past(&o, &pk, &k, "past_key")?,
                with_past(&o, &pv, &v, "past_value")?,
                Some(past_length),
            )
        }
        (None, None) => (k, v, None),
        _ => bail!("past_key and past_value must be given together"),
    };
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
    if b.int("is_causal", 0)? != 0 {
        let causal = causal(&o, seq, total, past_length)?;
        allowed = Some(match allowed {
            Some(mask) => o.binary("logical_and", &mask, &causal, DType::Bool)?,
            None => causal,
        });
    }
    // A bool mask can leave a query no key at all; ONNX gives such a row zeros.
    let any_key = match (&allowed, mask_is_bool) {
        (Some(allowed), true) => Some(any_allowed(&o, allowed, q.dtype)?),
        _ => None,
    };
    let scoring = Scoring {
        scale: default_scale(b.float("scale", 0.0)?, head_size),
        softcap: b.float("softcap", 0.0)?,
        additive,
        allowed,
    };
    let mut y = attend_heads(&o, &q, &k, &v, &scoring)?;
    if let Some(any_key) = any_key {
        y = zero_empty_rows(&o, &y, &any_key, kv_heads, group)?;
    }
    if three_d {
        y = merge_heads(&o, &y)?;
    }
    let values = [y.value, k.value, v.value];
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
