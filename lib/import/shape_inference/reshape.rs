//! Reshape (0 copies, -1 infers, allowzero) and Flatten.

use anyhow::{Result, bail};

use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::{self, fmt_shape};
use super::{Inferred, fold};
use crate::dialect::types::Dim;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Reshape"], 1, reshape);
    r.infer_ops(&["Flatten"], 1, flatten);
}

fn reshape(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    // Before opset 5 the target was the `shape` attribute. A target known only in part
    // (a shape vector with a dynamic batch) sizes what it knows.
    let target = if ctx.opset < 5 {
        ctx.attrs()
            .optional_ints("shape")?
            .map(|t| dims::static_dims(&t))
    } else {
        ctx.ints(1)
            .map(|t| dims::static_dims(&t))
            .or_else(|| ctx.elements(1).filter(|_| ctx.rank(1) == Some(1)))
    };
    let Some(target) = target else {
        // Unknown target: only its length, the output rank, may be known.
        let rank = dims::vector_len(ctx.shape(1));
        return Ok(vec![Inferred::of(dtype, rank.map(|r| vec![None; r]))]);
    };
    let allow_zero = ctx.opset >= 14 && ctx.attrs().int("allowzero", 0)? != 0;
    let shape = target_shape(ctx.shape(0), &target, allow_zero)?;
    let value = match (ctx.value(0), dims::known(&shape)) {
        (Some(v), Some(d)) => fold::reshaped(v, d),
        _ => None,
    };
    Ok(vec![
        Inferred::of(dtype, Some(shape))
            .with_value(value)
            .with_elements(ctx.elements(0)),
    ])
}

