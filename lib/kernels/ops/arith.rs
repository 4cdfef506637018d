//! Element-wise arithmetic: add, sub, mul, div (true, truncating and flooring), neg
//! and round, on broadcast tensors and scalars with torch's type promotion. Integer
//! results wrap like the integer type does; integer division by zero is an error.

use anyhow::{Result, bail};

use super::zip::{
    Arg, arg, fast_f32_binary, fast_i64_binary, float_result, int_result, opt_arg, out_dtype,
    zip_float, zip_int,
};
use crate::kernels::tensor::data::{Prec, is_float};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.add.Tensor" | "aten.add.Scalar" => add,
        "aten.sub.Tensor" | "aten.sub.Scalar" => sub,
        "aten.rsub.Scalar" | "aten.rsub.Tensor" => rsub,
        "aten.mul.Tensor" | "aten.mul.Scalar" => mul,
        "aten.div.Tensor" | "aten.div.Scalar" => div,
        "aten.div.Tensor_mode" | "aten.div.Scalar_mode" => div_mode,
        "aten.neg" => neg,
        "aten.round" => round,
        _ => return None,
    })
}

fn add(c: &Call) -> Result<Vec<Value>> {
    linear(c, arg(c, 0)?, arg(c, 1)?, 1)
}

fn sub(c: &Call) -> Result<Vec<Value>> {
    linear(c, arg(c, 0)?, arg(c, 1)?, -1)
}

/// `other - alpha·self`.
fn rsub(c: &Call) -> Result<Vec<Value>> {
    linear(c, arg(c, 1)?, arg(c, 0)?, -1)
}

/// `a + sign·alpha·b`, alpha being operand 2 (1 when absent).
fn linear(c: &Call, a: Arg, b: Arg, sign: i64) -> Result<Vec<Value>> {
    let dtype = out_dtype(c, &[a, b])?;
    let alpha = opt_arg(c, 2)?;
    if is_float(dtype) {
        let prec = Prec(dtype);
        let alpha = match alpha {
            None => 1.0,
            Some(a) => prec.round(scalar_float(a)?),
        };
        // f32 operands without broadcast: the same one-step roundings in f32 (an f32
        // sum, difference or product rounded from f64 is the f32 operation's result).
        if dtype == DType::F32 {
            let alpha32 = alpha as f32;
            // One closure per case, so each loop has no branch left to vectorize around.
            let fast = match (alpha == 1.0, sign > 0) {
                (true, true) => fast_f32_binary(&a, &b, |x, y| x + y),
                (true, false) => fast_f32_binary(&a, &b, |x, y| x - y),
                (false, true) => fast_f32_binary(&a, &b, |x, y| x + alpha32 * y),
                (false, false) => fast_f32_binary(&a, &b, |x, y| x - alpha32 * y),
            };
            if let Some((shape, v)) = fast {
                return args::ret(c, Tensor::new(shape, Data::F32(v))?);
            }
        }
        let sign = sign as f64;
        let (shape, v) = zip_float(&[a, b], prec, |x| {
            // torch multiplies by alpha only when it is not 1, rounding the product.
            let scaled = if alpha == 1.0 {
                x[1]
            } else {
                prec.round(alpha * x[1])
            };
            x[0] + sign * scaled
        })?;
        float_result(c, shape, &v, dtype)
    } else {
        let alpha = match alpha {
            None => 1,
            Some(a) => scalar_int(a)?,
        };
        if dtype == DType::I64
            && let Some((shape, v)) = fast_i64_binary(&a, &b, |x, y| {
                x.wrapping_add(y.wrapping_mul(alpha).wrapping_mul(sign))
            })
        {
            return args::ret(c, Tensor::new(shape, Data::I64(v))?);
        }
        let (shape, v) = zip_int(&[a, b], |x| {
            let scaled = x[1].wrapping_mul(alpha).wrapping_mul(sign);
            Ok(x[0].wrapping_add(scaled))
        })?;
        int_result(c, shape, &v, dtype)
    }
}

fn scalar_float(a: Arg) -> Result<f64> {
    match a {
        Arg::Int(v) => Ok(v as f64),
        Arg::Float(v) => Ok(v),
        Arg::Bool(v) => Ok(f64::from(u8::from(v))),
        Arg::Tensor(_) => bail!("alpha must be a scalar"),
    }
}

