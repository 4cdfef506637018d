//! Quantized average pools as ONNX Runtime computes them.
//!
//! `requantize_average` is the requantization at the end of its QLinearAveragePool (which it also
//! runs for QDQ `DequantizeLinear → AveragePool → QuantizeLinear`): it averages the
//! dequantized values in float32 as the float pool does, then adds the output zero
//! point *before* rounding, `round_half_even(avg / y_scale + y_zero_point)`, where
//! QuantizeLinear rounds first and adds after. With equal input and output scales
//! (as quantizers write them for pools) many averages end in exactly .5, and the two
//! orders then differ by one whenever the zero point is odd.
//!
//! `global_average` is its QLinearGlobalAveragePool, which never goes through floats
//! per element: it sums each plane's integers exactly, removes the input zero point
//! once (`sum - zero_point·size`), and scales that by the float32 ratio
//! `x_scale / (y_scale·size)`, rounding half to even before adding the output zero
//! point, as its convolutions requantize.

use anyhow::{Result, bail};

use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor};
use crate::kernels::{Call, ResultType};

/// Operands: the float averages, y_scale, y_zero_point (and the dtype code, which the
/// declared result type already says).
pub fn requantize_average(c: &Call) -> Result<Vec<Value>> {
    let ResultType::Tensor(ty) = c.result(0)? else {
        bail!("the quantized result must be a tensor");
    };
    let (lo, hi) = match ty.dtype {
        Some(DType::QUInt8) => (0, 255),
        Some(DType::QInt8) => (-128, 127),
        other => bail!("a pool's requantization to {other:?} is not supported"),
    };
    let x = c.arg(0)?.as_tensor()?;
    let Data::F32(values) = &x.data else {
        bail!("averages of {}, expected f32", x.data.dtype());
    };
    if values.len() != crate::kernels::tensor::layout::result_count(&x.shape)? {
        bail!(
            "averages of shape {:?} hold {} elements",
            x.shape,
            values.len()
        );
    }
    let scale = c.arg(1)?.as_float()?;
    let zero_point = c.arg(2)?.as_int()?;
    if zero_point < lo as i64 || zero_point > hi as i64 {
        bail!("zero point {zero_point} is outside {lo}..={hi}");
    }
    let (s, z) = (scale as f32, zero_point as f32);
    let q = values.iter().map(|&v| {
        let r = (v / s + z).round_ties_even();
        // A float beyond int32 (or NaN) converts to i32::MIN on x86: the low end.
        let r = if (-2_147_483_648.0..2_147_483_648.0).contains(&r) {
            r as i32
        } else {
            i32::MIN
        };
        r.clamp(lo, hi)
    });
    let data = if lo == 0 {
        Data::U8(q.map(|v| v as u8).collect())
    } else {
        Data::I8(q.map(|v| v as i8).collect())
    };
    let mut t = Tensor::new(x.shape.clone(), data)?;
    t.quant = Some(Quant::PerTensor { scale, zero_point });
    Ok(vec![Value::tensor(t)])
}

