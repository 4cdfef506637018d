//! Dynamically quantized convolution and matrix product (`qlower.dynamic_conv`,
//! `dynamic_matmul`), as one step: DynamicQuantizeLinear's scale and zero point from
//! one min/max pass over the float input, the input quantized to uint8, the 8-bit
//! weights (packed once at plan time) multiplied on the integer tiles of `linalg`, and
//! each int32 sum converted to f32, times `x_scale·w_scale[channel]`, plus the bias
//! when there is one. Every float operation is the unfused IR's, in its order, so the
//! results are identical. Products that read one input in turn (a transformer's query,
//! key and value projections) quantize it once (`rows::quantized_once`). Where the fast
//! path declines (unusual geometry), the reference runs the int32 kernel of the unfused
//! IR and the same rescale.

use std::sync::Arc;

use anyhow::{Result, bail};

use super::dynamic_range::{min_max, parameters};
use super::quant::quantize_uint8;
use crate::kernels::isa::Isa;
use crate::kernels::linalg::conv::convolution;
use crate::kernels::linalg::matmul::matmul;
use crate::kernels::linalg::qconv::{self, ConvWeights, Geometry};
use crate::kernels::linalg::qmatmul::{self, MatmulWeights};
use crate::kernels::ops::pad::constant_pad_nd;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::tensor_type::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, Prepared, ResultType, call_for_tensor};

/// Operands: x, w, w_zero_point, w_scale, bias (or none), stride, padding, dilation,
/// groups, pads (or none). Packs the weights on every call; the plan prepares them.
pub fn dynamic_conv(c: &Call) -> Result<Vec<Value>> {
    let w = conv_weights(c.arg(1)?, c.arg(2)?, c.arg(8)?, c.arg(5).ok());
    conv_with(Isa::best(), c, w.as_ref())
}

/// `dynamic_conv` with its weights (operands 1, 2 and the groups, 8) packed once, for
/// the stride (5) when it is constant.
pub fn prepare_dynamic_conv(constants: &[Option<&Value>]) -> Option<Prepared> {
    let at = |i: usize| constants.get(i).copied().flatten();
    let w = conv_weights(at(1)?, at(2)?, at(8)?, at(5))?;
    Some(Arc::new(move |c: &Call| {
        conv_with(Isa::best(), c, Some(&w))
    }))
}

/// Operands: a, b (2-D), b_zero_point, b_scale, bias (per column, or none).
pub fn dynamic_matmul(c: &Call) -> Result<Vec<Value>> {
    let w = matmul_weights(c.arg(1)?, c.arg(2)?);
    matmul_with(Isa::best(), c, w.as_ref())
}

/// `dynamic_matmul` with b (operands 1 and 2) packed once.
pub fn prepare_dynamic_matmul(constants: &[Option<&Value>]) -> Option<Prepared> {
    let at = |i: usize| constants.get(i).copied().flatten();
    let w = matmul_weights(at(1)?, at(2)?)?;
    Some(Arc::new(move |c: &Call| {
        matmul_with(Isa::best(), c, Some(&w))
    }))
}

/// Scales of 1 as many as the zero points: the packers read a scale per zero point,
/// and the multipliers come from `w_scale` here instead.
fn unit_scales(zero_point: &Value) -> Option<Value> {
    match zero_point {
        Value::Tensor(z) if z.data.len() != 1 => {
            let t = Tensor::new(vec![z.data.len()], Data::F32(vec![1.0; z.data.len()])).ok()?;
            Some(Value::tensor(t))
        }
        _ => Some(Value::Float(1.0)),
    }
}

fn conv_weights(
    w: &Value,
    zero_point: &Value,
    groups: &Value,
    stride: Option<&Value>,
) -> Option<ConvWeights> {
    let zero_point = single(zero_point);
    ConvWeights::new(
        w.as_tensor().ok()?,
        &unit_scales(&zero_point)?,
        &zero_point,
        groups,
        stride,
    )
}

fn matmul_weights(b: &Value, zero_point: &Value) -> Option<MatmulWeights> {
    let zero_point = single(zero_point);
    MatmulWeights::new(b.as_tensor().ok()?, &unit_scales(&zero_point)?, &zero_point)
}

/// A one-element zero-point tensor as its integer, which the packers read per tensor.
fn single(zero_point: &Value) -> Value {
    match zero_point {
        Value::Tensor(z) if z.data.len() == 1 => Value::Int(z.data.to_i64()[0]),
        v => v.clone(),
    }
}

