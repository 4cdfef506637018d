//! ONNX Resize's `tf_crop_and_resize` coordinate transformation for
//! `__interpolate.size_list_scale_list`: each spatial axis samples only its region of
//! interest `[start, end]` (fractions of the axis), and an output position whose input
//! coordinate falls outside the input on any axis takes `extrapolation_value`. The
//! lowering writes both after `,` in the mode string (`roi=s0:e0:s1:e1`,
//! `extrapolation_value=v`), as the other options torch's operands cannot carry.

use anyhow::{Context as _, Result, bail};

use super::resize::{Coord, original};
use crate::kernels::tensor::Data;
use crate::kernels::tensor::data::from_f64;

/// The crop options of a mode string.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Crop {
    /// `(start, end)` per spatial axis, when the mode string gives a region.
    pub roi: Option<Vec<(f64, f64)>>,
    pub extrapolation: f64,
}

/// The mode string without its crop options, and those options.
pub fn split_options(mode: &str) -> Result<(String, Crop)> {
    let mut kept = Vec::new();
    let mut crop = Crop::default();
    for (i, part) in mode.split(',').enumerate() {
        if i > 0
            && let Some(list) = part.strip_prefix("roi=")
        {
            let values = list
                .split(':')
                .map(|v| v.parse::<f64>())
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| format!("mode '{mode}': roi '{list}' is not a list of numbers"))?;
            if values.len() % 2 != 0 {
                bail!("mode '{mode}': roi '{list}' does not pair starts and ends");
            }
            crop.roi = Some(values.chunks(2).map(|p| (p[0], p[1])).collect());
        } else if i > 0
            && let Some(v) = part.strip_prefix("extrapolation_value=")
        {
            crop.extrapolation = v.parse().with_context(|| {
                format!("mode '{mode}': extrapolation_value '{v}' is not a number")
            })?;
        } else {
            kept.push(part);
        }
    }
    Ok((kept.join(","), crop))
}

/// The coordinate transformation of each spatial axis (sized `input`, resized to
/// `output`): `coord` itself, or for `tf_crop_and_resize` the axis's region of
/// interest. An axis that keeps its size is left as it is, region or not, as ONNX
/// Runtime does (its scale is 1, so it is not resized).
pub fn axis_coords(
    coord: Coord,
    crop: &Crop,
    input: &[usize],
    output: &[usize],
) -> Result<Vec<Coord>> {
    let n = input.len();
    match (coord, &crop.roi) {
        (Coord::TfCropAndResize { .. }, Some(roi)) if roi.len() == n => Ok(roi
            .iter()
            .zip(input.iter().zip(output))
            .map(|(&(start, end), (i, o))| {
                if i == o {
                    Coord::Asymmetric
                } else {
                    Coord::TfCropAndResize { start, end }
                }
            })
            .collect()),
        (Coord::TfCropAndResize { .. }, Some(roi)) => bail!(
            "tf_crop_and_resize has a region for {} axes, but the input has {n} spatial axes",
            roi.len()
        ),
        (Coord::TfCropAndResize { .. }, None) => {
            bail!("tf_crop_and_resize needs a region of interest (roi=...) in the mode string")
        }
        (_, Some(_)) => bail!("a region of interest is only read by tf_crop_and_resize"),
        (_, None) => Ok(vec![coord; n]),
    }
}

/// Sets every output element of `data` (`planes` × `output`, row-major) whose input
/// coordinate lies outside the input along some axis to the extrapolation value.
pub fn extrapolate(
    data: Data,
    planes: usize,
    input: &[usize],
    output: &[usize],
    scales: &[f64],
    coords: &[Coord],
    value: f64,
) -> Data {
    if !coords
        .iter()
        .any(|c| matches!(c, Coord::TfCropAndResize { .. }))
    {
        return data;
    }
    // Per axis, whether each output position maps outside the input.
    let outside: Vec<Vec<bool>> = (0..input.len())
        .map(|i| {
            (0..output[i])
                .map(|o| {
                    let x = original(o, scales[i], input[i], output[i], coords[i]);
                    x < 0.0 || x > input[i].saturating_sub(1) as f64
                })
                .collect()
        })
        .collect();
    if outside.iter().all(|axis| axis.iter().all(|&o| !o)) {
        return data;
    }
    let dtype = data.dtype();
    let mut v = data.to_f64();
    let block: usize = output.iter().product();
    let mut index = vec![0usize; output.len()];
    for k in 0..block {
        if index.iter().zip(&outside).any(|(&i, axis)| axis[i]) {
            for p in 0..planes {
                v[p * block + k] = value;
            }
        }
        for a in (0..index.len()).rev() {
            index[a] += 1;
            if index[a] < output[a] {
                break;
            }
            index[a] = 0;
        }
    }
    from_f64(dtype, &v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crop_options_leave_the_rest_of_the_mode() {
        let (rest, crop) =
            split_options("bilinear_tf_crop_and_resize,roi=0.4:0.6:0.2:0.8,extrapolation_value=10")
                .unwrap();
        assert_eq!(rest, "bilinear_tf_crop_and_resize");
        assert_eq!(crop.roi, Some(vec![(0.4, 0.6), (0.2, 0.8)]));
        assert_eq!(crop.extrapolation, 10.0);
        let (rest, crop) = split_options("nearest_half_pixel,round_prefer_floor").unwrap();
        assert_eq!(rest, "nearest_half_pixel,round_prefer_floor");
        assert_eq!(crop, Crop::default());
        assert!(split_options("bilinear,roi=0:1:2").is_err());
    }

    #[test]
    fn positions_outside_the_input_take_the_extrapolation_value() {
        // One axis of 4 cropped to [-0.5, 0.5] sampled 3 times: -1.5, 0, 1.5.
        let coords = [Coord::TfCropAndResize {
            start: -0.5,
            end: 0.5,
        }];
        let data = Data::F32(vec![1.0, 2.0, 3.0]);
        let out = extrapolate(data, 1, &[4], &[3], &[0.75], &coords, 9.0);
        assert_eq!(out.to_f64(), vec![9.0, 2.0, 3.0]);
    }
}
