//! NonZero and NonMaxSuppression: int64 index lists whose length depends on the data,
//! so one dimension of each result is known only at run time.

use anyhow::{Result, bail};

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::fmt_shape;
use crate::onnx::dtype::DType;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["NonZero"], 9, non_zero);
    r.infer_ops(&["NonMaxSuppression"], 10, non_max_suppression);
}

/// `[rank(X), n]`: one column of indices per non-zero element.
fn non_zero(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let shape = ctx.rank(0).map(|r| vec![Some(r as i64), None]);
    Ok(vec![Inferred::of(Some(DType::I64), shape)])
}

/// `[n, 3]` selected (batch, class, box) triples. Boxes `[B, N, 4]` and scores
/// `[B, C, N]` must agree on B and N.
fn non_max_suppression(ctx: &Ctx) -> Result<Vec<Inferred>> {
    if let Some(boxes) = ctx.shape(0) {
        if boxes.len() != 3 || boxes[2].is_some_and(|d| d != 4) {
            bail!(
                "input 'boxes' has shape {}, but must be [batch, boxes, 4]",
                fmt_shape(&boxes)
            );
        }
        if let Some(scores) = ctx.shape(1) {
            if scores.len() != 3 {
                bail!(
                    "input 'scores' has shape {}, but must be [batch, classes, boxes]",
                    fmt_shape(&scores)
                );
            }
            let differ = |a: Option<i64>, b: Option<i64>| a.zip(b).is_some_and(|(a, b)| a != b);
            if differ(boxes[0], scores[0]) || differ(boxes[1], scores[2]) {
                bail!(
                    "input 'boxes' {} and input 'scores' {} disagree on the batch or the \
                     number of boxes",
                    fmt_shape(&boxes),
                    fmt_shape(&scores)
                );
            }
        }
    }
    Ok(vec![Inferred::of(
        Some(DType::I64),
        Some(vec![None, Some(3)]),
    )])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ty, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn index_lists_have_one_dimension_known_at_run_time() {
        let nz = N::new("NonZero", &["x"], 1);
        let x = [Some(In::new(DType::F32, &[2, 3, 4]))];
        assert_eq!(out_ty(&nz, 13, &x), ty(DType::I64, &[3, -1]));
        let nms = N::new("NonMaxSuppression", &["boxes", "scores"], 1);
        let ok = [
            Some(In::new(DType::F32, &[1, 6, 4])),
            Some(In::new(DType::F32, &[1, 2, 6])),
        ];
        assert_eq!(out_ty(&nms, 11, &ok), ty(DType::I64, &[-1, 3]));
        let bad = [
            Some(In::new(DType::F32, &[1, 6, 4])),
            Some(In::new(DType::F32, &[1, 2, 5])),
        ];
        assert_eq!(
            err(&nms, 11, &bad),
            "input 'boxes' [1,6,4] and input 'scores' [1,2,5] disagree on the batch or the \
             number of boxes"
        );
    }
}