/// Operands: x (8-bit integers), x_scale, x_zero_point, the reduced dims (every axis
/// after the batch but the channel one), keepdim, y_scale, y_zero_point.
pub fn global_average(c: &Call) -> Result<Vec<Value>> {
    let ResultType::Tensor(ty) = c.result(0)? else {
        bail!("the quantized result must be a tensor");
    };
    let (lo, hi) = match ty.dtype {
        Some(DType::QUInt8) => (0i64, 255i64),
        Some(DType::QInt8) => (-128, 127),
        other => bail!("a global average pool to {other:?} is not supported"),
    };
    let x = c.arg(0)?.as_tensor()?;
    let held = match &x.data {
        Data::U8(v) => v.len(),
        Data::I8(v) => v.len(),
        other => bail!("x is {}, expected 8-bit integers", other.dtype()),
    };
    if held != crate::kernels::tensor::layout::result_count(&x.shape)? {
        bail!("x of shape {:?} holds {held} elements", x.shape);
    }
    let rank = x.shape.len();
    let mut reduced = vec![false; rank];
    for &d in c.arg(3)?.as_int_list()? {
        let d = crate::kernels::args::dim(d, rank)?;
        if reduced[d] {
            bail!("dimension {d} is reduced twice");
        }
        reduced[d] = true;
    }
    let x_scale = c.arg(1)?.as_float()? as f32;
    let x_zero_point = c.arg(2)?.as_int()?;
    let y_scale = c.arg(5)?.as_float()?;
    let y_zero_point = c.arg(6)?.as_int()?;
    if y_zero_point < lo || y_zero_point > hi {
        bail!("zero point {y_zero_point} is outside {lo}..={hi}");
    }
    let size: usize = (0..rank)
        .filter(|&i| reduced[i])
        .map(|i| x.shape[i])
        .product();
    let kept: Vec<usize> = (0..rank).filter(|&i| !reduced[i]).collect();
    let sums = match &x.data {
        Data::U8(v) => sums_over(v, &x.shape, &kept, size),
        Data::I8(v) => sums_over(v, &x.shape, &kept, size),
        other => bail!("x is {}, expected 8-bit integers", other.dtype()),
    };
    let scale = x_scale / (y_scale as f32 * size as f32);
    let q = sums.iter().map(|&sum| {
        // The accumulator is an int32, converted to float32 once.
        let acc = (sum - x_zero_point * size as i64) as i32;
        let r = (acc as f32 * scale).round_ties_even();
        let r = if (-2_147_483_648.0..2_147_483_648.0).contains(&r) {
            r as i64
        } else {
            i32::MIN as i64
        };
        (r + y_zero_point).clamp(lo, hi)
    });
    let data = if lo == 0 {
        Data::U8(q.map(|v| v as u8).collect())
    } else {
        Data::I8(q.map(|v| v as i8).collect())
    };
    let keepdim = c.arg(4)?.as_bool()?;
    let shape: Vec<usize> = (0..rank)
        .filter_map(|i| match (reduced[i], keepdim) {
            (false, _) => Some(x.shape[i]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    let mut t = Tensor::new(shape, data)?;
    t.quant = Some(Quant::PerTensor {
        scale: y_scale,
        zero_point: y_zero_point,
    });
    Ok(vec![Value::tensor(t)])
}

/// The sums of `values` (of `shape`) over all axes but `kept`, `size` elements each,
/// read in place (a copy widened to i64 first was eight times the input's bytes).
fn sums_over<T: Copy + Into<i64>>(
    values: &[T],
    shape: &[usize],
    kept: &[usize],
    size: usize,
) -> Vec<i64> {
    let out_count: usize = kept.iter().map(|&i| shape[i]).product();
    if kept.iter().enumerate().all(|(k, &i)| k == i) {
        // The reduced axes are the trailing ones (channels first): each output sums
        // one contiguous run.
        let mut sums: Vec<i64> = values
            .chunks_exact(size.max(1))
            .map(|run| run.iter().map(|&q| q.into()).sum())
            .collect();
        sums.resize(out_count, 0);
        return sums;
    }
    // Each input element's output position: its coordinates on the kept axes.
    let mut sums = vec![0i64; out_count];
    let strides = crate::kernels::tensor::layout::strides(shape);
    for (flat, &q) in values.iter().enumerate() {
        let mut out = 0;
        for &i in kept {
            out = out * shape[i] + (flat / strides[i]) % shape[i];
        }
        sums[out] += q.into();
    }
    sums
}

/// An average pool that does not count padding, lowered for asymmetric pads as the
/// padded average divided by the padded average of ones: ONNX Runtime divides the
/// window's sum by its count of input elements instead, which rounds differently.
/// Operands: the padded input, kernel, stride, padding and ceil_mode of the pool over
/// it, the padded ones, y_scale, y_zero_point, dtype; then the ops between the
/// quotient and the quantize, each as its name (`torch.aten.permute` or
/// `torch.aten.slice.Tensor`) followed by its operands after the tensor.
pub fn average_over_inputs(c: &Call) -> Result<Vec<Value>> {
    let kernel = c.arg(1)?.as_int_list()?;
    let name = match kernel.len() {
        2 => "torch.aten.avg_pool2d",
        3 => "torch.aten.avg_pool3d",
        n => bail!("a {n}-d average pool cannot sum with a divisor of 1"),
    };
    let Some(pool) = crate::kernels::lookup(name) else {
        bail!("internal error: no kernel for {name}");
    };
    let float = [ResultType::Tensor(
        crate::kernels::tensor::tensor_type::TensorType {
            dtype: Some(DType::F32),
            shape: None,
        },
    )];
    // Sums (a divisor of 1) in the pool's own order; zeros of the padding add nothing.
    let sum = |x: &Value| -> Result<(Vec<usize>, Vec<f32>)> {
        let args = [
            x.clone(),
            c.arg(1)?.clone(),
            c.arg(2)?.clone(),
            c.arg(3)?.clone(),
            c.arg(4)?.clone(),
            Value::Bool(true),
            Value::Int(1),
        ];
        let out = pool(&Call {
            args: &args,
            results: &float,
        })?;
        let t = out
            .first()
            .ok_or_else(|| anyhow::anyhow!("internal error: {name} gave no result"))?
            .as_tensor()?;
        match &t.data {
            Data::F32(v) => Ok((t.shape.clone(), v.clone())),
            other => bail!("internal error: {name} gave {}", other.dtype()),
        }
    };
    let (shape, sums) = sum(c.arg(0)?)?;
    let (ones_shape, counts) = sum(c.arg(5)?)?;
    if shape != ones_shape {
        bail!("the input and its ones pool to different shapes");
    }
    let averages: Vec<f32> = sums.iter().zip(&counts).map(|(s, n)| s / n).collect();
    let mut averages = Value::tensor(Tensor::new(shape, Data::F32(averages))?);
    let mut rest = c.args.get(9..).unwrap_or_default();
    while let Some((op, tail)) = rest.split_first() {
        let name = op.as_str()?;
        let arity = match name {
            "torch.aten.permute" => 1,
            "torch.aten.slice.Tensor" => 4,
            other => bail!("internal error: {other} after a pooled quotient"),
        };
        let (operands, tail) = tail
            .split_at_checked(arity)
            .ok_or_else(|| anyhow::anyhow!("internal error: {name} lacks operands"))?;
        let Some(kernel) = crate::kernels::lookup(name) else {
            bail!("internal error: no kernel for {name}");
        };
        let args: Vec<Value> = std::iter::once(averages)
            .chain(operands.iter().cloned())
            .collect();
        averages = kernel(&Call {
            args: &args,
            results: &float,
        })?
        .into_iter()
        .next()
        .ok_or_else(|| anyhow::anyhow!("internal error: {name} gave no result"))?;
        rest = tail;
    }
    let args = [
        averages,
        c.arg(6)?.clone(),
        c.arg(7)?.clone(),
        c.arg(8)?.clone(),
    ];
    requantize_average(&Call {
        args: &args,
        results: c.results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::tensor::tensor_type::TensorType;

    fn requantize(values: Vec<f32>, scale: f64, zero_point: i64, dtype: DType) -> Result<Data> {
        let n = values.len();
        let args = [
            Value::tensor(Tensor::new(vec![n], Data::F32(values))?),
            Value::Float(scale),
            Value::Int(zero_point),
            Value::Int(13),
        ];
        let declared = [ResultType::Tensor(TensorType::new(
            dtype,
            vec![Some(n as i64)],
        ))];
        let out = requantize_average(&Call {
            args: &args,
            results: &declared,
        })?;
        Ok(out[0].as_tensor()?.data.clone())
    }

    #[test]
    fn the_zero_point_is_added_before_rounding() {
        // 2.5 + 3 = 5.5 rounds to 6 (rounding first would give 2 + 3 = 5); 3.5 + 3 to 6
        // either way; -0.5 + 3 = 2.5 to 2; saturation at both ends.
        let d = requantize(vec![2.5, 3.5, -0.5, 1000.0, -1000.0], 1.0, 3, DType::QUInt8).unwrap();
        assert_eq!(d, Data::U8(vec![6, 6, 2, 255, 0]));
        let d = requantize(vec![0.25, f32::NAN], 0.5, -1, DType::QInt8).unwrap();
        assert_eq!(d, Data::I8(vec![0, -128]));
    }

    #[test]
    fn global_average_sums_integers_and_rounds_before_the_zero_point() {
        // Planes [1, 2, 3, 4] and [0, 0, 0, 1] (zero point 0), channels-first 1x2x2x2:
        // sums 10 and 1, ratio 1 / (0.5·4) = 0.5: 5 and 0.5 -> 0, plus zero point 3.
        let x = Tensor::new(vec![1, 2, 2, 2], Data::U8(vec![1, 2, 3, 4, 0, 0, 0, 1])).unwrap();
        let args = [
            Value::tensor(x),
            Value::Float(1.0),
            Value::Int(0),
            Value::IntList(vec![2, 3]),
            Value::Bool(true),
            Value::Float(0.5),
            Value::Int(3),
        ];
        let declared = [ResultType::Tensor(TensorType::new(
            DType::QUInt8,
            vec![Some(1), Some(2), Some(1), Some(1)],
        ))];
        let out = global_average(&Call {
            args: &args,
            results: &declared,
        })
        .unwrap();
        let y = out[0].as_tensor().unwrap();
        assert_eq!(y.shape, vec![1, 2, 1, 1]);
        assert_eq!(y.data, Data::U8(vec![8, 3]));
        // Channels-last 1x2x2x2 (the same numbers interleaved), int8 with zero point -1:
        // sums 10 + 4 and 1 + 4 -> 7 and 2.5 -> 2, then -1.
        let x = Tensor::new(vec![1, 2, 2, 2], Data::I8(vec![1, 0, 2, 0, 3, 0, 4, 1])).unwrap();
        let mut args = args;
        args[0] = Value::tensor(x);
        args[2] = Value::Int(-1);
        args[3] = Value::IntList(vec![1, 2]);
        args[6] = Value::Int(-1);
        let declared = [ResultType::Tensor(TensorType::new(
            DType::QInt8,
            vec![Some(1), Some(1), Some(1), Some(2)],
        ))];
        let out = global_average(&Call {
            args: &args,
            results: &declared,
        })
        .unwrap();
        assert_eq!(out[0].as_tensor().unwrap().data, Data::I8(vec![6, 1]));
    }

    #[test]
    fn average_over_inputs_divides_sums_by_counts_then_applies_the_views() {
        // 1x1x1x4 padded input [1, 2, 2.5, pad] in windows of 2: sums 3 and 2.5 over
        // counts 2 and 1: 1.5 + 3 -> 4 and 2.5 + 3 -> 6 (even); the slice keeps the
        // second.
        let x = Tensor::new(vec![1, 1, 1, 4], Data::F32(vec![1.0, 2.0, 2.5, 0.0])).unwrap();
        let ones = Tensor::new(vec![1, 1, 1, 4], Data::F32(vec![1.0, 1.0, 1.0, 0.0])).unwrap();
        let mut args = vec![
            Value::tensor(x),
            Value::IntList(vec![1, 2]),
            Value::IntList(vec![1, 2]),
            Value::IntList(vec![0, 0]),
            Value::Bool(false),
            Value::tensor(ones),
            Value::Float(1.0),
            Value::Int(3),
            Value::Int(13),
        ];
        let run = |args: &[Value], shape: Vec<Option<i64>>| {
            let declared = [ResultType::Tensor(TensorType::new(DType::QUInt8, shape))];
            let out = average_over_inputs(&Call {
                args,
                results: &declared,
            })?;
            Ok::<_, anyhow::Error>(out[0].as_tensor()?.data.clone())
        };
        let all = run(&args, vec![Some(1), Some(1), Some(1), Some(2)]).unwrap();
        assert_eq!(all, Data::U8(vec![4, 6]));
        args.extend([
            Value::Str("torch.aten.slice.Tensor".into()),
            Value::Int(3),
            Value::Int(1),
            Value::Int(2),
            Value::Int(1),
        ]);
        let sliced = run(&args, vec![Some(1), Some(1), Some(1), Some(1)]).unwrap();
        assert_eq!(sliced, Data::U8(vec![6]));
        args.push(Value::Str("torch.aten.slice.Tensor".into()));
        assert!(run(&args, vec![None, None, None, None]).is_err());
    }

    #[test]
    fn bad_operands_are_errors() {
        assert!(requantize(vec![1.0], 1.0, 300, DType::QUInt8).is_err());
        assert!(requantize(vec![1.0], 1.0, 0, DType::I32).is_err());
    }
}