fn scalar_int(a: Arg) -> Result<i64> {
    match a {
        Arg::Int(v) => Ok(v),
        Arg::Bool(v) => Ok(i64::from(v)),
        Arg::Float(v) => bail!("alpha {v} must be an integer for integer operands"),
        Arg::Tensor(_) => bail!("alpha must be a scalar"),
    }
}

fn mul(c: &Call) -> Result<Vec<Value>> {
    let (a, b) = (arg(c, 0)?, arg(c, 1)?);
    let dtype = out_dtype(c, &[a, b])?;
    if dtype == DType::F32
        && let Some((shape, v)) = fast_f32_binary(&a, &b, |x, y| x * y)
    {
        return args::ret(c, Tensor::new(shape, Data::F32(v))?);
    }
    if is_float(dtype) {
        let (shape, v) = zip_float(&[a, b], Prec(dtype), |x| x[0] * x[1])?;
        float_result(c, shape, &v, dtype)
    } else if dtype == DType::I64
        && let Some((shape, v)) = fast_i64_binary(&a, &b, |x, y| x.wrapping_mul(y))
    {
        args::ret(c, Tensor::new(shape, Data::I64(v))?)
    } else {
        let (shape, v) = zip_int(&[a, b], |x| Ok(x[0].wrapping_mul(x[1])))?;
        int_result(c, shape, &v, dtype)
    }
}

/// True division: integer operands divide as floats (of the default type, f32).
fn div(c: &Call) -> Result<Vec<Value>> {
    let (a, b) = (arg(c, 0)?, arg(c, 1)?);
    true_div(c, a, b)
}

fn true_div(c: &Call, a: Arg, b: Arg) -> Result<Vec<Value>> {
    let promoted = out_dtype(c, &[a, b])?;
    let dtype = if is_float(promoted) {
        promoted
    } else {
        DType::F32
    };
    let out = args::declared_dtype(c).unwrap_or(dtype);
    // f32 division is correctly rounded, as the f64 quotient rounded to f32 is.
    if dtype == DType::F32
        && out == DType::F32
        && let Some((shape, v)) = fast_f32_binary(&a, &b, |x, y| x / y)
    {
        return args::ret(c, Tensor::new(shape, Data::F32(v))?);
    }
    let (shape, v) = zip_float(&[a, b], Prec(dtype), |x| x[0] / x[1])?;
    float_result(c, shape, &v, out)
}

/// `div` with `rounding_mode`: none (true division), "trunc" or "floor".
fn div_mode(c: &Call) -> Result<Vec<Value>> {
    let (a, b) = (arg(c, 0)?, arg(c, 1)?);
    let mode = match args::opt(c, 2) {
        None => return true_div(c, a, b),
        Some(_) => args::string(c, 2)?,
    };
    let floor = match mode {
        "trunc" => false,
        "floor" => true,
        other => bail!("rounding mode '{other}' is not one of trunc, floor"),
    };
    let dtype = out_dtype(c, &[a, b])?;
    if is_float(dtype) {
        let prec = Prec(dtype);
        let (shape, v) = zip_float(&[a, b], prec, |x| {
            if floor {
                floor_div(x[0], x[1], prec)
            } else {
                prec.round(x[0] / x[1]).trunc()
            }
        })?;
        float_result(c, shape, &v, dtype)
    } else {
        let (shape, v) = zip_int(&[a, b], |x| {
            if x[1] == 0 {
                bail!("integer division by zero");
            }
            let q = x[0].wrapping_div(x[1]);
            let inexact = x[0].wrapping_rem(x[1]) != 0;
            Ok(if floor && inexact && ((x[0] < 0) != (x[1] < 0)) {
                q - 1
            } else {
                q
            })
        })?;
        int_result(c, shape, &v, dtype)
    }
}

/// Python's float floor division, as torch computes it: from the remainder, so that
/// `a == b·q + r` holds as closely as the precision allows.
fn floor_div(a: f64, b: f64, prec: Prec) -> f64 {
    if b == 0.0 {
        return a / b;
    }
    // fmod is exact, so only the subtraction and division round.
    let r = a % b;
    let mut q = prec.round(prec.round(a - r) / b);
    if r != 0.0 && ((b < 0.0) != (r < 0.0)) {
        q = prec.round(q - 1.0);
    }
    if q == 0.0 {
        // Keep the sign of the true quotient on a zero result.
        return (0.0f64).copysign(a / b);
    }
    let f = q.floor();
    if q - f > 0.5 { f + 1.0 } else { f }
}

