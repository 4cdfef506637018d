//! Resize, lowered as torch-mlir does to `aten.__interpolate.size_list_scale_list`,
//! whose mode string carries what torch's modes cannot say: ONNX's coordinate
//! transformation after `_` and the nearest rounding after `,`
//! (`nearest_half_pixel,round_prefer_floor`, `bilinear_asymmetric`), and for cubic the
//! kernel's parameters after `,` (`bicubic,cubic_coeff_a=-0.5,exclude_outside`), as
//! for tf_crop_and_resize its constant region and extrapolation value
//! (`bilinear_tf_crop_and_resize,roi=0.4:0.6:0.2:0.8,extrapolation_value=10`). Only
//! the spatial dimensions (2 and up) may change; nearest, and 2-D linear and cubic, are
//! supported.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::runtime_ints::{float_entries, int_entries};
use super::shape_util::{
    await_constant, dims_of, float_list, normalize_axes, size_of, str_constant,
};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("Resize", 10, resize_v10);
    r.on_op("Resize", 11, resize);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// What the output is computed from, one entry per dimension of the input.
enum Target<'c, 'a> {
    Scales(Vec<f64>),
    /// `None` keeps an input dimension whose size is only known at run time.
    Sizes(Vec<Dim>),
    /// Spatial sizes or scales read at run time (`!torch.int` / `!torch.float`), one
    /// per spatial dimension, for the interpolation's list operand.
    SizesAtRunTime(Vec<Value<'c, 'a>>),
    ScalesAtRunTime(Vec<Value<'c, 'a>>),
}

/// Resize-10 takes only scales, and samples like Upsample: asymmetric coordinates,
/// nearest rounding down (as ONNX's 10 to 11 version converter spells it).
fn resize_v10<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let mode = b.string("mode", "nearest")?;
    let Some(scales) = const_floats(b, 1, "scales")? else {
        bail!("missing required input scales");
    };
    let rank = dims_of(&b.input_type(0, "X")?, "X")?.len();
    if scales.len() != rank {
        bail!("scales has {} entries but X has rank {rank}", scales.len());
    }
    lower_resize(b, t, &mode, "asymmetric", "floor", Target::Scales(scales))
}

/// Resize-11 and later: scales or sizes (inputs 2 and 3), the coordinate
/// transformation and nearest rounding attributes, and from Resize-18 `axes`,
/// `antialias` and `keep_aspect_ratio_policy`.
fn resize<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let mode = b.string("mode", "nearest")?;
    let coord = b.string("coordinate_transformation_mode", "half_pixel")?;
    let nearest = b.string("nearest_mode", "round_prefer_floor")?;
    let dims = dims_of(&b.input_type(0, "X")?, "X")?;
    let rank = dims.len();
    let axes = match b.optional_ints("axes")? {
        Some(a) => normalize_axes(&a, rank, "attribute 'axes'")?,
        None => (0..rank).collect(),
    };
    // Sizes read at run time would be taken as they are: the aspect-keeping policies
    // need the sizes shape inference derived from them instead.
    let stretch = b.string("keep_aspect_ratio_policy", "stretch")? == "stretch";
    if (stretch || !b.has_input(3))
        && let Some(target) = target_at_run_time(b, t, &dims, &axes)?
    {
        return lower_resize(b, t, &mode, &coord, &nearest, target);
    }
    // Resize-11 requires a scales input even with sizes: it is then empty.
    let scales = const_floats(b, 2, "scales")?.filter(|s| !s.is_empty());
    let sizes = b.has_input(3);
    let target = match (scales, sizes) {
        (Some(_), true) => bail!("only one of scales and sizes may be given"),
        (None, false) => bail!("one of scales and sizes must be given"),
        (Some(scales), false) => {
            if scales.len() != axes.len() {
                bail!(
                    "scales has {} entries, expected {}",
                    scales.len(),
                    axes.len()
                );
            }
            let mut full = vec![1.0; rank];
            for (k, &a) in axes.iter().enumerate() {
                full[a] = scales[k];
            }
            Target::Scales(full)
        }
        (None, true) => {
            let policy = b.string("keep_aspect_ratio_policy", "stretch")?;
            if policy == "stretch" {
                Target::Sizes(sizes_target(b, &dims, &axes)?)
            } else {
                Target::Sizes(aspect_kept_sizes(b, &policy, &dims, &axes)?)
            }
        }
    };
    lower_resize(b, t, &mode, &coord, &nearest, target)
}

