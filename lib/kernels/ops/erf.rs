//! The error function and the GELU activation built on it (`erf`, `gelu` with
//! approximate "none" or "tanh"). Rust's standard library has no stable `erf`, so it is
//! computed here in f64: a power series near zero and a continued fraction for erfc in
//! the tails, both accurate to about 1e-15, far below f32's half ulp.

use anyhow::{Result, bail};

use super::zip::{arg, float_result, out_dtype, zip_float};
use crate::kernels::tensor::data::{Prec, is_float};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.erf" => erf_kernel,
        "aten.gelu" => gelu,
        _ => return None,
    })
}

const FRAC_2_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

/// erf(x) in f64.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let y = if a < 2.5 {
        erf_series(a)
    } else if a < 6.0 {
        1.0 - erfc_continued_fraction(a)
    } else {
        // erfc(6) is 2e-17: below half an ulp of 1.0.
        1.0
    };
    y.copysign(x)
}

/// Maclaurin series `2/√π Σ (-1)^n x^(2n+1) / (n! (2n+1))`; for x < 2.5 the largest term
/// is below e^(x²) ≈ 520, so cancellation costs under three digits.
fn erf_series(x: f64) -> f64 {
    let x2 = x * x;
    let mut term = x; // (-1)^n x^(2n+1) / n!
    let mut sum = x;
    for n in 1..200 {
        term *= -x2 / n as f64;
        let add = term / (2 * n + 1) as f64;
        sum += add;
        if add.abs() < 1e-17 * sum.abs() {
            break;
        }
    }
    FRAC_2_SQRT_PI * sum
}

/// erfc(x) for x ≥ 2.5 by its Laplace continued fraction
/// `e^(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …))))`, evaluated backwards.
fn erfc_continued_fraction(x: f64) -> f64 {
    let mut f = x;
    for k in (1..=60).rev() {
        f = x + (k as f64 / 2.0) / f;
    }
    (-x * x).exp() / (f * std::f64::consts::PI.sqrt())
}

/// The result type: as declared, else the input's float type, else f32.
fn float_type(c: &Call) -> Result<DType> {
    let dtype = out_dtype(c, &[arg(c, 0)?])?;
    Ok(if is_float(dtype) { dtype } else { DType::F32 })
}

fn erf_kernel(c: &Call) -> Result<Vec<Value>> {
    let dtype = float_type(c)?;
    let (shape, v) = zip_float(&[arg(c, 0)?], Prec(dtype), |x| erf(x[0]))?;
    float_result(c, shape, &v, dtype)
}

/// `gelu(self, approximate)`: `x/2 · (1 + erf(x/√2))`, or with "tanh"
/// `x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))`. Computed in f64 and rounded once:
/// ONNX Runtime's kernels differ from that by an ulp or so, well inside the tolerance
/// float activations are compared with.
fn gelu(c: &Call) -> Result<Vec<Value>> {
    let tanh = match args::opt(c, 1) {
        None => false,
        Some(_) => match args::string(c, 1)? {
            "none" => false,
            "tanh" => true,
            other => bail!("gelu approximation '{other}' is not one of none, tanh"),
        },
    };
    let dtype = float_type(c)?;
    let k = (2.0 / std::f64::consts::PI).sqrt();
    let (shape, v) = zip_float(&[arg(c, 0)?], Prec(dtype), |x| {
        let x = x[0];
        if tanh {
            0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
        } else {
            0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))
        }
    })?;
    float_result(c, shape, &v, dtype)
}

#[cfg(test)]
mod tests {
    use super::erf;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn erf_matches_known_values() {
        // Values from tables of the error function (Abramowitz and Stegun 7.1).
        let cases = [
            (0.0, 0.0),
            (0.1, 0.112_462_916_018_284_9),
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (2.5, 0.999_593_047_982_555),
            (3.0, 0.999_977_909_503_001_4),
            (4.0, 0.999_999_984_582_742_1),
        ];
        for (x, want) in cases {
            assert!((erf(x) - want).abs() < 1e-14, "erf({x}) = {}", erf(x));
            assert!((erf(-x) + want).abs() < 1e-14);
        }
        assert_eq!(erf(9.0), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
        assert!(erf(f64::NAN).is_nan());
        // Continuous where the two methods meet.
        let below = erf(2.5 - 1e-12);
        let above = erf(2.5);
        assert!((below - above).abs() < 1e-14);
    }

    #[test]
    fn gelu_exact_and_tanh() {
        let x = f32s(&[3], &[-1.0, 0.0, 2.0]);
        let t = run1(
            "aten.gelu",
            &[x.clone(), Value::Str("none".into())],
            of(DType::F32),
        )
        .unwrap();
        let want = |x: f64| (0.5 * x * (1.0 + erf(x / 2f64.sqrt()))) as f32;
        assert_eq!(f32_values(&t), vec![want(-1.0), 0.0, want(2.0)]);
        let t = run1(
            "aten.gelu",
            &[x.clone(), Value::Str("tanh".into())],
            unknown(),
        )
        .unwrap();
        let y = f32_values(&t);
        // tanh(√(2/π)(2 + 0.044715·8)) gives 1.9545977
        assert!((y[2] - 1.954_597_7).abs() < 1e-6, "{y:?}");
        assert!(run("aten.gelu", &[x, Value::Str("fast".into())], &[unknown()]).is_err());
        let t = run1("aten.erf", &[f32s(&[1], &[1.0])], unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![0.842_700_8]);
    }
}
