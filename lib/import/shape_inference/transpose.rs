//! Transpose, whose default permutation reverses the axes.

use anyhow::{Result, bail};

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;

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
    Ok(vec![Inferred::of(dtype, Some(shape))])
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
