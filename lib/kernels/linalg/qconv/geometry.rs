//! The convolution's geometry, read from `qlinear_conv`'s operands: every rank as
//! three spatial dimensions, asymmetric padding folded in, and the limits past which
//! the fast path leaves a convolution to the reference kernel.

use super::super::qgemm::NR;
use super::weights::ConvWeights;
use crate::kernels::Call;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Tensor, bounded_bytes};

/// Sizes of a convolution as three spatial dimensions (1-D and 2-D lead with 1s).
pub(super) struct Shape {
    pub(super) batch: usize,
    pub(super) c_in: usize,
    pub(super) input: [usize; 3],
    pub(super) kernel: [usize; 3],
    pub(super) output: [usize; 3],
    pub(super) stride: [usize; 3],
    pub(super) dilation: [usize; 3],
    pub(super) pad_before: [usize; 3],
}

impl Shape {
    pub(super) fn pixels(&self) -> usize {
        self.output.iter().product()
    }

    /// Output pixel `n`'s coordinates (depth, row, column) within its batch.
    #[inline(always)]
    pub(super) fn output_at(&self, n: usize) -> [usize; 3] {
        let [_, oh, ow] = self.output;
        [n / (oh * ow), (n / ow) % oh, n % ow]
    }

    /// `at` moved on to the next output pixel: a step along the row, not a division
    /// per pixel (the im2col and pixel-row tables walk a block of pixels this way).
    #[inline(always)]
    pub(super) fn next_output(&self, at: &mut [usize; 3]) {
        let [_, oh, ow] = self.output;
        at[2] += 1;
        if at[2] == ow {
            at[2] = 0;
            at[1] += 1;
            if at[1] == oh {
                at[1] = 0;
                at[0] += 1;
            }
        }
    }

    /// Where the window of the output pixel at `at` starts in the input, before the
    /// taps' offsets (negative in the padding).
    #[inline(always)]
    pub(super) fn window_origin(&self, at: [usize; 3]) -> [isize; 3] {
        std::array::from_fn(|d| (at[d] * self.stride[d]) as isize - self.pad_before[d] as isize)
    }

    /// How far past its window's origin a pixel's last tap reaches, per dimension.
    #[inline(always)]
    pub(super) fn reach(&self) -> [isize; 3] {
        std::array::from_fn(|d| ((self.kernel[d] - 1) * self.dilation[d]) as isize)
    }

    /// The zero-padded plane of one channel the depthwise kernel reads: the extent
    /// every output needs, before and after the input, with room in each row for a
    /// whole chunk of NR outputs past the last, so chunks read in bounds. `None` when
    /// it exceeds the tensor budget (padding and dilation are the model's to choose).
    pub(super) fn depthwise_plane(&self) -> Option<[usize; 3]> {
        let extent = |i: usize| {
            let span =
                (self.output[i] - 1) * self.stride[i] + (self.kernel[i] - 1) * self.dilation[i] + 1;
            span.max(self.input[i] + self.pad_before[i])
        };
        let row = NR.checked_mul(self.stride[2])?.checked_add(extent(2))?;
        let plane = [extent(0), extent(1), row];
        bounded_bytes(&plane, DType::I16).ok().map(|_| plane)
    }
}

fn list(v: &Value, n: usize) -> Option<Vec<usize>> {
    let l = v.as_int_list().ok()?;
    (l.len() == n)
        .then(|| l.iter().map(|&x| usize::try_from(x).ok()).collect())
        .flatten()
}

/// The geometry from `qlinear_conv`'s operands 8–12, or `None` where the reference
/// kernel should decide.
pub(super) fn shape(c: &Call, x: &Tensor, w: &ConvWeights) -> Option<Shape> {
    let g = Geometry {
        stride: c.arg(8).ok()?,
        padding: c.arg(9).ok()?,
        dilation: c.arg(10).ok()?,
        pads: c.arg(12).ok()?,
    };
    shape_of(&g, x, w)
}

/// A convolution's geometry operands: stride, padding and dilation lists, and the
/// input's extra padding in torch order (or none).
pub struct Geometry<'a> {
    pub stride: &'a Value,
    pub padding: &'a Value,
    pub dilation: &'a Value,
    pub pads: &'a Value,
}

/// The geometry of `x` convolved with `w`, or `None` where the reference kernel
/// should decide.
pub(super) fn shape_of(g: &Geometry, x: &Tensor, w: &ConvWeights) -> Option<Shape> {
    let n = x.rank().checked_sub(2).filter(|&n| (1..=3).contains(&n))?;
    if w.shape.len() != n + 2 || x.shape[1] != w.shape[1] * w.groups {
        return None;
    }
    let stride = list(g.stride, n)?;
    let padding = list(g.padding, n)?;
    let dilation = list(g.dilation, n)?;
    // Extra padding (torch order: last dimension first) from an asymmetric pad.
    let mut before = padding.clone();
    let mut after = padding;
    match g.pads {
        Value::None => {}
        Value::IntList(pads) => {
            if pads.len() % 2 != 0 || pads.len() / 2 > n + 2 {
                return None;
            }
            for (i, pair) in pads.chunks(2).enumerate() {
                let (b, a) = (
                    usize::try_from(pair[0]).ok()?,
                    usize::try_from(pair[1]).ok()?,
                );
                if i >= n {
                    (b == 0 && a == 0).then_some(())?;
                    continue;
                }
                before[n - 1 - i] = before[n - 1 - i].checked_add(b)?;
                after[n - 1 - i] = after[n - 1 - i].checked_add(a)?;
            }
        }
        _ => return None,
    }
    let lead = 3 - n;
    let mut s = Shape {
        batch: x.shape[0],
        c_in: x.shape[1],
        input: [1; 3],
        kernel: [1; 3],
        output: [1; 3],
        stride: [1; 3],
        dilation: [1; 3],
        pad_before: [0; 3],
    };
    for i in 0..n {
        let (size, k) = (x.shape[2 + i], w.shape[2 + i]);
        if stride[i] == 0 || dilation[i] == 0 || k == 0 {
            return None;
        }
        let extent = (k - 1).checked_mul(dilation[i])? + 1;
        let padded = size.checked_add(before[i])?.checked_add(after[i])?;
        // Coordinates are computed as isize products of a position and a stride:
        // geometry past 2^31 (never a real model's) stays with the reference kernel.
        let limit = 1usize << 31;
        if padded < extent || padded > limit || stride[i] > limit {
            return None;
        }
        s.input[lead + i] = size;
        s.kernel[lead + i] = k;
        s.output[lead + i] = (padded - extent) / stride[i] + 1;
        s.stride[lead + i] = stride[i];
        s.dilation[lead + i] = dilation[i];
        s.pad_before[lead + i] = before[i];
    }
    Some(s)
}
