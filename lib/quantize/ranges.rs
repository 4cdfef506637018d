//! Calibration statistics of one tensor: its running min and max (or their moving
//! average over samples), and a histogram of magnitudes from which the percentile
//! method takes its range.

/// How many bins a histogram has by default (ORT's default for Percentile).
pub const BINS: usize = 2048;

/// The percentile of magnitudes kept by the percentile method (as ORT's default).
pub const PERCENTILE: f64 = 99.999;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinMax {
    pub min: f32,
    pub max: f32,
}

impl MinMax {
    pub fn new() -> MinMax {
        MinMax {
            min: f32::INFINITY,
            max: f32::NEG_INFINITY,
        }
    }

    pub fn add(&mut self, values: &[f32]) {
        for &v in values {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
    }

    /// The range seen, or [0, 0] when nothing was.
    pub fn range(&self) -> (f32, f32) {
        if self.min > self.max {
            (0.0, 0.0)
        } else {
            (self.min, self.max)
        }
    }
}

/// ORT's `CalibMovingAverage`: each sample's own min and max, and the range their
/// exponential moving average, `range += constant * (sample - range)`, starting at the
/// first sample's. (ORT's `quantize_static` applies the constant between chunks of
/// `CalibMaxIntermediateOutputs` samples and takes the plain mean within a chunk; per
/// sample, as here, is what the option's name and PyTorch's observer mean.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MovingMinMax {
    pub constant: f32,
    range: Option<(f32, f32)>,
}

impl MovingMinMax {
    pub fn new(constant: f32) -> MovingMinMax {
        MovingMinMax {
            constant,
            range: None,
        }
    }

    /// One sample's values.
    pub fn add(&mut self, values: &[f32]) {
        let mut m = MinMax::new();
        m.add(values);
        if m.min > m.max {
            return;
        }
        self.range = Some(match self.range {
            None => (m.min, m.max),
            Some((lo, hi)) => (
                lo + self.constant * (m.min - lo),
                hi + self.constant * (m.max - hi),
            ),
        });
    }

    pub fn range(&self) -> (f32, f32) {
        self.range.unwrap_or((0.0, 0.0))
    }
}

/// Counts of |x| in equal bins over [smallest, largest] magnitude, both from a first
/// pass. ORT spans its magnitude histogram the same way (numpy's default range, all
/// samples at once), so the same percentile lands on the same bin edge; spanning from 0
/// instead moves every edge by up to a bin, enough to put PP-OCR det's error 6.5% above
/// ORT's with the same percentile.
pub struct Histogram {
    smallest: f32,
    largest: f32,
    bins: Vec<u64>,
}

impl Histogram {
    pub fn new(smallest: f32, largest: f32, bins: usize) -> Histogram {
        Histogram {
            smallest: smallest.clamp(0.0, largest.max(0.0)),
            largest,
            bins: vec![0; bins.max(1)],
        }
    }

    fn width(&self) -> f64 {
        (self.largest as f64 - self.smallest as f64) / self.bins.len() as f64
    }

    pub fn add(&mut self, values: &[f32]) {
        if self.largest.is_nan() || self.largest <= 0.0 {
            return;
        }
        let n = self.bins.len();
        let width = self.width();
        if !(width > 0.0 && width.is_finite()) {
            self.bins[0] += values.len() as u64;
            return;
        }
        for &v in values {
            let b = ((v.abs() as f64 - self.smallest as f64) / width).max(0.0) as usize;
            self.bins[b.min(n - 1)] += 1;
        }
    }

    /// The lower edge of the first bin at which `percentile` % of the values are counted
    /// (the edge ORT takes).
    pub fn threshold(&self, percentile: f64) -> f32 {
        let total: u64 = self.bins.iter().sum();
        if total == 0 {
            return 0.0;
        }
        let target = total as f64 * percentile / 100.0;
        let mut seen = 0u64;
        for (i, &c) in self.bins.iter().enumerate() {
            seen += c;
            if seen as f64 >= target {
                return (self.smallest as f64 + i as f64 * self.width()) as f32;
            }
        }
        self.largest
    }
}

/// The percentile method's range: [-t, t] within the values seen, as ORT clamps it (a
/// SiLU output, barely negative, keeps its grid for the positive side).
pub fn percentile_range(minmax: &MinMax, hist: &Histogram, percentile: f64) -> (f32, f32) {
    let t = hist.threshold(percentile);
    let (lo, hi) = minmax.range();
    (lo.max(-t), hi.min(t))
}

/// The distribution method's range for an integer grid. ORT's `Distribution` keeps a
/// histogram spanning [-absmax, absmax] and, for an integer type, quantizes to that
/// whole span (its mean and deviation serve float8 only), which gives a tensor whose
/// values take both signs room for the held-out tail its few calibration samples did
/// not reach (the T5 encoder's hidden states). A one-sided tensor (a ReLU, Softmax or
/// SiLU output) would waste half of its grid on values that never come, so a tensor
/// whose smaller side reaches less than `balance` of its larger side keeps the values
/// seen; `balance` is chosen per model from `BALANCES` by `range_choice` (infinite: no
/// tensor is widened, the min-max ranges).
pub fn distribution_range(minmax: &MinMax, balance: f32) -> (f32, f32) {
    let (lo, hi) = minmax.range();
    let (small, large) = (lo.abs().min(hi.abs()), lo.abs().max(hi.abs()));
    if lo < 0.0 && hi > 0.0 && small >= balance * large {
        (-large, large)
    } else {
        (lo, hi)
    }
}

