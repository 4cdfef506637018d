//! `--calibrate-method mse`: the range whose integer grid gives the least expected
//! squared error on the observed histogram, rounding and clipping together.
//!
//! Each candidate range is turned into a scale and zero point by the same function the
//! quantizer then uses (`params_of`: ORT's formulas, symmetric or restricted as
//! configured), so the error is measured on the very grid the model will hold, clamp to
//! the type's range included. The candidates are the observed range shrunk towards 0 by
//! a factor (both ends together), then each end alone around the best of those; the
//! observed range itself is a candidate, so the result never does worse on the
//! histogram than min-max.

use super::histogram::Histogram;
use super::params::{self, Params, QType};

/// Points at which each bin is sampled: a bin narrower than a grid step is still
/// wider than a point, and 4 points see the rounding inside it.
const POINTS_PER_BIN: usize = 4;

/// Shrink factors of the whole range: geometric from 1 down to 1/50.
const SHRINK_STEPS: usize = 96;

/// One end moved alone: from half to 1.5 times its value (capped at what was seen).
const END_STEPS: usize = 48;

pub fn search(h: &Histogram, params_of: &dyn Fn(f32, f32) -> Params, qtype: QType) -> (f32, f32) {
    let width = h.width();
    let mut points: Vec<(f32, f64)> = Vec::new();
    for (i, &n) in h.bins.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let base = h.lo as f64 + i as f64 * width;
        for k in 0..POINTS_PER_BIN {
            let x = base + (k as f64 + 0.5) / POINTS_PER_BIN as f64 * width;
            points.push((x as f32, n as f64 / POINTS_PER_BIN as f64));
        }
    }
    let error = |lo: f32, hi: f32| -> f64 {
        let p = params_of(lo, hi);
        points
            .iter()
            .map(|&(x, n)| {
                let q = params::quantize_value(x, p, qtype);
                let back = (q - p.zero_point) as f32 * p.scale;
                n * ((x - back) as f64).powi(2)
            })
            .sum()
    };
    let (lo0, hi0) = (h.lo.min(0.0), h.hi.max(0.0));
    let mut best = (error(lo0, hi0), lo0, hi0);
    let consider = |lo: f32, hi: f32, best: &mut (f64, f32, f32)| {
        let e = error(lo, hi);
        if e < best.0 {
            *best = (e, lo, hi);
        }
    };
    for k in 1..=SHRINK_STEPS {
        let f = (0.02f64).powf(k as f64 / SHRINK_STEPS as f64) as f32;
        consider(lo0 * f, hi0 * f, &mut best);
    }
    let (_, lo1, hi1) = best;
    for k in 0..=END_STEPS {
        let f = 0.5 + k as f32 / END_STEPS as f32;
        consider(lo1, (hi1 * f).min(hi0), &mut best);
    }
    let (_, _, hi2) = best;
    for k in 0..=END_STEPS {
        let f = 0.5 + k as f32 / END_STEPS as f32;
        consider((lo1 * f).max(lo0), hi2, &mut best);
    }
    (best.1, best.2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantize::ranges::tests::{histogram_of, laplacian, uniform};

    fn u8_grid(lo: f32, hi: f32) -> Params {
        params::compute(lo, hi, QType::U8, false)
    }

    #[test]
    fn clips_a_laplacians_tail_and_keeps_a_uniforms_range() {
        // A Laplacian's own tail, and two far outliers on top of it.
        let (h, lo, hi) = histogram_of(&laplacian(200_000));
        let (a, b) = search(&h, &u8_grid, QType::U8);
        assert!(b < 0.9 * hi && a > 0.9 * lo, "[{a}, {b}] of [{lo}, {hi}]");
        let mut outliers = laplacian(200_000);
        outliers.extend([40.0, -40.0]);
        let (h, _, _) = histogram_of(&outliers);
        let (a, b) = search(&h, &u8_grid, QType::U8);
        // Two values in 200,000 still weigh their squared clipping error against
        // everyone's rounding: clipped, but less than the entropy method clips them.
        assert!(b < 30.0 && a > -30.0, "[{a}, {b}] with outliers at ±40");
        let (h, lo, hi) = histogram_of(&uniform(200_000));
        let (a, b) = search(&h, &u8_grid, QType::U8);
        assert!(b > 0.97 * hi && a < 0.97 * lo, "[{a}, {b}] of [{lo}, {hi}]");
    }

    #[test]
    fn a_symmetric_int8_grid_is_searched_too() {
        let (h, _, hi) = histogram_of(&laplacian(200_000));
        let grid = |lo, hi| params::compute(lo, hi, QType::I8, true);
        let (a, b) = search(&h, &grid, QType::I8);
        assert!(b < 0.9 * hi && a < 0.0, "{a} {b} {hi}");
    }
}