/// Scales or sizes that are known only at run time (a detector's upsampling to a size
/// computed from another tensor's shape): read with `item` into the interpolation's
/// list, one entry per spatial dimension. Entries for the batch and channel dimensions
/// are not read: resizing those is not supported, and the kernel's output keeps them.
/// `None` when the lowering can take them from constants or the result's type.
fn target_at_run_time<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    dims: &[Dim],
    axes: &[usize],
) -> Result<Option<Target<'c, 'a>>> {
    await_constant(b, 2, "scales")?;
    await_constant(b, 3, "sizes")?;
    // Resize-11 passes an empty scales tensor alongside sizes.
    let empty = |i: usize| {
        b.input_type(i, "scales")
            .is_ok_and(|ty| ty.shape.as_deref() == Some(&[Some(0)]))
    };
    let scales_at_run_time = b.has_input(2) && b.constant_input(2).is_none() && !empty(2);
    let sizes_at_run_time = b.has_input(3) && b.constant_input(3).is_none() && {
        let result = dims_of(&b.result_type(0)?, "the result")?;
        axes.iter()
            .any(|&a| result.get(a).copied().flatten().is_none())
    };
    if !scales_at_run_time && !sizes_at_run_time {
        return Ok(None);
    }
    if scales_at_run_time && b.has_input(3) {
        bail!("only one of scales and sizes may be given");
    }
    let x = b.input(0, "X")?;
    let i = if scales_at_run_time { 2 } else { 3 };
    let name = if scales_at_run_time {
        "scales"
    } else {
        "sizes"
    };
    let entries = if scales_at_run_time {
        float_entries(b, t, i, name)?
    } else {
        int_entries(b, t, i, name)?
    };
    if entries.len() != axes.len() {
        bail!(
            "{name} has {} entries, expected {}",
            entries.len(),
            axes.len()
        );
    }
    let mut spatial = Vec::with_capacity(dims.len().saturating_sub(2));
    for (d, size) in dims.iter().enumerate().skip(2) {
        spatial.push(match axes.iter().position(|&a| a == d) {
            Some(k) => entries[k],
            None if scales_at_run_time => t.float(1.0)?,
            None => match size {
                Some(s) => t.int(*s)?,
                None => size_of(t, x, d)?,
            },
        });
    }
    Ok(Some(if scales_at_run_time {
        Target::ScalesAtRunTime(spatial)
    } else {
        Target::SizesAtRunTime(spatial)
    }))
}

/// The output size of every dimension from the `sizes` input: a constant, or else
/// the result type when its resized dimensions are known.
fn sizes_target(b: &Binder, dims: &[Dim], axes: &[usize]) -> Result<Vec<Dim>> {
    let given: Vec<i64> = match b.constant_input(3) {
        Some(c) => match c.to_i64_vec() {
            Some(v) if c.dtype.is_integer() => v,
            _ => bail!("sizes must be an integer tensor, but is {}", c.dtype),
        },
        None => {
            let result = dims_of(&b.result_type(0)?, "the result")?;
            match axes
                .iter()
                .map(|&a| result.get(a).copied().flatten())
                .collect::<Option<Vec<_>>>()
            {
                Some(v) => v,
                None => bail!(
                    "input 'sizes' must be a constant known at compile time, or the \
                     resized dimensions of the result must be known"
                ),
            }
        }
    };
    if given.len() != axes.len() {
        bail!("sizes has {} entries, expected {}", given.len(), axes.len());
    }
    let mut full = dims.to_vec();
    for (k, &a) in axes.iter().enumerate() {
        full[a] = Some(given[k]);
    }
    Ok(full)
}

