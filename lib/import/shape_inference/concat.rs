//! Concat: inputs agree outside the axis, whose sizes add up.

use anyhow::{Result, bail};

use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::{self, fmt_shape};
use super::{Inferred, fold};
use crate::dialect::types::Dim;
use crate::onnx::tensor::TensorData;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Concat"], 1, concat);
}

fn concat(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let n = ctx.input_slots();
    let inputs: Vec<(usize, String)> = (0..n).map(|i| (i, format!("input {i}"))).collect();
    let dtype = ctx.shared_dtype(&inputs)?;
    let axis = ctx.attrs().int("axis", 1)?;
    let shape = concat_shape(ctx, &inputs, axis)?;
    let value = shape
        .as_ref()
        .and_then(|s| dims::axis(axis, s.len(), "").ok())
        .and_then(|a| fold_values(ctx, n, a));
    Ok(vec![
        Inferred::of(dtype, shape)
            .with_value(value)
            .with_elements(concat_elements(ctx, n)),
    ])
}

/// Vectors of which some elements are known, one after the other: a shape vector
/// built from a dynamic dimension and constants.
fn concat_elements(ctx: &Ctx, n: usize) -> Option<Vec<Dim>> {
    let mut out = Vec::new();
    for i in 0..n {
        if ctx.rank(i)? != 1 {
            return None;
        }
        out.extend(ctx.elements(i)?);
    }
    Some(out)
}

/// The concatenation along `axis` of `inputs`, given as (input index, name).
pub(super) fn concat_shape(
    ctx: &Ctx,
    inputs: &[(usize, String)],
    axis: i64,
) -> Result<Option<Vec<Dim>>> {
    let shapes: Vec<(&str, Option<Vec<Dim>>)> = inputs
        .iter()
        .map(|(i, name)| (name.as_str(), ctx.shape(*i)))
        .collect();
    let Some((first, rank)) = shapes
        .iter()
        .find_map(|(name, s)| s.as_ref().map(|s| (*name, s.len())))
    else {
        return Ok(None);
    };
    let a = dims::axis(axis, rank, "attribute 'axis'")?;
    let mut out: Vec<Dim> = vec![None; rank];
    let mut total: Dim = Some(0);
    let mut all_known = true;
    let mut seen: Option<Vec<Dim>> = None;
    for (name, s) in &shapes {
        let Some(s) = s else {
            all_known = false;
            continue;
        };
        if s.len() != rank {
            bail!("{name} has rank {}, but {first} has rank {rank}", s.len());
        }
        for (k, (o, d)) in out.iter_mut().zip(s).enumerate() {
            if k == a {
                continue;
            }
            match (*o, *d) {
                (Some(x), Some(y)) if x != y => bail!(
                    "{name} has shape {}, which differs from {} outside axis {a}",
                    fmt_shape(s),
                    fmt_shape(seen.as_deref().unwrap_or_default())
                ),
                (x, y) => *o = x.or(y),
            }
        }
        total = total
            .zip(s.get(a).copied().flatten())
            .and_then(|(t, d)| t.checked_add(d));
        seen = Some(s.clone());
    }
    if let Some(slot) = out.get_mut(a) {
        *slot = total.filter(|_| all_known);
    }
    Ok(Some(out))
}

