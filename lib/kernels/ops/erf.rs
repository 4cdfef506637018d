//! The error function and the GELU activation built on it (`erf`, `gelu` with
//! approximate "none" or "tanh"). Rust's standard library has no stable `erf`, so it is
//! computed here in f64: a power series near zero and a continued fraction for erfc in
//! the tails, both accurate to about 1e-15, far below f32's half ulp.

use anyhow::{Result, bail};

use super::vector_math::{self, Func};
use super::zip::{arg, float_result, out_dtype, zip_float};
use crate::kernels::tensor::data::{Prec, is_float};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.erf" => erf_kernel,
        "aten.gelu" => gelu,
        _ => return None,
    })
}

const FRAC_2_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

/// erf(x) in f64, fast: the series near zero, where the result needs relative
/// precision, and beyond it a piecewise Chebyshev interpolant of `erf_reference` built
/// once. Agrees with `erf_reference` to 1e-14 or better, so the f32 results are the same
/// correctly rounded values, at a few dozen flops instead of a series of up to ~60
/// terms (Erf was 40% of a Whisper-style encoder's run).
pub fn erf(x: f64) -> f64 {
    let a = x.abs();
    if !(TABLE_START..TABLE_END).contains(&a) {
        return erf_reference(x);
    }
    let table = erf_table();
    let pos = (a - TABLE_START) * PIECES_PER_UNIT;
    let i = (pos as usize).min(table.len() - 1);
    // Position inside the piece, mapped to [-1, 1].
    let t = 2.0 * (pos - i as f64) - 1.0;
    let c = &table[i];
    let (mut b1, mut b2) = (0.0, 0.0);
    for &cj in c[1..].iter().rev() {
        let b0 = 2.0 * t * b1 - b2 + cj;
        b2 = b1;
        b1 = b0;
    }
    (t * b1 - b2 + c[0]).copysign(x)
}

/// Where the table starts: below it the series converges in a few terms and keeps the
/// relative precision tiny results need.
const TABLE_START: f64 = 0.0625;
/// erf is 1 in f64 from here (erfc(6) is 2e-17).
const TABLE_END: f64 = 6.0;
const PIECES_PER_UNIT: f64 = 16.0;
/// Chebyshev coefficients per piece: degree 10 on pieces of width 1/16 leaves an
/// interpolation error far below f64's rounding.
const DEGREE: usize = 11;

fn erf_table() -> &'static [[f64; DEGREE]] {
    static TABLE: std::sync::OnceLock<Vec<[f64; DEGREE]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let pieces = ((TABLE_END - TABLE_START) * PIECES_PER_UNIT).ceil() as usize;
        (0..pieces)
            .map(|i| {
                let lo = TABLE_START + i as f64 / PIECES_PER_UNIT;
                let half = 0.5 / PIECES_PER_UNIT;
                chebyshev(erf_reference, lo + half, half)
            })
            .collect()
    })
}

/// Coefficients of the Chebyshev interpolant of `f` on `[mid - half, mid + half]`,
/// through the Chebyshev nodes of the first kind.
fn chebyshev(f: impl Fn(f64) -> f64, mid: f64, half: f64) -> [f64; DEGREE] {
    use std::f64::consts::PI;
    let n = DEGREE as f64;
    let values: Vec<f64> = (0..DEGREE)
        .map(|k| f(mid + half * (PI * (k as f64 + 0.5) / n).cos()))
        .collect();
    let mut c = [0.0; DEGREE];
    for (j, cj) in c.iter_mut().enumerate() {
        let sum: f64 = values
            .iter()
            .enumerate()
            .map(|(k, v)| v * (PI * j as f64 * (k as f64 + 0.5) / n).cos())
            .sum();
        *cj = 2.0 * sum / n;
    }
    c[0] /= 2.0;
    c
}

/// erf(x) in f64 by its series and continued fraction: the reference the fast `erf`
/// is built from and tested against.
pub fn erf_reference(x: f64) -> f64 {
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
pub(crate) fn erfc_continued_fraction(x: f64) -> f64 {
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
    let x = arg(c, 0)?;
    // f32 in and out: each element through f64 and rounded once, without the f64
    // vectors of the general path, split over the pool.
    if let Some((shape, v)) = super::unary::f32_operand(c)? {
        let y = vector_math::map(Func::Erf, v);
        return args::ret(c, Tensor::new(shape.to_vec(), Data::F32(y))?);
    }
    let (shape, v) = zip_float(&[x], Prec(dtype), |x| erf(x[0]))?;
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
    if let Some((shape, v)) = super::unary::f32_operand(c)? {
        let func = if tanh { Func::GeluTanh } else { Func::Gelu };
        let y = vector_math::map(func, v);
        return args::ret(c, Tensor::new(shape.to_vec(), Data::F32(y))?);
    }
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
    fn fast_erf_rounds_to_the_same_f32_as_the_reference() {
        use super::erf_reference;
        let mut worst = 0.0f64;
        let mut differ = 0;
        // Every 97th f32 from 0.01 to 7, both signs: the table's pieces, their ends and
        // both ends of the table.
        let (start, end) = (0.01f32.to_bits(), 7.0f32.to_bits());
        for bits in (start..end).step_by(97) {
            let x = f32::from_bits(bits) as f64;
            for x in [x, -x] {
                let (fast, exact) = (erf(x), erf_reference(x));
                worst = worst.max((fast - exact).abs() / exact.abs());
                differ += usize::from(fast as f32 != exact as f32);
            }
        }
        // The reference's series loses up to three digits to cancellation near 2.5, so
        // the two differ by up to ~1e-14 there: still 1e6 times below f32's half ulp.
        assert!(worst < 1e-13, "relative error {worst:e}");
        assert_eq!(differ, 0);
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
