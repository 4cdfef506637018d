//! Slice with constant starts, ends, axes and steps, clamped as ONNX specifies.

use anyhow::{Result, bail};

use super::ShapeRules;
use super::ctx::Ctx;
use super::dims;
use super::{Inferred, fold, partial};
use crate::dialect::types::Dim;
use crate::onnx::tensor::TensorData;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Slice"], 1, slice);
}

/// What is known of one parameter list: `Absent`, `Unknown` (an input without a
/// value), or its values.
enum Param {
    Absent,
    Unknown,
    Known(Vec<i64>),
}

fn param(ctx: &Ctx, input: usize, attr: &str) -> Result<Param> {
    if ctx.opset < 10 {
        return Ok(match ctx.attrs().optional_ints(attr)? {
            Some(v) => Param::Known(v),
            None => Param::Absent,
        });
    }
    if !ctx.present(input) {
        return Ok(Param::Absent);
    }
    Ok(match ctx.ints(input) {
        Some(v) => Param::Known(v),
        None => Param::Unknown,
    })
}

/// The first index and the element count a slice selects along an axis of size `d`.
fn clamp(d: i64, start: i64, end: i64, step: i64) -> (i128, i128) {
    let (d, step) = (i128::from(d), i128::from(step));
    let resolve = |v: i64| {
        let v = i128::from(v);
        if v < 0 { v + d } else { v }
    };
    let (mut s, mut e) = (resolve(start), resolve(end));
    if step > 0 {
        s = s.clamp(0, d);
        e = e.clamp(0, d);
        (s, ((e - s + step - 1) / step).max(0))
    } else {
        s = s.clamp(0, (d - 1).max(0));
        e = e.clamp(-1, d - 1);
        let count = if d == 0 {
            0
        } else {
            ((s - e + (-step) - 1) / (-step)).max(0)
        };
        (s, count)
    }
}

fn slice(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let Some(input) = ctx.shape(0) else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let r = input.len();
    let starts = param(ctx, 1, "starts")?;
    let ends = param(ctx, 2, "ends")?;
    let axes = param(ctx, 3, "axes")?;
    let steps = param(ctx, 4, "steps")?;
    let names = if ctx.opset < 10 {
        ["attribute 'starts'", "attribute 'ends'", "attribute 'axes'"]
    } else {
        ["input 'starts'", "input 'ends'", "input 'axes'"]
    };

    let (Param::Known(starts), Param::Known(ends)) = (starts, ends) else {
        // Bounds unknown: only the axes they apply to lose their sizes.
        let shape = match axes {
            Param::Known(a) => {
                let a = dims::axes(&a, r, names[2])?;
                let dims = input.iter().enumerate();
                Some(
                    dims.map(|(i, &d)| if a.contains(&i) { None } else { d })
                        .collect(),
                )
            }
            Param::Absent => dims::vector_len(ctx.shape(1)).map(|n| {
                let dims = input.iter().enumerate();
                dims.map(|(i, &d)| if i < n { None } else { d }).collect()
            }),
            Param::Unknown => None,
        };
        let shape = shape.unwrap_or_else(|| vec![None; r]);
        return Ok(vec![Inferred::of(dtype, Some(shape))]);
    };
    if ends.len() != starts.len() {
        bail!(
            "{} has {} values, but {} has {}",
            names[1],
            ends.len(),
            names[0],
            starts.len()
        );
    }
    let axes = match axes {
        Param::Known(a) => a,
        Param::Absent => (0..starts.len()).map(dims::rank_i64).collect(),
        Param::Unknown => return Ok(vec![Inferred::of(dtype, Some(vec![None; r]))]),
    };
    if axes.len() != starts.len() {
        bail!(
            "{} has {} values, but {} has {}",
            names[2],
            axes.len(),
            names[0],
            starts.len()
        );
    }
    let axes = dims::axes(&axes, r, names[2])?;
    let steps = match steps {
        Param::Known(s) => s,
        Param::Absent => vec![1; starts.len()],
        Param::Unknown => return Ok(vec![Inferred::of(dtype, Some(vec![None; r]))]),
    };
    if steps.len() != starts.len() {
        bail!(
            "input 'steps' has {} values, but {} has {}",
            steps.len(),
            names[0],
            starts.len()
        );
    }
    if steps.contains(&0) {
        bail!("input 'steps' holds 0, but a step cannot be 0");
    }

    // Per axis: (first index, count, step) where the slice is known.
    let mut picks: Vec<Option<(i128, i128, i128)>> = input
        .iter()
        .map(|d| d.map(|d| (0, i128::from(d), 1)))
        .collect();
    for (k, &a) in axes.iter().enumerate() {
        let (Some(&s), Some(&e), Some(&st), Some(slot)) =
            (starts.get(k), ends.get(k), steps.get(k), picks.get_mut(a))
        else {
            continue;
        };
        *slot = input.get(a).copied().flatten().map(|d| {
            let (first, count) = clamp(d, s, e, st);
            (first, count, i128::from(st))
        });
    }
    let shape: Vec<Dim> = picks
        .iter()
        .map(|p| p.and_then(|(_, c, _)| i64::try_from(c).ok()))
        .collect();
    let value = ctx.value(0).and_then(|v| fold_values(v, &picks));
    Ok(vec![
        Inferred::of(dtype, Some(shape))
            .with_value(value)
            .with_elements(slice_elements(ctx, &picks)),
    ])
}

