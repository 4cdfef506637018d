//! `--calibrate-method entropy`: the range whose quantized histogram loses the least
//! information, as TensorRT's and ONNX Runtime's entropy calibrators choose it.
//!
//! For each candidate window of the histogram (`p`: the window's bins, with the values
//! outside it counted in its edge bins, which is what clipping does to them), the window
//! is merged into `quantized_bins` levels and spread back over the bins that held
//! values (`q`: what a grid of that many levels can represent). The window of least
//! KL divergence KL(p ‖ q) wins. ORT's windows are symmetric about 0 in a histogram over
//! [-absmax, absmax]; here the histogram spans [min, max] and each window shrinks both
//! ends towards the zero bin by the same factor, which is the same family for a
//! symmetric tensor and keeps a ReLU output's window on [0, t].

use super::histogram::Histogram;

/// Smoothing of empty bins so that the divergence stays finite (ORT's and MXNet's
/// constant, on counts).
const EPSILON: f64 = 1e-4;

/// At most this many windows are tried, evenly spaced in width.
const MAX_CANDIDATES: usize = 512;

pub fn search(h: &Histogram, quantized_bins: usize) -> (f32, f32) {
    let bins = h.bins.len();
    let quantized_bins = quantized_bins.max(2);
    if bins <= quantized_bins || h.total() == 0 {
        return (h.lo, h.hi);
    }
    // Where 0 falls, in bins: every window holds it.
    let zero = if h.lo >= 0.0 {
        0.0
    } else if h.hi <= 0.0 {
        bins as f64
    } else {
        -h.lo as f64 / h.width()
    };
    let step = ((bins - quantized_bins) / MAX_CANDIDATES).max(1);
    let mut best: Option<(f64, usize, usize)> = None;
    let mut size = quantized_bins;
    loop {
        let shrink = size as f64 / bins as f64;
        let start = ((zero - shrink * zero).round() as usize).min(bins - size);
        let end = start + size;
        if let Some(d) = divergence(&h.bins, start, end, quantized_bins)
            && best.is_none_or(|(b, _, _)| d < b)
        {
            best = Some((d, start, end));
        }
        if size == bins {
            break;
        }
        size = (size + step).min(bins);
    }
    match best {
        Some((_, start, end)) => (h.edge(start), h.edge(end)),
        None => (h.lo, h.hi),
    }
}

/// KL(p ‖ q) of the window `hist[start..end]` (see the module's comment), or `None` when
/// either side cannot be smoothed (a window without values).
fn divergence(hist: &[u64], start: usize, end: usize, levels: usize) -> Option<f64> {
    let window = &hist[start..end];
    let mut p: Vec<f64> = window.iter().map(|&n| n as f64).collect();
    let last = p.len() - 1;
    p[0] += hist[..start].iter().sum::<u64>() as f64;
    p[last] += hist[end..].iter().sum::<u64>() as f64;
    // Each level merges `per` bins; the last one also takes the remainder.
    let per = window.len() / levels;
    let mut q = vec![0f64; p.len()];
    for level in 0..levels {
        let from = level * per;
        let to = if level + 1 == levels {
            window.len()
        } else {
            from + per
        };
        let mass: f64 = window[from..to].iter().map(|&n| n as f64).sum();
        let held = (from..to).filter(|&i| p[i] != 0.0).count();
        if held > 0 {
            for i in (from..to).filter(|&i| p[i] != 0.0) {
                q[i] = mass / held as f64;
            }
        }
    }
    let p = smooth(p)?;
    let q = smooth(q)?;
    let (sp, sq): (f64, f64) = (p.iter().sum(), q.iter().sum());
    Some(
        p.iter()
            .zip(&q)
            .map(|(&a, &b)| {
                let (a, b) = (a / sp, b / sq);
                if a > 0.0 { a * (a / b).ln() } else { 0.0 }
            })
            .sum(),
    )
}

/// Gives every empty bin `EPSILON`, taken evenly from the others.
fn smooth(mut d: Vec<f64>) -> Option<Vec<f64>> {
    let zeros = d.iter().filter(|&&x| x == 0.0).count();
    let others = d.len() - zeros;
    if others == 0 {
        return None;
    }
    let take = EPSILON * zeros as f64 / others as f64;
    for x in d.iter_mut() {
        *x = if *x == 0.0 { EPSILON } else { *x - take };
        if *x <= 0.0 {
            return None;
        }
    }
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantize::ranges::tests::{histogram_of, laplacian, uniform};

    #[test]
    fn clips_a_laplacians_tail_and_keeps_a_uniforms_range() {
        // A Laplacian's own tail, and two far outliers on top of it.
        let (h, lo, hi) = histogram_of(&laplacian(200_000));
        let (a, b) = search(&h, 128);
        assert!(b < 0.9 * hi && a > 0.9 * lo, "[{a}, {b}] of [{lo}, {hi}]");
        let mut outliers = laplacian(200_000);
        outliers.extend([40.0, -40.0]);
        let (h, _, _) = histogram_of(&outliers);
        let (a, b) = search(&h, 128);
        assert!(b < 12.0 && a > -12.0, "[{a}, {b}] with outliers at ±40");
        let (h, lo, hi) = histogram_of(&uniform(200_000));
        let (a, b) = search(&h, 128);
        assert!(b > 0.95 * hi && a < 0.95 * lo, "[{a}, {b}] of [{lo}, {hi}]");
    }

    #[test]
    fn a_relu_output_keeps_its_window_on_zero() {
        let values: Vec<f32> = laplacian(100_000).iter().map(|v| v.max(0.0)).collect();
        let (h, _, hi) = histogram_of(&values);
        let (a, b) = search(&h, 128);
        assert_eq!(a, 0.0);
        assert!(b < hi);
    }

    #[test]
    fn a_histogram_narrower_than_the_levels_keeps_its_span() {
        let mut h = Histogram::new(-1.0, 1.0, 64);
        h.add(&[0.5, -0.5]);
        assert_eq!(search(&h, 128), (-1.0, 1.0));
    }
}