/// The input's values with DynamicQuantizeLinear's scale and zero point for them.
fn input_range(isa: Isa, x: &Tensor) -> Result<(&[f32], f32, u8)> {
    let Data::F32(values) = &x.data else {
        bail!("the input must be float32, but is {}", x.dtype());
    };
    if x.quant.is_some() {
        bail!("the input must be a float tensor, not a quantized one");
    }
    let Some((min, max)) = min_max(isa, values) else {
        bail!("DynamicQuantizeLinear of an empty tensor");
    };
    let (scale, zero_point) = parameters(min, max);
    Ok((values, scale, zero_point))
}

/// The input quantized as DynamicQuantizeLinear does: the uint8 tensor, its scale and
/// zero point.
fn quantize_input(isa: Isa, x: &Tensor) -> Result<(Tensor, f32, u8)> {
    let (values, scale, zero_point) = input_range(isa, x)?;
    let q = quantize_uint8(values, scale, zero_point as i64)?;
    Ok((
        Tensor::new(x.shape.clone(), Data::U8(q))?,
        scale,
        zero_point,
    ))
}

/// Float values of a scale or bias operand, checked to hold one value or `channels`,
/// and spread to one per channel.
fn per_channel(v: &Value, channels: usize, name: &str) -> Result<Vec<f32>> {
    let t = v.as_tensor()?;
    let Data::F32(values) = &t.data else {
        bail!("{name} must be float32, but is {}", t.dtype());
    };
    match values.len() {
        1 => Ok(vec![values[0]; channels]),
        n if n == channels => Ok(values.clone()),
        n => bail!("{name} has {n} values for {channels} channels"),
    }
}

/// `x_scale · w_scale[channel]`, as the model's Mul of the two scales computes it.
fn multipliers(x_scale: f32, c: &Call, channels: usize) -> Result<Vec<f32>> {
    Ok(per_channel(c.arg(3)?, channels, "w_scale")?
        .iter()
        .map(|&w| x_scale * w)
        .collect())
}

fn bias(c: &Call, channels: usize) -> Result<Option<Vec<f32>>> {
    match c.arg(4)? {
        Value::None => Ok(None),
        v => per_channel(v, channels, "bias").map(Some),
    }
}

/// The fast path on `isa` with packed weights `w`, else the reference.
fn conv_with(isa: Isa, c: &Call, w: Option<&ConvWeights>) -> Result<Vec<Value>> {
    let x = c.arg(0)?.as_tensor()?;
    let weights = c.arg(1)?.as_tensor()?;
    let Some(&channels) = weights.shape.first() else {
        bail!("the weights must have rank 3 to 5");
    };
    let (q, scale, zero_point) = quantize_input(isa, x)?;
    let multipliers = multipliers(scale, c, channels)?;
    let bias = bias(c, channels)?;
    if let Some(w) = w {
        let g = Geometry {
            stride: c.arg(5)?,
            padding: c.arg(6)?,
            dilation: c.arg(7)?,
            pads: c.arg(9)?,
        };
        if let Some(y) =
            qconv::run_rescaled(isa, &q, zero_point, &g, w, &multipliers, bias.as_deref())?
        {
            return Ok(vec![Value::tensor(y)]);
        }
    }
    let acc = reference_conv(c, q, zero_point)?;
    rescale(acc, 1, &multipliers, bias.as_deref())
}

/// The fast path on `isa` with packed weights `w`, else the reference.
fn matmul_with(isa: Isa, c: &Call, w: Option<&MatmulWeights>) -> Result<Vec<Value>> {
    let a = c.arg(0)?.as_tensor()?;
    let b = c.arg(1)?.as_tensor()?;
    let [_, columns] = b.shape[..] else {
        bail!("b must be 2-D, but has shape {:?}", b.shape);
    };
    if let Some(w) = w
        && let Some(y) = packed_matmul(isa, c, a, columns, w)?
    {
        return Ok(vec![Value::tensor(y)]);
    }
    let (q, scale, zero_point) = quantize_input(isa, a)?;
    let multipliers = multipliers(scale, c, columns)?;
    let bias = bias(c, columns)?;
    let acc = reference_matmul(c, q, zero_point)?;
    let axis = acc.shape.len().saturating_sub(1);
    rescale(acc, axis, &multipliers, bias.as_deref())
}

/// The fast path of `matmul_with`: a quantized straight into the packed rows the tiles
/// read (`rows::quantize`), or `None` for the reference.
fn packed_matmul(
    isa: Isa,
    c: &Call,
    a: &Tensor,
    columns: usize,
    w: &MatmulWeights,
) -> Result<Option<Tensor>> {
    let Some((&k, lead)) = a.shape.split_last() else {
        return Ok(None);
    };
    if k != w.depth() || k == 0 {
        return Ok(None);
    }
    let Value::Tensor(input) = c.arg(0)? else {
        return Ok(None);
    };
    let q = rows::quantized_once(input, k, || {
        let (values, scale, zero_point) = input_range(isa, a)?;
        Ok(rows::Quantized {
            rows: std::rc::Rc::new(rows::quantize(values, k, scale, zero_point)),
            scale,
            zero_point,
        })
    })?;
    let multipliers = multipliers(q.scale, c, columns)?;
    let bias = bias(c, columns)?;
    qmatmul::run_rescaled_packed(
        isa,
        lead,
        &q.rows,
        q.zero_point,
        w,
        &multipliers,
        bias.as_deref(),
    )
}

