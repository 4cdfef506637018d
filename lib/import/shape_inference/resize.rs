//! Resize and the older Upsample: output sizes from constant `sizes`, or
//! floor(size * scale) from constant `scales`.

use anyhow::{Result, bail};

use super::ShapeRules;
use super::ctx::Ctx;
use super::dims;
use super::{Inferred, fold};
use crate::dialect::types::Dim;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Resize"], 1, resize);
    r.infer_ops(&["Upsample"], 1, upsample);
}

/// floor(d * scale), or unknown when the product falls just short of an integer:
/// runtimes multiplying in single precision may round it up to that integer.
fn scaled(d: i64, scale: f64) -> Dim {
    let p = d as f64 * scale;
    let k = p.round();
    if p < k && k - p < 1e-5 * k.max(1.0) {
        return None;
    }
    let f = p.floor();
    (0.0..9.0e18).contains(&f).then_some(f as i64)
}

/// Applies constant `scales` along `axes`; unknown along axes whose size is unknown.
fn apply_scales(input: &[Dim], axes: &[usize], scales: &[f64], what: &str) -> Result<Vec<Dim>> {
    if scales.len() != axes.len() {
        bail!(
            "{what} has {} values, but input 'X' has {} axes to resize",
            scales.len(),
            axes.len()
        );
    }
    if let Some(bad) = scales.iter().find(|&&s| s.is_nan() || s <= 0.0) {
        bail!("{what} holds {bad}, but scales must be positive");
    }
    let mut out = input.to_vec();
    for (&a, &s) in axes.iter().zip(scales) {
        if let Some(slot) = out.get_mut(a) {
            *slot = slot.and_then(|d| scaled(d, s));
        }
    }
    Ok(out)
}

/// A float list input, `None` when absent or empty (Resize 11-12 passes an empty
/// `scales` when `sizes` is used) and `Some(None)` when present but unknown.
fn float_input(ctx: &Ctx, i: usize) -> Option<Option<Vec<f64>>> {
    if !ctx.present(i) {
        return None;
    }
    if ctx.shape(i).is_some_and(|s| s == [Some(0)]) {
        return None;
    }
    match ctx.value(i) {
        Some(v) if fold::count_of(&v.dims) == Some(0) => None,
        Some(v) => Some(v.to_f64_vec()),
        None => Some(None),
    }
}

/// Resize-18's `keep_aspect_ratio_policy`: one scale for every resized axis, the
/// smallest (`not_larger`) or largest (`not_smaller`) of `sizes[i] / input[i]`, and
/// each such axis becomes `round(scale · input[i])`, in f32 as ONNX Runtime computes it.
/// The conversion reads these sizes from the result type, so this rule is where they
/// are decided.
fn keep_aspect_ratio(
    input: &[Dim],
    axes: &[usize],
    sizes: &[i64],
    policy: &str,
) -> Result<Vec<Dim>> {
    let pick = match policy {
        "not_larger" => f32::min,
        "not_smaller" => f32::max,
        other => bail!(
            "attribute 'keep_aspect_ratio_policy' is '{other}', but must be stretch, \
             not_larger or not_smaller"
        ),
    };
    let mut out = input.to_vec();
    let ratios: Option<Vec<f32>> = axes
        .iter()
        .zip(sizes)
        .map(|(&a, &s)| {
            let d = input.get(a).copied().flatten()?;
            (d > 0).then(|| s as f32 / d as f32)
        })
        .collect();
    let Some(scale) = ratios.and_then(|r| r.into_iter().reduce(pick)) else {
        for &a in axes {
            if let Some(slot) = out.get_mut(a) {
                *slot = None;
            }
        }
        return Ok(out);
    };
    for &a in axes {
        if let Some(slot) = out.get_mut(a) {
            *slot = slot.and_then(|d| {
                let v = (scale * d as f32).round();
                (v.is_finite() && v >= 0.0 && v < i64::MAX as f32).then_some(v as i64)
            });
        }
    }
    Ok(out)
}

fn resize(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let Some(input) = ctx.shape(0) else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let r = input.len();
    let axes = match ctx
        .attrs()
        .optional_ints("axes")?
        .filter(|_| ctx.opset >= 18)
    {
        Some(a) => dims::axes(&a, r, "attribute 'axes'")?,
        None => (0..r).collect(),
    };
    let unknown_axes = || {
        let mut out = input.clone();
        for &a in &axes {
            if let Some(slot) = out.get_mut(a) {
                *slot = None;
            }
        }
        out
    };
    let sizes = if ctx.opset >= 11 && ctx.present(3) {
        Some(ctx.ints(3))
    } else {
        None
    };
    if let Some(sizes) = sizes.filter(|s| s.as_ref().is_none_or(|v| !v.is_empty())) {
        let Some(sizes) = sizes else {
            return Ok(vec![Inferred::of(dtype, Some(unknown_axes()))]);
        };
        if sizes.len() != axes.len() {
            bail!(
                "input 'sizes' has {} values, but input 'X' has {} axes to resize",
                sizes.len(),
                axes.len()
            );
        }
        if let Some(bad) = sizes.iter().find(|&&s| s < 0) {
            bail!("input 'sizes' holds {bad}, but sizes must be 0 or more");
        }
        let policy = ctx.attrs().string("keep_aspect_ratio_policy", "stretch")?;
        if ctx.opset >= 18 && policy != "stretch" {
            let out = keep_aspect_ratio(&input, &axes, &sizes, &policy)?;
            return Ok(vec![Inferred::of(dtype, Some(out))]);
        }
        let mut out = input.clone();
        for (&a, &s) in axes.iter().zip(&sizes) {
            if let Some(slot) = out.get_mut(a) {
                *slot = Some(s);
            }
        }
        return Ok(vec![Inferred::of(dtype, Some(out))]);
    }
    let scales_at = if ctx.opset >= 11 { 2 } else { 1 };
    let shape = match float_input(ctx, scales_at) {
        Some(Some(scales)) => {
            let crop = ctx
                .attrs()
                .string("coordinate_transformation_mode", "half_pixel")?;
            if crop == "tf_crop_and_resize" {
                // The region of interest scales the sizes too.
                unknown_axes()
            } else {
                apply_scales(&input, &axes, &scales, "input 'scales'")?
            }
        }
        _ => unknown_axes(),
    };
    Ok(vec![Inferred::of(dtype, Some(shape))])
}

