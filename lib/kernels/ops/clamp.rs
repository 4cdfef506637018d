//! `clamp` with scalar or tensor bounds (either may be absent), `clamp_min` and
//! `clamp_max`. As in torch, `min(max(x, lo), hi)`: a lower bound above the upper one
//! gives the upper bound, and a NaN in the input or a bound gives NaN.

use anyhow::{Result, bail};

use super::zip::{
    Arg, arg, fast_f32_unary, float_result, int_result, opt_arg, out_dtype, scalar_f32, zip_float,
    zip_int,
};
use crate::kernels::tensor::data::{Prec, is_float};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.clamp" | "aten.clamp.Tensor" => clamp,
        "aten.clamp_min" | "aten.clamp_min.Tensor" => clamp_min,
        "aten.clamp_max" | "aten.clamp_max.Tensor" => clamp_max,
        _ => return None,
    })
}

fn clamp(c: &Call) -> Result<Vec<Value>> {
    let (lo, hi) = (opt_arg(c, 1)?, opt_arg(c, 2)?);
    if lo.is_none() && hi.is_none() {
        bail!("clamp needs a lower or an upper bound");
    }
    bounded(c, lo, hi)
}

fn clamp_min(c: &Call) -> Result<Vec<Value>> {
    bounded(c, Some(arg(c, 1)?), None)
}

fn clamp_max(c: &Call) -> Result<Vec<Value>> {
    bounded(c, None, Some(arg(c, 1)?))
}

fn bounded(c: &Call, lo: Option<Arg>, hi: Option<Arg>) -> Result<Vec<Value>> {
    let x = arg(c, 0)?;
    let mut operands = vec![x];
    operands.extend(lo);
    operands.extend(hi);
    let dtype = out_dtype(c, &operands)?;
    // Which of operands 1 and 2 are the lower and upper bound.
    let (lo_at, hi_at) = match (lo.is_some(), hi.is_some()) {
        (true, true) => (Some(1), Some(2)),
        (true, false) => (Some(1), None),
        (false, _) => (None, Some(1)),
    };
    // Scalar bounds on an f32 tensor: the same comparisons in f32.
    if dtype == DType::F32 {
        let lo32 = lo.as_ref().map(scalar_f32);
        let hi32 = hi.as_ref().map(scalar_f32);
        if !matches!(lo32, Some(None)) && !matches!(hi32, Some(None)) {
            let (lo32, hi32) = (lo32.flatten(), hi32.flatten());
            let fast = fast_f32_unary(&x, |v| {
                let mut y = v;
                for (bound, upper) in [(lo32, false), (hi32, true)] {
                    let Some(b) = bound else { continue };
                    // A NaN input passes through as it is (its sign bit too, which
                    // a float8 conversion after a saturating clamp keeps).
                    if y.is_nan() {
                        return y;
                    }
                    if b.is_nan() {
                        return f32::NAN;
                    }
                    y = if upper { y.min(b) } else { y.max(b) };
                }
                y
            });
            if let Some((shape, v)) = fast {
                return args::ret(c, Tensor::new(shape, Data::F32(v))?);
            }
        }
    }
    if is_float(dtype) {
        let (shape, v) = zip_float(&operands, Prec(dtype), |x| {
            let mut y = x[0];
            for (at, upper) in [(lo_at, false), (hi_at, true)] {
                let Some(b) = at.map(|i| x[i]) else { continue };
                if y.is_nan() {
                    return y;
                }
                if b.is_nan() {
                    return f64::NAN;
                }
                y = if upper { y.min(b) } else { y.max(b) };
            }
            y
        })?;
        float_result(c, shape, &v, dtype)
    } else {
        let (shape, v) = zip_int(&operands, |x| {
            let mut y = x[0];
            if let Some(i) = lo_at {
                y = y.max(x[i]);
            }
            if let Some(i) = hi_at {
                y = y.min(x[i]);
            }
            Ok(y)
        })?;
        int_result(c, shape, &v, dtype)
    }
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn scalar_bounds_either_or_both() {
        let x = f32s(&[4], &[-1.0, 0.5, 2.0, f32::NAN]);
        let args = [x.clone(), Value::Float(0.0), Value::Float(1.0)];
        let t = run1("aten.clamp", &args, of(DType::F32)).unwrap();
        let v = f32_values(&t);
        assert_eq!(v[..3], [0.0, 0.5, 1.0]);
        assert!(v[3].is_nan());
        let args = [x.clone(), Value::None, Value::Float(1.0)];
        let t = run1("aten.clamp", &args, of(DType::F32)).unwrap();
        assert_eq!(f32_values(&t)[..3], [-1.0, 0.5, 1.0]);
        let t = run1("aten.clamp_min", &[x.clone(), Value::Float(0.0)], unknown()).unwrap();
        assert_eq!(f32_values(&t)[..3], [0.0, 0.5, 2.0]);
        let t = run1("aten.clamp_max", &[x, Value::Float(0.0)], unknown()).unwrap();
        assert_eq!(f32_values(&t)[..3], [-1.0, 0.0, 0.0]);
    }

    #[test]
    fn tensor_bounds_broadcast_and_ints_stay_ints() {
        let x = i32s(&[2, 2], &[-5, 5, -5, 5]);
        let lo = i32s(&[2, 1], &[0, -10]);
        let hi = i32s(&[], &[3]);
        let t = run1("aten.clamp.Tensor", &[x, lo, hi], unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![0, 3, -5, 3]));
        // A lower bound above the upper gives the upper.
        let args = [f32s(&[1], &[0.5]), Value::Float(2.0), Value::Float(1.0)];
        let t = run1("aten.clamp", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![1.0]);
        let args = [f32s(&[1], &[0.5]), Value::None, Value::None];
        assert!(run("aten.clamp", &args, &[unknown()]).is_err());
    }
}