/// Concatenates small integer values: for each index before the axis, the blocks of
/// every input in turn.
fn fold_values(ctx: &Ctx, n: usize, axis: usize) -> Option<TensorData> {
    let values: Vec<&TensorData> = (0..n)
        .map(|i| ctx.value(i).and_then(fold::small))
        .collect::<Option<_>>()?;
    let first = values.first()?;
    let outer = fold::count_of(first.dims.get(..axis)?)?;
    let mut dims_out = first.dims.clone();
    let mut axis_total = 0i64;
    let mut blocks = Vec::with_capacity(values.len());
    for v in &values {
        if v.dims.len() != first.dims.len() || fold::count_of(v.dims.get(..axis)?)? != outer {
            return None;
        }
        axis_total = axis_total.checked_add(*v.dims.get(axis)?)?;
        blocks.push(fold::count_of(v.dims.get(axis..)?)?);
    }
    *dims_out.get_mut(axis)? = axis_total;
    let mut picks = Vec::new();
    for o in 0..outer {
        for (j, &b) in blocks.iter().enumerate() {
            let start = o.checked_mul(b)?;
            picks.extend((start..start.checked_add(b)?).map(|e| (j, e)));
        }
    }
    fold::pick(dims_out, &values, picks)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ints, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn concat_adds_the_axis_and_merges_the_rest() {
        let n = N::new("Concat", &["a", "b"], 1).int("axis", 1);
        let t = out_ty(
            &n,
            13,
            &[
                Some(In::new(DType::F32, &[-1, 3, 4])),
                Some(In::new(DType::F32, &[2, 5, 4])),
            ],
        );
        assert_eq!(t, ty(DType::F32, &[2, 8, 4]));
        let t = out_ty(&n, 13, &[Some(In::new(DType::F32, &[2, 3])), None]);
        assert_eq!(t, ty(DType::F32, &[2, -1]));
    }

    #[test]
    fn concat_mismatches_are_errors() {
        let n = N::new("Concat", &["a", "b"], 1).int("axis", 0);
        let e = err(
            &n,
            13,
            &[
                Some(In::new(DType::F32, &[2, 3])),
                Some(In::new(DType::F32, &[2, 4])),
            ],
        );
        assert_eq!(
            e,
            "input 1 has shape [2,4], which differs from [2,3] outside axis 0"
        );
        let e = err(
            &n,
            13,
            &[
                Some(In::new(DType::F32, &[2, 3])),
                Some(In::new(DType::F32, &[2])),
            ],
        );
        assert_eq!(e, "input 1 has rank 1, but input 0 has rank 2");
    }

    #[test]
    fn concat_folds_shape_vectors() {
        let n = N::new("Concat", &["a", "b", "c"], 1).int("axis", 0);
        let outs = run(
            &n,
            13,
            &[
                Some(In::ints(&[1], &[1])),
                Some(In::ints(&[2], &[-1, 4])),
                Some(In::ints(&[0], &[])),
            ],
        )
        .unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[3]));
        assert_eq!(out_ints(&outs, 0), Some(vec![1, -1, 4]));
        let n = N::new("Concat", &["a", "b"], 1).int("axis", 1);
        let outs = run(
            &n,
            13,
            &[
                Some(In::ints(&[2, 1], &[1, 2])),
                Some(In::ints(&[2, 2], &[3, 4, 5, 6])),
            ],
        )
        .unwrap();
        assert_eq!(out_ints(&outs, 0), Some(vec![1, 3, 4, 2, 5, 6]));
    }

    #[test]
    fn concat_carries_partly_known_vectors() {
        let n = N::new("Concat", &["a", "b", "c"], 1).int("axis", 0);
        let outs = run(
            &n,
            13,
            &[
                Some(In::new(DType::I64, &[1])),
                Some(In::ints(&[1], &[400])),
                Some(In::ints(&[2], &[6, 64])),
            ],
        )
        .unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[4]));
        assert_eq!(
            outs[0].partial,
            Some(vec![None, Some(400), Some(6), Some(64)])
        );
        // An input of which nothing is known is as many unknown elements.
        let outs = run(
            &n,
            13,
            &[
                Some(In::new(DType::I64, &[1])),
                Some(In::ints(&[1], &[2])),
                Some(In::new(DType::I64, &[2])),
            ],
        )
        .unwrap();
        assert_eq!(outs[0].partial, Some(vec![None, Some(2), None, None]));
        let outs = run(
            &n,
            13,
            &[
                Some(In::new(DType::I64, &[1])),
                Some(In::ints(&[1], &[2])),
                Some(In::new(DType::I64, &[-1])),
            ],
        )
        .unwrap();
        assert_eq!(outs[0].partial, None);
    }
}