/// With `keep_aspect_ratio_policy` `not_larger` or `not_smaller`, the resized axes'
/// sizes are the ones shape inference computed from `sizes` and the policy (one scale
/// for every axis, then rounding), so they come from the result type.
fn aspect_kept_sizes(b: &Binder, policy: &str, dims: &[Dim], axes: &[usize]) -> Result<Vec<Dim>> {
    if !matches!(policy, "not_larger" | "not_smaller") {
        bail!(
            "attribute 'keep_aspect_ratio_policy' is '{policy}', but must be stretch, \
             not_larger or not_smaller"
        );
    }
    let result = dims_of(&b.result_type(0)?, "the result")?;
    let mut full = dims.to_vec();
    for &a in axes {
        match result.get(a).copied().flatten() {
            Some(d) => full[a] = Some(d),
            None => bail!(
                "with keep_aspect_ratio_policy '{policy}' the resized dimensions of the \
                 result must be known at compile time (input 'sizes' and X's sizes constant)"
            ),
        }
    }
    Ok(full)
}

/// The floats of input `i` when it is given: it must then be a constant.
fn const_floats(b: &Binder, i: usize, name: &str) -> Result<Option<Vec<f64>>> {
    if !b.has_input(i) {
        return Ok(None);
    }
    let Some(data) = b.constant_input(i) else {
        bail!("input '{name}' must be a constant known at compile time");
    };
    if !data.dtype.is_float() {
        bail!("{name} must be a float tensor, but is {}", data.dtype);
    }
    match data.to_f64_vec() {
        Some(v) => Ok(Some(v)),
        None => bail!("{name} of type {} cannot be read", data.dtype),
    }
}

fn lower_resize<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    mode: &str,
    coord: &str,
    nearest: &str,
    target: Target<'c, 'a>,
) -> Lowered<'c, 'a> {
    let crop = if coord == "tf_crop_and_resize" {
        if matches!(target, Target::Scales(_) | Target::ScalesAtRunTime(_)) {
            bail!("tf_crop_and_resize is supported with sizes only, not with scales");
        }
        crop_options(b)?
    } else {
        String::new()
    };
    let x = b.input(0, "X")?;
    let dims = dims_of(&b.input_type(0, "X")?, "X")?;
    let result = b.result_type(0)?;
    if dims.len() == 3 && matches!(mode, "linear" | "cubic") {
        return resize_1d(b, t, x, &dims, mode, coord, nearest, target, &result);
    }
    let (mut torch_mode, align_corners) = torch_mode(mode, coord, nearest, dims.len())?;
    if mode == "cubic" {
        torch_mode.push_str(&cubic_options(
            b.float("cubic_coeff_a", -0.75)?,
            b.int("exclude_outside", 0)?,
        )?);
    }
    torch_mode.push_str(&crop);
    check_target(&target, &dims)?;

    let none = t.none()?;
    let (sizes, scales) = match &target {
        Target::Scales(s) => (none, float_list(t, &s[2..])?),
        Target::SizesAtRunTime(sizes) => (t.list(sizes, "int")?, none),
        Target::ScalesAtRunTime(scales) => (none, t.list(scales, "float")?),
        Target::Sizes(s) => (spatial_sizes(t, x, s)?, none),
    };
    let mode = str_constant(t, &torch_mode)?;
    let align = t.bool(align_corners)?;
    // Resize-18's antialias: torch's operand of that name (it widens linear and cubic
    // filters when shrinking; nearest ignores it).
    let antialias = match b.int("antialias", 0)? {
        0 => t.bool(false)?,
        1 => t.bool(true)?,
        other => bail!("attribute 'antialias' is {other}, but must be 0 or 1"),
    };
    Ok(vec![t.aten_tensor(
        "__interpolate.size_list_scale_list",
        &[x, sizes, scales, mode, align, none, antialias],
        &result,
    )?])
}

/// The spatial entries of a sizes target as a `!torch.list<int>`, each unknown one read
/// from `x` with `size.int`.
fn spatial_sizes<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    sizes: &[Dim],
) -> Result<Value<'c, 'a>> {
    let elements = sizes
        .iter()
        .enumerate()
        .skip(2)
        .map(|(i, d)| match d {
            Some(d) => t.int(*d),
            None => size_of(t, x, i),
        })
        .collect::<Result<Vec<_>>>()?;
    t.list(&elements, "int")
}

