//! ONNX RotaryEmbedding (opset 23, standard domain) through the shared rotation:
//! `input` `[B, N, S, H]` or `[B, S, N·H]` (with `num_heads`), `cos_cache` and
//! `sin_cache` `[max_position, rotary_dim / 2]` indexed by `position_ids` `[B, S]`, or,
//! without position_ids, already `[B, S, rotary_dim / 2]`. The first
//! `rotary_embedding_dim` features (default: all) of each head are rotated.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::rotary::{Angles, rotate};
use crate::conversion::binder::Binder;
use crate::conversion::typed_ops::{Ops, optional, tensor};
use crate::dialect::builder::TorchBuilder;
use crate::onnx::attributes::Attributes as _;

pub fn rotary_embedding<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    let x = tensor(b, 0, "input")?;
    let cos = tensor(b, 1, "cos_cache")?;
    let sin = tensor(b, 2, "sin_cache")?;
    let interleaved = b.int("interleaved", 0)? != 0;
    // `[B, S, half]` either way.
    let angles = match optional(b, 3, "position_ids")? {
        Some(ids) if ids.rank() == 2 => Angles::gather(&o, &cos, &sin, &ids)?,
        Some(ids) => bail!("position_ids has rank {}; it must be [B, S]", ids.rank()),
        None if cos.rank() == 3 && sin.rank() == 3 => Angles { cos, sin },
        None => {
            bail!("without position_ids, cos_cache and sin_cache must be [B, S, rotary_dim / 2]")
        }
    };
    let half = angles.half()?;
    let (heads, head_size) = match x.rank() {
        4 => (x.dims[1], x.dims[3]),
        3 => {
            let heads = b.int("num_heads", 0)?;
            if heads <= 0 {
                bail!("a 3-D input needs a positive num_heads, but it is {heads}");
            }
            let Some(hidden) = x.dims[2] else {
                bail!("the hidden size of input must be known at compile time");
            };
            if hidden % heads != 0 {
                bail!("the hidden size {hidden} is not a multiple of num_heads {heads}");
            }
            (Some(heads), Some(hidden / heads))
        }
        r => bail!("input has rank {r}; it must be [B, N, S, H] or [B, S, hidden]"),
    };
    let Some(head_size) = head_size else {
        bail!("the head size must be known at compile time");
    };
    let rotary_dim = match b.int("rotary_embedding_dim", 0)? {
        0 => head_size,
        d => d,
    };
    if rotary_dim != 2 * half {
        bail!(
            "rotary_embedding_dim {rotary_dim} does not match the caches' last dimension {half} (half of it)"
        );
    }
    let y = if x.rank() == 4 {
        rotate(&o, &x, &angles.unsqueezed(&o, 1)?, interleaved)?
    } else {
        let heads = heads.unwrap_or(1);
        let (batch, seq) = (o.size(&x, 0)?, o.size(&x, 1)?);
        let split = o.reshape(&x, &[batch, seq, o.int(heads)?, o.int(head_size)?])?;
        let rotated = rotate(&o, &split, &angles.unsqueezed(&o, 2)?, interleaved)?;
        o.reshape(&rotated, &[batch, seq, o.int(heads * head_size)?])?
    };
    Ok(vec![y.value])
}
