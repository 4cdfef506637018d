//! com.microsoft Attention and QAttention: self-attention whose Q, K and V come from one
//! projection of the input (`input · weights + bias`, weights `[D_in, D_q + D_k + D_v]`,
//! split by `qkv_hidden_sizes`), as BERT-class encoders fused by ONNX Runtime's
//! transformer optimizer carry it. QAttention's projection reads a quantized input and
//! weight (per tensor, or the weight per column), written as dequantize → matmul, which
//! the backend runs as an integer matmul.
//! - past `[2, B, N, P, H]` (keys, then values) goes before the new keys and values;
//!   present is the same stacked pair after them;
//! - mask_index: `[B]` valid lengths, `[B, T]` or `[B, S, T]` of 0/1; masked keys and,
//!   with `unidirectional`, later keys get `mask_filter_value` added;
//! - attention_bias `[B|1, N|1, S, T]` added to the scores.
//!
//! Outputs: output `[B, S, D_v]`, present.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::core::{Scoring, attend, default_scale, grouped_bias, split_heads};
use super::mha::{allowed_keys, filtered};
use crate::conversion::binder::Binder;
use crate::conversion::qlinear_conv::check_8bit;
use crate::conversion::quant_params::{ParamSpec, dequantize, read_params};
use crate::conversion::typed_ops::{Ops, Tensor, optional, tensor};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

/// Where a node's inputs sit: Attention and QAttention order them differently.
struct Slots {
    mask: usize,
    past: usize,
    attention_bias: Option<usize>,
    unsupported: &'static [(usize, &'static str)],
}

const ATTENTION: Slots = Slots {
    mask: 3,
    past: 4,
    attention_bias: Some(5),
    unsupported: &[(6, "past_sequence_length")],
};

const QATTENTION: Slots = Slots {
    mask: 5,
    past: 8,
    attention_bias: None,
    unsupported: &[],
};

pub fn attention<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    let input = tensor(b, 0, "input")?;
    let weights = tensor(b, 1, "weights")?;
    if input.dtype != DType::F32 || weights.dtype != DType::F32 {
        bail!("input and weights must be FLOAT");
    }
    let qkv = o.matmul(&input, &weights)?;
    finish(b, &o, qkv, &ATTENTION)
}

pub fn qattention<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    let dequantized = |data: usize, scale: usize, zero_point: usize, name: &'static str, axis| {
        let ty = b.input_type(data, name)?;
        let spec = ParamSpec {
            scale_input: scale,
            zero_point_input: zero_point,
            scale_name: if data == 0 {
                "input_scale"
            } else {
                "weight_scale"
            },
            zero_point_name: if data == 0 {
                "input_zero_point"
            } else {
                "weight_zero_point"
            },
            data_name: name,
            axis,
            default_storage: check_8bit(&ty, name)?,
        };
        let params = read_params(b, &spec, &ty)?;
        let value = dequantize(t, b.input(data, name)?, &ty, &params)?;
        Tensor::new(
            value,
            &TensorType {
                dtype: Some(DType::F32),
                ..ty
            },
            name,
        )
    };
    let input = dequantized(0, 3, 6, "input", 0)?;
    if b.input_type(3, "input_scale")?
        .shape
        .is_some_and(|s| s.iter().copied().product::<Option<i64>>() != Some(1))
    {
        bail!("input_scale must be a scalar (per tensor)");
    }
    let weights = dequantized(1, 4, 7, "weight", -1)?;
    let qkv = o.matmul(&input, &weights)?;
    finish(b, &o, qkv, &QATTENTION)
}

/// The attention of the projection `qkv` (before the bias, input 2).
fn finish<'c, 'a>(
    b: &Binder<'c, 'a>,
    o: &Ops<'_, 'c, 'a>,
    qkv: Tensor<'c, 'a>,
    slots: &Slots,
) -> Result<Vec<Value<'c, 'a>>> {
    for &(i, name) in slots.unsupported {
        if b.has_input(i) {
            bail!("input {name} is not supported");
        }
    }
    if b.int("do_rotary", 0)? != 0 || b.int("past_present_share_buffer", 0)? != 0 {
        bail!("do_rotary and past_present_share_buffer are not supported");
    }
    let heads = b.int("num_heads", 0)?;
    if heads <= 0 {
        bail!("num_heads must be positive, but is {heads}");
    }
    let Some(total) = qkv.dims.last().copied().flatten() else {
        bail!("the projection's width must be known at compile time");
    };
    let sizes = b.ints("qkv_hidden_sizes", &[total / 3, total / 3, total / 3])?;
    let [dq, dk, dv] = sizes[..] else {
        bail!(
            "qkv_hidden_sizes must have 3 entries, but has {}",
            sizes.len()
        );
    };
    if dq != dk || dq + dk + dv != total || dq <= 0 || dv <= 0 {
        bail!(
            "qkv_hidden_sizes {sizes:?} do not split a projection of width {total} (Q and K must be equal)"
        );
    }
    let qkv = match optional(b, 2, "bias")? {
        Some(bias) => o.add(&qkv, &bias)?,
        None => qkv,
    };
    let q = split_heads(o, &o.slice(&qkv, -1, 0, dq)?, heads, "Q")?;
    let mut k = split_heads(o, &o.slice(&qkv, -1, dq, dq + dk)?, heads, "K")?;
    let mut v = split_heads(o, &o.slice(&qkv, -1, dq + dk, total)?, heads, "V")?;
    if let Some(past) = optional(b, slots.past, "past")? {
        if past.rank() != 5 {
            bail!("past has rank {}; it must be [2, B, N, P, H]", past.rank());
        }
        k = o.cat(&[&o.select(&past, 0, 0)?, &k], 2)?;
        v = o.cat(&[&o.select(&past, 0, 1)?, &v], 2)?;
    }
    let Some(head_size) = q.dims[3] else {
        bail!("the head size must be known at compile time");
    };
    let (seq, keys) = (o.size(&q, 2)?, o.size(&k, 2)?);
    let causal = b.int("unidirectional", 0)? != 0;
    let mut additive = Vec::new();
    let mask = optional(b, slots.mask, "mask_index")?;
    if let Some(allowed) = allowed_keys(o, mask, causal, seq, keys)? {
        additive.push(filtered(
            o,
            &allowed,
            b.float("mask_filter_value", -10000.0)?,
        )?);
    }
    if let Some(i) = slots.attention_bias
        && let Some(bias) = optional(b, i, "attention_bias")?
    {
        additive.push(grouped_bias(o, &bias, heads, 1)?);
    }
    let scoring = Scoring {
        scale: default_scale(b.float("scale", 0.0)?, head_size),
        softcap: 0.0,
        additive,
        allowed: None,
    };
    let output = attend(o, &q, &k, &v, &scoring)?;
    let mut values = vec![output.value];
    if b.result_count() > 1 {
        if k.dims[3] != v.dims[3] {
            bail!("present needs keys and values of one head size");
        }
        let present = o.stack_first(&[&k, &v])?;
        values.push(present.value);
    }
    Ok(values)
}
