//! Signal-to-quantization-noise ratio, accumulated over samples as ONNX Runtime's
//! `qdq_loss_debug` computes it: 10·log10(Σx² / Σ(x−q)²), in f64 so that the sums of
//! large tensors over many samples keep their digits.

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sqnr {
    signal: f64,
    noise: f64,
}

impl Sqnr {
    /// Adds one sample's reference values `x` and their approximation `q` (same length).
    pub fn add(&mut self, x: &[f32], q: &[f32]) {
        for (&a, &b) in x.iter().zip(q) {
            let (a, b) = (f64::from(a), f64::from(b));
            self.signal += a * a;
            self.noise += (a - b) * (a - b);
        }
    }

    /// The ratio in dB: `+inf` when there is no noise at all (the tensor is exact),
    /// NaN when a value was not finite.
    pub fn db(&self) -> f64 {
        if self.noise == 0.0 && self.signal.is_finite() {
            return f64::INFINITY;
        }
        10.0 * (self.signal / self.noise).log10()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_of_energies_over_every_sample() {
        let mut s = Sqnr::default();
        s.add(&[1.0, -1.0], &[1.0, -0.9]);
        s.add(&[2.0], &[2.1]);
        // signal 1 + 1 + 4 = 6, noise 0.01 + 0.01 = 0.02: 10·log10(300).
        assert!((s.db() - 10.0 * 300f64.log10()).abs() < 1e-3, "{}", s.db());
    }

    #[test]
    fn exact_and_broken_tensors() {
        let mut s = Sqnr::default();
        s.add(&[1.0], &[1.0]);
        assert_eq!(s.db(), f64::INFINITY);
        s.add(&[1.0], &[f32::NAN]);
        assert!(s.db().is_nan());
    }
}
