//! com.microsoft EmbedLayerNormalization, the embedding block of BERT-class encoders
//! fused by ONNX Runtime's transformer optimizer: `word[input_ids] + position[p]
//! (+ segment[segment_ids])`, then a layer norm over the hidden axis with gamma and beta.
//! Positions are `0..S` unless `position_ids` gives them. Outputs: the normalized
//! embedding, `mask_index` (per batch, the count of mask entries equal to 1, as ONNX
//! Runtime's CPU kernel gives; 0s without a mask) and the sum before the norm.
//! QEmbedLayerNormalization is the same over 8-bit tables, dequantized first.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::qlinear_conv::check_8bit;
use super::quant_params::{ParamSpec, dequantize, read_params};
use super::typed_ops::{Ops, Tensor, optional, tensor};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_domain_op(
        "com.microsoft",
        "EmbedLayerNormalization",
        1,
        embed_layer_norm,
    );
    r.on_domain_op(
        "com.microsoft",
        "QEmbedLayerNormalization",
        1,
        qembed_layer_norm,
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

/// The tables and the norm's parameters, float.
struct Tables<'c, 'a> {
    word: Tensor<'c, 'a>,
    position: Tensor<'c, 'a>,
    segment: Option<Tensor<'c, 'a>>,
    gamma: Tensor<'c, 'a>,
    beta: Tensor<'c, 'a>,
}

fn embed_layer_norm<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let tables = Tables {
        word: tensor(b, 2, "word_embedding")?,
        position: tensor(b, 3, "position_embedding")?,
        segment: optional(b, 4, "segment_embedding")?,
        gamma: tensor(b, 5, "gamma")?,
        beta: tensor(b, 6, "beta")?,
    };
    embed(b, t, &tables, optional(b, 8, "position_ids")?)
}

/// QEmbedLayerNormalization (ONNX Runtime's quantizer's form of the op): the five
/// tables stored as 8-bit (inputs 2..6) with per-tensor scales (8..12) and zero points
/// (13..17), dequantized, then the same computation. Outputs: the norm and mask_index.
fn qembed_layer_norm<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let table = |i: usize, name: &'static str| -> Result<Option<Tensor<'c, 'a>>> {
        if !b.has_input(i) {
            return Ok(None);
        }
        let ty = b.input_type(i, name)?;
        let spec = ParamSpec {
            scale_input: i + 6,
            zero_point_input: i + 11,
            scale_name: "scale",
            zero_point_name: "zero_point",
            data_name: name,
            axis: 0,
            default_storage: check_8bit(&ty, name)?,
        };
        let params = read_params(b, &spec, &ty)?;
        if params.axis.is_some() {
            bail!("the scale of {name} must be a scalar (per tensor)");
        }
        let value = dequantize(t, b.input(i, name)?, &ty, &params)?;
        Ok(Some(Tensor::new(value, &ty.with_dtype(DType::F32), name)?))
    };
    let required =
        |i, name| table(i, name)?.ok_or_else(|| anyhow::anyhow!("input {name} is required"));
    let tables = Tables {
        word: required(2, "word_embedding_quant")?,
        position: required(3, "position_embedding_quant")?,
        segment: table(4, "segment_embedding_quant")?,
        gamma: required(5, "gamma_quant")?,
        beta: required(6, "beta_quant")?,
    };
    embed(b, t, &tables, None)
}

/// The embedding sum of the node's ids (inputs 0 and 1) and `tables`, normalized; the
/// mask is input 7.
fn embed<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    tables: &Tables<'c, 'a>,
    position_ids: Option<Tensor<'c, 'a>>,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    let ids = tensor(b, 0, "input_ids")?;
    if ids.rank() != 2 {
        bail!("input_ids has rank {}; it must be [B, S]", ids.rank());
    }
    let (word, position) = (&tables.word, &tables.position);
    let Some(hidden) = word.dims.get(1).copied().flatten() else {
        bail!("word_embedding must be [V, H] with H known at compile time");
    };
    let positions = match position_ids {
        Some(p) => p,
        None => o.unsqueeze(&o.arange(o.size(&ids, 1)?)?, 0)?,
    };
    let mut sum = o.add(&lookup(&o, word, &ids)?, &lookup(&o, position, &positions)?)?;
    match (optional(b, 1, "segment_ids")?, &tables.segment) {
        (Some(segments), Some(table)) => sum = o.add(&sum, &lookup(&o, table, &segments)?)?,
        (None, None) => {}
        _ => bail!("segment_ids and segment_embedding must be given together"),
    }
    let (gamma, beta) = (&tables.gamma, &tables.beta);
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
