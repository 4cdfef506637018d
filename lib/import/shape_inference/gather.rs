//! Gather (indices select slices along an axis) and GatherElements.

use anyhow::{Result, bail};

use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::{self, fmt_shape};
use super::{Inferred, fold, partial};
use crate::dialect::types::Dim;
use crate::onnx::tensor::TensorData;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Gather"], 1, gather);
    r.infer_ops(&["GatherND"], 11, gather_nd);
    r.infer_ops(&["GatherElements"], 1, |ctx| {
        if let (Some(r), Some(q)) = (ctx.rank(0), ctx.rank(1))
            && r != q
        {
            bail!("input 'indices' has rank {q}, but input 'data' has rank {r}");
        }
        Ok(vec![Inferred::of(ctx.dtype(0), ctx.shape(1))])
    });
}

fn gather(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let Some(data) = ctx.shape(0) else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let a = dims::axis(ctx.attrs().int("axis", 0)?, data.len(), "attribute 'axis'")?;
    let indices = ctx.ints(1);
    if let (Some(Some(size)), Some(indices)) = (data.get(a), &indices) {
        for &i in indices {
            if i < -*size || i >= *size {
                bail!(
                    "input 'indices' holds {i}, outside axis {a} of input 'data' {}",
                    fmt_shape(&data)
                );
            }
        }
    }
    let Some(idx_shape) = ctx.shape(1) else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let mut shape: Vec<Dim> = data.get(..a).unwrap_or_default().to_vec();
    shape.extend(&idx_shape);
    shape.extend(data.get(a + 1..).unwrap_or_default());
    let value = match (ctx.value(0), ctx.value(1), &indices) {
        (Some(v), Some(iv), Some(indices)) => fold_values(v, a, &iv.dims, indices),
        _ => None,
    };
    // From a vector only partly known (a shape with a dynamic dimension), the picked
    // elements are known where the vector's are.
    let elements = match (ctx.elements(0), indices) {
        (Some(e), Some(indices)) if data.len() == 1 => partial::pick(&e, indices),
        _ => None,
    };
    Ok(vec![
        Inferred::of(dtype, Some(shape))
            .with_value(value)
            .with_elements(elements),
    ])
}

/// GatherND: `indices[..., k]` picks slices of data's dimensions after the first
/// `batch_dims`; the result is `indices.shape[:-1] + data.shape[batch_dims + k:]`.
fn gather_nd(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let b = ctx.attrs().int("batch_dims", 0)?;
    let (Some(data), Some(idx)) = (ctx.shape(0), ctx.shape(1)) else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let Some(&last) = idx.last() else {
        bail!("input 'indices' must have rank 1 or more");
    };
    let Some(k) = last else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let b = usize::try_from(b).map_err(|_| anyhow::anyhow!("attribute 'batch_dims' is {b}"))?;
    let k = usize::try_from(k).unwrap_or(usize::MAX);
    if b >= idx.len() || b >= data.len() || k < 1 || k > data.len() - b {
        bail!(
            "indices {} with batch_dims {b} do not fit data {}: the last dimension of indices \
             must be between 1 and the rank of data less batch_dims",
            fmt_shape(&idx),
            fmt_shape(&data)
        );
    }
    let mut shape: Vec<Dim> = idx[..idx.len() - 1].to_vec();
    shape.extend(&data[b + k..]);
    Ok(vec![Inferred::of(dtype, Some(shape))])
}

fn fold_values(v: &TensorData, a: usize, idx_dims: &[i64], indices: &[i64]) -> Option<TensorData> {
    let v = fold::small(v)?;
    let size = *v.dims.get(a)?;
    let outer = fold::count_of(v.dims.get(..a)?)?;
    let inner = fold::count_of(v.dims.get(a + 1..)?)?;
    let mut dims_out = v.dims.get(..a)?.to_vec();
    dims_out.extend(idx_dims);
    dims_out.extend(v.dims.get(a + 1..)?);
    if fold::count_of(&dims_out)? > fold::LIMIT {
        return None;
    }
    let size_u = usize::try_from(size).ok()?;
    let mut picks = Vec::new();
    for o in 0..outer {
        for &i in indices {
            let i = if i < 0 { i.checked_add(size)? } else { i };
            let i = usize::try_from(i).ok().filter(|&i| i < size_u)?;
            let base = o.checked_mul(size_u)?.checked_add(i)?.checked_mul(inner)?;
            picks.extend((0..inner).map(|e| (0, base + e)));
        }
    }
    fold::pick(dims_out, &[v], picks)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ints, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn gather_replaces_the_axis_with_the_indices_shape() {
        let n = N::new("Gather", &["data", "indices"], 1).int("axis", 1);
        let t = out_ty(
            &n,
            13,
            &[
                Some(In::new(DType::F32, &[2, 5, 3])),
                Some(In::new(DType::I64, &[4, 6])),
            ],
        );
        assert_eq!(t, ty(DType::F32, &[2, 4, 6, 3]));
        let t = out_ty(
            &n,
            13,
            &[
                Some(In::new(DType::F32, &[2, 5, 3])),
                Some(In::ints(&[], &[0])),
            ],
        );
        assert_eq!(t, ty(DType::F32, &[2, 3]));
    }

    #[test]
    fn gather_folds_a_shape_element() {
        let n = N::new("Gather", &["data", "indices"], 1);
        let outs = run(
            &n,
            13,
            &[
                Some(In::ints(&[4], &[1, 3, 224, 224])),
                Some(In::ints(&[], &[-3])),
            ],
        )
        .unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[]));
        assert_eq!(out_ints(&outs, 0), Some(vec![3]));
        let outs = run(
            &n,
            13,
            &[
                Some(In::ints(&[3, 2], &[1, 2, 3, 4, 5, 6])),
                Some(In::ints(&[2], &[2, 0])),
            ],
        )
        .unwrap();
        assert_eq!(out_ints(&outs, 0), Some(vec![5, 6, 1, 2]));
    }

    #[test]
    fn gather_picks_known_elements_of_a_partial_shape() {
        let n = N::new("Gather", &["data", "indices"], 1);
        let shape = || Some(In::partial(&[None, Some(400), Some(6), Some(64)]));
        let outs = run(&n, 13, &[shape(), Some(In::ints(&[4], &[0, 2, 1, 3]))]).unwrap();
        assert_eq!(outs[0].value, None);
        assert_eq!(
            outs[0].partial,
            Some(vec![None, Some(6), Some(400), Some(64)])
        );
        // One known element is a value again.
        let outs = run(&n, 13, &[shape(), Some(In::ints(&[], &[-3]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[]));
        assert_eq!(out_ints(&outs, 0), Some(vec![400]));
        let outs = run(&n, 13, &[shape(), Some(In::ints(&[1], &[0]))]).unwrap();
        assert_eq!(
            (outs[0].value.clone(), outs[0].partial.clone()),
            (None, None)
        );
    }

    #[test]
    fn gather_index_out_of_range_is_an_error() {
        let n = N::new("Gather", &["data", "indices"], 1);
        let e = err(
            &n,
            13,
            &[Some(In::new(DType::F32, &[4])), Some(In::ints(&[1], &[4]))],
        );
        assert_eq!(
            e,
            "input 'indices' holds 4, outside axis 0 of input 'data' [4]"
        );
    }
}