/// A linear or cubic Resize of (N, C, L) data (audio, 1-D features) as the 2-D one of
/// (N, C, 1, L): `unsqueeze` at 2, the interpolation with scale 1 (size 1) on the new
/// axis, `squeeze.dim` back. Every coordinate transformation maps the one row of an
/// axis of size 1 kept at size 1 onto itself, and both filters give its value back
/// there, so the result is the 1-D interpolation of each row.
#[allow(clippy::too_many_arguments)]
fn resize_1d<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    dims: &[Dim],
    mode: &str,
    coord: &str,
    nearest: &str,
    target: Target<'c, 'a>,
    result: &TensorType,
) -> Lowered<'c, 'a> {
    if coord == "tf_crop_and_resize" {
        bail!("tf_crop_and_resize is supported for 4-D data only; X has rank 3");
    }
    check_target(&target, dims)?;
    if result.rank().is_some_and(|r| r != 3) {
        bail!("the result is declared {result}, but a Resize of 3-D X is 3-D");
    }
    // Callers pass 3 dimensions (X's, the target's, the result's, checked above).
    let widened = |d: &[Dim]| -> Vec<Dim> {
        match d {
            [n, c, l] => vec![*n, *c, Some(1), *l],
            other => other.to_vec(),
        }
    };
    let target = match target {
        Target::Scales(s) => match s[..] {
            [n, c, l] => Target::Scales(vec![n, c, 1.0, l]),
            _ => bail!("scales has {} entries but X has rank 3", s.len()),
        },
        Target::Sizes(s) => Target::Sizes(widened(&s)),
        // The new axis keeps its one row: scale 1, size 1.
        Target::SizesAtRunTime(s) => Target::SizesAtRunTime([vec![t.int(1)?], s].concat()),
        Target::ScalesAtRunTime(s) => Target::ScalesAtRunTime([vec![t.float(1.0)?], s].concat()),
    };
    let (mut torch_mode, align_corners) = torch_mode(mode, coord, nearest, 4)?;
    if mode == "cubic" {
        torch_mode.push_str(&cubic_options(
            b.float("cubic_coeff_a", -0.75)?,
            b.int("exclude_outside", 0)?,
        )?);
    }
    let two = t.int(2)?;
    let x_type = TensorType {
        dtype: b.input_type(0, "X")?.dtype,
        shape: Some(widened(dims)),
    };
    let x4 = t.aten_tensor("unsqueeze", &[x, two], &x_type)?;
    let none = t.none()?;
    let (sizes, scales) = match &target {
        Target::Scales(s) => (none, float_list(t, &s[2..])?),
        Target::Sizes(s) => (spatial_sizes(t, x4, s)?, none),
        Target::SizesAtRunTime(s) => (t.list(s, "int")?, none),
        Target::ScalesAtRunTime(s) => (none, t.list(s, "float")?),
    };
    let mode = str_constant(t, &torch_mode)?;
    let align = t.bool(align_corners)?;
    let antialias = t.bool(b.int("antialias", 0)? == 1)?;
    let y_type = TensorType {
        dtype: result.dtype,
        shape: result.shape.as_ref().map(|s| widened(s)),
    };
    let y4 = t.aten_tensor(
        "__interpolate.size_list_scale_list",
        &[x4, sizes, scales, mode, align, none, antialias],
        &y_type,
    )?;
    Ok(vec![t.aten_tensor("squeeze.dim", &[y4, two], result)?])
}

