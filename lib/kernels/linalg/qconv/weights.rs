//! The convolution's constant operand, packed once (at plan time when the weights are
//! constants): rows of `qgemm`'s left operand per group, with the per-channel sums,
//! zero points and scales the requantization needs, and the centred taps of a
//! depthwise convolution.

use std::sync::OnceLock;

use super::super::qdriver::shifted;
use super::super::qgemm;
use super::super::qparams::Params;
use super::indirect;
use crate::kernels::isa::Isa;
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
    /// K runs tap-major (kernel tap, then input channel) rather than channel-major,
    /// for `channels_last`'s im2col: kernels of several taps over whole words of
    /// input channels per group.
    pub(super) channels_last: bool,
    /// For `indirect` where this CPU runs it: all output channels as `qgemm` panels of
    /// NR columns (the right operand, signed) over the tap-major K.
    pub(super) panels: Option<qgemm::Aligned>,
    /// 1x1 weights over whole words of channels, in one group and symmetric: the
    /// same panels, packed on the first call whose plane is small enough for them
    /// (`pointwise_panels`).
    pointwise: Option<OnceLock<qgemm::Aligned>>,
}

impl ConvWeights {
    /// From the weight operands of `qlinear_conv` (w, w_scale, w_zero_point, groups),
    /// and the stride when it is known: K runs tap-major where the channels-last
    /// im2col is the faster one.
    pub fn new(
        w: &Tensor,
        scale: &Value,
        zero_point: &Value,
        groups: &Value,
        stride: Option<&Value>,
    ) -> Option<Self> {
        let c_per_group = *w.shape.get(1)?;
        let kernel_taps: usize = w.shape.get(2..)?.iter().product();
        let strided = stride
            .and_then(|s| s.as_int_list().ok())
            .is_some_and(|s| s.iter().any(|&v| v > 1));
        let c_out = *w.shape.first()?;
        // Measured at 1 thread, pixel rows against the tap-row im2col (after the tap
        // table's interior fast path): 3x3 over 64 channels at 20x20 and 28x28 0.07 ->
        // 0.055 and 0.18 -> 0.13 ms; strided from 16, 24 and 32 channels (16 -> 32 at
        // 160x160 0.395 -> 0.336, 24 -> 48 at 80x80 0.209 -> 0.162); 32 -> 32 and
        // 32 -> 64 at stride 1 0.438 -> 0.415 and 0.204 -> 0.185. Slower where a word
        // of a tap brings few bytes at stride 1 (16 -> 16 and 16 -> 32 at 160x160
        // 0.60 -> 1.07, 1.03 -> 1.13) or the last panel of 32 output channels runs
        // part empty (32 -> 16 at 80x80 0.28 -> 0.40, 48 -> 48 at 40x40 0.233 -> 0.248).
        // Where the pixel-row kernel does not run, tap-major weights feed the
        // channels-last im2col, measured on the earlier rule: 64 channels, or 32 strided.
        let pixel_rows = indirect::usable(Isa::best());
        let channels_last = tap_major_applies(c_per_group, kernel_taps)
            && (c_per_group >= 64
                || (strided && c_per_group >= 32)
                || (pixel_rows && strided && c_per_group >= 16)
                || (pixel_rows && c_per_group >= 32 && c_out % qgemm::NR == 0));
        Self::with_layout(w, scale, zero_point, groups, channels_last)
    }

    /// `new` with K tap-major (`channels_last`) or channel-major; `None` where the
    /// layout does not apply (tap-major needs several taps and whole words of input
    /// channels per group).
    pub(crate) fn with_layout(
        w: &Tensor,
        scale: &Value,
        zero_point: &Value,
        groups: &Value,
        channels_last: bool,
    ) -> Option<Self> {
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
        let c_per_group = w.shape[1];
        let kernel_taps = k / c_per_group.max(1);
        if channels_last && !tap_major_applies(c_per_group, kernel_taps) {
            return None;
        }
        // K index `kk` of the packed rows reads this index of a channel's weights.
        let source = |kk: usize| {
            if channels_last {
                (kk % c_per_group) * kernel_taps + kk / c_per_group
            } else {
                kk
            }
        };
        for (g, out) in packed.chunks_exact_mut(group_bytes.max(1)).enumerate() {
            qgemm::pack_rows(out, stride, per_group, k, |r, kk| {
                bytes[(g * per_group + r) * k + source(kk)]
            });
        }
        let taps = (w.shape[1] == 1).then(|| {
            let taps = k;
            (0..c_out * taps)
                .map(|i| bytes[i] as i8 as i32 - zeros[i / taps])
                .collect()
        });
        let pixel_rows = indirect::applies(groups, &zeros);
        let panels = (channels_last && pixel_rows && indirect::usable(Isa::best()))
            .then(|| qgemm::pack_panels(k, c_out, |kk, m| bytes[m * k + source(kk)]));
        // A single tap's K is tap-major already.
        let pointwise =
            (kernel_taps == 1 && c_per_group.is_multiple_of(4) && pixel_rows).then(OnceLock::new);
        Some(ConvWeights {
            panels,
            pointwise,
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
            channels_last,
        })
    }
}

impl ConvWeights {
    /// Whether the weights are packed for the pixel-row (indirect) kernel as well.
    pub fn has_pixel_panels(&self) -> bool {
        self.panels.is_some()
    }

    /// The panels of a pointwise (1x1) convolution for the pixel-row kernel, for a
    /// call of `pixels` output pixels: `None` past `POINTWISE_PIXELS`, where the
    /// channels-last copy of a large input costs more than the panels' waste saves.
    pub(super) fn pointwise_panels(&self, pixels: usize) -> Option<&qgemm::Aligned> {
        let once = self
            .pointwise
            .as_ref()
            .filter(|_| pixels <= POINTWISE_PIXELS)?;
        // K is the input channels, in the same order for both operands.
        Some(once.get_or_init(|| {
            qgemm::pack_panels(self.k, self.shape[0], |kk, m| {
                self.packed[m * self.stride + kk]
            })
        }))
    }
}

/// Output pixels up to which a pointwise convolution takes the pixel-row kernel.
/// Measured at 1 thread (im2col -> pixel rows): 1024 -> 256 channels at 14x14
/// 0.37 -> 0.30 ms, 512 -> 2048 at 7x7 0.37 -> 0.31, 256 -> 256 at 10x10 0.076 ->
/// 0.048, 64 -> 64 at 20x20 0.030 -> 0.026; but 512 -> 128 at 28x28 0.34 -> 0.42
/// and 256 -> 64 at 56x56 0.40 -> 0.66 (the channels-last copy of a large input).
const POINTWISE_PIXELS: usize = 400;

/// Whether K can run tap-major: several taps, and whole words of input channels.
fn tap_major_applies(c_per_group: usize, kernel_taps: usize) -> bool {
    kernel_taps > 1 && c_per_group > 0 && c_per_group.is_multiple_of(4)
}
