//! Antialiased bilinear and bicubic sampling (ONNX Resize with `antialias` 1): when an
//! axis shrinks by `scale` < 1, its filter widens by 1/scale so that every input sample
//! contributes, as ONNX's reference and ONNX Runtime compute it. Per axis, each output
//! position reads the input samples within the widened support around its input
//! coordinate (edge samples repeated beyond the edges, or dropped with
//! `exclude_outside`), with the kernel's weights normalized to sum to 1. Axes that grow
//! keep the plain filter, which the same weights then give.

use anyhow::{Context as _, Result, bail};

use super::resize::{Coord, original};
use super::resize_cubic::Cubic;
use crate::kernels::tensor::data::from_f64;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::layout::result_count;
use crate::kernels::tensor::{Data, Tensor};

/// The filter being widened.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Filter {
    Linear,
    Cubic(Cubic),
}

impl Filter {
    /// Half the filter's support at scale 1.
    fn radius(self) -> f64 {
        match self {
            Filter::Linear => 1.0,
            Filter::Cubic(_) => 2.0,
        }
    }

    /// The kernel's value at distance `d` (in input samples scaled by the axis scale).
    fn at(self, d: f64) -> f64 {
        let d = d.abs();
        match self {
            Filter::Linear => (1.0 - d).clamp(0.0, 1.0),
            Filter::Cubic(k) => {
                let a = f64::from(k.a);
                if d <= 1.0 {
                    ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0
                } else if d < 2.0 {
                    ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a
                } else {
                    0.0
                }
            }
        }
    }

    fn exclude_outside(self) -> bool {
        matches!(self, Filter::Cubic(k) if k.exclude_outside)
    }
}

/// One output position's input samples (clamped into the input) and weights.
type Taps = Vec<(usize, f32)>;

fn taps(o: usize, scale: f64, input: usize, output: usize, coord: Coord, f: Filter) -> Taps {
    let s = scale.min(1.0);
    let x = original(o, scale, input, output, coord);
    let floor = x.floor();
    let ratio = x - floor;
    // The neighbours floor(x) + i for i in start..2-start: every sample within the
    // widened support on either side.
    let start = (-f.radius() / s).floor() as i64 + 1;
    let end = 2 - start;
    let last = input.saturating_sub(1) as i64;
    let mut weights: Vec<(i64, f64)> = (start..end)
        .map(|i| (floor as i64 + i, f.at(s * (i as f64 - ratio))))
        .collect();
    if f.exclude_outside() {
        for (at, w) in &mut weights {
            if !(0..=last).contains(at) {
                *w = 0.0;
            }
        }
    }
    let sum: f64 = weights.iter().map(|(_, w)| w).sum();
    let norm = if sum != 0.0 { sum } else { 1.0 };
    weights
        .into_iter()
        .map(|(at, w)| (at.clamp(0, last) as usize, (w / norm) as f32))
        .collect()
}

pub fn antialiased(
    x: &Tensor,
    planes: usize,
    input: &[usize],
    output: &[usize],
    scales: &[f64],
    coords: &[Coord],
    f: Filter,
) -> Result<Data> {
    let dtype = x.data.dtype();
    if input.len() != 2 || dtype != DType::F32 {
        bail!(
            "antialiased interpolation takes 4-D f32 tensors, not {} of shape {:?}",
            x.dtype(),
            x.shape
        );
    }
    // The support grows as 1/scale: a scale that shrinks an axis to less than one
    // sample would make it wider than the input, so it is refused before the tables.
    for (&s, &n) in scales.iter().zip(input) {
        let width = 2.0 * f.radius() / s.min(1.0);
        if width.is_nan() || width > 4.0 * n as f64 + 16.0 {
            bail!("scale {s} is too small for antialiased interpolation of {n} samples");
        }
    }
    let rows: Vec<Taps> = (0..output[0])
        .map(|o| taps(o, scales[0], input[0], output[0], coords[0], f))
        .collect();
    let cols: Vec<Taps> = (0..output[1])
        .map(|o| taps(o, scales[1], input[1], output[1], coords[1], f))
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
                for &(ri, rw) in r {
                    let row = &v[base + ri * w..][..w];
                    let s: f32 = c.iter().map(|&(ci, cw)| cw * row[ci]).sum();
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
    fn shrinking_widens_the_filter_and_keeps_its_sum() {
        // Half the samples: linear reads 4 neighbours, cubic 8.
        let t = taps(1, 0.5, 8, 4, Coord::HalfPixel, Filter::Linear);
        assert_eq!(t.len(), 4);
        assert!((t.iter().map(|(_, w)| w).sum::<f32>() - 1.0).abs() < 1e-6);
        let k = Cubic {
            a: -0.75,
            exclude_outside: false,
        };
        assert_eq!(
            taps(1, 0.5, 8, 4, Coord::HalfPixel, Filter::Cubic(k)).len(),
            8
        );
        // Growing keeps plain linear weights: x = 0.25 reads 0 and 1 at 0.75 and 0.25.
        let t = taps(1, 2.0, 4, 8, Coord::HalfPixel, Filter::Linear);
        assert_eq!(t, vec![(0, 0.75), (1, 0.25)]);
    }
}
