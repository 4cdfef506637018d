//! com.microsoft MultiHeadAttention, as ONNX Runtime's CPU kernel computes it:
//! - query `[B, S, D]`; key and value `[B, L, D]` / `[B, L, Dv]` (split into heads,
//!   after adding their parts of `bias` `[D + D + Dv]`), or already in heads
//!   `[B, N, L, H]` (cross attention with a cached key/value);
//! - present K/V = past K/V `[B, N, P, H]` followed by the new ones;
//! - scores `Q·Kᵀ · scale` (default `1/√H`) get `mask_filter_value` where a key is
//!   masked (`key_padding_mask` `[B, T]` of 0/1, or `[B]` of valid lengths, and with
//!   `unidirectional` the keys after the query's position), plus `attention_bias`.
//!
//! Outputs: output `[B, S, N·Hv]`, present_key, present_value.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::core::{Scoring, attend, default_scale, grouped_bias, split_heads};
use crate::conversion::binder::Binder;
use crate::conversion::typed_ops::{Ops, Size, Tensor, optional, tensor};
use crate::dialect::builder::TorchBuilder;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

/// `x + bias[from..to]`.
fn with_bias<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    x: &Tensor<'c, 'a>,
    bias: Option<&Tensor<'c, 'a>>,
    from: i64,
    to: i64,
) -> Result<Tensor<'c, 'a>> {
    match bias {
        Some(bias) => o.add(x, &o.slice(bias, 0, from, to)?),
        None => Ok(x.clone()),
    }
}

fn hidden(x: &Tensor, name: &str) -> Result<i64> {
    match x.dims.last().copied().flatten() {
        Some(h) if x.rank() == 3 => Ok(h),
        _ => bail!("{name} must be [B, S, hidden] with a hidden size known at compile time"),
    }
}

/// Where keys may be attended, `[B, S|1, T]` before the two head axes are added: a
/// `[B]` of valid lengths, a `[B, T]` or `[B, S, T]` mask of 0/1, and with `causal` the
/// keys up to the query's position.
pub(super) fn allowed_keys<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    padding: Option<Tensor<'c, 'a>>,
    causal: bool,
    seq: Size<'c, 'a>,
    total: Size<'c, 'a>,
) -> Result<Option<Tensor<'c, 'a>>> {
    let keys = o.unsqueeze(&o.unsqueeze(&o.arange(total)?, 0)?, 0)?;
    let mut allowed = match padding {
        None => None,
        Some(mask) if mask.rank() == 2 => {
            let kept = o.compare_scalar("ne.Scalar", &mask, o.t.int(0)?)?;
            Some(o.unsqueeze(&kept, 1)?)
        }
        Some(mask) if mask.rank() == 3 => {
            Some(o.compare_scalar("ne.Scalar", &mask, o.t.int(0)?)?)
        }
        Some(lengths) if lengths.rank() == 1 => {
            let lengths = o.cast(&lengths, DType::I64)?;
            let ends = o.unsqueeze(&o.unsqueeze(&lengths, 1)?, 2)?;
            Some(o.binary("lt.Tensor", &keys, &ends, DType::Bool)?)
        }
        Some(mask) => bail!(
            "a mask of rank {} is not supported (only [B], [B, T] and [B, S, T])",
            mask.rank()
        ),
    };
    if causal {
        // Query s sits at position T − S + s.
        let steps = o.arange(seq)?;
        let past =
            o.t.aten("sub.int", &[total.value, seq.value], o.t.torch_type("int")?)?;
        let last = o.unsqueeze(&o.scalar("add.Scalar", &steps, past)?, 1)?;
        let causal = o.binary("le.Tensor", &keys, &o.unsqueeze(&last, 0)?, DType::Bool)?;
        allowed = Some(match allowed {
            Some(a) => o.binary("logical_and", &a, &causal, DType::Bool)?,
            None => causal,
        });
    }
    Ok(allowed)
}

/// `filter` where a key is not allowed, 0 elsewhere, in the grouped layout
/// `[B, 1, 1, S|1, T]`. ONNX Runtime adds mask_filter_value rather than removing the
/// key, so a row with every key masked keeps the softmax of its scores.
pub(super) fn filtered<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    allowed: &Tensor<'c, 'a>,
    filter: f64,
) -> Result<Tensor<'c, 'a>> {
    let masked = o.cast(&o.logical_not(allowed)?, DType::F32)?;
    let filter = o.scalar("mul.Scalar", &masked, o.t.float(filter)?)?;
    o.unsqueeze(&o.unsqueeze(&filter, 1)?, 1)
}

pub fn multi_head_attention<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    let heads = b.int("num_heads", 0)?;
    if heads <= 0 {
        bail!("num_heads must be positive, but is {heads}");
    }
    if b.has_input(8) || b.has_input(9) {
        bail!(
            "past_sequence_length and cache_indirection (decoder masked attention) are not supported"
        );
    }
    if b.result_count() > 3 && b.is_result_used(3) {
        bail!("output qk is not supported");
    }
    let query = tensor(b, 0, "query")?;
    let d = hidden(&query, "query")?;
    let bias = optional(b, 3, "bias")?;
    let key = tensor(b, 1, "key")?;
    let value = tensor(b, 2, "value")?;
    let q = split_heads(
        &o,
        &with_bias(&o, &query, bias.as_ref(), 0, d)?,
        heads,
        "query",
    )?;
    let (k, v) = if key.rank() == 4 {
        if bias.is_some() || b.has_input(6) {
            bail!("key in heads [B, N, L, H] takes neither bias nor past_key");
        }
        (key, value)
    } else {
        let dv = hidden(&value, "value")?;
        let k = with_bias(&o, &key, bias.as_ref(), d, 2 * d)?;
        let v = with_bias(&o, &value, bias.as_ref(), 2 * d, 2 * d + dv)?;
        let (k, v) = (
            split_heads(&o, &k, heads, "key")?,
            split_heads(&o, &v, heads, "value")?,
        );
        match (optional(b, 6, "past_key")?, optional(b, 7, "past_value")?) {
            (Some(pk), Some(pv)) => (o.cat(&[&pk, &k], 2)?, o.cat(&[&pv, &v], 2)?),
            (None, None) => (k, v),
            _ => bail!("past_key and past_value must be given together"),
        }
    };
    let Some(head_size) = q.dims[3] else {
        bail!("the head size must be known at compile time");
    };
    let (seq, total) = (o.size(&q, 2)?, o.size(&k, 2)?);
    let causal = b.int("unidirectional", 0)? != 0;
    let mut additive = Vec::new();
    let padding = optional(b, 4, "key_padding_mask")?;
    if let Some(allowed) = allowed_keys(&o, padding, causal, seq, total)? {
        additive.push(filtered(
            &o,
            &allowed,
            b.float("mask_filter_value", -10000.0)?,
        )?);
    }
    if let Some(bias) = optional(b, 5, "attention_bias")? {
        additive.push(grouped_bias(&o, &bias, heads, 1)?);
    }
    let scoring = Scoring {
        scale: default_scale(b.float("scale", 0.0)?, head_size),
        softcap: 0.0,
        additive,
        allowed: None,
    };
    let output = attend(&o, &q, &k, &v, &scoring)?;
    let values = [output.value, k.value, v.value];
    Ok(values.into_iter().take(b.result_count().max(1)).collect())
}
