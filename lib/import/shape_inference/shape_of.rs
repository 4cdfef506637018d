//! Shape and Size, whose values are known when the dimensions they read are.

use anyhow::Result;

use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::{self, rank_i64};
use super::{Inferred, fold};
use crate::onnx::dtype::DType;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Shape"], 1, shape);
    r.infer_ops(&["Size"], 1, size);
}

/// Resolves Shape's `start`/`end` (opset 15) against `rank`: negatives count from the
/// back, and both clamp into [0, rank].
fn range(ctx: &Ctx, rank: usize) -> Result<(usize, usize)> {
    let r = rank_i64(rank);
    let (start, end) = if ctx.opset >= 15 {
        (ctx.attrs().int("start", 0)?, ctx.attrs().int("end", r)?)
    } else {
        (0, r)
    };
    let resolve = |v: i64| {
        let v = if v < 0 { v.saturating_add(r) } else { v };
        usize::try_from(v.clamp(0, r)).unwrap_or(0)
    };
    let (s, e) = (resolve(start), resolve(end));
    Ok((s, e.max(s)))
}

fn shape(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let Some(input) = ctx.shape(0) else {
        return Ok(vec![Inferred::of(Some(DType::I64), Some(vec![None]))]);
    };
    let (s, e) = range(ctx, input.len())?;
    let selected = input.get(s..e).unwrap_or_default();
    let len = rank_i64(selected.len());
    let value = dims::known(selected).and_then(|d| fold::encode_ints(DType::I64, vec![len], &d));
    // With a dynamic dimension, the others are still known elements.
    Ok(vec![
        Inferred::of(Some(DType::I64), Some(vec![Some(len)]))
            .with_value(value)
            .with_elements(Some(selected.to_vec())),
    ])
}

fn size(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let count = ctx.shape(0).and_then(|s| dims::product(&s));
    let value = count.and_then(|n| fold::encode_ints(DType::I64, vec![], &[n]));
    Ok(vec![
        Inferred::of(Some(DType::I64), Some(vec![])).with_value(value),
    ])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, out_ints, run, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn shape_of_a_static_tensor_has_a_value() {
        let n = N::new("Shape", &["data"], 1);
        let outs = run(&n, 13, &[Some(In::new(DType::F32, &[1, 3, 224, 224]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[4]));
        assert_eq!(out_ints(&outs, 0), Some(vec![1, 3, 224, 224]));
        let outs = run(&n, 13, &[Some(In::new(DType::F32, &[-1, 3]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[2]));
        assert_eq!(outs[0].value, None);
        assert_eq!(outs[0].partial, Some(vec![None, Some(3)]));
    }

    #[test]
    fn shape_start_and_end_select_a_static_part() {
        let n = N::new("Shape", &["data"], 1).int("start", 1).int("end", -1);
        let outs = run(&n, 15, &[Some(In::new(DType::F32, &[-1, 3, 4, -1]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[2]));
        assert_eq!(out_ints(&outs, 0), Some(vec![3, 4]));
        let n = N::new("Shape", &["data"], 1).int("end", 2);
        let outs = run(&n, 15, &[Some(In::new(DType::F32, &[-1, 3, 4, -1]))]).unwrap();
        assert_eq!(outs[0].partial, Some(vec![None, Some(3)]));
        let n = N::new("Shape", &["data"], 1).int("start", 10);
        let outs = run(&n, 15, &[Some(In::new(DType::F32, &[2]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[0]));
    }

    #[test]
    fn size_counts_elements() {
        let n = N::new("Size", &["data"], 1);
        let outs = run(&n, 13, &[Some(In::new(DType::F32, &[2, 3]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[]));
        assert_eq!(out_ints(&outs, 0), Some(vec![6]));
    }
}
