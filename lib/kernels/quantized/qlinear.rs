//! Fused quantized convolution and matrix product, as ONNX Runtime computes them: the
//! operands' integers are centred on their zero points, accumulated in int32 (the bias
//! added into the accumulator), and each accumulator is requantized with one float32
//! multiplier, `x_scale·w_scale[c] / y_scale`, rounded half to even, offset by the
//! output zero point and saturated. The plan builds these steps where the IR has a
//! convolution or matmul of dequantized operands whose result is quantized again; the
//! float path would round differently near ties.

use anyhow::{Result, bail};

use std::sync::Arc;

use crate::kernels::linalg::conv::convolution;
use crate::kernels::linalg::matmul::matmul;
use crate::kernels::linalg::qconv::{self, ConvWeights};
use crate::kernels::linalg::qmatmul::{self, MatmulWeights};
use crate::kernels::linalg::qparams::{Params, output_kind};
use crate::kernels::ops::pad::constant_pad_nd;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::tensor_type::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor};
use crate::kernels::{Call, Prepared, ResultType, call_for_tensor};

/// The integers of `t` minus their zero point, per slice along `axis` (dimension 0 of
/// a weight, or the last dimension of a matmul operand).
fn centred(t: &Tensor, p: &Params, axis: usize) -> Result<Tensor> {
    let values = t.data.to_i64();
    let axis_len = t.shape.get(axis).copied().unwrap_or(1).max(1);
    let inner: usize = t.shape.get(axis + 1..).map_or(1, |s| s.iter().product());
    if p.zero_points.len() > 1 && p.zero_points.len() != axis_len {
        bail!(
            "{} zero points for an axis of {axis_len}",
            p.zero_points.len()
        );
    }
    let data: Vec<i32> = values
        .iter()
        .enumerate()
        .map(|(i, &q)| {
            let c = (i / inner.max(1)) % axis_len;
            (q - p.zero_point(c)) as i32
        })
        .collect();
    Tensor::new(t.shape.clone(), Data::I32(data))
}

fn int32_type() -> ResultType {
    ResultType::Tensor(TensorType {
        dtype: Some(DType::I32),
        shape: None,
    })
}

/// Requantizes int32 accumulators laid out as [.., channel, inner..] (`channel_of(i)`
/// picks each element's channel, below `channels`) into the declared quantized type.
fn requantize(
    acc: &Tensor,
    channels: usize,
    channel_of: impl Fn(usize) -> usize,
    input: &Params,
    weight: &Params,
    output: &Params,
    declared: &ResultType,
) -> Result<Tensor> {
    let ResultType::Tensor(ty) = declared else {
        bail!("the quantized result must be a tensor");
    };
    let Some((signed, quantized)) = output_kind(ty.dtype) else {
        bail!("fused requantization to {:?} is not supported", ty.dtype);
    };
    let (lo, hi, storage) = if signed {
        (-128, 127, DType::I8)
    } else {
        (0i64, 255i64, DType::U8)
    };
    let Data::I32(acc_values) = &acc.data else {
        bail!("internal error: accumulators are not int32");
    };
    let y_scale = output.scale(0);
    let y_zero = output.zero_point(0);
    if weight.scales.len() != 1 && weight.scales.len() != channels {
        bail!(
            "{} weight scales for {channels} output channels",
            weight.scales.len()
        );
    }
    // One float32 multiplier per channel, computed in this order, as ONNX Runtime does.
    let multipliers: Vec<f32> = (0..channels)
        .map(|c| input.scale(0) * weight.scale(c) / y_scale)
        .collect();
    let values: Vec<i64> = acc_values
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let multiplier = multipliers[channel_of(i) % channels];
            let scaled = (a as f32 * multiplier).round_ties_even() as i64;
            // Saturating: an infinite multiplier makes `scaled` i64::MAX.
            scaled.saturating_add(y_zero).clamp(lo, hi)
        })
        .collect();
    let data = match storage {
        DType::U8 => Data::U8(values.iter().map(|&v| v as u8).collect()),
        _ => Data::I8(values.iter().map(|&v| v as i8).collect()),
    };
    let mut t = Tensor::new(acc.shape.clone(), data)?;
    if quantized {
        t.quant = Some(Quant::PerTensor {
            scale: y_scale as f64,
            zero_point: y_zero,
        });
    }
    Ok(t)
}

