//! Convolution and matmul applied to quantized tensors, the form `fuse-quantized-ops`
//! writes. Run alone, such an op centres each operand's integers on its zero point(s),
//! accumulates in int32 (the bias, itself a qint32 tensor, added into the accumulator)
//! and returns a qint32 tensor whose scale is `x_scale·w_scale`, per channel when the
//! weights are. `fuse-for-cpu` usually replaces the whole fused form (see
//! `transforms::cpu_fusion`): by the ONNX Runtime requantization when a quantize
//! follows, and by the float path of the dequantized operands when the accumulator is
//! used as floats, which keeps every result identical to the unfused IR's.

use std::sync::Arc;

use anyhow::{Result, bail};

use super::quant::dequantize;
use crate::kernels::linalg::conv::convolution;
use crate::kernels::linalg::matmul::{matmul, mm};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::tensor_type::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor};
use crate::kernels::{Call, Kernel, Prepared, ResultType, call_for_tensor};

/// The integers of `t` minus their zero point(s), as int32.
fn centred(t: &Tensor) -> Result<Tensor> {
    let Some(quant) = &t.quant else {
        bail!("a {} operand among quantized ones", t.dtype());
    };
    let values = t.data.to_i64();
    let data: Result<Vec<i32>> = match quant {
        Quant::PerTensor { zero_point, .. } => {
            values.iter().map(|&q| narrow(q - zero_point)).collect()
        }
        Quant::PerChannel {
            zero_points, axis, ..
        } => {
            let channels = t.shape.get(*axis).copied().unwrap_or(0);
            if channels != zero_points.len() || channels == 0 {
                bail!(
                    "{} zero points for an axis of {channels}",
                    zero_points.len()
                );
            }
            let inner: usize = t.shape[axis + 1..].iter().product::<usize>().max(1);
            values
                .iter()
                .enumerate()
                .map(|(i, &q)| narrow(q - zero_points[(i / inner) % channels]))
                .collect()
        }
    };
    Tensor::new(t.shape.clone(), Data::I32(data?))
}

fn narrow(v: i64) -> Result<i32> {
    i32::try_from(v).map_err(|_| anyhow::anyhow!("{v} does not fit an int32 accumulator"))
}

fn per_tensor_scale(t: &Tensor) -> Result<f64> {
    match &t.quant {
        Some(Quant::PerTensor { scale, .. }) => Ok(*scale),
        _ => bail!("the input must be quantized per tensor"),
    }
}

/// The accumulator's quantization: `x_scale·w_scale` (as f32 products, like ONNX
/// Runtime's multiplier) with zero point 0, per channel along `channel_axis` of the
/// result when the weights are per channel.
fn accumulator_quant(x_scale: f64, w: &Tensor, channel_axis: usize) -> Result<Quant> {
    let product = |s: f64| ((x_scale as f32) * (s as f32)) as f64;
    Ok(match &w.quant {
        Some(Quant::PerTensor { scale, .. }) => Quant::PerTensor {
            scale: product(*scale),
            zero_point: 0,
        },
        Some(Quant::PerChannel { scales, .. }) => Quant::PerChannel {
            scales: scales.iter().map(|&s| product(s)).collect(),
            zero_points: vec![0; scales.len()],
            axis: channel_axis,
        },
        None => bail!("the weights are not quantized"),
    })
}

fn of(dtype: DType) -> ResultType {
    ResultType::Tensor(TensorType {
        dtype: Some(dtype),
        shape: None,
    })
}

/// Marks `acc` quantized and checks it against the declared type.
fn finish(c: &Call, mut acc: Tensor, quant: Quant) -> Result<Vec<Value>> {
    acc.quant = Some(quant);
    crate::kernels::args::ret(c, acc)
}

