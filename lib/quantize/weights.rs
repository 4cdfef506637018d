//! Quantization of float initializers: per tensor, or per channel along one axis, each
//! channel with its own range, scale and zero point. With `WeightRange::Mse` a symmetric
//! channel's scale is the one of least squared error (`scale_search`) instead of the
//! one that puts its largest magnitude on the grid's end.

use anyhow::{Result, bail};

use super::WeightRange;
use super::params::{self, Params, QType};
use super::scale_search::Grid;

/// A quantized initializer: the integers (as the bytes of `qtype`) and one `Params`
/// per channel (one in all for per-tensor).
pub struct QuantizedWeight {
    pub bytes: Vec<u8>,
    pub params: Vec<Params>,
    /// Channels and the elements between two channels, to find an element's channel.
    channels: usize,
    inner: usize,
    /// The codes' range: the symmetric one for symmetric weights.
    codes: (i32, i32),
}

impl QuantizedWeight {
    fn channel_of(&self, i: usize) -> usize {
        if self.channels <= 1 {
            0
        } else {
            (i / self.inner) % self.channels
        }
    }

    fn code(&self, i: usize, v: f32, qtype: QType) -> i32 {
        params::quantize_value(v, self.params[self.channel_of(i)], qtype)
            .clamp(self.codes.0, self.codes.1)
    }

    /// `data - dequantize(quantize(data))` element by element: what bias correction
    /// multiplies by the mean input. Recomputed rather than kept, as it is needed only
    /// with `--bias-correction`.
    pub fn error(&self, data: &[f32], qtype: QType) -> Vec<f32> {
        data.iter()
            .enumerate()
            .map(|(i, &v)| {
                let p = self.params[self.channel_of(i)];
                v - (self.code(i, v, qtype) - p.zero_point) as f32 * p.scale
            })
            .collect()
    }
}

/// Quantizes `data` of shape `dims`, per channel along `axis` when it is given, onto
/// `codes` (`QType::codes`: the type's range, or the reduced one).
pub fn quantize(
    data: &[f32],
    dims: &[usize],
    axis: Option<usize>,
    (qtype, codes): (QType, (i32, i32)),
    symmetric: bool,
    range: WeightRange,
) -> Result<QuantizedWeight> {
    if let Some(&bad) = data.iter().find(|v| !v.is_finite()) {
        bail!("holds a non-finite value ({bad})");
    }
    let (channels, inner) = match axis {
        Some(a) if a < dims.len() => (dims[a], dims[a + 1..].iter().product::<usize>()),
        Some(a) => bail!("has rank {}, no axis {a} to quantize along", dims.len()),
        None => (1, data.len()),
    };
    let channel_of = |i: usize| {
        if channels <= 1 {
            0
        } else {
            (i / inner) % channels
        }
    };
    let mut lo = vec![f32::INFINITY; channels.max(1)];
    let mut hi = vec![f32::NEG_INFINITY; channels.max(1)];
    for (i, &v) in data.iter().enumerate() {
        let c = channel_of(i);
        lo[c] = lo[c].min(v);
        hi[c] = hi[c].max(v);
    }
    let mut params: Vec<Params> = lo
        .iter()
        .zip(&hi)
        .map(|(&l, &h)| {
            let (l, h) = if l > h { (0.0, 0.0) } else { (l, h) };
            params::compute_in(l, h, codes, symmetric)
        })
        .collect();
    // Asymmetric weights (u8, u16) keep the min-max grid: their zero point would have to
    // be searched with the scale, and ORT's int8 default is symmetric anyway.
    if range == WeightRange::Mse && symmetric {
        let grid = Grid::symmetric(codes.1);
        let mut members: Vec<Vec<f32>> = vec![Vec::new(); params.len()];
        for (i, &v) in data.iter().enumerate() {
            members[channel_of(i)].push(v);
        }
        for (p, values) in params.iter_mut().zip(&members) {
            let scale = grid.best_scale(values, p.scale);
            if scale.is_finite() && scale >= f32::MIN_POSITIVE {
                p.scale = scale;
            }
        }
    }
    // Codes stay on the grid the parameters were made for: a symmetric int8 weight
    // never holds -128 (a searched scale clips, which must not reach -128).
    let q = QuantizedWeight {
        bytes: Vec::new(),
        params,
        channels,
        inner,
        codes,
    };
    let bytes = qtype.bytes(data.iter().enumerate().map(|(i, &v)| q.code(i, v, qtype)));
    Ok(QuantizedWeight { bytes, ..q })
}

