//! The trigonometric and hyperbolic functions and their inverses, evaluated in f64 and
//! rounded once to the element type, and the float predicates `isnan`, `isinf`,
//! `isposinf` and `isneginf` (boolean results).

use anyhow::{Result, bail};

use super::smooth::float_fn;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.cos" => |c| float_fn(c, f64::cos),
        "aten.sin" => |c| float_fn(c, f64::sin),
        "aten.tan" => |c| float_fn(c, f64::tan),
        "aten.acos" => |c| float_fn(c, f64::acos),
        "aten.asin" => |c| float_fn(c, f64::asin),
        "aten.atan" => |c| float_fn(c, f64::atan),
        "aten.sinh" => |c| float_fn(c, f64::sinh),
        "aten.cosh" => |c| float_fn(c, f64::cosh),
        "aten.asinh" => |c| float_fn(c, f64::asinh),
        "aten.acosh" => |c| float_fn(c, f64::acosh),
        "aten.atanh" => |c| float_fn(c, f64::atanh),
        "aten.isnan" => |c| predicate(c, f64::is_nan),
        "aten.isinf" => |c| predicate(c, f64::is_infinite),
        "aten.isposinf" => |c| predicate(c, |x| x == f64::INFINITY),
        "aten.isneginf" => |c| predicate(c, |x| x == f64::NEG_INFINITY),
        _ => return None,
    })
}

/// A boolean tensor of `p` on each element of a float tensor (integers are never NaN
/// or infinite, and so give all false).
fn predicate(c: &Call, p: fn(f64) -> bool) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    if x.quant.is_some() {
        bail!("the input is a quantized {} tensor", x.dtype());
    }
    let v: Vec<bool> = if x.data.dtype().is_float() {
        x.data.to_f64().into_iter().map(p).collect()
    } else {
        vec![false; x.data.len()]
    };
    args::ret(c, Tensor::new(x.shape.clone(), Data::Bool(v))?)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::testing::*;

    #[test]
    fn functions_round_once() {
        let t = run1("aten.cos", &[f32s(&[2], &[0.0, 1.0])], of(DType::F32)).unwrap();
        assert_eq!(f32_values(&t), vec![1.0, 1.0f64.cos() as f32]);
        let t = run1("aten.atanh", &[f32s(&[2], &[0.5, 2.0])], unknown()).unwrap();
        let y = f32_values(&t);
        assert_eq!(y[0], 0.5f64.atanh() as f32);
        assert!(y[1].is_nan());
    }

    #[test]
    fn predicates() {
        let x = f32s(&[4], &[1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY]);
        let t = run1("aten.isnan", std::slice::from_ref(&x), unknown()).unwrap();
        assert_eq!(t.data, Data::Bool(vec![false, true, false, false]));
        let t = run1("aten.isinf", std::slice::from_ref(&x), unknown()).unwrap();
        assert_eq!(t.data, Data::Bool(vec![false, false, true, true]));
        let t = run1("aten.isposinf", std::slice::from_ref(&x), unknown()).unwrap();
        assert_eq!(t.data, Data::Bool(vec![false, false, true, false]));
        let t = run1("aten.isneginf", &[x], unknown()).unwrap();
        assert_eq!(t.data, Data::Bool(vec![false, false, false, true]));
    }
}