/// torch-mlir's mode string for an ONNX mode, coordinate transformation and nearest
/// rounding, and whether torch's `align_corners` is set.
fn torch_mode(mode: &str, coord: &str, nearest: &str, rank: usize) -> Result<(String, bool)> {
    let suffix = |default: &str| {
        if coord == default || coord == "align_corners" {
            String::new()
        } else {
            format!("_{coord}")
        }
    };
    match mode {
        "nearest" => {
            if rank < 3 {
                bail!("nearest Resize needs batch and channel dimensions; X has rank {rank}");
            }
            if !matches!(
                coord,
                "asymmetric"
                    | "half_pixel"
                    | "align_corners"
                    | "pytorch_half_pixel"
                    | "half_pixel_symmetric"
                    | "tf_crop_and_resize"
            ) {
                bail!("coordinate_transformation_mode '{coord}' is not supported in nearest mode");
            }
            if !matches!(
                nearest,
                "floor" | "ceil" | "round_prefer_floor" | "round_prefer_ceil"
            ) {
                bail!("attribute 'nearest_mode' is '{nearest}', which ONNX does not define");
            }
            let rounding = if nearest == "floor" {
                String::new()
            } else {
                format!(",{nearest}")
            };
            // torch's align_corners flag is for linear modes only: nearest spells it out.
            let coord_suffix = if coord == "align_corners" {
                "_align_corners".to_string()
            } else {
                suffix("asymmetric")
            };
            Ok((format!("nearest{coord_suffix}{rounding}"), false))
        }
        "linear" => {
            if rank != 4 {
                bail!(
                    "linear Resize is supported for 3-D (N, C, L) and 4-D (N, C, H, W) data only; X has rank {rank}"
                );
            }
            if !matches!(
                coord,
                "half_pixel"
                    | "align_corners"
                    | "asymmetric"
                    | "pytorch_half_pixel"
                    | "half_pixel_symmetric"
                    | "tf_crop_and_resize"
            ) {
                bail!("coordinate_transformation_mode '{coord}' is not supported in linear mode");
            }
            Ok((
                format!("bilinear{}", suffix("half_pixel")),
                coord == "align_corners",
            ))
        }
        "cubic" => {
            if rank != 4 {
                bail!(
                    "cubic Resize is supported for 3-D (N, C, L) and 4-D (N, C, H, W) data only; X has rank {rank}"
                );
            }
            if !matches!(
                coord,
                "half_pixel"
                    | "align_corners"
                    | "asymmetric"
                    | "pytorch_half_pixel"
                    | "half_pixel_symmetric"
                    | "tf_crop_and_resize"
            ) {
                bail!("coordinate_transformation_mode '{coord}' is not supported in cubic mode");
            }
            Ok((
                format!("bicubic{}", suffix("half_pixel")),
                coord == "align_corners",
            ))
        }
        other => bail!("attribute 'mode' is '{other}'; expected nearest, linear or cubic"),
    }
}

/// tf_crop_and_resize's region of interest (input `roi`, a constant: starts then ends,
/// for every axis or for `axes`) and `extrapolation_value`, after the mode string's
/// `,`: `roi=s0:e0:s1:e1` for the spatial axes. Batch and channels must keep their whole
/// extent, as only the spatial axes resize.
fn crop_options(b: &Binder) -> Result<String> {
    let rank = dims_of(&b.input_type(0, "X")?, "X")?.len();
    let axes = match b.optional_ints("axes")? {
        Some(a) => normalize_axes(&a, rank, "attribute 'axes'")?,
        None => (0..rank).collect(),
    };
    await_constant(b, 1, "roi")?;
    let Some(roi) = const_floats(b, 1, "roi")? else {
        bail!("tf_crop_and_resize needs input 'roi'");
    };
    if roi.len() != 2 * axes.len() {
        bail!(
            "input 'roi' has {} values, but tf_crop_and_resize needs a start and an end for \
             each of {} axes",
            roi.len(),
            axes.len()
        );
    }
    let mut region = vec![(0.0, 1.0); rank];
    for (k, &a) in axes.iter().enumerate() {
        region[a] = (roi[k], roi[k + axes.len()]);
    }
    if let Some(d) = (0..rank.min(2)).find(|&d| region[d] != (0.0, 1.0)) {
        bail!(
            "input 'roi' crops dimension {d} to {:?}: only the spatial dimensions (2 and up) \
             may be cropped",
            region[d]
        );
    }
    if let Some((s, e)) = region
        .iter()
        .find(|(s, e)| !s.is_finite() || !e.is_finite())
    {
        bail!("input 'roi' holds {s}..{e}, which is not finite");
    }
    let list: Vec<String> = region[2..]
        .iter()
        .map(|(s, e)| format!("{s}:{e}"))
        .collect();
    let mut options = format!(",roi={}", list.join(":"));
    let value = b.float("extrapolation_value", 0.0)?;
    if value != 0.0 {
        options.push_str(&format!(",extrapolation_value={value}"));
    }
    Ok(options)
}

