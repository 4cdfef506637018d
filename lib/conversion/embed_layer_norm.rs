//! com.microsoft EmbedLayerNormalization, the embedding block of BERT-class encoders
//! fused by ONNX Runtime's transformer optimizer: `word[input_ids] + position[p]
//! (+ segment[segment_ids])`, then a layer norm over the hidden axis with gamma and beta.
//! Positions are `0..S` unless `position_ids` gives them. Outputs: the normalized
//! embedding, `mask_index` (per batch, the count of mask entries equal to 1, as ONNX
//! Runtime's CPU kernel gives; 0s without a mask) and the sum before the norm.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::Binder;
use super::typed_ops::{Ops, Tensor, optional, tensor};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;
use crate::ops::Registry;

pub fn register(r: &mut Registry) {
    r.on_domain_op(
        "com.microsoft",
        "EmbedLayerNormalization",
        1,
        embed_layer_norm,
    );
}

/// Rows of `table` at `ids` (any integer type): `ids.shape + [H]`.
fn lookup<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    table: &Tensor<'c, 'a>,
    ids: &Tensor<'c, 'a>,
) -> Result<Tensor<'c, 'a>> {
    o.gather_rows(table, &o.cast(ids, DType::I64)?)
}

fn embed_layer_norm<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    let ids = tensor(b, 0, "input_ids")?;
    if ids.rank() != 2 {
        bail!("input_ids has rank {}; it must be [B, S]", ids.rank());
    }
    let word = tensor(b, 2, "word_embedding")?;
    let position = tensor(b, 3, "position_embedding")?;
    let Some(hidden) = word.dims.get(1).copied().flatten() else {
        bail!("word_embedding must be [V, H] with H known at compile time");
    };
    let positions = match optional(b, 8, "position_ids")? {
        Some(p) => p,
        None => o.unsqueeze(&o.arange(o.size(&ids, 1)?)?, 0)?,
    };
    let mut sum = o.add(
        &lookup(&o, &word, &ids)?,
        &lookup(&o, &position, &positions)?,
    )?;
    match (
        optional(b, 1, "segment_ids")?,
        optional(b, 4, "segment_embedding")?,
    ) {
        (Some(segments), Some(table)) => sum = o.add(&sum, &lookup(&o, &table, &segments)?)?,
        (None, None) => {}
        _ => bail!("segment_ids and segment_embedding must be given together"),
    }
    let gamma = tensor(b, 5, "gamma")?;
    let beta = tensor(b, 6, "beta")?;
    let epsilon = b.float("epsilon", 1e-12)?;
    let ty = TensorType::new(sum.dtype, sum.dims.clone());
    let normalized = t.aten_tensor(
        "layer_norm",
        &[
            sum.value,
            t.int_list(&[hidden])?,
            gamma.value,
            beta.value,
            t.float(epsilon)?,
            t.bool(false)?,
        ],
        &ty,
    )?;
    let batch = o.size(&ids, 0)?;
    let mask_index = match optional(b, 7, "mask")? {
        Some(mask) => {
            let ones = o.compare_scalar("eq.Scalar", &mask, t.int(1)?)?;
            let counts_type = TensorType::new(DType::I32, vec![batch.known]);
            t.aten_tensor(
                "sum.dim_IntList",
                &[
                    o.cast(&ones, DType::I32)?.value,
                    t.int_list(&[1])?,
                    t.bool(false)?,
                    t.int(DType::I32.torch_scalar_type())?,
                ],
                &counts_type,
            )?
        }
        None => {
            let none = t.none()?;
            t.aten_tensor(
                "zeros",
                &[
                    t.list(&[batch.value], "int")?,
                    t.int(DType::I32.torch_scalar_type())?,
                    none,
                    none,
                    none,
                ],
                &TensorType::new(DType::I32, vec![batch.known]),
            )?
        }
    };
    let values = [normalized, mask_index, sum.value];
    Ok(values.into_iter().take(b.result_count().max(1)).collect())
}