/// Operands: x, x_scale, x_zero_point, w, w_scale, w_zero_point, bias (int32 or none),
/// bias_zero_point (int or none), stride, padding, dilation, groups, input pads (torch
/// order, or none), y_scale, y_zero_point.
pub fn qlinear_conv(c: &Call) -> Result<Vec<Value>> {
    match ConvWeights::new(
        c.arg(3)?.as_tensor()?,
        c.arg(4)?,
        c.arg(5)?,
        c.arg(11)?,
        c.arg(8).ok(),
    ) {
        Some(w) => conv_with(c, &w),
        None => reference_conv(c),
    }
}

/// `qlinear_conv` with its weights (operands 3–5 and the groups, 11) packed once, for
/// the stride (8) when it is constant.
pub fn prepare_conv(constants: &[Option<&Value>]) -> Option<Prepared> {
    let at = |i: usize| constants.get(i).copied().flatten();
    let w = ConvWeights::new(at(3)?.as_tensor().ok()?, at(4)?, at(5)?, at(11)?, at(8))?;
    Some(Arc::new(move |c: &Call| conv_with(c, &w)))
}

fn conv_with(c: &Call, w: &ConvWeights) -> Result<Vec<Value>> {
    match qconv::run(c, w)? {
        Some(out) => Ok(out),
        None => reference_conv(c),
    }
}

/// The reference: the operands centred on their zero points, the int32 convolution
/// kernel, then `requantize`. The fast path is tested against it.
pub fn reference_conv(c: &Call) -> Result<Vec<Value>> {
    let x = c.arg(0)?.as_tensor()?;
    let xp = Params::read(c.arg(1)?, c.arg(2)?)?;
    let w = c.arg(3)?.as_tensor()?;
    let wp = Params::read(c.arg(4)?, c.arg(5)?)?;
    let yp = Params::read(c.arg(13)?, c.arg(14)?)?;
    if xp.scales.len() != 1 || yp.scales.len() != 1 {
        bail!("the input and output must be quantized per tensor");
    }
    let mut x32 = Value::tensor(centred(x, &xp, 0)?);
    // Padding after centring puts the zero point in the padded positions, as the
    // quantized input would have them.
    if let Value::IntList(pads) = c.arg(12)? {
        let zero = Value::Float(0.0);
        x32 = Value::tensor(call_for_tensor(
            constant_pad_nd,
            &[x32, Value::IntList(pads.clone()), zero],
            int32_type(),
        )?);
    }
    let w32 = Value::tensor(centred(w, &wp, 0)?);
    let bias = match c.arg(6)? {
        Value::Tensor(b) => {
            let zero_points: Vec<i64> = match c.arg(7)? {
                Value::None => vec![0],
                Value::Tensor(z) => z.data.to_i64(),
                v => vec![v.as_int()?],
            };
            let values: Vec<i32> = b
                .data
                .to_i64()
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    (v - zero_points
                        .get(i)
                        .or(zero_points.first())
                        .copied()
                        .unwrap_or(0)) as i32
                })
                .collect();
            Value::tensor(Tensor::new(b.shape.clone(), Data::I32(values))?)
        }
        _ => Value::None,
    };
    let rank = x.shape.len();
    let output_padding = Value::IntList(vec![0; rank.saturating_sub(2)]);
    let acc = call_for_tensor(
        convolution,
        &[
            x32,
            w32,
            bias,
            c.arg(8)?.clone(),
            c.arg(9)?.clone(),
            c.arg(10)?.clone(),
            Value::Bool(false),
            output_padding,
            c.arg(11)?.clone(),
        ],
        int32_type(),
    )?;
    let channels = acc.shape.get(1).copied().unwrap_or(1).max(1);
    let inner: usize = acc
        .shape
        .get(2..)
        .map_or(1, |s| s.iter().product::<usize>().max(1));
    let y = requantize(
        &acc,
        channels,
        |i| (i / inner) % channels,
        &xp,
        &wp,
        &yp,
        c.result(0)?,
    )?;
    Ok(vec![Value::tensor(y)])
}

/// Operands: a, a_scale, a_zero_point, b, b_scale, b_zero_point (per tensor, or per
/// column of b), y_scale, y_zero_point.
pub fn qlinear_matmul(c: &Call) -> Result<Vec<Value>> {
    match MatmulWeights::new(c.arg(3)?.as_tensor()?, c.arg(4)?, c.arg(5)?) {
        Some(w) => matmul_with(c, &w),
        None => match qmatmul::run_batched(c)? {
            Some(out) => Ok(out),
            None => reference_matmul(c),
        },
    }
}

