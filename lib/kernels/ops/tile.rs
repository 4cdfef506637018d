//! `tile(self, dims)`: the tensor repeated `dims[d]` times along each dimension (ONNX
//! Tile). Fewer repeats than dimensions count from the back, as torch pads `dims` with
//! leading 1s; more add leading dimensions.

use anyhow::Result;

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::data::gather;
use crate::kernels::tensor::layout::{result_count, strides};
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.tile" => tile,
        _ => return None,
    })
}

fn tile(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let repeats = args::ints(c, 1)?
        .iter()
        .map(|&r| args::size(r, "a repeat count"))
        .collect::<Result<Vec<_>>>()?;
    let rank = repeats.len().max(x.rank());
    let pad = |v: &[usize]| -> Vec<usize> {
        let mut out = vec![1; rank - v.len()];
        out.extend_from_slice(v);
        out
    };
    let (in_shape, repeats) = (pad(&x.shape), pad(&repeats));
    let out_shape = in_shape
        .iter()
        .zip(&repeats)
        .map(|(&d, &r)| {
            d.checked_mul(r)
                .ok_or_else(|| anyhow::anyhow!("tiling {:?} by {repeats:?} overflows", x.shape))
        })
        .collect::<Result<Vec<_>>>()?;
    let n = result_count(&out_shape)?;
    let in_strides = strides(&in_shape);
    let mut map = Vec::with_capacity(n);
    let mut index = vec![0usize; rank];
    for _ in 0..n {
        map.push(
            index
                .iter()
                .zip(&in_shape)
                .zip(&in_strides)
                .map(|((&i, &d), &s)| (i % d) * s)
                .sum(),
        );
        for k in (0..rank).rev() {
            index[k] += 1;
            if index[k] < out_shape[k] {
                break;
            }
            index[k] = 0;
        }
    }
    let mut t = Tensor::new(out_shape, gather(&x.data, &map))?;
    t.quant = super::shape::keep_quant(x, |a| Some(a + rank - x.rank()))?;
    args::ret(c, t)
}

#[cfg(test)]
mod tests {
    use crate::kernels::testing::*;

    #[test]
    fn tiles_repeat_each_axis() {
        let x = f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let t = run1("aten.tile", &[x.clone(), ints(&[1, 2])], unknown()).unwrap();
        assert_eq!(t.shape, vec![2, 4]);
        assert_eq!(f32_values(&t), vec![1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0]);
        let t = run1("aten.tile", &[x.clone(), ints(&[2, 1])], unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0]);
        let t = run1("aten.tile", &[x.clone(), ints(&[0, 3])], unknown()).unwrap();
        assert_eq!(t.shape, vec![0, 6]);
    }

    #[test]
    fn negative_or_huge_repeats_are_refused() {
        let x = f32s(&[2], &[1.0, 2.0]);
        assert!(run1("aten.tile", &[x.clone(), ints(&[-1])], unknown()).is_err());
        assert!(run1("aten.tile", &[x, ints(&[i64::MAX])], unknown()).is_err());
    }
}
