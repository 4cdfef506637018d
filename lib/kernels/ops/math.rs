//! Element-wise math beyond the four operations: `sign`, `pow`, `fmod` and `remainder`
//! (C's and Python's remainders), `minimum` / `maximum`, and the logical ops, on
//! broadcast tensors. Floats are computed in f64 and rounded to the result type;
//! integers stay integers.

use anyhow::{Result, bail};

use super::zip::{
    Arg, arg, fast_f32_unary, fast_i64_binary, float_result, int_result, out_dtype, scalar_f32,
    zip_float, zip_int,
};
use crate::kernels::tensor::data::{Prec, from_i64, is_float};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.sign" => sign,
        "aten.pow.Tensor_Tensor" | "aten.pow.Tensor_Scalar" => pow,
        "aten.fmod.Tensor" | "aten.fmod.Scalar" => |c| modulo(c, false),
        "aten.remainder.Tensor" | "aten.remainder.Scalar" => |c| modulo(c, true),
        "aten.minimum" => |c| extreme(c, false),
        "aten.maximum" => |c| extreme(c, true),
        "aten.logical_not" => logical_not,
        "aten.logical_and" => |c| logical(c, |a, b| a && b),
        "aten.logical_or" => |c| logical(c, |a, b| a || b),
        "aten.logical_xor" => |c| logical(c, |a, b| a != b),
        _ => return None,
    })
}

/// -1, 0 or 1 (NaN stays NaN), in the input's type.
fn sign(c: &Call) -> Result<Vec<Value>> {
    let a = arg(c, 0)?;
    let dtype = out_dtype(c, &[a])?;
    if is_float(dtype) {
        let (shape, v) = zip_float(&[a], Prec(dtype), |x| {
            if x[0] > 0.0 {
                1.0
            } else if x[0] < 0.0 {
                -1.0
            } else {
                x[0]
            }
        })?;
        float_result(c, shape, &v, dtype)
    } else {
        let (shape, v) = zip_int(&[a], |x| Ok(x[0].signum()))?;
        int_result(c, shape, &v, dtype)
    }
}

/// `pow(self, exponent)` in the declared type (ONNX Pow's result has the base's type).
/// Integer results come from exact integer powers; a negative exponent of an integer
/// base gives what the float power truncates to, as ONNX Runtime's integer Pow does.
fn pow(c: &Call) -> Result<Vec<Value>> {
    let (a, b) = (arg(c, 0)?, arg(c, 1)?);
    let dtype = out_dtype(c, &[a, b])?;
    if dtype == DType::F32
        && let Some((shape, v)) = fast_pow_f32(&a, &b)
    {
        return args::ret(c, Tensor::new(shape, Data::F32(v))?);
    }
    if is_float(dtype) {
        let prec = Prec(dtype);
        let (shape, v) = zip_float(&[a, b], prec, |x| x[0].powf(x[1]))?;
        return float_result(c, shape, &v, dtype);
    }
    let exponent_is_float =
        matches!(b, Arg::Float(_)) || matches!(b, Arg::Tensor(t) if is_float(t.dtype()));
    let (shape, v) = if exponent_is_float {
        let inputs = [
            (a.shape(), a.floats(Prec(DType::F64))),
            (b.shape(), b.floats(Prec(DType::F64))),
        ];
        super::zip::zip(&inputs, |x| Ok(x[0].powf(x[1]) as i64))?
    } else {
        zip_int(&[a, b], |x| Ok(int_pow(x[0], x[1])))?
    };
    int_result(c, shape, &v, dtype)
}