/// `float(acc) · multipliers[channel] (+ bias[channel])` along `axis`.
fn rescale(
    acc: Tensor,
    axis: usize,
    multipliers: &[f32],
    bias: Option<&[f32]>,
) -> Result<Vec<Value>> {
    let Data::I32(values) = &acc.data else {
        bail!("internal error: the accumulators are not int32");
    };
    let channels = acc.shape.get(axis).copied().unwrap_or(1).max(1);
    let inner: usize = acc.shape.get(axis + 1..).map_or(1, |s| s.iter().product());
    if multipliers.len() != channels {
        bail!("{} scales for {channels} channels", multipliers.len());
    }
    let y: Vec<f32> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let ch = (i / inner.max(1)) % channels;
            let f = v as f32 * multipliers[ch];
            match bias {
                Some(b) => f + b[ch],
                None => f,
            }
        })
        .collect();
    Ok(vec![Value::tensor(Tensor::new(acc.shape, Data::F32(y))?)])
}

/// The input's integers minus its zero point, as int32.
fn centred_input(q: &Tensor, zero_point: u8) -> Result<Tensor> {
    let Data::U8(v) = &q.data else {
        bail!("internal error: the quantized input is not uint8");
    };
    let data = v.iter().map(|&b| b as i32 - zero_point as i32).collect();
    Tensor::new(q.shape.clone(), Data::I32(data))
}

/// The weights minus their zero point (one, or one per index of `axis`), as int32.
fn centred_weights(w: &Tensor, zero_point: &Value, axis: usize) -> Result<Tensor> {
    let zero_points: Vec<i64> = match zero_point {
        Value::Tensor(z) => z.data.to_i64(),
        v => vec![v.as_int()?],
    };
    let axis_len = w.shape.get(axis).copied().unwrap_or(1).max(1);
    let inner: usize = w.shape.get(axis + 1..).map_or(1, |s| s.iter().product());
    if zero_points.len() != 1 && zero_points.len() != axis_len {
        bail!(
            "{} weight zero points for {axis_len} channels",
            zero_points.len()
        );
    }
    let data = w
        .data
        .to_i64()
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let ch = (i / inner.max(1)) % axis_len;
            (v - zero_points[if zero_points.len() == 1 { 0 } else { ch }]) as i32
        })
        .collect();
    Tensor::new(w.shape.clone(), Data::I32(data))
}

fn run_kernel(kernel: Kernel, args: &[Value]) -> Result<Tensor> {
    let int32 = ResultType::Tensor(TensorType {
        dtype: Some(DType::I32),
        shape: None,
    });
    call_for_tensor(kernel, args, int32)
}

/// The int32 convolution of the unfused IR: centred operands, padded with the
/// centred zero point (0), and the generic convolution kernel.
fn reference_conv(c: &Call, q: Tensor, zero_point: u8) -> Result<Tensor> {
    let mut x = Value::tensor(centred_input(&q, zero_point)?);
    if let Value::IntList(pads) = c.arg(9)? {
        x = Value::tensor(run_kernel(
            constant_pad_nd,
            &[x, Value::IntList(pads.clone()), Value::Float(0.0)],
        )?);
    }
    let w = Value::tensor(centred_weights(c.arg(1)?.as_tensor()?, c.arg(2)?, 0)?);
    let spatial = q.shape.len().saturating_sub(2);
    run_kernel(
        convolution,
        &[
            x,
            w,
            Value::None,
            c.arg(5)?.clone(),
            c.arg(6)?.clone(),
            c.arg(7)?.clone(),
            Value::Bool(false),
            Value::IntList(vec![0; spatial]),
            c.arg(8)?.clone(),
        ],
    )
}

/// The int32 matmul of the unfused IR on centred operands.
fn reference_matmul(c: &Call, q: Tensor, zero_point: u8) -> Result<Tensor> {
    let a = Value::tensor(centred_input(&q, zero_point)?);
    let b = Value::tensor(centred_weights(c.arg(1)?.as_tensor()?, c.arg(2)?, 1)?);
    run_kernel(matmul, &[a, b])
}

mod rows;
#[cfg(test)]
mod tests;
