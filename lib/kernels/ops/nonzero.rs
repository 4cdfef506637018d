//! `nonzero(self)`: the index of every element that is not zero, as int64 rows
//! `[n, rank]` in row-major order (NaN counts as non-zero, as `x != 0` says). `n`
//! depends on the data, so the declared type leaves it open.

use anyhow::Result;

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::layout::strides;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, bounded_bytes};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.nonzero" => nonzero,
        _ => return None,
    })
}

fn nonzero(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    // Quantized tensors hold their integers in `data`: torch compares those, so do we.
    let set: Vec<bool> = x.data.to_f64().iter().map(|&v| v != 0.0).collect();
    let rank = x.rank();
    let n = set.iter().filter(|&&s| s).count();
    bounded_bytes(&[n, rank], DType::I64)?;
    let st = strides(&x.shape);
    let mut out = Vec::with_capacity(n * rank);
    for (flat, _) in set.iter().enumerate().filter(|(_, s)| **s) {
        let mut rest = flat;
        for &s in &st {
            out.push((rest / s) as i64);
            rest %= s;
        }
    }
    args::ret(c, Tensor::new(vec![n, rank], Data::I64(out))?)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::testing::{f32s, run1, tensor, unknown};

    #[test]
    fn indices_come_row_major_one_row_per_non_zero_element() {
        let x = f32s(&[2, 3], &[0.0, 1.0, 0.0, f32::NAN, 0.0, -2.0]);
        let t = run1("aten.nonzero", &[x], unknown()).unwrap();
        assert_eq!(t.shape, vec![3, 2]);
        assert_eq!(t.data.to_i64(), vec![0, 1, 1, 0, 1, 2]);
        let none = tensor(&[2, 2], Data::Bool(vec![false; 4]));
        let t = run1("aten.nonzero", &[none], unknown()).unwrap();
        assert_eq!(t.shape, vec![0, 2]);
    }
}
