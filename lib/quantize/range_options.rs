//! How ranges and scales are chosen, beyond `--calibrate-method`: ONNX Runtime's
//! calibration options (`CalibMovingAverage`, `CalibMovingAverageConstant`,
//! `CalibPercentile`, `CalibNumBins`, `CalibNumQuantizedBins`) and qlower's own weight
//! scale search and bias correction. Kept apart from `Options` so that each setting is
//! checked against the method it applies to in one place.

use anyhow::{Result, bail};

use super::{CalibrateMethod, Mode, ranges};

/// ORT's entropy histogram bins and quantized bins.
const ENTROPY_BINS: usize = 128;

/// `--weight-range`: how a weight's scale is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WeightRange {
    /// The largest magnitude on the grid's end (ONNX Runtime's choice).
    Minmax,
    /// The scale of least squared error per channel (symmetric weights; others keep
    /// min-max).
    Mse,
}

/// `--bias-correction`: whether biases are corrected for the mean shift that
/// quantizing the weights causes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BiasCorrection {
    /// Corrected when that lowers the error on left-out calibration samples (static
    /// mode with two samples or more; otherwise off). The correction helps CNNs and
    /// hurts encoders whose few outlier channels dominate the means, so it is measured.
    Auto,
    /// Always corrected (static mode).
    On,
    /// Never corrected, as ONNX Runtime's quantizer.
    Off,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RangeOptions {
    /// Min-max ranges averaged over samples (`--moving-average`).
    pub moving_average: bool,
    /// `--averaging-constant` (ORT's default 0.01).
    pub averaging_constant: Option<f32>,
    /// `--percentile` (ORT's default 99.999).
    pub percentile: Option<f64>,
    /// `--num-bins` of the histogram methods (default 2048; entropy 128, as ORT).
    pub num_bins: Option<usize>,
    /// `--num-quantized-bins` of the entropy method (ORT's default 128).
    pub num_quantized_bins: Option<usize>,
    /// `--bias-correction`: biases corrected by the expected shift that quantizing the
    /// weights causes on the calibration samples.
    pub bias_correction: BiasCorrection,
    pub weight_range: WeightRange,
}

impl Default for RangeOptions {
    fn default() -> RangeOptions {
        RangeOptions {
            moving_average: false,
            averaging_constant: None,
            percentile: None,
            num_bins: None,
            num_quantized_bins: None,
            bias_correction: BiasCorrection::Auto,
            weight_range: WeightRange::Minmax,
        }
    }
}

impl RangeOptions {
    pub fn averaging_constant(&self) -> f32 {
        self.averaging_constant.unwrap_or(0.01)
    }

    pub fn percentile(&self) -> f64 {
        self.percentile.unwrap_or(ranges::PERCENTILE)
    }

    /// ORT's defaults: entropy's histogram has as many bins as its quantized form
    /// (128), so its only window is the whole histogram and it gives min-max ranges
    /// unless `--num-bins` is raised. A real search (2048 bins, TensorRT's) clipped too
    /// much on every real model measured (`quantizer_accuracy.py`: up to 4x ORT's
    /// error on PP-OCR det, whose outputs need their activations' tails), so the
    /// default stays ORT's and the search is there on request.
    pub fn num_bins(&self, method: CalibrateMethod) -> usize {
        let default = match method {
            CalibrateMethod::Entropy => ENTROPY_BINS,
            _ => ranges::BINS,
        };
        self.num_bins.unwrap_or(default)
    }

    pub fn num_quantized_bins(&self) -> usize {
        self.num_quantized_bins.unwrap_or(ENTROPY_BINS)
    }

    /// Refuses a setting that the mode or method would ignore, or a value out of range.
    pub fn check(&self, mode: Mode, method: Option<CalibrateMethod>) -> Result<()> {
        let method = method.unwrap_or(CalibrateMethod::Minmax);
        let stat = mode == Mode::Static;
        let histogram = stat && method != CalibrateMethod::Minmax;
        let misplaced = [
            (
                self.moving_average && !(stat && method == CalibrateMethod::Minmax),
                "--moving-average applies to static --calibrate-method minmax only",
            ),
            (
                self.averaging_constant.is_some() && !self.moving_average,
                "--averaging-constant needs --moving-average",
            ),
            (
                self.percentile.is_some() && !(stat && method == CalibrateMethod::Percentile),
                "--percentile applies to --calibrate-method percentile only",
            ),
            (
                self.num_bins.is_some() && !histogram,
                "--num-bins applies to the histogram methods (percentile, entropy, \
                 distribution, mse) only",
            ),
            (
                self.num_quantized_bins.is_some() && !(stat && method == CalibrateMethod::Entropy),
                "--num-quantized-bins applies to --calibrate-method entropy only",
            ),
            (
                self.bias_correction == BiasCorrection::On && !stat,
                "--bias-correction on needs --mode static (it measures the layers' inputs on \
                 the calibration samples)",
            ),
            (
                self.weight_range != WeightRange::Minmax && mode == Mode::WeightOnly,
                "--weight-range does not apply to --weight-type int4 (its blocks' scales \
                 are always searched)",
            ),
        ];
        if let Some((_, why)) = misplaced.iter().find(|(bad, _)| *bad) {
            bail!("{why}");
        }
        let c = self.averaging_constant();
        if !(0.0..=1.0).contains(&c) {
            bail!("--averaging-constant {c} is not in [0, 1]");
        }
        let p = self.percentile();
        if !(p > 0.0 && p <= 100.0) {
            bail!("--percentile {p} is not in (0, 100]");
        }
        let bins = self.num_bins(method);
        if !(16..=1 << 20).contains(&bins) {
            bail!("--num-bins {bins} is not in [16, 1048576]");
        }
        let q = self.num_quantized_bins();
        if q < 2 || q > bins {
            bail!("--num-quantized-bins {q} must be at least 2 and at most --num-bins ({bins})");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_refused_where_they_would_be_ignored() {
        let moving = RangeOptions {
            moving_average: true,
            ..Default::default()
        };
        assert!(moving.check(Mode::Static, None).is_ok());
        assert!(
            moving
                .check(Mode::Static, Some(CalibrateMethod::Entropy))
                .is_err()
        );
        assert!(moving.check(Mode::Dynamic, None).is_err());
        let constant = RangeOptions {
            averaging_constant: Some(0.5),
            ..Default::default()
        };
        assert!(constant.check(Mode::Static, None).is_err());
        let bins = RangeOptions {
            num_quantized_bins: Some(4096),
            ..Default::default()
        };
        assert!(
            bins.check(Mode::Static, Some(CalibrateMethod::Entropy))
                .is_err()
        );
        let bias = RangeOptions {
            bias_correction: BiasCorrection::On,
            ..Default::default()
        };
        assert!(bias.check(Mode::Dynamic, None).is_err());
        assert!(RangeOptions::default().check(Mode::Dynamic, None).is_ok());
        assert!(bias.check(Mode::Static, Some(CalibrateMethod::Mse)).is_ok());
    }
}