/// The int32 bias of a quantized Conv or Gemm: scale `x_scale * w_scale[c]`, zero point 0.
pub fn quantize_bias(bias: &[f32], x_scale: f32, w: &[Params]) -> Result<(Vec<i32>, Vec<f32>)> {
    if let Some(&bad) = bias.iter().find(|v| !v.is_finite()) {
        bail!("holds a non-finite value ({bad})");
    }
    let scales: Vec<f32> = if w.len() == 1 {
        vec![x_scale * w[0].scale]
    } else if w.len() == bias.len() {
        w.iter().map(|p| x_scale * p.scale).collect()
    } else {
        bail!(
            "has {} elements but the weight has {} channels",
            bias.len(),
            w.len()
        );
    };
    let q = bias
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            let s = scales[if scales.len() == 1 { 0 } else { i }];
            let s = if s > 0.0 { s } else { 1.0 };
            (b / s)
                .round_ties_even()
                .clamp(i32::MIN as f32, i32::MAX as f32) as i32
        })
        .collect();
    Ok((q, scales))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_channel_gives_each_channel_its_own_range() {
        // Shape [2, 2], channels along axis 0: rows [0, 1] and [-4, 4].
        let w = quantize(
            &[0.0, 1.0, -4.0, 4.0],
            &[2, 2],
            Some(0),
            (QType::I8, QType::I8.codes(true, false)),
            true,
            WeightRange::Minmax,
        )
        .unwrap();
        assert_eq!(w.params.len(), 2);
        assert_eq!(w.params[0].scale, 1.0 / 127.0);
        assert_eq!(w.params[1].scale, 4.0 / 127.0);
        assert_eq!(w.bytes, vec![0, 127, (-127i8) as u8, 127]);
    }

    #[test]
    fn per_channel_along_the_last_axis() {
        // Shape [2, 2], channels along axis 1: columns [0, -4] and [1, 4].
        let w = quantize(
            &[0.0, 1.0, -4.0, 4.0],
            &[2, 2],
            Some(1),
            (QType::I8, QType::I8.codes(true, false)),
            true,
            WeightRange::Minmax,
        )
        .unwrap();
        assert_eq!(w.params[0].scale, 4.0 / 127.0);
        assert_eq!(w.params[1].scale, 4.0 / 127.0);
    }

    #[test]
    fn reduced_range_keeps_codes_within_seven_bits() {
        let w = quantize(
            &[-2.0, 1.0, 0.5, 3.0],
            &[4],
            None,
            (QType::I8, QType::I8.codes(true, true)),
            true,
            WeightRange::Mse,
        )
        .unwrap();
        let codes: Vec<i8> = w.bytes.iter().map(|&b| b as i8).collect();
        assert!(codes.iter().all(|c| (-64..=64).contains(c)), "{codes:?}");
        let w = quantize(
            &[-2.0, 1.0, 0.5, 3.0],
            &[4],
            None,
            (QType::U8, QType::U8.codes(false, true)),
            false,
            WeightRange::Minmax,
        )
        .unwrap();
        assert_eq!(w.bytes.iter().max(), Some(&127));
        assert_eq!(w.bytes.iter().min(), Some(&0));
    }

    #[test]
    fn non_finite_weights_are_refused() {
        assert!(
            quantize(
                &[f32::NAN],
                &[1],
                None,
                (QType::I8, QType::I8.codes(true, false)),
                true,
                WeightRange::Minmax
            )
            .is_err()
        );
    }

    #[test]
    fn bias_scale_is_input_scale_times_weight_scale() {
        let w = [
            Params {
                scale: 0.5,
                zero_point: 0,
            },
            Params {
                scale: 0.25,
                zero_point: 0,
            },
        ];
        let (q, s) = quantize_bias(&[1.0, 1.0], 2.0, &w).unwrap();
        assert_eq!(s, vec![1.0, 0.5]);
        assert_eq!(q, vec![1, 2]);
    }
}
