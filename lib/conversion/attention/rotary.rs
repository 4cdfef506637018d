//! Rotary position embedding, shared by com.microsoft RotaryEmbedding and by
//! GroupQueryAttention's `do_rotary`: the first `rotary_dim` features of every head
//! are rotated in pairs by the angle of the token's position, read from the cos and
//! sin caches (`[max_position, rotary_dim / 2]`):
//! - split halves (default): pair (i, i + rotary_dim/2);
//! - interleaved: pair (2i, 2i + 1);
//!
//! `(x1, x2) → (x1·cos − x2·sin, x2·cos + x1·sin)`, features past `rotary_dim` kept.

use anyhow::{Result, bail};

use crate::conversion::binder::Binder;
use crate::conversion::typed_ops::{Ops, Size, Tensor, tensor};
use crate::dialect::builder::TorchBuilder;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

/// The cos and sin of each position, gathered from the caches: `positions.shape +
/// [rotary_dim / 2]`.
pub struct Angles<'c, 'a> {
    pub cos: Tensor<'c, 'a>,
    pub sin: Tensor<'c, 'a>,
}

impl<'c, 'a> Angles<'c, 'a> {
    pub fn gather(
        o: &Ops<'_, 'c, 'a>,
        cos_cache: &Tensor<'c, 'a>,
        sin_cache: &Tensor<'c, 'a>,
        positions: &Tensor<'c, 'a>,
    ) -> Result<Self> {
        if cos_cache.rank() != 2 || sin_cache.rank() != 2 {
            bail!("cos_cache and sin_cache must be 2-D [max_position, rotary_dim / 2]");
        }
        let positions = o.cast(positions, DType::I64)?;
        Ok(Angles {
            cos: o.gather_rows(cos_cache, &positions)?,
            sin: o.gather_rows(sin_cache, &positions)?,
        })
    }

    /// Half the rotary dimension, which the caches' second axis must state.
    pub fn half(&self) -> Result<i64> {
        match self.cos.dims.last().copied().flatten() {
            Some(h) if h > 0 => Ok(h),
            _ => bail!("the rotary caches' second dimension must be known at compile time"),
        }
    }

    /// Both tables with an axis of size 1 inserted at `axis` (to broadcast over heads).
    pub fn unsqueezed(&self, o: &Ops<'_, 'c, 'a>, axis: usize) -> Result<Self> {
        Ok(Angles {
            cos: o.unsqueeze(&self.cos, axis)?,
            sin: o.unsqueeze(&self.sin, axis)?,
        })
    }
}

/// `x` (last axis the head size) with its first `2 · angles.half()` features rotated;
/// the angles broadcast against `x` without its last axis.
pub fn rotate<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    x: &Tensor<'c, 'a>,
    angles: &Angles<'c, 'a>,
    interleaved: bool,
) -> Result<Tensor<'c, 'a>> {
    let half = angles.half()?;
    let rotary = 2 * half;
    let Some(head) = x.dims.last().copied().flatten() else {
        bail!("the head size must be known at compile time");
    };
    if rotary > head {
        bail!("the rotary dimension {rotary} exceeds the head size {head}");
    }
    let part = if rotary < head {
        o.slice(x, -1, 0, rotary)?
    } else {
        x.clone()
    };
    let (x1, x2) = if interleaved {
        let mut sizes: Vec<Size> = (0..part.rank() - 1)
            .map(|a| o.size(&part, a as i64))
            .collect::<Result<_>>()?;
        sizes.push(o.int(half)?);
        sizes.push(o.int(2)?);
        let pairs = o.reshape(&part, &sizes)?;
        (o.select(&pairs, -1, 0)?, o.select(&pairs, -1, 1)?)
    } else {
        (
            o.slice(&part, -1, 0, half)?,
            o.slice(&part, -1, half, rotary)?,
        )
    };
    let first = o.sub(&o.mul(&x1, &angles.cos)?, &o.mul(&x2, &angles.sin)?)?;
    let second = o.add(&o.mul(&x2, &angles.cos)?, &o.mul(&x1, &angles.sin)?)?;
    let rotated = if interleaved {
        let pairs = o.stack_last(&[&first, &second])?;
        let mut sizes: Vec<Size> = (0..part.rank() - 1)
            .map(|a| o.size(&part, a as i64))
            .collect::<Result<_>>()?;
        sizes.push(o.int(rotary)?);
        o.reshape(&pairs, &sizes)?
    } else {
        o.cat(&[&first, &second], -1)?
    };
    if rotary < head {
        let rest = o.slice(x, -1, rotary, head)?;
        return o.cat(&[&rotated, &rest], -1);
    }
    Ok(rotated)
}

