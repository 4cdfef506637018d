//! The smooth and thresholded activations ONNX has beyond the ReLU family: `mish`,
//! `softplus`, `elu` (ONNX's Elu and Selu), `celu` and `threshold` (ThresholdedRelu).
//! Each is evaluated in f64 and rounded once to the element type, so the result is
//! the correctly rounded value of ONNX's formula on the rounded input (ONNX Runtime
//! evaluates the same formulas in the element type, within a few ulps of this).

use anyhow::{Result, bail};

use super::zip::{arg, float_result, out_dtype, zip_float};
use crate::kernels::tensor::data::{Prec, is_float};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.mish" => |c| float_fn(c, mish),
        "aten.softplus" => softplus,
        "aten.elu" => elu,
        "aten.celu" => celu,
        "aten.threshold" => threshold,
        _ => return None,
    })
}

/// `f` of operand 0 into the declared float type (else the input's, else f32).
pub(super) fn float_fn(c: &Call, f: impl Fn(f64) -> f64) -> Result<Vec<Value>> {
    let a = arg(c, 0)?;
    let dtype = out_dtype(c, &[a])?;
    let dtype = if is_float(dtype) { dtype } else { DType::F32 };
    let prec = Prec(dtype);
    let (shape, v) = zip_float(&[a], prec, |x| f(x[0]))?;
    float_result(c, shape, &v, dtype)
}

/// `ln(1 + e^x)`, without overflow for large x.
fn softplus_of(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// `x · tanh(softplus(x))`; -∞ gives -0, the limit, not ∞·0.
fn mish(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return -0.0;
    }
    x * softplus_of(x).tanh()
}

/// `softplus(self, beta, threshold)`: x where beta·x > threshold, else
/// ln(1 + e^(beta·x)) / beta.
fn softplus(c: &Call) -> Result<Vec<Value>> {
    let beta = args::float(c, 1)?;
    let threshold = args::float(c, 2)?;
    if beta == 0.0 || beta.is_nan() {
        bail!("softplus beta is {beta}, expected a nonzero number");
    }
    float_fn(c, |x| {
        if x * beta > threshold {
            x
        } else {
            softplus_of(beta * x) / beta
        }
    })
}

/// `elu(self, alpha, scale, input_scale)`: scale·x where x > 0, else
/// scale·alpha·(e^(input_scale·x) - 1).
fn elu(c: &Call) -> Result<Vec<Value>> {
    let alpha = args::float(c, 1)?;
    let scale = args::float(c, 2)?;
    let input_scale = args::float(c, 3)?;
    float_fn(c, |x| {
        if x > 0.0 {
            scale * x
        } else if x.is_nan() {
            x
        } else {
            scale * alpha * (input_scale * x).exp_m1()
        }
    })
}

/// `celu(self, alpha)`: max(0, x) + min(0, alpha·(e^(x/alpha) - 1)).
fn celu(c: &Call) -> Result<Vec<Value>> {
    let alpha = args::float(c, 1)?;
    if alpha == 0.0 {
        bail!("celu alpha is 0, but it divides by alpha");
    }
    float_fn(c, |x| {
        if x.is_nan() {
            x
        } else {
            x.max(0.0) + (alpha * (x / alpha).exp_m1()).min(0.0)
        }
    })
}

/// `threshold(self, threshold, value)`: x where x > threshold, else value.
fn threshold(c: &Call) -> Result<Vec<Value>> {
    let limit = args::float(c, 1)?;
    let value = args::float(c, 2)?;
    float_fn(c, |x| if x > limit || x.is_nan() { x } else { value })
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    fn apply(op: &str, v: &[f32], scalars: &[Value]) -> Vec<f32> {
        let mut args = vec![f32s(&[v.len()], v)];
        args.extend_from_slice(scalars);
        f32_values(&run1(op, &args, of(DType::F32)).unwrap())
    }

    fn rounded(v: f64) -> f32 {
        v as f32
    }

    #[test]
    fn mish_and_softplus_follow_their_formulas() {
        let y = apply("aten.mish", &[-1.0, 0.0, 2.0, f32::NEG_INFINITY], &[]);
        let want = |x: f64| rounded(x * (x.exp().ln_1p()).tanh());
        assert_eq!(y[..3], [want(-1.0), 0.0, want(2.0)]);
        assert_eq!(y[3], 0.0);
        let sp = [Value::Int(1), Value::Int(20)];
        let y = apply("aten.softplus", &[-30.0, 0.0, 1.0, 100.0], &sp);
        let want = |x: f64| rounded(x.exp().ln_1p());
        assert_eq!(y, vec![want(-30.0), want(0.0), want(1.0), 100.0]);
    }

    #[test]
    fn elu_celu_and_threshold() {
        let e = [Value::Float(2.0), Value::Float(1.5), Value::Int(1)];
        let y = apply("aten.elu", &[-1.0, 3.0], &e);
        assert_eq!(y, vec![rounded(1.5 * 2.0 * (-1.0f64).exp_m1()), 4.5]);
        let y = apply("aten.celu", &[-1.0, 3.0], &[Value::Float(2.0)]);
        assert_eq!(y, vec![rounded(2.0 * (-0.5f64).exp_m1()), 3.0]);
        let t = [Value::Float(1.0), Value::Float(0.0)];
        let y = apply("aten.threshold", &[0.5, 1.0, 2.0], &t);
        assert_eq!(y, vec![0.0, 0.0, 2.0]);
        assert!(apply("aten.threshold", &[f32::NAN], &t)[0].is_nan());
    }

    #[test]
    fn bad_parameters_are_errors() {
        let args = [f32s(&[1], &[1.0]), Value::Float(0.0)];
        assert!(run1("aten.celu", &args, unknown()).is_err());
        let args = [f32s(&[1], &[1.0]), Value::Int(0), Value::Int(20)];
        assert!(run1("aten.softplus", &args, unknown()).is_err());
    }
}
