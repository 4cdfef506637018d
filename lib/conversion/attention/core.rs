//! Scaled dot-product attention over heads, with grouped key/value heads, as the
//! torch ops it is made of: scores `Q·Kᵀ · scale` (optionally soft-capped), a bias,
//! a mask, a softmax over keys, then the weighted sum of values.
//!
//! Query heads are grouped by the key/value head they share: `Q` `[B, N, S, H]`
//! becomes `[B, N_kv, G, S, H]` and `K` `[B, N_kv, T, H]` becomes `[B, N_kv, 1, T, H]`,
//! so one broadcasting matmul serves every group without copying K or V. Multi-head
//! attention is the case `G = 1`.

use anyhow::{Result, bail};

use crate::conversion::typed_ops::{Ops, Tensor};

/// What shapes the scores before the softmax; every tensor broadcasts against the
/// grouped scores `[B, N_kv, G, S, T]`.
pub struct Scoring<'c, 'a> {
    pub scale: f64,
    /// `softcap · tanh(scores / softcap)` when positive.
    pub softcap: f64,
    /// Added to the scores (an attention bias, an additive mask).
    pub additive: Vec<Tensor<'c, 'a>>,
    /// Where false, the key gets no weight at all.
    pub allowed: Option<Tensor<'c, 'a>>,
}

/// A `[B|1, N|1, S, T]` bias in the grouped layout `[B|1, N_kv|1, G|1, S, T]`.
pub fn grouped_bias<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    bias: &Tensor<'c, 'a>,
    kv_heads: i64,
    group: i64,
) -> Result<Tensor<'c, 'a>> {
    if bias.rank() != 4 {
        bail!(
            "attention_bias has rank {}; it must be [B, N, S, T]",
            bias.rank()
        );
    }
    if bias.dims[1] == Some(1) {
        return o.unsqueeze(bias, 1);
    }
    let sizes = [
        o.size(bias, 0)?,
        o.int(kv_heads)?,
        o.int(group)?,
        o.size(bias, 2)?,
        o.size(bias, 3)?,
    ];
    o.reshape(bias, &sizes)
}

/// Attention of `q` `[B, N, S, H]` over `k` `[B, N_kv, T, H]` and `v` `[B, N_kv, T, Hv]`:
/// `[B, S, N · Hv]`.
pub fn attend<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    q: &Tensor<'c, 'a>,
    k: &Tensor<'c, 'a>,
    v: &Tensor<'c, 'a>,
    scoring: &Scoring<'c, 'a>,
) -> Result<Tensor<'c, 'a>> {
    let per_head = attend_heads(o, q, k, v, scoring)?;
    let (Some(heads), Some(value_size)) = (per_head.dims[1], per_head.dims[3]) else {
        bail!("the numbers of heads and the value head size must be known at compile time");
    };
    let (batch, seq) = (o.size(&per_head, 0)?, o.size(&per_head, 2)?);
    let tokens = o.permute(&per_head, &[0, 2, 1, 3])?;
    o.reshape(&tokens, &[batch, seq, o.int(heads * value_size)?])
}

/// The same attention with the heads kept apart: `[B, N, S, Hv]`.
pub fn attend_heads<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    q: &Tensor<'c, 'a>,
    k: &Tensor<'c, 'a>,
    v: &Tensor<'c, 'a>,
    scoring: &Scoring<'c, 'a>,
) -> Result<Tensor<'c, 'a>> {
    Ok(attend_heads_capturing(o, q, k, v, scoring, None)?.0)
}

/// A step of the scores a caller may read besides the context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoresStage {
    /// `Q·Kᵀ · scale`.
    Scaled,
    /// After the soft cap (the scaled scores when there is none).
    Capped,
    /// After the bias and the mask; keys the mask removes hold `-inf`.
    Masked,
    /// The softmax weights.
    Weights,
}

