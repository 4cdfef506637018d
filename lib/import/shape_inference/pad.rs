//! Pad: each padded axis grows by its begin and end pads (negative pads crop).

use anyhow::{Result, bail};

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::{self, fmt_shape};
use crate::dialect::types::Dim;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Pad"], 1, pad);
}

fn pad(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let Some(input) = ctx.shape(0) else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let r = input.len();
    let (pads, what) = if ctx.opset < 2 {
        (
            ctx.attrs().optional_ints("paddings")?,
            "attribute 'paddings'",
        )
    } else if ctx.opset < 11 {
        (ctx.attrs().optional_ints("pads")?, "attribute 'pads'")
    } else {
        (ctx.ints(1), "input 'pads'")
    };
    // The axes input (opset 18) says which axes the pads are for.
    let axes: Option<Vec<usize>> = if ctx.opset >= 18 && ctx.present(3) {
        match ctx.ints(3) {
            Some(a) => Some(dims::axes(&a, r, "input 'axes'")?),
            None => return Ok(vec![Inferred::of(dtype, Some(vec![None; r]))]),
        }
    } else {
        Some((0..r).collect())
    };
    let (Some(pads), Some(axes)) = (pads, axes) else {
        return Ok(vec![Inferred::of(dtype, Some(vec![None; r]))]);
    };
    let n = axes.len();
    if pads.len() != n.saturating_mul(2) {
        bail!(
            "{what} has {} values, but padding {n} axes needs {}",
            pads.len(),
            n.saturating_mul(2)
        );
    }
    let mut shape: Vec<Dim> = input.clone();
    for (k, &a) in axes.iter().enumerate() {
        let (Some(&begin), Some(&end), Some(slot)) =
            (pads.get(k), pads.get(k + n), shape.get_mut(a))
        else {
            continue;
        };
        let Some(d) = *slot else { continue };
        let grown = i128::from(d) + i128::from(begin) + i128::from(end);
        if grown < 0 {
            bail!(
                "{what} {pads:?} crops axis {a} of input 'data' {} below zero",
                fmt_shape(&input)
            );
        }
        *slot = i64::try_from(grown).ok();
    }
    Ok(vec![Inferred::of(dtype, Some(shape))])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ty, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn pads_from_input_attribute_and_axes() {
        let n = N::new("Pad", &["data", "pads"], 1);
        let ins = [
            Some(In::new(DType::F32, &[1, 3, 4, -1])),
            Some(In::ints(&[8], &[0, 0, 1, 1, 0, 0, 2, 1])),
        ];
        assert_eq!(out_ty(&n, 13, &ins), ty(DType::F32, &[1, 3, 7, -1]));
        let old = N::new("Pad", &["data"], 1).ints("pads", &[1, -1]);
        assert_eq!(
            out_ty(&old, 2, &[Some(In::new(DType::F32, &[4]))]),
            ty(DType::F32, &[4])
        );
        let axes = N::new("Pad", &["data", "pads", "", "axes"], 1);
        let ins = [
            Some(In::new(DType::F32, &[2, 3])),
            Some(In::ints(&[2], &[1, 2])),
            None,
            Some(In::ints(&[1], &[-1])),
        ];
        assert_eq!(out_ty(&axes, 18, &ins), ty(DType::F32, &[2, 6]));
    }

    #[test]
    fn bad_pads_are_errors() {
        let n = N::new("Pad", &["data", "pads"], 1);
        let e = err(
            &n,
            13,
            &[Some(In::new(DType::F32, &[2])), Some(In::ints(&[1], &[1]))],
        );
        assert_eq!(e, "input 'pads' has 1 values, but padding 1 axes needs 2");
        let e = err(
            &n,
            13,
            &[
                Some(In::new(DType::F32, &[2])),
                Some(In::ints(&[2], &[-2, -1])),
            ],
        );
        assert_eq!(
            e,
            "input 'pads' [-2, -1] crops axis 0 of input 'data' [2] below zero"
        );
    }

    #[test]
    fn unknown_pads_keep_the_rank() {
        let n = N::new("Pad", &["data", "pads"], 1);
        let ins = [
            Some(In::new(DType::F32, &[2, 3])),
            Some(In::new(DType::I64, &[4])),
        ];
        assert_eq!(out_ty(&n, 13, &ins), ty(DType::F32, &[-1, -1]));
    }
}