fn neg(c: &Call) -> Result<Vec<Value>> {
    let a = arg(c, 0)?;
    let dtype = out_dtype(c, &[a])?;
    if dtype == DType::Bool {
        bail!("neg of a boolean tensor is not defined");
    }
    if is_float(dtype) {
        let (shape, v) = zip_float(&[a], Prec(dtype), |x| -x[0])?;
        float_result(c, shape, &v, dtype)
    } else {
        let (shape, v) = zip_int(&[a], |x| Ok(x[0].wrapping_neg()))?;
        int_result(c, shape, &v, dtype)
    }
}

/// Round half to even; integers are already round.
fn round(c: &Call) -> Result<Vec<Value>> {
    let a = arg(c, 0)?;
    let dtype = out_dtype(c, &[a])?;
    if is_float(dtype) {
        let (shape, v) = zip_float(&[a], Prec(dtype), |x| x[0].round_ties_even())?;
        float_result(c, shape, &v, dtype)
    } else {
        let (shape, v) = zip_int(&[a], |x| Ok(x[0]))?;
        int_result(c, shape, &v, dtype)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn int32_subtraction_wraps_and_stays_int32() {
        let a = i32s(&[2], &[i32::MIN, 5]);
        let b = i32s(&[1], &[1]);
        let t = run1("aten.sub.Tensor", &[a, b, Value::Int(1)], unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![i32::MAX, 4]));
    }

    #[test]
    fn add_broadcasts_and_applies_alpha() {
        let a = f32s(&[2, 1], &[1.0, 2.0]);
        let b = f32s(&[2], &[10.0, 20.0]);
        let t = run1("aten.add.Tensor", &[a, b, Value::Int(2)], of(DType::F32)).unwrap();
        assert_eq!(t.shape, vec![2, 2]);
        assert_eq!(f32_values(&t), vec![21.0, 41.0, 22.0, 42.0]);
    }

    #[test]
    fn an_int_tensor_and_a_float_scalar_give_floats() {
        let a = i32s(&[2], &[1, 2]);
        let t = run1(
            "aten.mul.Scalar",
            &[a.clone(), Value::Float(0.5)],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.data, Data::F32(vec![0.5, 1.0]));
        let t = run1(
            "aten.add.Scalar",
            &[a, Value::Int(3), Value::Int(1)],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.data, Data::I32(vec![4, 5]));
    }

    #[test]
    fn division_rounds_in_f32() {
        let a = f32s(&[], &[1.0]);
        let t = run1("aten.div.Scalar", &[a, Value::Float(3.0)], of(DType::F32)).unwrap();
        assert_eq!(f32_values(&t), vec![1.0f32 / 3.0]);
        // True division of integers gives floats.
        let t = run1(
            "aten.div.Tensor",
            &[i32s(&[1], &[7]), i32s(&[1], &[2])],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.data, Data::F32(vec![3.5]));
    }

    #[test]
    fn division_modes_truncate_or_floor() {
        let a = i32s(&[4], &[7, -7, 7, -7]);
        let b = i32s(&[4], &[2, 2, -2, -2]);
        let trunc = Value::Str("trunc".into());
        let floor = Value::Str("floor".into());
        let args = [a.clone(), b.clone(), trunc.clone()];
        let t = run1("aten.div.Tensor_mode", &args, of(DType::I32)).unwrap();
        assert_eq!(t.data, Data::I32(vec![3, -3, -3, 3]));
        let t = run1(
            "aten.div.Tensor_mode",
            &[a, b, floor.clone()],
            of(DType::I32),
        )
        .unwrap();
        assert_eq!(t.data, Data::I32(vec![3, -4, -4, 3]));
        let fa = f32s(&[3], &[7.0, -7.0, 1.0]);
        let fb = f32s(&[3], &[2.0, 2.0, 0.0]);
        let t = run1(
            "aten.div.Tensor_mode",
            &[fa.clone(), fb.clone(), floor],
            unknown(),
        )
        .unwrap();
        assert_eq!(f32_values(&t), vec![3.0, -4.0, f32::INFINITY]);
        let t = run1("aten.div.Tensor_mode", &[fa, fb, trunc], unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![3.0, -3.0, f32::INFINITY]);
    }

    #[test]
    fn integer_division_by_zero_is_an_error() {
        let args = [
            i32s(&[1], &[1]),
            i32s(&[1], &[0]),
            Value::Str("trunc".into()),
        ];
        let e = run("aten.div.Tensor_mode", &args, &[unknown()]).unwrap_err();
        assert!(e.to_string().contains("division by zero"));
        let args = [
            i32s(&[1], &[1]),
            i32s(&[1], &[1]),
            Value::Str("nearest".into()),
        ];
        assert!(run("aten.div.Tensor_mode", &args, &[unknown()]).is_err());
    }

    #[test]
    fn round_is_half_to_even_and_neg_wraps() {
        let x = f32s(&[6], &[0.5, 1.5, 2.5, -0.5, -1.5, 2.6]);
        let t = run1("aten.round", &[x], unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![0.0, 2.0, 2.0, -0.0, -2.0, 3.0]);
        let t = run1("aten.neg", &[i32s(&[2], &[i32::MIN, 3])], unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![i32::MIN, -3]));
    }

    #[test]
    fn mismatched_shapes_and_quantized_operands_are_refused() {
        let args = [f32s(&[2], &[1.0, 2.0]), f32s(&[3], &[1.0, 2.0, 3.0])];
        assert!(run("aten.mul.Tensor", &args, &[unknown()]).is_err());
        let mut q = crate::kernels::tensor::Tensor::new(vec![1], Data::U8(vec![1])).unwrap();
        q.quant = Some(crate::kernels::tensor::Quant::PerTensor {
            scale: 1.0,
            zero_point: 0,
        });
        let args = [Value::tensor(q), f32s(&[1], &[1.0])];
        assert!(run("aten.mul.Tensor", &args, &[unknown()]).is_err());
    }

    /// Values that exercise rounding: random bit patterns (subnormals, huge values,
    /// NaNs, infinities included) and ordinary numbers.
    pub(crate) fn awkward_f32s(n: usize, seed: u64) -> Vec<f32> {
        let mut state = seed;
        (0..n)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if i % 2 == 0 {
                    f32::from_bits(state as u32)
                } else {
                    (state % 100_000) as f32 / 997.0 - 50.0
                }
            })
            .collect()
    }

    /// The f32 fast paths of add, sub (with alpha), mul, relu and clamp against the f64
    /// domain's formulas, bit for bit (NaN compared as NaN), on sizes across the rayon
    /// split.
    #[test]
    fn f32_fast_paths_are_bit_identical_to_the_f64_formulas() {
        let n = (1 << 15) + 33;
        let (a, b) = (awkward_f32s(n, 7), awkward_f32s(n, 11));
        let r = |x: f64| x as f32;
        let same = |got: &[f32], want: &dyn Fn(usize) -> f32| {
            for (i, g) in got.iter().enumerate() {
                let w = want(i);
                assert!(
                    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                    "element {i}: {g} vs {w}"
                );
            }
        };
        let (ta, tb) = (f32s(&[n], &a), f32s(&[n], &b));
        let (fa, fb) = (|i: usize| a[i] as f64, |i: usize| b[i] as f64);
        let alpha = 0.3f64 as f32 as f64;
        type Want<'a> = Box<dyn Fn(usize) -> f32 + 'a>;
        let cases: Vec<(&str, Vec<Value>, Want)> = vec![
            (
                "aten.add.Tensor",
                vec![ta.clone(), tb.clone()],
                Box::new(|i| r(fa(i) + fb(i))),
            ),
            (
                "aten.sub.Tensor",
                vec![ta.clone(), tb.clone(), Value::Float(0.3)],
                Box::new(|i| r(fa(i) - r(alpha * fb(i)) as f64)),
            ),
            (
                "aten.mul.Tensor",
                vec![ta.clone(), tb.clone()],
                Box::new(|i| r(fa(i) * fb(i))),
            ),
            (
                "aten.mul.Tensor",
                vec![ta.clone(), Value::Float(0.1)],
                Box::new(|i| r(fa(i) * r(0.1) as f64)),
            ),
            (
                "aten.add.Scalar",
                vec![ta.clone(), Value::Int(3), Value::Int(2)],
                Box::new(|i| r(fa(i) + 6.0)),
            ),
            (
                "aten.relu",
                vec![ta.clone()],
                Box::new(|i| if a[i] < 0.0 { 0.0 } else { a[i] }),
            ),
            (
                "aten.clamp",
                vec![ta.clone(), Value::Float(-1.5), Value::Float(6.0)],
                Box::new(|i| {
                    if a[i].is_nan() {
                        f32::NAN
                    } else {
                        r(fa(i).clamp(-1.5, 6.0))
                    }
                }),
            ),
        ];
        for (op, args, want) in cases {
            let t = run1(op, &args, of(DType::F32)).unwrap();
            assert_eq!(t.shape, vec![n], "{op}");
            same(&f32_values(&t), &*want);
        }
    }
}
