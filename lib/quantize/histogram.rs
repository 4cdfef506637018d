//! A histogram of a tensor's values over the [min, max] seen in a first calibration
//! pass, from which the entropy and MSE methods choose a range.
//!
//! ONNX Runtime spans its histogram over [-absmax, absmax] and widens it as samples
//! arrive; spanning the observed [min, max] instead spends every bin where values are
//! (a ReLU output's histogram has no empty negative half), and the two passes over the
//! same samples make widening unnecessary.

#[derive(Clone, Debug)]
pub struct Histogram {
    pub lo: f32,
    pub hi: f32,
    pub bins: Vec<u64>,
}

impl Histogram {
    /// `bins` equal bins over [lo, hi] (at least one bin).
    pub fn new(lo: f32, hi: f32, bins: usize) -> Histogram {
        Histogram {
            lo,
            hi,
            bins: vec![0; bins.max(1)],
        }
    }

    pub fn width(&self) -> f64 {
        (self.hi as f64 - self.lo as f64) / self.bins.len() as f64
    }

    /// Values outside [lo, hi] (none when both passes see the same samples) count in
    /// the edge bins.
    pub fn add(&mut self, values: &[f32]) {
        let width = self.width();
        let last = self.bins.len() - 1;
        if !(width > 0.0 && width.is_finite()) {
            // Every value equal (a constant tensor): all in one bin.
            self.bins[0] += values.len() as u64;
            return;
        }
        for &v in values {
            let b = ((v as f64 - self.lo as f64) / width).max(0.0) as usize;
            self.bins[b.min(last)] += 1;
        }
    }

    pub fn total(&self) -> u64 {
        self.bins.iter().sum()
    }

    /// The lower edge of bin `i` (`i = bins` gives `hi`).
    pub fn edge(&self, i: usize) -> f32 {
        if i >= self.bins.len() {
            return self.hi;
        }
        (self.lo as f64 + i as f64 * self.width()) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_land_in_their_bins_and_the_edges_hold_the_extremes() {
        let mut h = Histogram::new(-1.0, 1.0, 4);
        h.add(&[-1.0, -0.6, 0.1, 1.0, 5.0]);
        assert_eq!(h.bins, vec![2, 0, 1, 2]);
        assert_eq!(h.edge(2), 0.0);
        assert_eq!(h.edge(4), 1.0);
        let mut flat = Histogram::new(3.0, 3.0, 8);
        flat.add(&[3.0, 3.0]);
        assert_eq!(flat.total(), 2);
    }
}
