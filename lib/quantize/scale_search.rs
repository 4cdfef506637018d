//! The scale of least squared error for a symmetric integer grid, shared by the int4
//! blocks of `weight_only` and the per-channel int8 weights of `--weight-range mse`.
//!
//! Round-to-nearest with the largest magnitude on the grid's end (ONNX Runtime's choice)
//! spends the grid on one extreme value; a slightly smaller scale clips that value a
//! little and rounds every other one more finely, which usually lowers the total error.
//! The search tries the caller's baseline, then `absmax / d` over a grid of divisors,
//! then refines by least squares with the codes fixed, keeping only improvements; so
//! the result is never worse than the baseline on the same values.

/// A symmetric-in-spirit integer grid: codes are `clamp(round(v / scale), qmin, qmax)`.
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    pub qmin: i32,
    pub qmax: i32,
    /// Divisors of `absmax` tried as scales, from `divisors.0` to `divisors.1`.
    pub divisors: (f32, f32),
    pub steps: usize,
}

impl Grid {
    /// int4 blocks (codes -8..7): divisors 4 to 9 in steps of 1/16.
    pub const INT4: Grid = Grid {
        qmin: -8,
        qmax: 7,
        divisors: (4.0, 9.0),
        steps: 80,
    };

    /// Symmetric weights of codes -qmax..qmax (ORT's symmetric range, so that no code
    /// is -128, which the u8·s8 kernels could overflow on): divisors from half the range
    /// (a coarser grid whose steps may fit the values better) to 1.5 times it (the
    /// largest magnitude clipped by a third).
    pub const fn symmetric(qmax: i32) -> Grid {
        Grid {
            qmin: -qmax,
            qmax,
            divisors: (qmax as f32 * 0.5, qmax as f32 * 1.5),
            steps: 127,
        }
    }

    pub fn code(&self, v: f32, scale: f32) -> i32 {
        if scale == 0.0 {
            return 0;
        }
        (v / scale)
            .round_ties_even()
            .clamp(self.qmin as f32, self.qmax as f32) as i32
    }

    pub fn squared_error(&self, values: &[f32], scale: f32) -> f64 {
        values
            .iter()
            .map(|&v| {
                let back = self.code(v, scale) as f32 * scale;
                ((v - back) as f64).powi(2)
            })
            .sum()
    }

    /// The scale of least squared error, never worse than `baseline` (see the module's
    /// comment); 0 for values that are all 0 (or not finite).
    pub fn best_scale(&self, values: &[f32], baseline: f32) -> f32 {
        let absmax = values.iter().fold(0f32, |m, v| m.max(v.abs()));
        if absmax == 0.0 || !absmax.is_finite() {
            return 0.0;
        }
        if !baseline.is_finite() || baseline == 0.0 {
            return baseline;
        }
        let mut best = (self.squared_error(values, baseline), baseline);
        let (from, to) = self.divisors;
        for step in 0..=self.steps {
            let divisor = from + (to - from) * step as f32 / self.steps.max(1) as f32;
            let scale = absmax / divisor;
            let e = self.squared_error(values, scale);
            if e < best.0 {
                best = (e, scale);
            }
        }
        // With the codes fixed, the least-squares scale is Σ v·c / Σ c²; a few rounds of
        // that and re-rounding only lower the error further.
        for _ in 0..4 {
            let (mut vc, mut cc) = (0f64, 0f64);
            for &v in values {
                let c = self.code(v, best.1) as f64;
                vc += v as f64 * c;
                cc += c * c;
            }
            if cc == 0.0 {
                break;
            }
            let scale = (vc / cc) as f32;
            let e = self.squared_error(values, scale);
            if !(scale.is_finite() && scale != 0.0 && e < best.0) {
                break;
            }
            best = (e, scale);
        }
        best.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INT8: Grid = Grid::symmetric(127);

    fn laplacian(n: usize) -> Vec<f32> {
        // A deterministic heavy-tailed sample: inverse CDF of a Laplacian on a grid.
        (1..n)
            .map(|i| {
                let u = i as f64 / n as f64 - 0.5;
                (-(u.signum()) * (1.0 - 2.0 * u.abs()).ln()) as f32
            })
            .collect()
    }

    #[test]
    fn never_worse_than_the_baseline_and_better_on_heavy_tails() {
        let values = laplacian(512);
        let absmax = values.iter().fold(0f32, |m, v| m.max(v.abs()));
        let baseline = absmax / 127.0;
        let s = INT8.best_scale(&values, baseline);
        let (e, e0) = (
            INT8.squared_error(&values, s),
            INT8.squared_error(&values, baseline),
        );
        assert!(e < e0, "{e} vs {e0}");
    }

    #[test]
    fn zeros_keep_a_zero_scale_and_codes_stay_on_the_grid() {
        assert_eq!(INT8.best_scale(&[0.0; 8], 1.0), 0.0);
        assert_eq!(INT8.code(1e9, 1.0), 127);
        assert_eq!(INT8.code(-1e9, 1.0), -127);
        assert_eq!(Grid::INT4.code(-1e9, 1.0), -8);
        assert_eq!(Grid::INT4.code(1.0, 0.0), 0);
    }
}
