//! Calibration statistics of one tensor: its running min and max, and a histogram of
//! magnitudes from which the percentile method takes its range.

/// How many bins the percentile histogram has (as ORT's default).
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

/// Counts of |x| in `BINS` equal bins over [0, absmax], absmax from a first pass.
pub struct Histogram {
    absmax: f32,
    bins: Vec<u64>,
}

impl Histogram {
    pub fn new(absmax: f32) -> Histogram {
        Histogram {
            absmax,
            bins: vec![0; BINS],
        }
    }

    pub fn add(&mut self, values: &[f32]) {
        if self.absmax.is_nan() || self.absmax <= 0.0 {
            return;
        }
        let width = self.absmax / BINS as f32;
        for &v in values {
            let b = ((v.abs() / width) as usize).min(BINS - 1);
            self.bins[b] += 1;
        }
    }

    /// The upper edge of the first bin at which `percentile` % of the values are counted.
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
                return self.absmax * (i + 1) as f32 / BINS as f32;
            }
        }
        self.absmax
    }
}

/// The percentile method's range: [0, t] for a tensor never negative, else [-t, t].
pub fn percentile_range(minmax: &MinMax, hist: &Histogram) -> (f32, f32) {
    let t = hist.threshold(PERCENTILE);
    let (lo, _) = minmax.range();
    if lo >= 0.0 { (0.0, t) } else { (-t, t) }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut h = Histogram::new(100.0);
        h.add(&values);
        let (lo, hi) = percentile_range(&m, &h);
        assert_eq!(lo, 0.0);
        assert!(hi < 2.0, "{hi}");
        let mut neg = MinMax::new();
        neg.add(&[-1.0]);
        assert_eq!(percentile_range(&neg, &h).0, -hi);
    }
}