/// The f32 fast path of `pow`: an f32 base tensor and a constant exponent (a scalar or
/// a one-element tensor, checked per call) of 0, ±1 to ±8, or 0.5, which ONNX Runtime
/// and torch models use for squares, cubes (GELU's x³), square roots and reciprocals.
/// Integer powers multiply in f64: an f32's square is exact there and its cube or
/// fourth power rounded once, so they give the f64 `powf`'s f32 (higher powers round
/// two or three times in f64, far below f32's half ulp). 0.5 is `sqrt`, correctly
/// rounded, with `powf`'s +0 for -0 and +∞ for -∞. `None` for other exponents.
fn fast_pow_f32(a: &Arg, b: &Arg) -> Option<(Vec<usize>, Vec<f32>)> {
    let exponent = match b {
        Arg::Tensor(t) if t.data.len() == 1 => match t.data.to_f64()[..] {
            [e] => Prec(DType::F32).round(e),
            _ => return None,
        },
        Arg::Tensor(_) => return None,
        _ => scalar_f32(b)? as f64,
    };
    // The result's shape is the base's only when the exponent's rank does not exceed it.
    if let Arg::Tensor(t) = b
        && t.rank() > a.shape().len()
    {
        return None;
    }
    if exponent == 2.0 {
        return fast_f32_unary(a, |x| x * x);
    }
    if exponent == 0.5 {
        return fast_f32_unary(a, sqrt_power);
    }
    if exponent.fract() != 0.0 || exponent.abs() > 8.0 {
        return None;
    }
    let n = exponent as i32;
    fast_f32_unary(a, move |x| small_power(x as f64, n) as f32)
}

/// `x^0.5`: the square root, with `powf`'s +0 for -0 and +∞ for -∞.
#[inline(always)]
pub(crate) fn sqrt_power(x: f32) -> f32 {
    if x == f32::NEG_INFINITY {
        f32::INFINITY
    } else {
        x.sqrt() + 0.0
    }
}

/// `x^n` for |n| ≤ 8 by squaring, in f64 (no f32 overflows or underflows there).
#[inline(always)]
pub(crate) fn small_power(x: f64, n: i32) -> f64 {
    let (mut result, mut b, mut e) = (1.0f64, x, n.unsigned_abs());
    while e > 0 {
        if e & 1 == 1 {
            result *= b;
        }
        e >>= 1;
        if e > 0 {
            b *= b;
        }
    }
    if n < 0 { 1.0 / result } else { result }
}