/// `qlinear_matmul` with b (operands 3–5) packed once.
pub fn prepare_matmul(constants: &[Option<&Value>]) -> Option<Prepared> {
    let at = |i: usize| constants.get(i).copied().flatten();
    let w = MatmulWeights::new(at(3)?.as_tensor().ok()?, at(4)?, at(5)?)?;
    Some(Arc::new(move |c: &Call| matmul_with(c, &w)))
}

fn matmul_with(c: &Call, w: &MatmulWeights) -> Result<Vec<Value>> {
    match qmatmul::run(c, w)? {
        Some(out) => Ok(out),
        None => reference_matmul(c),
    }
}

/// The reference: centred operands, the int32 matmul kernel, then `requantize`.
pub fn reference_matmul(c: &Call) -> Result<Vec<Value>> {
    let a = c.arg(0)?.as_tensor()?;
    let ap = Params::read(c.arg(1)?, c.arg(2)?)?;
    let b = c.arg(3)?.as_tensor()?;
    let bp = Params::read(c.arg(4)?, c.arg(5)?)?;
    let yp = Params::read(c.arg(6)?, c.arg(7)?)?;
    if ap.scales.len() != 1 || yp.scales.len() != 1 {
        bail!("a and the output must be quantized per tensor");
    }
    let a32 = Value::tensor(centred(a, &ap, 0)?);
    let b_last = b.shape.len().saturating_sub(1);
    let b32 = Value::tensor(centred(b, &bp, b_last)?);
    let acc = call_for_tensor(matmul, &[a32, b32], int32_type())?;
    let columns = acc.shape.last().copied().unwrap_or(1).max(1);
    let y = requantize(&acc, columns, |i| i % columns, &ap, &bp, &yp, c.result(0)?)?;
    Ok(vec![Value::tensor(y)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(shape: Vec<usize>, data: Data) -> Value {
        Value::tensor(Tensor::new(shape, data).unwrap())
    }

    #[test]
    fn matmul_requantizes_ties_to_even_and_saturates() {
        // Accumulators 3, 1 and 600 times 0.5: 1.5 rounds to 2, 0.5 to 0, 300 saturates.
        let a = tensor(vec![3, 2], Data::U8(vec![1, 2, 1, 0, 200, 100]));
        let b = tensor(vec![2, 1], Data::U8(vec![1, 4]));
        let declared = [ResultType::Tensor(TensorType::new(
            DType::QUInt8,
            vec![Some(3), Some(1)],
        ))];
        let args = [
            a,
            Value::Float(1.0),
            Value::Int(0),
            b,
            Value::Float(1.0),
            Value::Int(1),
            Value::Float(2.0),
            Value::Int(0),
        ];
        let out = qlinear_matmul(&Call {
            args: &args,
            results: &declared,
        })
        .unwrap();
        let y = out[0].as_tensor().unwrap();
        // b - 1 = [0, 3]: rows give 6, 0 and 300; times 0.5: 3, 0, 150.
        assert_eq!(y.data, Data::U8(vec![3, 0, 150]));
        assert_eq!(y.dtype(), DType::QUInt8);
    }

    #[test]
    fn conv_pads_with_the_zero_point_and_adds_the_bias_in_the_accumulator() {
        // 1x1x1x2 input [5, 7] (zero point 5), 1x1x1x2 kernel [1, 1], padding one zero-
        // point column on the left: windows [5, 5] and [5, 7] -> 0 and 2, plus bias 1.
        let x = tensor(vec![1, 1, 1, 2], Data::U8(vec![5, 7]));
        let w = tensor(vec![1, 1, 1, 2], Data::I8(vec![1, 1]));
        let bias = tensor(vec![1], Data::I32(vec![1]));
        let declared = [ResultType::Tensor(TensorType::new(
            DType::QUInt8,
            vec![Some(1), Some(1), Some(1), Some(2)],
        ))];
        let args = [
            x,
            Value::Float(0.5),
            Value::Int(5),
            w,
            Value::Float(1.0),
            Value::Int(0),
            bias,
            Value::None,
            Value::IntList(vec![1, 1]),
            Value::IntList(vec![0, 0]),
            Value::IntList(vec![1, 1]),
            Value::Int(1),
            Value::IntList(vec![1, 0, 0, 0]),
            Value::Float(0.5),
            Value::Int(10),
        ];
        let out = qlinear_conv(&Call {
            args: &args,
            results: &declared,
        })
        .unwrap();
        // Accumulators 1 and 3, multiplier 0.5 * 1 / 0.5 = 1, plus zero point 10.
        assert_eq!(out[0].as_tensor().unwrap().data, Data::U8(vec![11, 13]));
    }
}