/// What torch's bicubic kernel (a = -0.75, every neighbour counted) cannot say, after
/// the mode string's `,`: `cubic_coeff_a=A` and `exclude_outside`.
fn cubic_options(a: f64, exclude_outside: i64) -> Result<String> {
    if !a.is_finite() {
        bail!("attribute 'cubic_coeff_a' is {a}, but must be a finite number");
    }
    let mut options = String::new();
    if a != -0.75 {
        options.push_str(&format!(",cubic_coeff_a={a}"));
    }
    match exclude_outside {
        0 => {}
        1 => options.push_str(",exclude_outside"),
        other => bail!("attribute 'exclude_outside' is {other}, but must be 0 or 1"),
    }
    Ok(options)
}

/// Scales must be positive and leave the batch and channel dimensions alone; sizes
/// must be positive and equal to those dimensions where known.
fn check_target(target: &Target, dims: &[Dim]) -> Result<()> {
    match target {
        Target::SizesAtRunTime(_) | Target::ScalesAtRunTime(_) => {}
        Target::Scales(scales) => {
            for (i, &s) in scales.iter().enumerate() {
                if s.is_nan() || s <= 0.0 {
                    bail!("scales[{i}] is {s}; scales must be positive");
                }
                if i < 2 && s != 1.0 {
                    bail!(
                        "scales[{i}] is {s}: resizing dimension {i} is not supported, only \
                         the spatial dimensions (2 and up)"
                    );
                }
            }
        }
        Target::Sizes(sizes) => {
            for (i, s) in sizes.iter().enumerate() {
                if let Some(s) = s
                    && *s <= 0
                {
                    bail!("sizes[{i}] is {s}; sizes must be positive");
                }
                if let (true, Some(s), Some(Some(d))) = (i < 2, s, dims.get(i))
                    && s != d
                {
                    bail!(
                        "sizes[{i}] is {s} but dimension {i} of X is {d}: resizing it is not \
                         supported, only the spatial dimensions (2 and up)"
                    );
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_strings_match_torch_mlir() {
        let m = |mode, coord, nearest| torch_mode(mode, coord, nearest, 4).unwrap();
        assert_eq!(
            m("nearest", "asymmetric", "floor"),
            ("nearest".into(), false)
        );
        assert_eq!(
            m("nearest", "half_pixel", "round_prefer_floor"),
            ("nearest_half_pixel,round_prefer_floor".into(), false)
        );
        assert_eq!(m("linear", "half_pixel", ""), ("bilinear".into(), false));
        assert_eq!(m("linear", "align_corners", ""), ("bilinear".into(), true));
        assert_eq!(
            m("linear", "asymmetric", ""),
            ("bilinear_asymmetric".into(), false)
        );
        assert_eq!(
            m("cubic", "asymmetric", ""),
            ("bicubic_asymmetric".into(), false)
        );
        assert!(torch_mode("cubic", "half_pixel", "floor", 3).is_err());
        assert_eq!(cubic_options(-0.75, 0).unwrap(), "");
        assert_eq!(
            cubic_options(-0.5, 1).unwrap(),
            ",cubic_coeff_a=-0.5,exclude_outside"
        );
        assert!(cubic_options(-0.5, 2).is_err());
        assert_eq!(
            m("nearest", "align_corners", "floor"),
            ("nearest_align_corners".into(), false)
        );
        assert_eq!(
            m("nearest", "tf_crop_and_resize", "floor"),
            ("nearest_tf_crop_and_resize".into(), false)
        );
        assert!(torch_mode("nearest", "tf_half_pixel_for_nn", "floor", 4).is_err());
        assert!(torch_mode("linear", "half_pixel", "floor", 3).is_err());
        assert!(torch_mode("linear", "tf_half_pixel_for_nn", "floor", 4).is_err());
    }

    #[test]
    fn only_spatial_dimensions_resize() {
        let dims = [Some(1), Some(3), Some(4), None];
        assert!(check_target(&Target::Scales(vec![1.0, 1.0, 2.0, 0.5]), &dims).is_ok());
        assert!(check_target(&Target::Scales(vec![1.0, 2.0, 2.0, 2.0]), &dims).is_err());
        assert!(check_target(&Target::Scales(vec![1.0, 1.0, 0.0, 2.0]), &dims).is_err());
        let sizes = vec![Some(1), Some(3), Some(8), Some(8)];
        assert!(check_target(&Target::Sizes(sizes), &dims).is_ok());
        let sizes = vec![Some(2), Some(3), Some(8), Some(8)];
        assert!(check_target(&Target::Sizes(sizes), &dims).is_err());
    }
}
