//! Bicubic sampling for `__interpolate.size_list_scale_list` (ONNX Resize with mode
//! `cubic`): each output position reads the 4×4 input samples around its input
//! coordinate, weighted by the Keys cubic kernel with ONNX's `cubic_coeff_a`. Samples
//! beyond the edge repeat the edge, unless `exclude_outside` drops them and scales the
//! other weights to sum to 1. Arithmetic in f32, rows first then columns, as ONNX
//! Runtime computes it.

use anyhow::{Context as _, Result, bail};

use super::resize::{Coord, original};
use crate::kernels::tensor::data::from_f64;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::layout::result_count;
use crate::kernels::tensor::{Data, Tensor};

/// The cubic kernel's parameters, from the mode string.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cubic {
    pub a: f32,
    pub exclude_outside: bool,
}

/// One axis's four input positions (clamped into the input) and their weights.
struct Taps {
    at: [usize; 4],
    w: [f32; 4],
}

/// The Keys kernel's weights of the four neighbours `floor(x) - 1 ..= floor(x) + 2` of a
/// coordinate whose fractional part is `r`.
fn weights(r: f32, a: f32) -> [f32; 4] {
    let far = |d: f32| ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a;
    let near = |d: f32| ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0;
    [far(r + 1.0), near(r), near(1.0 - r), far(2.0 - r)]
}

fn taps(o: usize, scale: f64, input: usize, output: usize, coord: Coord, k: Cubic) -> Taps {
    let x = original(o, scale, input, output, coord) as f32;
    let floor = x.floor();
    let mut w = weights(x - floor, k.a);
    let first = floor as i64 - 1;
    let inside = |j: usize| (0..input as i64).contains(&(first + j as i64));
    if k.exclude_outside {
        for (j, wj) in w.iter_mut().enumerate() {
            if !inside(j) {
                *wj = 0.0;
            }
        }
        let sum: f32 = w.iter().sum();
        if sum != 0.0 {
            w.iter_mut().for_each(|wj| *wj /= sum);
        }
    }
    let last = input.saturating_sub(1) as i64;
    let at = std::array::from_fn(|j| (first + j as i64).clamp(0, last) as usize);
    Taps { at, w }
}

pub fn bicubic(
    x: &Tensor,
    planes: usize,
    input: &[usize],
    output: &[usize],
    scales: &[f64],
    coords: &[Coord],
    k: Cubic,
) -> Result<Data> {
    let dtype = x.data.dtype();
    if input.len() != 2 || dtype != DType::F32 {
        bail!(
            "bicubic interpolation takes 4-D f32 tensors, not {} of shape {:?}",
            x.dtype(),
            x.shape
        );
    }
    let rows: Vec<Taps> = (0..output[0])
        .map(|o| taps(o, scales[0], input[0], output[0], coords[0], k))
        .collect();
    let cols: Vec<Taps> = (0..output[1])
        .map(|o| taps(o, scales[1], input[1], output[1], coords[1], k))
        .collect();
    let v: Vec<f32> = x.data.to_f64().into_iter().map(|v| v as f32).collect();
    let (h, w) = (input[0], input[1]);
    let total = result_count(&[planes, output[0], output[1]]).context("output too large")?;
    let mut out = Vec::with_capacity(total);
    for plane in 0..planes {
        let base = plane * h * w;
        for r in &rows {
            for c in &cols {
                let mut y = 0f32;
                for (&ri, &rw) in r.at.iter().zip(&r.w) {
                    let row = &v[base + ri * w..][..w];
                    let mut s = 0f32;
                    for (&ci, &cw) in c.at.iter().zip(&c.w) {
                        s += cw * row[ci];
                    }
                    y += rw * s;
                }
                out.push(y as f64);
            }
        }
    }
    Ok(from_f64(dtype, &out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one_and_interpolate_at_integers() {
        for r in [0.0, 0.25, 0.5, 0.9] {
            let s: f32 = weights(r, -0.75).iter().sum();
            assert!((s - 1.0).abs() < 1e-6, "{r}: {s}");
        }
        assert_eq!(weights(0.0, -0.5), [0.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn excluded_neighbours_give_their_weight_to_the_others() {
        let k = Cubic {
            a: -0.5,
            exclude_outside: true,
        };
        // Asymmetric, 4 → 8: output 1 samples 0.5, whose neighbour -1 is outside.
        let t = taps(1, 2.0, 4, 8, Coord::Asymmetric, k);
        assert_eq!(t.at, [0, 0, 1, 2]);
        assert_eq!(t.w[0], 0.0);
        assert!((t.w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }
}
