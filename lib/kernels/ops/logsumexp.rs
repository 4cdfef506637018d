//! `logsumexp(self, dim, keepdim)`: ln Σ e^x over the reduced dimensions, computed
//! as m + ln Σ e^(x - m) with m the group's maximum, so that no exponential overflows
//! (as ONNX Runtime's ReduceLogSumExp does). Accumulated in f64 and rounded once; an
//! empty group gives -∞ (the log of an empty sum).

use anyhow::{Result, bail};

use super::reduce::{reduction, values};
use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::data::{from_f64, is_float};
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.logsumexp" => logsumexp,
        _ => return None,
    })
}

/// ln Σ e^v, stable against overflow; NaN if any element is NaN.
fn log_sum_exp(v: impl Iterator<Item = f64> + Clone) -> f64 {
    let m = v.clone().fold(f64::NEG_INFINITY, |m, x| {
        if m.is_nan() || x.is_nan() {
            f64::NAN
        } else {
            m.max(x)
        }
    });
    if !m.is_finite() {
        // -∞ (empty, or every element -∞), +∞, or NaN: the sum adds nothing to it.
        return m;
    }
    m + v.map(|x| (x - m).exp()).sum::<f64>().ln()
}

fn logsumexp(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let dims = args::ints(c, 1)?;
    let keepdim = args::boolean(c, 2)?;
    let dtype = args::declared_dtype(c).unwrap_or(x.data.dtype());
    if !is_float(dtype) || !is_float(x.data.dtype()) {
        bail!(
            "logsumexp of {} into {dtype}: only floats are supported",
            x.dtype()
        );
    }
    let r = reduction(&x.shape, dims, keepdim)?;
    let v = values(x)?;
    let out: Vec<f64> = r
        .bases
        .iter()
        .map(|&b| log_sum_exp(r.inner.iter().map(|&j| v[b + j])))
        .collect();
    args::ret(c, Tensor::new(r.shape, from_f64(dtype, &out))?)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn reduces_the_named_dimensions_without_overflow() {
        let x = f32s(&[2, 2], &[0.0, 1.0, 1000.0, 1000.0]);
        let args = [x, ints(&[1]), Value::Bool(false)];
        let t = run1("aten.logsumexp", &args, of(DType::F32)).unwrap();
        let first = (1.0f64 + 1.0f64.exp()).ln() as f32;
        let second = (1000.0 + 2.0f64.ln()) as f32;
        assert_eq!(t.shape, vec![2]);
        assert_eq!(f32_values(&t), vec![first, second]);
        let empty = [f32s(&[0, 2], &[]), ints(&[0]), Value::Bool(true)];
        let t = run1("aten.logsumexp", &empty, of(DType::F32)).unwrap();
        assert_eq!(f32_values(&t), vec![f32::NEG_INFINITY; 2]);
        let int = [i32s(&[1], &[1]), ints(&[0]), Value::Bool(true)];
        assert!(run1("aten.logsumexp", &int, unknown()).is_err());
    }
}