/// `convolution` whose input and weight (and bias, if any) are quantized.
pub fn quantized_conv(c: &Call) -> Result<Vec<Value>> {
    let x = c.arg(0)?.as_tensor()?;
    let w = c.arg(1)?.as_tensor()?;
    if c.arg(6)?.as_bool()? {
        bail!("a transposed convolution of quantized tensors is not supported");
    }
    let quant = accumulator_quant(per_tensor_scale(x)?, w, 1)?;
    let bias = match c.arg(2)? {
        Value::Tensor(b) if b.quant.is_some() => Value::tensor(centred(b)?),
        Value::Tensor(b) if b.data.dtype() == DType::I32 => Value::Tensor(b.clone()),
        Value::Tensor(b) => bail!("the bias of a quantized convolution is {}", b.dtype()),
        _ => Value::None,
    };
    let mut args = vec![Value::tensor(centred(x)?), Value::tensor(centred(w)?), bias];
    args.extend(c.args.get(3..).unwrap_or_default().iter().cloned());
    let acc = call_for_tensor(convolution, &args, of(DType::I32))?;
    finish(c, acc, quant)
}

/// `matmul` of a per-tensor quantized `a` and a `b` quantized per tensor or per column.
pub fn quantized_matmul(c: &Call) -> Result<Vec<Value>> {
    let a = c.arg(0)?.as_tensor()?;
    let b = c.arg(1)?.as_tensor()?;
    let args = [Value::tensor(centred(a)?), Value::tensor(centred(b)?)];
    let acc = call_for_tensor(matmul, &args, of(DType::I32))?;
    let last = acc.shape.len().saturating_sub(1);
    if let Some(Quant::PerChannel { axis, .. }) = &b.quant
        && *axis + 1 != b.shape.len()
    {
        bail!("b of a quantized matmul is quantized along axis {axis}, not its last");
    }
    let quant = accumulator_quant(per_tensor_scale(a)?, b, last)?;
    finish(c, acc, quant)
}

/// Dequantizes the quantized tensors among `args` to f32.
fn dequantize_all(args: &[Value]) -> Result<Vec<Value>> {
    args.iter()
        .map(|v| match v {
            Value::Tensor(t) if t.quant.is_some() => Ok(Value::tensor(call_for_tensor(
                dequantize,
                std::slice::from_ref(v),
                of(DType::F32),
            )?)),
            other => Ok(other.clone()),
        })
        .collect()
}

/// The float convolution of the dequantized operands: what the unfused IR computes.
pub fn dequantized_conv(c: &Call) -> Result<Vec<Value>> {
    dequantized_op(c, convolution, &[])
}

/// The float matmul of the dequantized operands: what the unfused IR computes.
pub fn dequantized_matmul(c: &Call) -> Result<Vec<Value>> {
    dequantized_op(c, matmul, &[])
}

/// The float mm of the dequantized operands: what the unfused IR computes.
pub fn dequantized_mm(c: &Call) -> Result<Vec<Value>> {
    dequantized_op(c, mm, &[])
}

/// `kernel` on the dequantized operands, taking those in `ready` (operand index, its
/// dequantized value) as they are.
fn dequantized_op(c: &Call, kernel: Kernel, ready: &[(usize, Value)]) -> Result<Vec<Value>> {
    let mut args = Vec::with_capacity(c.args.len());
    for (i, v) in c.args.iter().enumerate() {
        match ready.iter().find(|(at, _)| *at == i) {
            Some((_, d)) => args.push(d.clone()),
            None => args.extend(dequantize_all(std::slice::from_ref(v))?),
        }
    }
    let out = call_for_tensor(kernel, &args, c.result(0)?.clone())?;
    Ok(vec![Value::tensor(out)])
}

/// Dequantizes the constant quantized operands (the weights) once, at plan time.
fn prepare_dequantized(constants: &[Option<&Value>], kernel: Kernel) -> Option<Prepared> {
    let mut ready = Vec::new();
    for (i, v) in constants.iter().enumerate() {
        if let Some(v @ Value::Tensor(t)) = v
            && t.quant.is_some()
        {
            ready.push((i, dequantize_all(std::slice::from_ref(*v)).ok()?.pop()?));
        }
    }
    if ready.is_empty() {
        return None;
    }
    Some(Arc::new(move |c: &Call| dequantized_op(c, kernel, &ready)))
}

/// `prepare_dequantized` for `dequantized_conv`.
pub fn prepare_dequantized_conv(constants: &[Option<&Value>]) -> Option<Prepared> {
    prepare_dequantized(constants, convolution)
}

/// `prepare_dequantized` for `dequantized_matmul`.
pub fn prepare_dequantized_matmul(constants: &[Option<&Value>]) -> Option<Prepared> {
    prepare_dequantized(constants, matmul)
}

