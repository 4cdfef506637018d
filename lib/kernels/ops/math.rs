//! Element-wise math beyond the four operations: `sign`, `pow`, `fmod` and `remainder`
//! (C's and Python's remainders), `minimum` / `maximum`, and the logical ops, on
//! broadcast tensors. Floats are computed in f64 and rounded to the result type;
//! integers stay integers.

use anyhow::{Result, bail};

use super::zip::{Arg, arg, float_result, int_result, out_dtype, zip_float, zip_int};
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
