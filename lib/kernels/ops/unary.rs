//! Element-wise functions of one tensor: activations (relu, leaky_relu, sigmoid,
//! tanh, hardsigmoid, hardswish, silu, hardtanh) and plain math (exp, log, sqrt,
//! rsqrt, reciprocal, abs, floor, ceil). Each is evaluated in f64 and rounded to the
//! element type after every step the formula names, so a one-step function is
//! correctly rounded. Integer inputs give f32 results, except where torch keeps them
//! integers (relu, abs, floor, ceil, hardtanh).

use anyhow::Result;

use super::vector_math::{self, Func};
use super::zip::{
    Arg, arg, fast_f32_unary, float_result, int_result, out_dtype, zip_float, zip_int,
};
use crate::kernels::tensor::data::{Prec, is_float};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

/// The tensor operand when it and the result are f32 (the vector math's domain).
pub(super) fn f32_operand<'c>(c: &'c Call) -> Result<Option<(&'c [usize], &'c [f32])>> {
    let a = arg(c, 0)?;
    let dtype = out_dtype(c, &[a])?;
    Ok(match a {
        Arg::Tensor(t) if dtype == DType::F32 => match &t.data {
            Data::F32(v) => Some((t.shape.as_slice(), v.as_slice())),
            _ => None,
        },
        _ => None,
    })
}

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.relu" => relu,
        "aten.relu6" => relu6,
        "aten.leaky_relu" => leaky_relu,
        "aten.hardtanh" => hardtanh,
        "aten.sigmoid" => |c| vector_or(c, Func::Sigmoid, |x, _| 1.0 / (1.0 + (-x).exp())),
        "aten.tanh" => |c| vector_or(c, Func::Tanh, |x, _| x.tanh()),
        "aten.hardsigmoid" => |c| float_fn(c, hard_sigmoid),
        "aten.hardswish" => |c| float_fn(c, |x, p| p.round(x * hard_sigmoid(x, p))),
        "aten.silu" => |c| {
            vector_or(c, Func::Silu, |x, p| {
                p.round(x * p.round(1.0 / (1.0 + (-x).exp())))
            })
        },
        "aten.exp" => |c| vector_or(c, Func::Exp, |x, _| x.exp()),
        "aten.log" => |c| vector_or(c, Func::Log, |x, _| x.ln()),
        // One correctly rounded step each (rsqrt two, as the f64 form rounds it), so
        // f32 arithmetic gives the f64 form's bytes.
        "aten.sqrt" => |c| f32_or(c, f32::sqrt, |x, _| x.sqrt()),
        "aten.rsqrt" => |c| f32_or(c, |x| 1.0 / x.sqrt(), |x, p| 1.0 / p.round(x.sqrt())),
        "aten.reciprocal" => |c| f32_or(c, |x| 1.0 / x, |x, _| 1.0 / x),
        "aten.abs" => |c| keep_ints(c, f64::abs, |x| x.wrapping_abs()),
        "aten.floor" => |c| keep_ints(c, f64::floor, |x| x),
        "aten.ceil" => |c| keep_ints(c, f64::ceil, |x| x),
        _ => return None,
    })
}

/// ONNX HardSigmoid with alpha = 1/6 (as f32) and beta = 1/2: `max(0, min(1, αx + β))`,
/// which is what ONNX Runtime computes for the models that lower to torch's
/// `hardsigmoid` (and, times x, to `hardswish`).
fn hard_sigmoid(x: f64, p: Prec) -> f64 {
    let alpha = p.round(1.0 / 6.0);
    let y = p.round(p.round(alpha * x) + 0.5);
    if y.is_nan() { y } else { y.clamp(0.0, 1.0) }
}

/// The result type of a float function of operand 0: as declared, else the input's
/// float type, else f32.
fn float_type(c: &Call) -> Result<DType> {
    let a = arg(c, 0)?;
    let dtype = out_dtype(c, &[a])?;
    Ok(if is_float(dtype) { dtype } else { DType::F32 })
}

/// `func` in f32 vectors (`vector_math`) for an f32 tensor; `slow`, in f64, for every
/// other type.
fn vector_or(c: &Call, func: Func, slow: impl Fn(f64, Prec) -> f64) -> Result<Vec<Value>> {
    if let Some((shape, x)) = f32_operand(c)? {
        let y = vector_math::map(func, x);
        return args::ret(c, Tensor::new(shape.to_vec(), Data::F32(y))?);
    }
    float_fn(c, slow)
}

/// `fast` over an f32 tensor in f32, where it gives the bytes of `slow`.
fn f32_or(c: &Call, fast: fn(f32) -> f32, slow: impl Fn(f64, Prec) -> f64) -> Result<Vec<Value>> {
    let a = arg(c, 0)?;
    if float_type(c)? == DType::F32
        && let Some((shape, v)) = fast_f32_unary(&a, fast)
    {
        return args::ret(c, Tensor::new(shape, Data::F32(v))?);
    }
    float_fn(c, slow)
}

fn float_fn(c: &Call, f: impl Fn(f64, Prec) -> f64) -> Result<Vec<Value>> {
    let dtype = float_type(c)?;
    let prec = Prec(dtype);
    let (shape, v) = zip_float(&[arg(c, 0)?], prec, |x| f(x[0], prec))?;
    float_result(c, shape, &v, dtype)
}

/// A function that maps integers to integers of the same type.
fn keep_ints(c: &Call, f: impl Fn(f64) -> f64, g: impl Fn(i64) -> i64) -> Result<Vec<Value>> {
    let a = arg(c, 0)?;
    let dtype = out_dtype(c, &[a])?;
    if is_float(dtype) {
        let (shape, v) = zip_float(&[a], Prec(dtype), |x| f(x[0]))?;
        float_result(c, shape, &v, dtype)
    } else {
        let (shape, v) = zip_int(&[a], |x| Ok(g(x[0])))?;
        int_result(c, shape, &v, dtype)
    }
}

