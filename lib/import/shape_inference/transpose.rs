//! Transpose, whose default permutation reverses the axes.

use anyhow::{Result, bail};

use bytes::Bytes;

use super::ctx::Ctx;
use super::{Inferred, ShapeRules, fold};
use crate::onnx::tensor::TensorData;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Transpose"], 1, transpose);
}

fn transpose(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let perm = ctx.attrs().optional_ints("perm")?;
    let Some(input) = ctx.shape(0) else {
        let shape = perm.map(|p| vec![None; p.len()]);
        return Ok(vec![Inferred::of(dtype, shape)]);
    };
    let r = input.len();
    let perm: Vec<i64> = perm.unwrap_or_else(|| (0..r).rev().map(super::dims::rank_i64).collect());
    let mut seen = vec![false; r];
    let mut shape = Vec::with_capacity(r);
    for &p in &perm {
        let slot = usize::try_from(p).ok().filter(|&i| i < r);
        match slot.and_then(|i| seen.get_mut(i).map(|s| (i, s))) {
            Some((i, s)) if !*s => {
                *s = true;
                shape.push(input.get(i).copied().flatten());
            }
            _ => break,
        }
    }
    if perm.len() != r || shape.len() != r {
        bail!(
            "attribute 'perm' is {perm:?}, which is not a permutation of the {r} axes of input 'data'"
        );
    }
    let value = ctx
        .value(0)
        .and_then(fold::small)
        .and_then(|v| permuted(v, &perm));
    Ok(vec![Inferred::of(dtype, Some(shape)).with_value(value)])
}

/// A small integer tensor transposed at import, as exporters transpose pad vectors
/// (torch's `F.pad` writes Reshape → Slice → Transpose → Reshape of the pads).
fn permuted(v: &TensorData, perm: &[i64]) -> Option<TensorData> {
    let rank = v.dims.len();
    let perm: Vec<usize> = perm
        .iter()
        .map(|&p| usize::try_from(p).ok())
        .collect::<Option<_>>()?;
    let dims: Vec<usize> = v
        .dims
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<_>>()?;
    let size = v.dtype.size();
    let count: usize = dims.iter().product();
    if perm.len() != rank || v.bytes.len() != count.checked_mul(size)? {
        return None;
    }
    // Row-major strides of the input, read in the output's axis order.
    let mut strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    let out_dims: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
    let mut out = Vec::with_capacity(v.bytes.len());
    let mut index = vec![0usize; rank];
    for _ in 0..count {
        let offset: usize = index.iter().zip(&perm).map(|(&i, &p)| i * strides[p]).sum();
        out.extend_from_slice(&v.bytes[offset * size..(offset + 1) * size]);
        for axis in (0..rank).rev() {
            index[axis] += 1;
            if index[axis] < out_dims[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    Some(TensorData {
        dtype: v.dtype,
        dims: out_dims.iter().map(|&d| d as i64).collect(),
        bytes: Bytes::from(out),
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ty, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn default_perm_reverses_and_explicit_perm_permutes() {
        let x = || [Some(In::new(DType::F32, &[2, 3, -1]))];
        let t = out_ty(&N::new("Transpose", &["data"], 1), 13, &x());
        assert_eq!(t, ty(DType::F32, &[-1, 3, 2]));
        let n = N::new("Transpose", &["data"], 1).ints("perm", &[1, 0, 2]);
        assert_eq!(out_ty(&n, 13, &x()), ty(DType::F32, &[3, 2, -1]));
    }

    #[test]
    fn a_small_integer_value_is_transposed() {
        let v = crate::onnx::tensor::TensorData {
            dtype: DType::I64,
            dims: vec![2, 3],
            bytes: [1i64, 2, 3, 4, 5, 6]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<u8>>()
                .into(),
        };
        let t = super::permuted(&v, &[1, 0]).unwrap();
        assert_eq!(t.dims, vec![3, 2]);
        assert_eq!(t.to_i64_vec().unwrap(), vec![1, 4, 2, 5, 3, 6]);
    }

    #[test]
    fn a_bad_perm_is_an_error() {
        let x = [Some(In::new(DType::F32, &[2, 3]))];
        for perm in [&[0, 0][..], &[0, 2], &[0], &[-1, 0]] {
            let n = N::new("Transpose", &["data"], 1).ints("perm", perm);
            assert!(
                err(&n, 13, &x).contains("is not a permutation of the 2 axes"),
                "{perm:?}"
            );
        }
    }
}
