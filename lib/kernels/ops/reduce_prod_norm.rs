//! Reductions by product and by norm: `prod.dim_int(self, dim, keepdim, dtype?)` and
//! `linalg_vector_norm(self, ord, dim?, keepdim, dtype?)`. Products multiply in index
//! order, rounding to the element type after every step (integers wrap); norms add
//! the powers in f64 and round once.

use anyhow::{Result, bail};

use super::reduce::{fold_ints, reduction, result_dtype, values};
use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::data::{Prec, from_f64, from_i64, is_float};
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.prod.dim_int" => prod,
        "aten.linalg_vector_norm" => vector_norm,
        _ => return None,
    })
}

fn prod(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let dim = args::int(c, 1)?;
    let keepdim = args::boolean(c, 2)?;
    let dtype = result_dtype(c, 3, x.data.dtype())?;
    if x.rank() == 0 && !(dim == 0 || dim == -1) {
        bail!("dimension {dim} of a 0-d tensor");
    }
    let dims: Vec<i64> = if x.rank() == 0 { vec![] } else { vec![dim] };
    let r = reduction(&x.shape, &dims, keepdim)?;
    let data = if is_float(dtype) {
        let p = Prec(dtype);
        let v = values(x)?;
        let out: Vec<f64> = r
            .bases
            .iter()
            .map(|&b| r.inner.iter().fold(1.0, |acc, &j| p.round(acc * v[b + j])))
            .collect();
        from_f64(dtype, &out)
    } else {
        from_i64(dtype, &fold_ints(x, &r, 1, i64::wrapping_mul)?)
    };
    args::ret(c, Tensor::new(r.shape, data)?)
}

/// `(Σ |x|^ord)^(1/ord)` over `dim` (all dimensions when absent or empty); ord 0 counts
/// the non-zero elements and ±∞ takes the largest or smallest magnitude.
fn vector_norm(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let ord = args::float(c, 1)?;
    if ord.is_nan() {
        bail!("norm order is NaN");
    }
    let dims = args::opt_ints(c, 2)?.unwrap_or(&[]);
    let keepdim = args::boolean(c, 3)?;
    let dtype = match args::opt(c, 4) {
        Some(_) => args::dtype_code(c, 4)?,
        None => args::declared_dtype(c).unwrap_or(x.data.dtype()),
    };
    if !is_float(dtype) {
        bail!("linalg_vector_norm of {dtype}: only float results are defined");
    }
    let r = reduction(&x.shape, dims, keepdim)?;
    let v = values(x)?;
    let out: Vec<f64> = r
        .bases
        .iter()
        .map(|&b| {
            let mags = r.inner.iter().map(|&j| v[b + j].abs());
            if ord == f64::INFINITY {
                mags.fold(0.0, f64::max)
            } else if ord == f64::NEG_INFINITY {
                mags.fold(f64::INFINITY, f64::min)
            } else if ord == 0.0 {
                mags.filter(|&m| m != 0.0).count() as f64
            } else if ord == 2.0 {
                mags.map(|m| m * m).sum::<f64>().sqrt()
            } else if ord == 1.0 {
                mags.sum()
            } else {
                mags.map(|m| m.powf(ord)).sum::<f64>().powf(1.0 / ord)
            }
        })
        .collect();
    args::ret(c, Tensor::new(r.shape, from_f64(dtype, &out))?)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn products_along_one_dimension() {
        let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let args = [x.clone(), Value::Int(1), Value::Bool(true), Value::None];
        let t = run1("aten.prod.dim_int", &args, unknown()).unwrap();
        assert_eq!(
            (t.shape.clone(), f32_values(&t)),
            (vec![2, 1], vec![6.0, 120.0])
        );
        let args = [
            i32s(&[3], &[2, -3, 4]),
            Value::Int(0),
            Value::Bool(false),
            Value::None,
        ];
        let t = run1("aten.prod.dim_int", &args, unknown()).unwrap();
        assert_eq!(t.data, Data::I64(vec![-24]));
        let args = [x, Value::Int(2), Value::Bool(false), Value::None];
        assert!(run("aten.prod.dim_int", &args, &[unknown()]).is_err());
    }

    #[test]
    fn norms_over_dimensions() {
        let x = f32s(&[2, 2], &[3.0, -4.0, 0.0, 1.0]);
        let args = [
            x.clone(),
            Value::Float(2.0),
            ints(&[1]),
            Value::Bool(false),
            Value::None,
        ];
        let t = run1("aten.linalg_vector_norm", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![5.0, 1.0]);
        let args = [
            x,
            Value::Float(1.0),
            Value::None,
            Value::Bool(true),
            Value::None,
        ];
        let t = run1("aten.linalg_vector_norm", &args, unknown()).unwrap();
        assert_eq!((t.shape.clone(), f32_values(&t)), (vec![1, 1], vec![8.0]));
    }
}