/// `prepare_dequantized` for `dequantized_mm`.
pub fn prepare_dequantized_mm(constants: &[Option<&Value>]) -> Option<Prepared> {
    prepare_dequantized(constants, mm)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::tensor::{Data, Quant, Tensor};
    use crate::kernels::testing::*;

    fn quantized(shape: &[usize], data: Data, quant: Quant) -> Value {
        let mut t = Tensor::new(shape.to_vec(), data).unwrap();
        t.quant = Some(quant);
        Value::tensor(t)
    }

    #[test]
    fn matmul_of_quantized_operands_accumulates_centred_integers() {
        // a - 2 = [[1, 0], [0, 3]], b - [1, 0] per column = [[1, 2], [3, 4]].
        let a = quantized(
            &[2, 2],
            Data::U8(vec![3, 2, 2, 5]),
            Quant::PerTensor {
                scale: 0.5,
                zero_point: 2,
            },
        );
        let b = quantized(
            &[2, 2],
            Data::I8(vec![2, 2, 4, 4]),
            Quant::PerChannel {
                scales: vec![1.0, 0.25],
                zero_points: vec![1, 0],
                axis: 1,
            },
        );
        let acc = run1("aten.matmul", &[a, b], of(DType::QInt32)).unwrap();
        assert_eq!(acc.data, Data::I32(vec![1, 2, 9, 12]));
        assert_eq!(
            acc.quant,
            Some(Quant::PerChannel {
                scales: vec![0.5, 0.125],
                zero_points: vec![0, 0],
                axis: 1
            })
        );
    }

    #[test]
    fn conv_of_quantized_operands_adds_the_quantized_bias() {
        // One 1x1 kernel per output channel: x - 10 = [1, 2]; weights - zp: [2], [-1].
        let x = quantized(
            &[1, 1, 1, 2],
            Data::U8(vec![11, 12]),
            Quant::PerTensor {
                scale: 0.5,
                zero_point: 10,
            },
        );
        let w = quantized(
            &[2, 1, 1, 1],
            Data::I8(vec![3, 0]),
            Quant::PerChannel {
                scales: vec![1.0, 2.0],
                zero_points: vec![1, 1],
                axis: 0,
            },
        );
        let b = quantized(
            &[2],
            Data::I32(vec![100, 200]),
            Quant::PerChannel {
                scales: vec![0.5, 1.0],
                zero_points: vec![0, 0],
                axis: 0,
            },
        );
        let args = [
            x,
            w,
            b,
            ints(&[1, 1]),
            ints(&[0, 0]),
            ints(&[1, 1]),
            Value::Bool(false),
            ints(&[0, 0]),
            Value::Int(1),
        ];
        let acc = run1("aten.convolution", &args, of(DType::QInt32)).unwrap();
        assert_eq!(acc.data, Data::I32(vec![102, 104, 199, 198]));
        let f = run1(
            "aten.dequantize.self",
            &[Value::Tensor(acc)],
            of(DType::F32),
        )
        .unwrap();
        assert_eq!(f32_values(&f), vec![51.0, 52.0, 199.0, 198.0]);
    }

    #[test]
    fn constant_weights_dequantized_at_plan_time_give_the_same_floats() {
        use crate::kernels::Call;
        let x = quantized(
            &[1, 3],
            Data::U8(vec![3, 200, 17]),
            Quant::PerTensor {
                scale: 0.1,
                zero_point: 5,
            },
        );
        let w = quantized(
            &[3, 2],
            Data::I8(vec![-7, 3, 120, -128, 0, 9]),
            Quant::PerChannel {
                scales: vec![0.02, 0.5],
                zero_points: vec![1, -2],
                axis: 1,
            },
        );
        let args = [x, w.clone()];
        let results = [of(DType::F32)];
        let call = Call {
            args: &args,
            results: &results,
        };
        let direct = super::dequantized_mm(&call).unwrap();
        let prepared = super::prepare_dequantized_mm(&[None, Some(&w)]).unwrap();
        assert_eq!(prepared(&call).unwrap(), direct);
        // Nothing constant and quantized: nothing to prepare.
        assert!(super::prepare_dequantized_mm(&[None, None]).is_none());
    }
}
