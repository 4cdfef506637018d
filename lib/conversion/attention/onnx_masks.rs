//! The keys each query of ONNX Attention may see: `attn_mask` (padded with "not
//! allowed" when it covers fewer keys than there are), the causal frontier, the sliding
//! window (opset 25) and the padding `nonpad_kv_seqlen` marks (opset 24).
//!
//! Query `i` of the block sits at absolute position `i + offset`, where `offset` is the
//! past length (internal cache), `nonpad_kv_seqlen[b] − S` per batch (external cache),
//! or 0. With `d = i + offset − j`, key `j` is causal when `d ≥ 0`, inside the window
//! when `d ≤ left_window_size` and `−d ≤ right_window_size` (each bound −1 = none), and
//! not padding when `j < nonpad_kv_seqlen[b]`. Every tensor here is in the grouped
//! score layout `[B|1, N_kv|1, G|1, S, T]`.

use anyhow::{Result, bail};

use crate::conversion::typed_ops::{Ops, Size, Tensor};
use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;

/// Where the query block starts among the keys.
pub enum Offset<'c, 'a> {
    Zero,
    /// The past length of an internal cache.
    Past(Size<'c, 'a>),
    /// `nonpad_kv_seqlen` (int64 `[B]`) of an external cache; the offset is that − S.
    Valid(Tensor<'c, 'a>),
}

/// The rules besides `attn_mask` that hide keys.
pub struct Visibility {
    pub causal: bool,
    /// Keys at most this far before the query's position (−1: any).
    pub left_window: i64,
    /// Keys at most this far after it (−1: any).
    pub right_window: i64,
}

impl Visibility {
    fn windowed(&self) -> bool {
        self.left_window >= 0 || self.right_window >= 0
    }
}

/// `attn_mask` (any rank up to 4, broadcasting against `[B, Nq, S, T]`) as rank 4, its
/// keys padded to `total` with "not allowed" (false, or −inf for a float mask).
pub fn mask_rank4<'c, 'a>(
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
    let mut mask = mask;
    if let (Some(Some(last)), Some(t)) = (mask.dims.last().copied(), total.known)
        && last != t
        && last != 1
    {
        if last > t {
            bail!("attn_mask covers {last} keys but there are only {t} (past plus new)");
        }
        let fill = if mask.dtype == DType::Bool {
            0.0
        } else {
            f64::NEG_INFINITY
        };
        mask = pad_keys(o, &mask, t - last, fill)?;
    }
    while mask.rank() < 4 {
        mask = o.unsqueeze(&mask, 0)?;
    }
    Ok(mask)
}

/// `x` with `count` more keys (last axis) holding `fill`.
fn pad_keys<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    x: &Tensor<'c, 'a>,
    count: i64,
    fill: f64,
) -> Result<Tensor<'c, 'a>> {
    let mut dims = x.dims.clone();
    if let Some(Some(last)) = dims.last_mut() {
        *last += count;
    }
    let operands = [x.value, o.t.int_list(&[0, count])?, o.t.float(fill)?];
    let ty = TensorType::new(x.dtype, dims.clone());
    let value = o.t.aten_tensor("constant_pad_nd", &operands, &ty)?;
    Ok(Tensor {
        value,
        dims,
        dtype: x.dtype,
    })
}

/// The keys `rules` and `offset` allow, as a bool `[B|1, 1, 1, S, T]`; `None` when
/// they allow every key.
pub fn visible_keys<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    rules: &Visibility,
    offset: &Offset<'c, 'a>,
    seq: Size<'c, 'a>,
    total: Size<'c, 'a>,
) -> Result<Option<Tensor<'c, 'a>>> {
    let keys = o.unsqueeze(&o.arange(total)?, 0)?;
    let mut allowed: Option<Tensor> = None;
    let mut and = |x: Tensor<'c, 'a>| -> Result<()> {
        allowed = Some(match allowed.take() {
            Some(a) => o.binary("logical_and", &a, &x, DType::Bool)?,
            None => x,
        });
        Ok(())
    };
    if rules.causal || rules.windowed() {
        let position = query_positions(o, offset, seq)?;
        if rules.causal {
            and(o.binary("le.Tensor", &keys, &position, DType::Bool)?)?;
        }
        if rules.windowed() {
            let distance = o.sub(&position, &keys)?;
            if rules.left_window >= 0 {
                let left = o.t.int(rules.left_window)?;
                and(o.compare_scalar("le.Scalar", &distance, left)?)?;
            }
            if rules.right_window >= 0 {
                let right = o.t.int(-rules.right_window)?;
                and(o.compare_scalar("ge.Scalar", &distance, right)?)?;
            }
        }
    }
    if let Offset::Valid(valid) = offset {
        and(o.binary("lt.Tensor", &keys, &per_batch(o, valid)?, DType::Bool)?)?;
    }
    let Some(mut allowed) = allowed else {
        return Ok(None);
    };
    while allowed.rank() < 5 {
        allowed = o.unsqueeze(&allowed, 0)?;
    }
    Ok(Some(allowed))
}

/// The absolute position of each query: `[S, 1]`, or `[B, 1, 1, S, 1]` per batch.
fn query_positions<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    offset: &Offset<'c, 'a>,
    seq: Size<'c, 'a>,
) -> Result<Tensor<'c, 'a>> {
    let index = o.unsqueeze(&o.arange(seq)?, 1)?;
    match offset {
        Offset::Zero => Ok(index),
        Offset::Past(past) => o.scalar("add.Scalar", &index, past.value),
        Offset::Valid(valid) => {
            let start = o.scalar("sub.Scalar", &per_batch(o, valid)?, seq.value)?;
            o.add(&start, &index)
        }
    }
}

/// `[B]` as `[B, 1, 1, 1, 1]`.
fn per_batch<'c, 'a>(o: &Ops<'_, 'c, 'a>, x: &Tensor<'c, 'a>) -> Result<Tensor<'c, 'a>> {
    let one = o.int(1)?;
    o.reshape(x, &[o.size(x, 0)?, one, one, one, one])
}

/// `nonpad_kv_seqlen` as int64 `[B]`.
pub fn valid_lengths<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    lengths: Tensor<'c, 'a>,
) -> Result<Tensor<'c, 'a>> {
    if lengths.rank() != 1 {
        bail!(
            "nonpad_kv_seqlen has rank {}; it must be [batch_size]",
            lengths.rank()
        );
    }
    match lengths.dtype {
        DType::I64 => Ok(lengths),
        DType::I32 => o.cast(&lengths, DType::I64),
        other => bail!("nonpad_kv_seqlen must be int64, but is {other:?}"),
    }
}