/// `[4, -1, ?]`: a target in messages, `?` for an element known only at run time.
fn fmt_target(target: &[Dim]) -> String {
    let parts: Vec<String> = target
        .iter()
        .map(|d| d.map_or_else(|| "?".to_string(), |n| n.to_string()))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// Resolves a Reshape target against the input shape (when known). An element of the
/// target known only at run time (`None`) leaves that dimension unknown, and since it
/// may be the -1 or a 0, no dimension is inferred and no count checked beside it.
fn target_shape(input: Option<Vec<Dim>>, target: &[Dim], allow_zero: bool) -> Result<Vec<Dim>> {
    let mut out: Vec<Dim> = Vec::with_capacity(target.len());
    // Input dimensions not carried over by a 0; only they size the -1.
    let mut remaining: Option<Vec<Dim>> = input.clone();
    let mut infer_at = None;
    for (i, &t) in target.iter().enumerate() {
        let Some(t) = t else {
            out.push(None);
            continue;
        };
        match t {
            0 if !allow_zero => {
                let copied = match &input {
                    Some(s) => match s.get(i) {
                        Some(&d) => d,
                        None => bail!(
                            "input 'shape' holds 0 at index {i}, which copies a dimension input 'data' {} does not have",
                            fmt_shape(s)
                        ),
                    },
                    None => None,
                };
                if let Some(r) = remaining.as_mut()
                    && let Some(slot) = r.get_mut(i)
                {
                    // Cancel it from both sides, so a dynamic copy does not hide the -1.
                    *slot = Some(1);
                }
                out.push(copied);
            }
            -1 => {
                if infer_at.is_some() {
                    bail!("input 'shape' holds -1 more than once");
                }
                infer_at = Some(i);
                out.push(None);
            }
            t if t < 0 => bail!("input 'shape' holds {t}, but sizes must be -1 or more"),
            t => out.push(Some(t)),
        }
    }
    let copied: Vec<bool> = target
        .iter()
        .map(|&t| t == Some(0) && !allow_zero)
        .collect();
    let rest: Vec<Dim> = out
        .iter()
        .zip(&copied)
        .enumerate()
        .filter(|&(i, (_, &c))| !c && Some(i) != infer_at)
        .map(|(_, (&d, _))| d)
        .collect();
    let have = remaining.as_deref().and_then(dims::product);
    let want = dims::product(&rest);
    match (infer_at, have, want) {
        (Some(i), Some(have), Some(want)) => {
            if want == 0 || have % want != 0 {
                if want == 0 && have == 0 {
                    return Ok(out);
                }
                bail!(
                    "input 'shape' {} cannot be filled from input 'data' {}",
                    fmt_target(target),
                    fmt_shape(input.as_deref().unwrap_or_default())
                );
            }
            if let Some(slot) = out.get_mut(i) {
                *slot = Some(have / want);
            }
        }
        (None, Some(have), Some(want)) if have != want => bail!(
            "input 'shape' {} has {want} elements, but input 'data' {} has {have}",
            fmt_target(target),
            fmt_shape(input.as_deref().unwrap_or_default())
        ),
        _ => {}
    }
    Ok(out)
}

fn flatten(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let Some(s) = ctx.shape(0) else {
        return Ok(vec![Inferred::of(dtype, Some(vec![None, None]))]);
    };
    let axis = ctx.attrs().int("axis", 1)?;
    // Unlike most axes, Flatten's may equal the rank (everything goes outer).
    let r = dims::rank_i64(s.len());
    let resolved = if axis < 0 {
        axis.checked_add(r)
    } else {
        Some(axis)
    };
    let Some(a) = resolved
        .filter(|a| (0..=r).contains(a))
        .and_then(|a| usize::try_from(a).ok())
    else {
        bail!("attribute 'axis' is {axis}, outside the range [-{r}, {r}] for rank {r}");
    };
    let (outer, inner) = s.split_at(a.min(s.len()));
    let shape = vec![dims::product(outer), dims::product(inner)];
    let value = match (ctx.value(0), dims::known(&shape)) {
        (Some(v), Some(d)) => fold::reshaped(v, d),
        _ => None,
    };
    Ok(vec![Inferred::of(dtype, Some(shape)).with_value(value)])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ints, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    fn reshape(data: In, shape: &[i64]) -> anyhow::Result<Vec<super::Inferred>> {
        let n = N::new("Reshape", &["data", "shape"], 1);
        let len = i64::try_from(shape.len()).unwrap();
        run(&n, 14, &[Some(data), Some(In::ints(&[len], shape))])
    }

    #[test]
    fn reshape_copies_zeros_and_infers_minus_one() {
        let out = reshape(In::new(DType::F32, &[2, 3, 4]), &[0, -1]).unwrap();
        assert_eq!(out[0].ty, ty(DType::F32, &[2, 12]));
        // A dynamic batch copied by 0 cancels out, so -1 is still known.
        let out = reshape(In::new(DType::F32, &[-1, 3, 4]), &[0, -1]).unwrap();
        assert_eq!(out[0].ty, ty(DType::F32, &[-1, 12]));
        let out = reshape(In::new(DType::F32, &[-1, 3, 4]), &[-1, 6]).unwrap();
        assert_eq!(out[0].ty, ty(DType::F32, &[-1, 6]));
    }

    fn reshape_to(
        data: In,
        target: &[Option<i64>],
        allow_zero: i64,
    ) -> crate::dialect::types::TensorType {
        let n = N::new("Reshape", &["data", "shape"], 1).int("allowzero", allow_zero);
        out_ty(&n, 14, &[Some(data), Some(In::partial(target))])
    }

    /// Smart-turn's attention: `Concat(Shape(x)[0:1], [400, 6, 64])` with x's batch
    /// dynamic sizes every dimension but the batch.
    #[test]
    fn reshape_to_a_partly_known_target_keeps_its_known_sizes() {
        let x = || In::new(DType::F32, &[-1, 400, 384]);
        let t = reshape_to(x(), &[None, Some(400), Some(6), Some(64)], 0);
        assert_eq!(t, ty(DType::F32, &[-1, 400, 6, 64]));
        // A known 0 still copies, and a known -1 next to an unknown element stays
        // unknown: the unknown one may be the batch or not.
        let t = reshape_to(x(), &[None, Some(0), Some(-1)], 0);
        assert_eq!(t, ty(DType::F32, &[-1, 400, -1]));
        let t = reshape_to(x(), &[Some(0), None, Some(6), Some(64)], 1);
        assert_eq!(t, ty(DType::F32, &[0, -1, 6, 64]));
        let n = N::new("Reshape", &["data", "shape"], 1);
        let e = err(
            &n,
            14,
            &[Some(x()), Some(In::partial(&[None, Some(-1), Some(-1)]))],
        );
        assert_eq!(e, "input 'shape' holds -1 more than once");
        let e = err(&n, 14, &[Some(x()), Some(In::partial(&[None, Some(-2)]))]);
        assert_eq!(e, "input 'shape' holds -2, but sizes must be -1 or more");
    }

    #[test]
    fn reshape_of_a_partly_known_vector_keeps_its_elements() {
        let n = N::new("Reshape", &["data", "shape"], 1);
        let outs = run(
            &n,
            14,
            &[
                Some(In::partial(&[None, Some(4)])),
                Some(In::ints(&[1], &[-1])),
            ],
        )
        .unwrap();
        assert_eq!(outs[0].partial, Some(vec![None, Some(4)]));
    }

    #[test]
    fn reshape_allowzero_keeps_zero_sizes() {
        let n = N::new("Reshape", &["data", "shape"], 1).int("allowzero", 1);
        let t = out_ty(
            &n,
            14,
            &[
                Some(In::new(DType::F32, &[0, 4])),
                Some(In::ints(&[2], &[4, 0])),
            ],
        );
        assert_eq!(t, ty(DType::F32, &[4, 0]));
    }

    #[test]
    fn reshape_that_does_not_fit_is_an_error() {
        let e = reshape(In::new(DType::F32, &[2, 3]), &[4, 2])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "input 'shape' [4, 2] has 8 elements, but input 'data' [2,3] has 6"
        );
        let e = reshape(In::new(DType::F32, &[2, 3]), &[-1, 4])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "input 'shape' [-1, 4] cannot be filled from input 'data' [2,3]"
        );
        let e = reshape(In::new(DType::F32, &[6]), &[-1, -1])
            .unwrap_err()
            .to_string();
        assert_eq!(e, "input 'shape' holds -1 more than once");
    }

    #[test]
    fn reshape_of_unknown_target_knows_only_the_rank() {
        let n = N::new("Reshape", &["data", "shape"], 1);
        let t = out_ty(
            &n,
            13,
            &[
                Some(In::new(DType::F32, &[6])),
                Some(In::new(DType::I64, &[3])),
            ],
        );
        assert_eq!(t, ty(DType::F32, &[-1, -1, -1]));
    }

    #[test]
    fn reshape_folds_small_int_values() {
        let out = reshape(In::ints(&[2, 2], &[1, 2, 3, 4]), &[4]).unwrap();
        assert_eq!(out_ints(&out, 0), Some(vec![1, 2, 3, 4]));
        assert_eq!(out[0].value.as_ref().map(|v| v.dims.clone()), Some(vec![4]));
    }

    #[test]
    fn flatten_splits_at_axis() {
        let x = || Some(In::new(DType::F32, &[2, 3, 4, 5]));
        let at = |axis| out_ty(&N::new("Flatten", &["x"], 1).int("axis", axis), 13, &[x()]);
        assert_eq!(at(1), ty(DType::F32, &[2, 60]));
        assert_eq!(at(0), ty(DType::F32, &[1, 120]));
        assert_eq!(at(4), ty(DType::F32, &[120, 1]));
        assert_eq!(at(-2), ty(DType::F32, &[6, 20]));
        let e = err(&N::new("Flatten", &["x"], 1).int("axis", 5), 13, &[x()]);
        assert_eq!(
            e,
            "attribute 'axis' is 5, outside the range [-4, 4] for rank 4"
        );
    }
}
