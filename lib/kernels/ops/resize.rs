//! `__interpolate.size_list_scale_list`, as the Resize lowering emits it: the mode
//! string carries ONNX's coordinate transformation after `_` and the nearest rounding
//! after `,` (`nearest_half_pixel,round_prefer_floor`, `bilinear_asymmetric`; bicubic's
//! options there are read in `cubic_options`). The
//! arithmetic is ONNX Resize's, in f32 as ONNX Runtime does it: each output coordinate
//! maps back to an input coordinate, which nearest mode rounds and clamps into the
//! input, and bilinear mode clamps and interpolates between its two neighbours.

use anyhow::{Context as _, Result, bail};

use super::resize_antialias::{Filter, antialiased};
use super::resize_crop::{axis_coords, extrapolate, split_options};
use super::resize_cubic::{Cubic, bicubic};
use crate::kernels::tensor::data::{Prec, from_f64, gather, gather_rows};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::layout::{MAX_ELEMENTS, cartesian_offsets, result_count, strides};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Quant, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.__interpolate.size_list_scale_list" => interpolate,
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Coord {
    /// The region of interest of one axis, as fractions of it (see `resize_crop`).
    TfCropAndResize {
        start: f64,
        end: f64,
    },
    HalfPixel,
    Asymmetric,
    PytorchHalfPixel,
    AlignCorners,
    HalfPixelSymmetric,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Rounding {
    Floor,
    Ceil,
    PreferFloor,
    PreferCeil,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Nearest(Rounding),
    Bilinear,
    Bicubic(Cubic),
}

/// Reads the mode string and `align_corners`.
fn parse_mode(mode: &str, align_corners: bool) -> Result<(Mode, Coord)> {
    if mode == "nearest-exact" {
        return Ok((Mode::Nearest(Rounding::PreferCeil), Coord::HalfPixel));
    }
    let (head, rounding) = match mode.split_once(',') {
        Some((h, r)) => (h, Some(r)),
        None => (mode, None),
    };
    let (base, default) = if let Some(rest) = head.strip_prefix("nearest") {
        (rest, Coord::Asymmetric)
    } else if let Some(rest) = head.strip_prefix("bilinear") {
        (rest, Coord::HalfPixel)
    } else if let Some(rest) = head.strip_prefix("bicubic") {
        (rest, Coord::HalfPixel)
    } else {
        bail!("interpolation mode '{mode}' is not supported (nearest, bilinear or bicubic)");
    };
    let coord = match base {
        "" if align_corners => Coord::AlignCorners,
        "" => default,
        "_half_pixel" => Coord::HalfPixel,
        "_asymmetric" => Coord::Asymmetric,
        "_pytorch_half_pixel" => Coord::PytorchHalfPixel,
        "_align_corners" => Coord::AlignCorners,
        "_half_pixel_symmetric" => Coord::HalfPixelSymmetric,
        // The region comes from the mode string's options (`resize_crop`).
        "_tf_crop_and_resize" => Coord::TfCropAndResize {
            start: 0.0,
            end: 1.0,
        },
        other => bail!("coordinate transformation '{other}' of mode '{mode}' is not supported"),
    };
    let m = if head.starts_with("nearest") {
        Mode::Nearest(match rounding {
            None | Some("floor") => Rounding::Floor,
            Some("ceil") => Rounding::Ceil,
            Some("round_prefer_floor") => Rounding::PreferFloor,
            Some("round_prefer_ceil") => Rounding::PreferCeil,
            Some(other) => bail!("nearest rounding '{other}' is not supported"),
        })
    } else if head.starts_with("bicubic") {
        Mode::Bicubic(cubic_options(mode, rounding)?)
    } else {
        if rounding.is_some() {
            bail!("mode '{mode}': only nearest modes take a rounding");
        }
        Mode::Bilinear
    };
    Ok((m, coord))
}

/// Bicubic's options after the first `,`, each itself `,`-separated: torch's kernel
/// (`a` -0.75, every neighbour counted) unless `cubic_coeff_a=A` or `exclude_outside`
/// say otherwise (ONNX Resize's attributes of those names).
fn cubic_options(mode: &str, options: Option<&str>) -> Result<Cubic> {
    let mut k = Cubic {
        a: -0.75,
        exclude_outside: false,
    };
    for option in options.into_iter().flat_map(|o| o.split(',')) {
        if option == "exclude_outside" {
            k.exclude_outside = true;
        } else if let Some(a) = option.strip_prefix("cubic_coeff_a=") {
            k.a = a
                .parse()
                .with_context(|| format!("mode '{mode}': cubic_coeff_a '{a}' is not a number"))?;
        } else {
            bail!("mode '{mode}': bicubic option '{option}' is not supported");
        }
    }
    Ok(k)
}

/// The input coordinate (f32 arithmetic) of output coordinate `x` along an axis
/// resized from `input` to `output` positions with `scale`.
pub(super) fn original(x: usize, scale: f64, input: usize, output: usize, coord: Coord) -> f64 {
    let p = Prec(DType::F32);
    let x = x as f64;
    let half_pixel = || p.round(p.round(p.round(x + 0.5) / scale) - 0.5);
    match coord {
        Coord::HalfPixel => half_pixel(),
        Coord::Asymmetric => p.round(x / scale),
        Coord::PytorchHalfPixel if output > 1 => half_pixel(),
        Coord::PytorchHalfPixel => 0.0,
        Coord::AlignCorners if output == 1 => 0.0,
        Coord::AlignCorners => p.round(p.round(x * (input as f64 - 1.0)) / (output as f64 - 1.0)),
        Coord::TfCropAndResize { start, end } if output > 1 => {
            let span = p.round(input as f64 - 1.0);
            let offset = p.round(start * span);
            p.round(
                offset + p.round(p.round(x * p.round(end - start)) * span / (output as f64 - 1.0)),
            )
        }
        Coord::TfCropAndResize { start, end } => {
            p.round(p.round(0.5 * p.round(start + end)) * (input as f64 - 1.0))
        }
        Coord::HalfPixelSymmetric => {
            let adjustment = p.round(output as f64 / p.round(scale * input as f64));
            let center = p.round(input as f64 / 2.0);
            let offset = p.round(center * p.round(1.0 - adjustment));
            p.round(offset + half_pixel())
        }
    }
}

fn nearest_index(x: f64, rounding: Rounding, input: usize) -> usize {
    let floor = x.floor();
    let i = match rounding {
        Rounding::Floor => floor,
        Rounding::Ceil => x.ceil(),
        Rounding::PreferFloor if x == floor + 0.5 => floor,
        Rounding::PreferCeil if x == floor + 0.5 => floor + 1.0,
        Rounding::PreferFloor | Rounding::PreferCeil => x.round(),
    };
    i.clamp(0.0, input.saturating_sub(1) as f64) as usize
}

/// The output spatial sizes and the scale of each spatial axis.
fn target(c: &Call, input: &[usize]) -> Result<(Vec<usize>, Vec<f64>)> {
    let n = input.len();
    match (args::opt(c, 1), args::opt(c, 2)) {
        (Some(_), None) => {
            let sizes = args::ints(c, 1)?;
            if sizes.len() != n {
                bail!("{} sizes for {n} spatial dimensions", sizes.len());
            }
            let out = sizes
                .iter()
                .map(|&s| args::size(s, "an output size"))
                .collect::<Result<Vec<_>>>()?;
            let scales = out
                .iter()
                .zip(input)
                .map(|(&o, &i)| (o as f32 / i as f32) as f64)
                .collect();
            Ok((out, scales))
        }
        (None, Some(_)) => {
            let scales: Vec<f64> = args::floats(c, 2)?
                .into_iter()
                .map(|s| s as f32 as f64)
                .collect();
            if scales.len() != n {
                bail!("{} scales for {n} spatial dimensions", scales.len());
            }
            let mut out = Vec::with_capacity(n);
            for (&s, &i) in scales.iter().zip(input) {
                if !(s > 0.0 && s.is_finite()) {
                    bail!("scale {s} must be positive");
                }
                // ONNX Runtime multiplies in f32 and truncates, so a product just
                // short of an integer may round up to it.
                let o = (i as f32 * s as f32).floor();
                if o as f64 > MAX_ELEMENTS as f64 {
                    bail!("scale {s} makes a dimension too large");
                }
                out.push(o as usize);
            }
            Ok((out, scales))
        }
        _ => bail!("exactly one of size and scale_factor must be given"),
    }
}

/// `__interpolate.size_list_scale_list(input, size?, scale_factor?, mode,
/// align_corners?, recompute_scale_factor?, antialias)`.
fn interpolate(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    if x.rank() < 3 {
        bail!(
            "interpolation of shape {:?}: needs (N, C, spatial...)",
            x.shape
        );
    }
    let align_corners = match args::opt(c, 4) {
        Some(_) => args::boolean(c, 4)?,
        None => false,
    };
    let antialias = args::opt(c, 6).is_some() && args::boolean(c, 6)?;
    let (mode, crop) = split_options(args::string(c, 3)?)?;
    let (mode, coord) = parse_mode(&mode, align_corners)?;
    let planes: usize = result_count(&x.shape[..2])?;
    let input = x.shape[2..].to_vec();
    let (output, scales) = target(c, &input)?;
    let coords = axis_coords(coord, &crop, &input, &output)?;
    // Nearest sampling only picks elements, so a quantized tensor keeps its parameters
    // (per channel along N or C, which it keeps); a crop's extrapolation value and the
    // other modes compute floats.
    let picks = matches!(mode, Mode::Nearest(_))
        && !coords
            .iter()
            .any(|c| matches!(c, Coord::TfCropAndResize { .. }));
    let quant = match &x.quant {
        None => None,
        Some(q @ Quant::PerTensor { .. }) if picks => Some(q.clone()),
        Some(q @ Quant::PerChannel { axis, .. }) if picks && *axis < 2 => Some(q.clone()),
        Some(_) => bail!("interpolating a quantized tensor is supported in nearest mode only"),
    };
    if input.contains(&0) && !output.iter().all(|&o| o == 0) {
        bail!("interpolation of an empty input to {output:?}");
    }
    let mut shape = x.shape[..2].to_vec();
    shape.extend(&output);
    let in_block = result_count(&input)?;
    let out_block = result_count(&output)?;
    if result_count(&shape)? == 0 {
        // Nothing to compute (and no per-axis tables to build for huge sizes).
        let mut t = Tensor::new(shape, gather(&x.data, &[]))?;
        t.quant = quant;
        return args::ret(c, t);
    }
    let data = match mode {
        Mode::Nearest(rounding) => {
            // Per axis, the input position of every output position.
            let axes: Vec<Vec<usize>> = (0..input.len())
                .map(|i| {
                    (0..output[i])
                        .map(|o| {
                            let at = original(o, scales[i], input[i], output[i], coords[i]);
                            nearest_index(at, rounding, input[i])
                        })
                        .collect()
                })
                .collect();
            // Every output row picks the same columns from its input row: the offsets
            // of the input rows, and the last axis's picks.
            let Some((cols, rows)) = axes.split_last() else {
                bail!("interpolation without spatial axes");
            };
            let lists: Vec<&[usize]> = rows.iter().map(Vec::as_slice).collect();
            let in_strides = strides(&input);
            let mut offsets = Vec::with_capacity(out_block / cols.len().max(1));
            cartesian_offsets(&lists, &in_strides[..rows.len()], &mut offsets);
            let mut starts = Vec::with_capacity(result_count(&[planes, offsets.len()])?);
            for p in 0..planes {
                starts.extend(offsets.iter().map(|&o| p * in_block + o));
            }
            gather_rows(&x.data, &starts, cols)
        }
        // Antialiasing only changes linear and cubic sampling (ONNX ignores it for
        // nearest), and only along axes that shrink; growing axes get the same
        // weights as without it, but the plain kernels keep their exact arithmetic.
        Mode::Bilinear | Mode::Bicubic(_) if antialias && scales.iter().any(|&s| s < 1.0) => {
            let filter = match mode {
                Mode::Bicubic(k) => Filter::Cubic(k),
                _ => Filter::Linear,
            };
            antialiased(x, planes, &input, &output, &scales, &coords, filter)?
        }
        Mode::Bilinear => bilinear(x, planes, &input, &output, &scales, &coords)?,
        Mode::Bicubic(k) => bicubic(x, planes, &input, &output, &scales, &coords, k)?,
    };
    let data = extrapolate(
        data,
        planes,
        &input,
        &output,
        &scales,
        &coords,
        crop.extrapolation,
    );
    let mut t = Tensor::new(shape, data)?;
    t.quant = quant;
    args::ret(c, t)
}

/// One axis's interpolation: the two input positions and their weights.
struct Taps {
    lo: usize,
    hi: usize,
    w_lo: f64,
    w_hi: f64,
}

fn linear_taps(o: usize, scale: f64, input: usize, output: usize, coord: Coord) -> Taps {
    let last = input.saturating_sub(1);
    let x = original(o, scale, input, output, coord).clamp(0.0, last as f64);
    let lo = (x as usize).min(last);
    let hi = (lo + 1).min(last);
    if lo == hi {
        return Taps {
            lo,
            hi,
            w_lo: 0.5,
            w_hi: 0.5,
        };
    }
    // The weight of a neighbour is the distance to the other one.
    Taps {
        lo,
        hi,
        w_lo: (x - hi as f64).abs(),
        w_hi: (x - lo as f64).abs(),
    }
}

fn bilinear(
    x: &Tensor,
    planes: usize,
    input: &[usize],
    output: &[usize],
    scales: &[f64],
    coords: &[Coord],
) -> Result<crate::kernels::tensor::Data> {
    let dtype = x.data.dtype();
    if input.len() != 2 || dtype != DType::F32 {
        bail!(
            "bilinear interpolation takes 4-D f32 tensors, not {} of shape {:?}",
            x.dtype(),
            x.shape
        );
    }
    let p = Prec(dtype);
    let rows: Vec<Taps> = (0..output[0])
        .map(|o| linear_taps(o, scales[0], input[0], output[0], coords[0]))
        .collect();
    let cols: Vec<Taps> = (0..output[1])
        .map(|o| linear_taps(o, scales[1], input[1], output[1], coords[1]))
        .collect();
    let v = x.data.to_f64();
    let (h, w) = (input[0], input[1]);
    let total = result_count(&[planes, output[0], output[1]]).context("output too large")?;
    let mut out = Vec::with_capacity(total);
    for plane in 0..planes {
        let at = |r: usize, c: usize| v[(plane * h + r) * w + c];
        for r in &rows {
            for c in &cols {
                let terms = [
                    (p.round(c.w_lo * r.w_lo), at(r.lo, c.lo)),
                    (p.round(c.w_hi * r.w_lo), at(r.lo, c.hi)),
                    (p.round(c.w_lo * r.w_hi), at(r.hi, c.lo)),
                    (p.round(c.w_hi * r.w_hi), at(r.hi, c.hi)),
                ];
                let y = terms
                    .iter()
                    .fold(0.0, |acc, &(wt, v)| p.round(acc + p.round(wt * v)));
                out.push(y);
            }
        }
    }
    Ok(from_f64(dtype, &out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::tensor::Data;
    use crate::kernels::testing::*;

    fn interp(
        x: Value,
        size: Option<&[i64]>,
        scale: Option<&[f64]>,
        mode: &str,
        align: bool,
    ) -> Vec<f32> {
        let args = [
            x,
            size.map_or(Value::None, ints),
            scale.map_or(Value::None, |s| Value::FloatList(s.to_vec())),
            Value::Str(mode.into()),
            Value::Bool(align),
            Value::None,
            Value::Bool(false),
        ];
        f32_values(&run1("aten.__interpolate.size_list_scale_list", &args, unknown()).unwrap())
    }

    #[test]
    fn nearest_picks_quantized_bytes_and_keeps_their_parameters() {
        let mut q = Tensor::new(vec![1, 2, 2, 3], Data::U8((0..12).collect())).unwrap();
        q.quant = Some(Quant::PerTensor {
            scale: 0.5,
            zero_point: 3,
        });
        let args = |mode: &str| {
            [
                Value::tensor(q.clone()),
                Value::None,
                Value::FloatList(vec![2.0, 2.0]),
                Value::Str(mode.into()),
                Value::Bool(false),
                Value::None,
                Value::Bool(false),
            ]
        };
        let t = run1(
            "aten.__interpolate.size_list_scale_list",
            &args("nearest"),
            unknown(),
        )
        .unwrap();
        assert_eq!(t.shape, [1, 2, 4, 6]);
        assert_eq!(t.quant, q.quant);
        let Data::U8(v) = &t.data else {
            panic!("bytes expected")
        };
        assert_eq!(&v[..12], &[0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2]);
        assert_eq!(&v[24..30], &[6, 6, 7, 7, 8, 8]);
        let floats = f32s(
            &[1, 2, 2, 3],
            &(0..12).map(|v| v as f32).collect::<Vec<_>>(),
        );
        let mut float_args = args("nearest");
        float_args[0] = floats;
        let f = run1(
            "aten.__interpolate.size_list_scale_list",
            &float_args,
            unknown(),
        )
        .unwrap();
        let as_bytes: Vec<u8> = f32_values(&f).iter().map(|&x| x as u8).collect();
        assert_eq!(&as_bytes, v);
        assert!(
            run(
                "aten.__interpolate.size_list_scale_list",
                &args("bilinear"),
                &[unknown()]
            )
            .is_err()
        );
    }

    #[test]
    fn modes_parse_like_the_lowering_writes_them() {
        let nearest = |r| Mode::Nearest(r);
        assert_eq!(
            parse_mode("nearest", false).unwrap(),
            (nearest(Rounding::Floor), Coord::Asymmetric)
        );
        assert_eq!(
            parse_mode("nearest_half_pixel,round_prefer_floor", false).unwrap(),
            (nearest(Rounding::PreferFloor), Coord::HalfPixel)
        );
        assert_eq!(
            parse_mode("bilinear", true).unwrap(),
            (Mode::Bilinear, Coord::AlignCorners)
        );
        assert_eq!(
            parse_mode("bilinear_pytorch_half_pixel", false).unwrap(),
            (Mode::Bilinear, Coord::PytorchHalfPixel)
        );
        let cubic = |a, exclude_outside| Mode::Bicubic(Cubic { a, exclude_outside });
        assert_eq!(
            parse_mode("bicubic", false).unwrap(),
            (cubic(-0.75, false), Coord::HalfPixel)
        );
        assert_eq!(
            parse_mode(
                "bicubic_asymmetric,cubic_coeff_a=-0.5,exclude_outside",
                false
            )
            .unwrap(),
            (cubic(-0.5, true), Coord::Asymmetric)
        );
        assert!(parse_mode("bicubic,cubic_coeff_a=x", false).is_err());
        assert!(parse_mode("bicubic,round_prefer_floor", false).is_err());
        assert!(parse_mode("bitrilinear", false).is_err());
        assert!(parse_mode("nearest_half_pixel,round", false).is_err());
    }

    #[test]
    fn nearest_upsampling() {
        let x = f32s(&[1, 1, 1, 2], &[1.0, 2.0]);
        // Asymmetric, floor: [0, 0, 1, 1].
        assert_eq!(
            interp(x.clone(), None, Some(&[1.0, 2.0]), "nearest", false),
            vec![1.0, 1.0, 2.0, 2.0]
        );
        // Scale 3 with half_pixel: coordinates (o + 0.5)/3 - 0.5 = -1/3, 0, 1/3, 2/3, 1, 4/3.
        let v = interp(
            x.clone(),
            Some(&[1, 6]),
            None,
            "nearest_half_pixel,round_prefer_ceil",
            false,
        );
        assert_eq!(v, vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
        // Downsampling by sizes: 4 → 2 with asymmetric floor picks 0 and 2.
        let y = f32s(&[1, 1, 4], &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(
            interp(y, Some(&[2]), None, "nearest", false),
            vec![1.0, 3.0]
        );
    }

    #[test]
    fn scaled_sizes_are_computed_in_f32() {
        // 10 × 0.7f32 is 6.99999988 exactly, but 7 once rounded to f32.
        let x = f32s(&[1, 1, 10], &[0.0; 10]);
        let args = [
            x,
            Value::None,
            Value::FloatList(vec![0.7f32 as f64]),
            Value::Str("nearest".into()),
            Value::Bool(false),
            Value::None,
            Value::Bool(false),
        ];
        let t = run1("aten.__interpolate.size_list_scale_list", &args, unknown()).unwrap();
        assert_eq!(t.shape, vec![1, 1, 7]);
    }

    #[test]
    fn prefer_floor_and_ceil_differ_at_ties() {
        // 2 → 4, asymmetric: coordinates 0, 0.5, 1, 1.5, with ties at 0.5 and 1.5.
        let x = f32s(&[1, 1, 2], &[1.0, 2.0]);
        let floor = interp(
            x.clone(),
            None,
            Some(&[2.0]),
            "nearest_asymmetric,round_prefer_floor",
            false,
        );
        assert_eq!(floor, vec![1.0, 1.0, 2.0, 2.0]);
        let ceil = interp(x, None, Some(&[2.0]), "nearest,round_prefer_ceil", false);
        assert_eq!(ceil, vec![1.0, 2.0, 2.0, 2.0]);
    }

    #[test]
    fn bilinear_interpolation() {
        let x = f32s(&[1, 1, 2, 2], &[0.0, 1.0, 2.0, 3.0]);
        // align_corners: 2 → 3 puts the middle sample halfway.
        let v = interp(x.clone(), Some(&[3, 3]), None, "bilinear", true);
        assert_eq!(v, vec![0.0, 0.5, 1.0, 1.0, 1.5, 2.0, 2.0, 2.5, 3.0]);
        // half_pixel: 2 → 4 samples at -0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped).
        let v = interp(x.clone(), None, Some(&[2.0, 2.0]), "bilinear", false);
        assert_eq!(v[..4], [0.0, 0.25, 0.75, 1.0]);
        // Asymmetric: samples at 0, 0.5, 1, 1.5 (clamped).
        let v = interp(x, None, Some(&[1.0, 2.0]), "bilinear_asymmetric", false);
        assert_eq!(v, vec![0.0, 0.5, 1.0, 1.0, 2.0, 2.5, 3.0, 3.0]);
    }
}