/// `base^exp` with wrapping multiplication; negative exponents truncate toward zero.
fn int_pow(base: i64, exp: i64) -> i64 {
    if exp < 0 {
        return match base {
            1 => 1,
            -1 if exp % 2 == 0 => 1,
            -1 => -1,
            _ => 0,
        };
    }
    let (mut result, mut b, mut e) = (1i64, base, exp as u64);
    while e > 0 {
        if e & 1 == 1 {
            result = result.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    result
}

/// `fmod` (the remainder has the dividend's sign, C's fmod) or `remainder` (the
/// divisor's sign, Python's %). An integer remainder by zero is an error.
fn modulo(c: &Call, python: bool) -> Result<Vec<Value>> {
    let (a, b) = (arg(c, 0)?, arg(c, 1)?);
    let dtype = out_dtype(c, &[a, b])?;
    if is_float(dtype) {
        let (shape, v) = zip_float(&[a, b], Prec(dtype), |x| {
            let r = x[0] % x[1];
            if python && r != 0.0 && ((r < 0.0) != (x[1] < 0.0)) {
                r + x[1]
            } else {
                r
            }
        })?;
        return float_result(c, shape, &v, dtype);
    }
    let (shape, v) = zip_int(&[a, b], |x| {
        if x[1] == 0 {
            bail!("integer remainder by zero");
        }
        let r = x[0].wrapping_rem(x[1]);
        Ok(if python && r != 0 && ((r < 0) != (x[1] < 0)) {
            r + x[1]
        } else {
            r
        })
    })?;
    int_result(c, shape, &v, dtype)
}

/// `maximum` / `minimum`: element-wise, NaN propagating as in torch.
fn extreme(c: &Call, max: bool) -> Result<Vec<Value>> {
    let (a, b) = (arg(c, 0)?, arg(c, 1)?);
    let dtype = out_dtype(c, &[a, b])?;
    if is_float(dtype) {
        let (shape, v) = zip_float(&[a, b], Prec(dtype), |x| {
            if x[0].is_nan() || x[1].is_nan() {
                f64::NAN
            } else if (x[0] > x[1]) == max {
                x[0]
            } else {
                x[1]
            }
        })?;
        float_result(c, shape, &v, dtype)
    } else if dtype == DType::I64
        && let Some((shape, v)) =
            fast_i64_binary(&a, &b, |x, y| if max { x.max(y) } else { x.min(y) })
    {
        args::ret(c, Tensor::new(shape, Data::I64(v))?)
    } else {
        let (shape, v) = zip_int(&[a, b], |x| {
            Ok(if max { x[0].max(x[1]) } else { x[0].min(x[1]) })
        })?;
        int_result(c, shape, &v, dtype)
    }
}

/// Booleans of a logical op, in the declared type (bool unless the IR says otherwise).
fn bool_result(c: &Call, shape: Vec<usize>, v: Vec<bool>) -> Result<Vec<Value>> {
    let data = match args::declared_dtype(c) {
        None | Some(DType::Bool) => Data::Bool(v),
        Some(d) => from_i64(d, &v.iter().map(|&b| i64::from(b)).collect::<Vec<_>>()),
    };
    args::ret(c, Tensor::new(shape, data)?)
}

/// Whether each element is non-zero (NaN counts as true, as in C).
fn truths(a: &Arg) -> Vec<bool> {
    match a {
        Arg::Tensor(t) if is_float(t.dtype()) => {
            t.data.to_f64().iter().map(|&x| x != 0.0).collect()
        }
        _ => a.ints().iter().map(|&x| x != 0).collect(),
    }
}

fn logical_not(c: &Call) -> Result<Vec<Value>> {
    let a = arg(c, 0)?;
    let inputs = [(a.shape(), truths(&a))];
    let (shape, v) = super::zip::zip(&inputs, |x| Ok(!x[0]))?;
    bool_result(c, shape, v)
}

fn logical(c: &Call, f: fn(bool, bool) -> bool) -> Result<Vec<Value>> {
    let (a, b) = (arg(c, 0)?, arg(c, 1)?);
    let inputs = [(a.shape(), truths(&a)), (b.shape(), truths(&b))];
    let (shape, v) = super::zip::zip(&inputs, |x| Ok(f(x[0], x[1])))?;
    bool_result(c, shape, v)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn sign_and_pow() {
        let t = run1("aten.sign", &[f32s(&[3], &[-2.0, 0.0, 3.0])], unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![-1.0, 0.0, 1.0]);
        let t = run1("aten.sign", &[i32s(&[2], &[-7, 9])], unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![-1, 1]));
        let args = [f32s(&[3], &[2.0, 4.0, -8.0]), f32s(&[1], &[0.5])];
        let t = run1("aten.pow.Tensor_Tensor", &args, of(DType::F32)).unwrap();
        let y = f32_values(&t);
        assert_eq!(y[..2], [2f64.sqrt() as f32, 2.0]);
        assert!(y[2].is_nan());
        let args = [i32s(&[3], &[2, 3, 2]), i32s(&[3], &[10, 2, -1])];
        let t = run1("aten.pow.Tensor_Tensor", &args, of(DType::I32)).unwrap();
        assert_eq!(t.data, Data::I32(vec![1024, 9, 0]));
        let args = [i32s(&[1], &[9]), f32s(&[1], &[0.5])];
        let t = run1("aten.pow.Tensor_Tensor", &args, of(DType::I32)).unwrap();
        assert_eq!(t.data, Data::I32(vec![3]));
    }

    #[test]
    fn small_powers_of_f32_are_the_general_paths_bytes() {
        use super::super::zip::{Arg, zip_float};
        use super::fast_pow_f32;
        use crate::kernels::tensor::Tensor;
        use crate::kernels::tensor::data::Prec;
        // Every 4099th bit pattern (all classes: NaNs, infinities, subnormals, ±0.0),
        // the smallest subnormals, and awkward values.
        let mut base: Vec<f32> = (0..=u32::MAX).step_by(4099).map(f32::from_bits).collect();
        base.extend((0..4096u32).flat_map(|b| [f32::from_bits(b), f32::from_bits(b | 1 << 31)]));
        base.extend(awkward_f32s(5, 4096, true));
        base.extend([0.0, -0.0, f32::MAX, f32::MIN, 1.5e19, 1.9e-23]);
        let x = Tensor::new(vec![base.len()], Data::F32(base)).unwrap();
        let f32_one = |e: f32| Tensor::new(vec![1], Data::F32(vec![e])).unwrap();
        let i64_rank0 = |e: i64| Tensor::new(vec![], Data::I64(vec![e])).unwrap();
        for e in [
            2.0, 3.0, 4.0, 1.0, 0.0, -1.0, -2.0, -3.0, 5.0, 8.0, -8.0, 0.5,
        ] {
            let (t32, t64) = (f32_one(e as f32), i64_rank0(e as i64));
            let exponents = [
                Arg::Float(e),
                Arg::Int(e as i64),
                Arg::Tensor(&t32),
                Arg::Tensor(&t64),
            ];
            for b in exponents {
                let a = Arg::Tensor(&x);
                let (shape, fast) = fast_pow_f32(&a, &b).unwrap();
                let (slow_shape, slow) =
                    zip_float(&[a, b], Prec(DType::F32), |v| v[0].powf(v[1])).unwrap();
                assert_eq!(shape, slow_shape);
                let slow: Vec<f32> = slow.iter().map(|&v| v as f32).collect();
                // libm's NaNs may differ in sign from the hardware's.
                let canonical = |v: &[f32]| -> Vec<f32> {
                    v.iter()
                        .map(|x| if x.is_nan() { f32::NAN } else { *x })
                        .collect()
                };
                let what = format!("exponent {e} as {b:?}");
                assert_same_f32_bits(&canonical(&fast), &canonical(&slow), &what);
            }
        }
        // Other exponents, an exponent per element, and an exponent of higher rank take
        // the general path.
        let a = Arg::Tensor(&x);
        for e in [2.5, 9.0, -0.5, 1e10] {
            assert!(fast_pow_f32(&a, &Arg::Float(e)).is_none());
        }
        let two = Tensor::new(vec![1, 1, 1], Data::F32(vec![2.0])).unwrap();
        assert!(fast_pow_f32(&a, &Arg::Tensor(&two)).is_none());
        let twos = Tensor::new(vec![2], Data::F32(vec![2.0; 2])).unwrap();
        let pair = Tensor::new(vec![2], Data::F32(vec![3.0, -0.0])).unwrap();
        assert!(fast_pow_f32(&Arg::Tensor(&pair), &Arg::Tensor(&twos)).is_none());
        let t = run1(
            "aten.pow.Tensor_Scalar",
            &[Value::tensor(pair.clone()), Value::Float(2.0)],
            of(DType::F32),
        )
        .unwrap();
        assert_same_f32_bits(&f32_values(&t), &[9.0, 0.0], "pow.Tensor_Scalar");
    }

    #[test]
    fn remainders_take_the_sign_of_their_convention() {
        let args = [i32s(&[2], &[-7, 7]), i32s(&[2], &[3, -3])];
        let t = run1("aten.fmod.Tensor", &args, unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![-1, 1]));
        let t = run1("aten.remainder.Tensor", &args, unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![2, -2]));
        let args = [f32s(&[2], &[-7.5, 7.5]), f32s(&[2], &[2.0, -2.0])];
        let t = run1("aten.remainder.Tensor", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![0.5, -0.5]);
        let t = run1("aten.fmod.Tensor", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![-1.5, 1.5]);
        let args = [i32s(&[1], &[1]), i32s(&[1], &[0])];
        assert!(run("aten.remainder.Tensor", &args, &[unknown()]).is_err());
    }

    #[test]
    fn minimum_maximum_and_logic() {
        let args = [f32s(&[3], &[1.0, 5.0, f32::NAN]), f32s(&[1], &[2.0])];
        let t = run1("aten.maximum", &args, unknown()).unwrap();
        let y = f32_values(&t);
        assert_eq!(y[..2], [2.0, 5.0]);
        assert!(y[2].is_nan());
        let t = run1("aten.minimum", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t)[..2], [1.0, 2.0]);
        let bools = |v: &[bool]| tensor(&[v.len()], Data::Bool(v.to_vec()));
        let args = [bools(&[true, true, false]), bools(&[true, false, false])];
        let t = run1("aten.logical_and", &args, unknown()).unwrap();
        assert_eq!(t.data, Data::Bool(vec![true, false, false]));
        let t = run1("aten.logical_or", &args, unknown()).unwrap();
        assert_eq!(t.data, Data::Bool(vec![true, true, false]));
        let t = run1("aten.logical_xor", &args, unknown()).unwrap();
        assert_eq!(t.data, Data::Bool(vec![false, true, false]));
        let t = run1("aten.logical_not", &args[..1], unknown()).unwrap();
        assert_eq!(t.data, Data::Bool(vec![false, false, true]));
    }
}