/// `attend_heads`, also returning the scores at `capture` in the grouped layout
/// `[B, N_kv, G, S, T]`. A captured step has a second reader, so the chain no longer
/// fuses into one attention kernel.
pub fn attend_heads_capturing<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    q: &Tensor<'c, 'a>,
    k: &Tensor<'c, 'a>,
    v: &Tensor<'c, 'a>,
    scoring: &Scoring<'c, 'a>,
    capture: Option<ScoresStage>,
) -> Result<(Tensor<'c, 'a>, Option<Tensor<'c, 'a>>)> {
    if q.rank() != 4 || k.rank() != 4 || v.rank() != 4 {
        bail!(
            "query, key and value in heads must be [B, N, S, H], but have ranks {}, {} and {}",
            q.rank(),
            k.rank(),
            v.rank()
        );
    }
    let (Some(heads), Some(kv_heads)) = (q.dims[1], k.dims[1]) else {
        bail!("the numbers of heads must be known at compile time");
    };
    if kv_heads <= 0 || heads % kv_heads != 0 {
        bail!("{heads} query heads cannot be grouped over {kv_heads} key/value heads");
    }
    let group = heads / kv_heads;
    let Some(value_size) = v.dims[3] else {
        bail!("the value head size must be known at compile time");
    };
    let (batch, seq) = (o.size(q, 0)?, o.size(q, 2)?);
    let grouped_q = o.reshape(
        q,
        &[batch, o.int(kv_heads)?, o.int(group)?, seq, o.size(q, 3)?],
    )?;
    let keys = o.transpose_last(&o.unsqueeze(k, 2)?)?;
    let mut scores = o.matmul(&grouped_q, &keys)?;
    scores = o.scalar("mul.Scalar", &scores, o.t.float(scoring.scale)?)?;
    let mut captured = (capture == Some(ScoresStage::Scaled)).then(|| scores.clone());
    if scoring.softcap > 0.0 {
        let capped = o.scalar("div.Scalar", &scores, o.t.float(scoring.softcap)?)?;
        let capped = o.unary("tanh", &capped)?;
        scores = o.scalar("mul.Scalar", &capped, o.t.float(scoring.softcap)?)?;
    }
    if capture == Some(ScoresStage::Capped) {
        captured = Some(scores.clone());
    }
    for bias in &scoring.additive {
        scores = o.add(&scores, bias)?;
    }
    if capture == Some(ScoresStage::Masked) {
        captured = Some(match &scoring.allowed {
            Some(allowed) => o.where_else(allowed, &scores, f64::NEG_INFINITY)?,
            None => scores.clone(),
        });
    }
    if let Some(allowed) = &scoring.allowed {
        // The lowest finite value, not -inf: a weight of exactly 0 after the softmax
        // either way, and no inf − inf in the row maximum's subtraction.
        scores = o.where_else(allowed, &scores, f64::from(f32::MIN))?;
    }
    let weights = o.softmax_last(&scores)?;
    if capture == Some(ScoresStage::Weights) {
        captured = Some(weights.clone());
    }
    let context = o.matmul(&weights, &o.unsqueeze(v, 2)?)?;
    let context = o.reshape(&context, &[batch, o.int(heads)?, seq, o.int(value_size)?])?;
    Ok((context, captured))
}

/// `x` `[B, S, N·H]` as heads `[B, N, S, H]`.
pub fn split_heads<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    x: &Tensor<'c, 'a>,
    heads: i64,
    name: &str,
) -> Result<Tensor<'c, 'a>> {
    if x.rank() != 3 {
        bail!("{name} has rank {}; it must be [B, S, hidden]", x.rank());
    }
    let Some(hidden) = x.dims[2] else {
        bail!("the hidden size of {name} must be known at compile time");
    };
    if heads <= 0 || hidden % heads != 0 {
        bail!("the hidden size {hidden} of {name} is not a multiple of {heads} heads");
    }
    let sizes = [
        o.size(x, 0)?,
        o.size(x, 1)?,
        o.int(heads)?,
        o.int(hidden / heads)?,
    ];
    o.permute(&o.reshape(x, &sizes)?, &[0, 2, 1, 3])
}

/// The `scale` attribute, or `1/√H` when it is 0, rounded to f32 as ONNX Runtime
/// computes it.
pub fn default_scale(scale: f64, head_size: i64) -> f64 {
    if scale == 0.0 {
        f64::from(1.0f32 / (head_size as f32).sqrt())
    } else {
        f64::from(scale as f32)
    }
}