/// The selected elements of a partly known vector (the trailing sizes of a shape
/// whose batch is dynamic, say).
fn slice_elements(ctx: &Ctx, picks: &[Option<(i128, i128, i128)>]) -> Option<Vec<Dim>> {
    let [Some((first, count, step))] = picks else {
        return None;
    };
    if *count > i128::try_from(fold::LIMIT).ok()? {
        return None;
    }
    let indices = (0..*count)
        .map(|j| i64::try_from(first + j * step).ok())
        .collect::<Option<Vec<i64>>>()?;
    partial::pick(&ctx.elements(0)?, indices)
}

/// The selected elements of a small integer value, in row-major order.
fn fold_values(v: &TensorData, picks: &[Option<(i128, i128, i128)>]) -> Option<TensorData> {
    let v = fold::small(v)?;
    if v.dims.len() != picks.len() {
        return None;
    }
    let mut out_dims = Vec::with_capacity(picks.len());
    for p in picks {
        out_dims.push(i64::try_from((*p)?.1).ok()?);
    }
    let total = fold::count_of(&out_dims)?;
    if total > fold::LIMIT {
        return None;
    }
    if total == 0 {
        return fold::pick(out_dims, &[v], []);
    }
    // Every count is now at least 1, so no partial product below exceeds `total`.
    let mut per_axis: Vec<Vec<usize>> = Vec::with_capacity(picks.len());
    for p in picks {
        let (first, count, step) = (*p)?;
        per_axis.push(
            (0..count)
                .map(|j| usize::try_from(first + j * step).ok())
                .collect::<Option<_>>()?,
        );
    }
    // Row-major offsets of the cartesian product of the per-axis indices.
    let mut flat = vec![0usize];
    for (axis, idx) in per_axis.iter().enumerate() {
        let size = usize::try_from(*v.dims.get(axis)?).ok()?;
        let mut next = Vec::with_capacity(flat.len().checked_mul(idx.len())?);
        for &base in &flat {
            for &i in idx {
                if i >= size {
                    return None;
                }
                next.push(base.checked_mul(size)?.checked_add(i)?);
            }
        }
        flat = next;
    }
    fold::pick(out_dims, &[v], flat.into_iter().map(|i| (0, i)))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ints, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    fn slice(
        data: In,
        starts: &[i64],
        ends: &[i64],
        axes: &[i64],
        steps: &[i64],
    ) -> Vec<super::Inferred> {
        let n = N::new("Slice", &["data", "starts", "ends", "axes", "steps"], 1);
        let len = |v: &[i64]| i64::try_from(v.len()).unwrap();
        let ins = [
            Some(data),
            Some(In::ints(&[len(starts)], starts)),
            Some(In::ints(&[len(ends)], ends)),
            Some(In::ints(&[len(axes)], axes)),
            Some(In::ints(&[len(steps)], steps)),
        ];
        run(&n, 13, &ins).unwrap()
    }

    #[test]
    fn slice_clamps_like_onnx() {
        let x = || In::new(DType::F32, &[20, 10, 5]);
        let out = slice(x(), &[0, 1], &[3, i64::MAX], &[0, 1], &[1, 1]);
        assert_eq!(out[0].ty, ty(DType::F32, &[3, 9, 5]));
        let out = slice(x(), &[-3], &[-1], &[-1], &[1]);
        assert_eq!(out[0].ty, ty(DType::F32, &[20, 10, 2]));
        let out = slice(x(), &[100], &[200], &[0], &[1]);
        assert_eq!(out[0].ty, ty(DType::F32, &[0, 10, 5]));
    }

    #[test]
    fn slice_with_negative_steps() {
        let x = || In::new(DType::F32, &[10]);
        // Reverse the whole axis.
        let out = slice(x(), &[-1], &[i64::MIN], &[0], &[-1]);
        assert_eq!(out[0].ty, ty(DType::F32, &[10]));
        // From 8 down to (not including) 1 in steps of 3: 8, 5, 2.
        let out = slice(x(), &[8], &[1], &[0], &[-3]);
        assert_eq!(out[0].ty, ty(DType::F32, &[3]));
        let out = slice(
            In::ints(&[5], &[10, 11, 12, 13, 14]),
            &[8],
            &[1],
            &[0],
            &[-2],
        );
        assert_eq!(out_ints(&out, 0), Some(vec![14, 12]));
    }

    /// Smart-turn's attention takes the trailing sizes of a shape whose batch is
    /// dynamic: `shape[-2:-1]` is known, `shape[:-2]` is not all known.
    #[test]
    fn slice_of_a_partly_known_shape() {
        let shape = || In::partial(&[None, Some(6), Some(400), Some(64)]);
        let out = slice(shape(), &[-2], &[-1], &[0], &[1]);
        assert_eq!(out_ints(&out, 0), Some(vec![400]));
        let out = slice(shape(), &[i64::MIN], &[-2], &[0], &[1]);
        assert_eq!(out[0].ty, ty(DType::I64, &[2]));
        assert_eq!(out[0].partial, Some(vec![None, Some(6)]));
        let out = slice(shape(), &[-1], &[i64::MIN], &[0], &[-2]);
        assert_eq!(out_ints(&out, 0), Some(vec![64, 6]));
        let out = slice(shape(), &[-2], &[i64::MIN], &[0], &[-2]);
        assert_eq!(out[0].partial, Some(vec![Some(400), None]));
    }

    #[test]
    fn slice_folds_two_dimensional_values() {
        let data = In::ints(&[2, 3], &[1, 2, 3, 4, 5, 6]);
        let out = slice(data, &[1], &[3], &[1], &[1]);
        assert_eq!(
            out[0].value.as_ref().map(|v| v.dims.clone()),
            Some(vec![2, 2])
        );
        assert_eq!(out_ints(&out, 0), Some(vec![2, 3, 5, 6]));
    }

    #[test]
    fn slice_attributes_before_opset_10() {
        let n = N::new("Slice", &["data"], 1)
            .ints("starts", &[1])
            .ints("ends", &[1000])
            .ints("axes", &[1]);
        let t = out_ty(&n, 9, &[Some(In::new(DType::F32, &[4, 6]))]);
        assert_eq!(t, ty(DType::F32, &[4, 5]));
    }

    #[test]
    fn slice_unknown_bounds_keep_other_axes() {
        let n = N::new("Slice", &["data", "starts", "ends", "axes"], 1);
        let ins = [
            Some(In::new(DType::F32, &[4, 6])),
            Some(In::new(DType::I64, &[1])),
            Some(In::new(DType::I64, &[1])),
            Some(In::ints(&[1], &[1])),
        ];
        assert_eq!(out_ty(&n, 13, &ins), ty(DType::F32, &[4, -1]));
    }

    #[test]
    fn slice_zero_step_is_an_error() {
        let n = N::new("Slice", &["data", "starts", "ends", "axes", "steps"], 1);
        let ins = [
            Some(In::new(DType::F32, &[4])),
            Some(In::ints(&[1], &[0])),
            Some(In::ints(&[1], &[4])),
            Some(In::ints(&[1], &[0])),
            Some(In::ints(&[1], &[0])),
        ];
        assert_eq!(
            err(&n, 13, &ins),
            "input 'steps' holds 0, but a step cannot be 0"
        );
    }
}