/// `offset + [0, 1, ..., seq - 1]` for every batch: `[batch, seq]` int64.
pub fn offset_positions<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    offsets: &Tensor<'c, 'a>,
    seq: Size<'c, 'a>,
) -> Result<Tensor<'c, 'a>> {
    let steps = o.unsqueeze(&o.arange(seq)?, 0)?;
    let offsets = o.cast(offsets, DType::I64)?;
    let column = match offsets.rank() {
        1 => o.unsqueeze(&offsets, 1)?,
        r => bail!("position offsets of rank {r} where rank 1 was expected"),
    };
    o.add(&column, &steps)
}

/// com.microsoft RotaryEmbedding: `input` `[B, S, hidden]` or `[B, N, S, H]`,
/// `position_ids` `[B, S]` (or `[1]`, an offset for all), `cos_cache`, `sin_cache`.
pub fn rotary_embedding<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> anyhow::Result<Vec<melior::ir::Value<'c, 'a>>> {
    let o = Ops::new(t);
    let x = tensor(b, 0, "input")?;
    let ids = tensor(b, 1, "position_ids")?;
    let cos = tensor(b, 2, "cos_cache")?;
    let sin = tensor(b, 3, "sin_cache")?;
    let interleaved = b.int("interleaved", 0)? != 0;
    if b.int("is_packed_batching", 0)? != 0 {
        bail!("is_packed_batching is not supported");
    }
    let seq_axis = match x.rank() {
        3 => 1,
        4 => 2,
        r => bail!("input has rank {r}; RotaryEmbedding takes [B, S, hidden] or [B, N, S, H]"),
    };
    let seq = o.size(&x, seq_axis)?;
    let positions = if ids.rank() == 1 {
        // One offset for every batch: `[1, S]`, broadcast over the batch.
        let steps = o.add(&o.arange(seq)?, &o.cast(&ids, DType::I64)?)?;
        o.unsqueeze(&steps, 0)?
    } else if ids.rank() == 2 {
        ids.clone()
    } else {
        bail!(
            "position_ids has rank {}; it must be [B, S] or [1]",
            ids.rank()
        );
    };
    let angles = Angles::gather(&o, &cos, &sin, &positions)?;
    let rotary_dim = b.int("rotary_embedding_dim", 0)?;
    if rotary_dim != 0 && rotary_dim != 2 * angles.half()? {
        bail!(
            "rotary_embedding_dim {rotary_dim} does not match the caches' {}",
            2 * angles.half()?
        );
    }
    let y = if x.rank() == 4 {
        rotate(&o, &x, &angles.unsqueezed(&o, 1)?, interleaved)?
    } else {
        let Some(hidden) = x.dims[2] else {
            bail!("the hidden size of input must be known at compile time");
        };
        let heads = match b.int("num_heads", 0)? {
            0 => hidden / (2 * angles.half()?),
            n => n,
        };
        if heads <= 0 || hidden % heads != 0 {
            bail!("the hidden size {hidden} is not a multiple of num_heads {heads}");
        }
        let (batch, seq) = (o.size(&x, 0)?, o.size(&x, 1)?);
        let split = o.reshape(&x, &[batch, seq, o.int(heads)?, o.int(hidden / heads)?])?;
        let rotated = rotate(&o, &split, &angles.unsqueezed(&o, 2)?, interleaved)?;
        o.reshape(&rotated, &[batch, seq, o.int(hidden)?])?
    };
    Ok(vec![y.value])
}