/// Upsample: scales are an attribute at opset 7, an input from opset 9.
fn upsample(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let Some(input) = ctx.shape(0) else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let all: Vec<usize> = (0..input.len()).collect();
    let shape = match ctx.input_slots() {
        1 => match ctx.attrs().optional_floats("scales")? {
            Some(scales) => apply_scales(&input, &all, &scales, "attribute 'scales'")?,
            None => vec![None; input.len()],
        },
        _ => match float_input(ctx, 1) {
            Some(Some(scales)) => apply_scales(&input, &all, &scales, "input 'scales'")?,
            _ => vec![None; input.len()],
        },
    };
    Ok(vec![Inferred::of(dtype, Some(shape))])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ty, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn resize_by_scales_floors() {
        let n = N::new("Resize", &["X", "", "scales"], 1);
        let ins = [
            Some(In::new(DType::F32, &[1, 3, 15, 20])),
            None,
            Some(In::floats(&[4], &[1.0, 1.0, 2.0, 0.5])),
        ];
        assert_eq!(out_ty(&n, 13, &ins), ty(DType::F32, &[1, 3, 30, 10]));
        let v10 = N::new("Resize", &["X", "scales"], 1);
        let ins = [
            Some(In::new(DType::F32, &[1, 1, 5])),
            Some(In::floats(&[3], &[1.0, 1.0, 1.5])),
        ];
        assert_eq!(out_ty(&v10, 10, &ins), ty(DType::F32, &[1, 1, 7]));
    }

    #[test]
    fn resize_by_sizes_with_empty_scales() {
        let n = N::new("Resize", &["X", "roi", "scales", "sizes"], 1);
        let ins = [
            Some(In::new(DType::F32, &[1, 3, 15, 20])),
            Some(In::floats(&[0], &[])),
            Some(In::floats(&[0], &[])),
            Some(In::ints(&[4], &[1, 3, 64, 64])),
        ];
        assert_eq!(out_ty(&n, 11, &ins), ty(DType::F32, &[1, 3, 64, 64]));
    }

    #[test]
    fn aspect_keeping_policies_use_one_scale_and_round() {
        let ins = [
            Some(In::new(DType::F32, &[1, 1, 2, 4])),
            None,
            None,
            Some(In::ints(&[2], &[3, 5])),
        ];
        let n = |policy| {
            N::new("Resize", &["X", "", "", "sizes"], 1)
                .ints("axes", &[2, 3])
                .string("keep_aspect_ratio_policy", policy)
        };
        // min(3/2, 5/4) = 1.25: 2.5 rounds to 3, 5 stays; max is 1.5: 3 and 6.
        assert_eq!(
            out_ty(&n("not_larger"), 18, &ins),
            ty(DType::F32, &[1, 1, 3, 5])
        );
        assert_eq!(
            out_ty(&n("not_smaller"), 18, &ins),
            ty(DType::F32, &[1, 1, 3, 6])
        );
        assert_eq!(
            err(&n("fit"), 18, &ins),
            "attribute 'keep_aspect_ratio_policy' is 'fit', but must be stretch, not_larger or \
             not_smaller"
        );
    }

    #[test]
    fn resize_with_unknown_scales_keeps_the_rank() {
        let n = N::new("Resize", &["X", "", "scales"], 1);
        let ins = [
            Some(In::new(DType::U8, &[1, 3, 15, 20])),
            None,
            Some(In::new(DType::F32, &[4])),
        ];
        assert_eq!(out_ty(&n, 13, &ins), ty(DType::U8, &[-1, -1, -1, -1]));
    }

    #[test]
    fn resize_scales_of_the_wrong_length_are_an_error() {
        let n = N::new("Resize", &["X", "", "scales"], 1);
        let ins = [
            Some(In::new(DType::F32, &[1, 3, 15, 20])),
            None,
            Some(In::floats(&[2], &[2.0, 2.0])),
        ];
        assert_eq!(
            err(&n, 13, &ins),
            "input 'scales' has 2 values, but input 'X' has 4 axes to resize"
        );
    }

    #[test]
    fn upsample_scales_from_attribute_or_input() {
        let n = N::new("Upsample", &["X"], 1).floats("scales", &[1.0, 1.0, 2.0, 2.0]);
        let x = || Some(In::new(DType::F32, &[1, 3, 4, 5]));
        assert_eq!(out_ty(&n, 7, &[x()]), ty(DType::F32, &[1, 3, 8, 10]));
        let n = N::new("Upsample", &["X", "scales"], 1);
        let ins = [x(), Some(In::floats(&[4], &[1.0, 1.0, 3.0, 1.0]))];
        assert_eq!(out_ty(&n, 9, &ins), ty(DType::F32, &[1, 3, 12, 5]));
    }

    #[test]
    fn products_just_short_of_an_integer_stay_unknown() {
        assert_eq!(super::scaled(10, 2.0), Some(20));
        assert_eq!(super::scaled(3, 0.5), Some(1));
        assert_eq!(super::scaled(3, 0.999_999_9), None);
    }
}