/// `max(x, 0)`; NaN stays NaN.
fn relu(c: &Call) -> Result<Vec<Value>> {
    let a = arg(c, 0)?;
    if out_dtype(c, &[a])? == DType::F32
        && let Some((shape, v)) = fast_f32_unary(&a, |x| if x < 0.0 { 0.0 } else { x })
    {
        return args::ret(c, Tensor::new(shape, Data::F32(v))?);
    }
    keep_ints(c, |x| if x < 0.0 { 0.0 } else { x }, |x| x.max(0))
}

fn relu6(c: &Call) -> Result<Vec<Value>> {
    keep_ints(
        c,
        |x| if x.is_nan() { x } else { x.clamp(0.0, 6.0) },
        |x| x.clamp(0, 6),
    )
}

/// `hardtanh(self, min_val, max_val)`.
fn hardtanh(c: &Call) -> Result<Vec<Value>> {
    let (lo, hi) = (args::float(c, 1)?, args::float(c, 2)?);
    if lo.is_nan() || hi.is_nan() || lo > hi {
        anyhow::bail!("hardtanh bounds {lo} and {hi} are not in order");
    }
    let dtype = float_type(c).unwrap_or(DType::F32);
    let prec = Prec(dtype);
    let (lo_f, hi_f) = (prec.round(lo), prec.round(hi));
    keep_ints(
        c,
        |x| if x.is_nan() { x } else { x.clamp(lo_f, hi_f) },
        |x| x.clamp(lo as i64, hi as i64),
    )
}

/// `leaky_relu(self, negative_slope)`: x where positive, else slope·x.
fn leaky_relu(c: &Call) -> Result<Vec<Value>> {
    let slope = args::opt_float(c, 1)?.unwrap_or(0.01);
    let dtype = float_type(c)?;
    let prec = Prec(dtype);
    let slope = prec.round(slope);
    let (shape, v) = zip_float(&[arg(c, 0)?], prec, |x| {
        if x[0] > 0.0 { x[0] } else { x[0] * slope }
    })?;
    float_result(c, shape, &v, dtype)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    fn apply(op: &str, v: &[f32]) -> Vec<f32> {
        f32_values(&run1(op, &[f32s(&[v.len()], v)], unknown()).unwrap())
    }

    #[test]
    fn relu_family() {
        assert_eq!(apply("aten.relu", &[-1.0, 0.0, 2.0]), vec![0.0, 0.0, 2.0]);
        assert!(apply("aten.relu", &[f32::NAN])[0].is_nan());
        assert_eq!(apply("aten.relu6", &[-1.0, 3.0, 7.0]), vec![0.0, 3.0, 6.0]);
        let t = run1("aten.relu", &[i32s(&[2], &[-3, 3])], unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![0, 3]));
        let args = [f32s(&[2], &[-2.0, 2.0]), Value::Float(0.1)];
        let t = run1("aten.leaky_relu", &args, of(DType::F32)).unwrap();
        assert_eq!(f32_values(&t), vec![-2.0 * 0.1f32, 2.0]);
        let args = [
            f32s(&[3], &[-2.0, 0.5, 2.0]),
            Value::Float(-1.0),
            Value::Float(1.0),
        ];
        let t = run1("aten.hardtanh", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![-1.0, 0.5, 1.0]);
    }

    #[test]
    fn smooth_activations() {
        assert_eq!(apply("aten.sigmoid", &[0.0]), vec![0.5]);
        // f32 tensors take the vector math, within a few ulps of f64 (its tests state
        // the bounds).
        let near =
            |got: f32, want: f64| (got as f64 - want).abs() <= 2.5 * want.abs() * 2f64.powi(-24);
        assert!(near(
            apply("aten.sigmoid", &[2.0])[0],
            1.0 / (1.0 + (-2.0f64).exp())
        ));
        assert!(near(apply("aten.tanh", &[0.5])[0], 0.5f64.tanh()));
        assert_eq!(apply("aten.silu", &[0.0]), vec![0.0]);
        // Integers give floats.
        let t = run1("aten.sigmoid", &[i32s(&[1], &[0])], unknown()).unwrap();
        assert_eq!(t.data, Data::F32(vec![0.5]));
    }

    #[test]
    fn hard_activations() {
        assert_eq!(
            apply("aten.hardsigmoid", &[-4.0, 0.0, 3.0, 4.0]),
            vec![0.0, 0.5, 1.0, 1.0]
        );
        assert_eq!(
            apply("aten.hardswish", &[-4.0, 0.0, 4.0]),
            vec![-0.0, 0.0, 4.0]
        );
        let expected = 1.0f32 * (1.0f32 * (1.0f32 / 6.0) + 0.5);
        assert_eq!(apply("aten.hardswish", &[1.0]), vec![expected]);
    }

    #[test]
    fn math() {
        assert_eq!(apply("aten.sqrt", &[4.0]), vec![2.0]);
        assert_eq!(apply("aten.rsqrt", &[4.0]), vec![0.5]);
        assert_eq!(apply("aten.reciprocal", &[4.0]), vec![0.25]);
        assert_eq!(apply("aten.exp", &[0.0]), vec![1.0]);
        assert_eq!(apply("aten.log", &[1.0]), vec![0.0]);
        assert_eq!(apply("aten.abs", &[-1.5]), vec![1.5]);
        assert_eq!(apply("aten.floor", &[-1.5]), vec![-2.0]);
        assert_eq!(apply("aten.ceil", &[-1.5]), vec![-1.0]);
        let t = run1("aten.abs", &[i32s(&[1], &[-3])], unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![3]));
    }
}
