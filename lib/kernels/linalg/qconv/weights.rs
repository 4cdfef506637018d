//! The convolution's constant operand, packed once (at plan time when the weights are
//! constants): rows of `qgemm`'s left operand per group, with the per-channel sums,
//! zero points and scales the requantization needs, and the centred taps of a
//! depthwise convolution.

use super::super::qdriver::shifted;
use super::super::qgemm;
use super::super::qparams::Params;
use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::value::Value;

/// Constant-weight part of a quantized convolution, packed once.
pub struct ConvWeights {
    pub(super) shape: Vec<usize>,
    pub(super) groups: usize,
    /// Output channels per group, and K = input channels per group × kernel taps.
    pub(super) per_group: usize,
    pub(super) k: usize,
    /// Per group, `padded_rows(per_group)` rows of `quads(k)` quads, `stride` bytes
    /// apart (`qgemm::lhs_stride`).
    pub(super) packed: qgemm::Aligned,
    pub(super) stride: usize,
    /// Per output channel: Σ_k w', the weight zero point w_zero' (both shifted into
    /// the signed range), and the scale.
    pub(super) sums: Vec<i32>,
    pub(super) zeros: Vec<i32>,
    pub(super) scales: Vec<f32>,
    /// Depthwise only (one input channel per group): `w' - w_zero'` per tap.
    pub(super) taps: Option<Vec<i32>>,
}

impl ConvWeights {
    /// From the weight operands of `qlinear_conv` (w, w_scale, w_zero_point, groups).
    pub fn new(w: &Tensor, scale: &Value, zero_point: &Value, groups: &Value) -> Option<Self> {
        let groups = usize::try_from(groups.as_int().ok()?).ok()?;
        if w.rank() < 3 || w.rank() > 5 || groups == 0 || !w.shape[0].is_multiple_of(groups) {
            return None;
        }
        let p = Params::read(scale, zero_point).ok()?;
        let c_out = w.shape[0];
        if p.len() != 1 && p.len() != c_out {
            return None;
        }
        let (bytes, shift) = shifted(&w.data, true)?;
        let k: usize = w.shape[1..].iter().product();
        let per_group = c_out / groups;
        let zeros: Vec<i32> = (0..c_out)
            .map(|c| (p.zero_point(c) + shift) as i32)
            .collect();
        let scales = (0..c_out).map(|c| p.scale(c)).collect();
        let row = |m: usize| &bytes[m * k..(m + 1) * k];
        let sums = (0..c_out)
            .map(|m| row(m).iter().map(|&b| b as i8 as i32).sum())
            .collect();
        let stride = qgemm::lhs_stride(k);
        let group_bytes = qgemm::padded_rows(per_group) * stride;
        let mut packed = qgemm::Aligned::zeroed(groups * group_bytes);
        for (g, out) in packed.chunks_exact_mut(group_bytes.max(1)).enumerate() {
            qgemm::pack_rows(out, stride, per_group, k, |r, kk| {
                bytes[(g * per_group + r) * k + kk]
            });
        }
        let taps = (w.shape[1] == 1).then(|| {
            let taps = k;
            (0..c_out * taps)
                .map(|i| bytes[i] as i8 as i32 - zeros[i / taps])
                .collect()
        });
        Some(ConvWeights {
            shape: w.shape.clone(),
            groups,
            per_group,
            k,
            packed,
            stride,
            sums,
            zeros,
            scales,
            taps,
        })
    }
}