/// The distribution method's candidate rules, the first preferred on a tie: the values
/// seen; symmetric spans for tensors whose smaller side reaches half of the larger
/// (ORT's gain on the T5 encoder without widening a SiLU's slightly negative side);
/// symmetric spans for every two-sided tensor, as ORT.
pub const BALANCES: [f32; 3] = [f32::INFINITY, 0.5, 0.0];

/// The rule taken when there are too few samples to choose one (fewer than two).
pub const DEFAULT_BALANCE: f32 = 0.5;

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::quantize::histogram;

    /// A deterministic Laplacian sample (inverse CDF on a grid): heavy tails.
    pub fn laplacian(n: usize) -> Vec<f32> {
        (1..n)
            .map(|i| {
                let u = i as f64 / n as f64 - 0.5;
                (-(u.signum()) * (1.0 - 2.0 * u.abs()).ln()) as f32
            })
            .collect()
    }

    /// Evenly spread over [-1, 1].
    pub fn uniform(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| -1.0 + 2.0 * i as f32 / (n - 1) as f32)
            .collect()
    }

    /// The value histogram of `values` over their min-max range, and that range.
    pub fn histogram_of(values: &[f32]) -> (histogram::Histogram, f32, f32) {
        let mut m = MinMax::new();
        m.add(values);
        let (lo, hi) = m.range();
        let mut h = histogram::Histogram::new(lo, hi, BINS);
        h.add(values);
        (h, lo, hi)
    }

    #[test]
    fn minmax_keeps_a_laplacians_outliers() {
        let values = laplacian(200_000);
        let mut m = MinMax::new();
        m.add(&values);
        let absmax = values.iter().fold(0f32, |a, v| a.max(v.abs()));
        assert_eq!(m.range(), (-absmax, absmax));
    }

    #[test]
    fn moving_average_follows_samples_by_the_constant() {
        let mut m = MovingMinMax::new(0.5);
        assert_eq!(m.range(), (0.0, 0.0));
        m.add(&[-2.0, 2.0]);
        assert_eq!(m.range(), (-2.0, 2.0));
        m.add(&[]);
        m.add(&[-4.0, 0.0]);
        assert_eq!(m.range(), (-3.0, 1.0));
    }

    #[test]
    fn minmax_spans_every_batch() {
        let mut m = MinMax::new();
        m.add(&[1.0, 2.0]);
        m.add(&[-3.0]);
        assert_eq!(m.range(), (-3.0, 2.0));
        assert_eq!(MinMax::new().range(), (0.0, 0.0));
    }

    #[test]
    fn percentile_drops_a_rare_outlier() {
        let mut values = vec![1.0f32; 200_000];
        values.push(100.0);
        let mut m = MinMax::new();
        m.add(&values);
        let mut h = Histogram::new(1.0, 100.0, BINS);
        h.add(&values);
        let (lo, hi) = percentile_range(&m, &h, PERCENTILE);
        assert_eq!(lo, 1.0);
        assert!(hi < 2.0, "{hi}");
        let mut wide = MinMax::new();
        wide.add(&[-1000.0, 1000.0]);
        assert_eq!(percentile_range(&wide, &h, PERCENTILE), (-hi, hi));
        let mut silu = MinMax::new();
        silu.add(&[-0.25, 1000.0]);
        assert_eq!(percentile_range(&silu, &h, PERCENTILE), (-0.25, hi));
    }

    #[test]
    fn distribution_spans_two_sided_tensors_symmetrically_and_keeps_one_sided_ones() {
        let mut centered = MinMax::new();
        centered.add(&[-3.0, 0.5, 4.0]);
        assert_eq!(distribution_range(&centered, 0.5), (-4.0, 4.0));
        assert_eq!(distribution_range(&centered, f32::INFINITY), (-3.0, 4.0));
        let mut silu = MinMax::new();
        silu.add(&[-0.28, 6.0]);
        assert_eq!(distribution_range(&silu, 0.5), (-0.28, 6.0));
        assert_eq!(distribution_range(&silu, 0.0), (-6.0, 6.0));
        let mut relu = MinMax::new();
        relu.add(&[0.0, 6.0]);
        assert_eq!(distribution_range(&relu, 0.0), (0.0, 6.0));
    }

    #[test]
    fn percentile_edges_start_at_the_smallest_magnitude() {
        // 1000 values evenly in [10, 11]: a histogram from 0 would put its edges 11/4
        // apart, one from the smallest magnitude 1/4 apart.
        let values: Vec<f32> = (0..1000).map(|i| 10.0 + i as f32 / 999.0).collect();
        let mut h = Histogram::new(10.0, 11.0, 4);
        h.add(&values);
        assert_eq!(h.threshold(60.0), 10.5);
    }
}
