//! The stride-1 2-D max pool of small planes of 8-bit integers (YOLO's SPPF: three
//! 5×5 pools over 10×10 or 20×20 planes). `max_pool_bytes` works output row by output
//! row in 32-byte blocks, which for a 10-byte row is mostly overhead (89 µs for YOLOv8n's
//! 128×10×10 pool against ONNX Runtime's 21). Here each plane is laid out once with
//! its padding, in rows of `width + 2·padding`, and every tap is one long lane-wise
//! maximum over the whole plane: down the rows first, then along them. Values past a
//! row's last output are computed and never read.

use rayon::prelude::*;

use crate::kernels::split::{Cost, units_per_task};

/// A stride-1 pool's geometry along one axis: kernel, padding, dilation.
#[derive(Clone, Copy)]
pub(super) struct Axis {
    pub(super) kernel: usize,
    pub(super) padding: usize,
    pub(super) dilation: usize,
}

impl Axis {
    /// Output positions along an axis of `size` inputs.
    pub(super) fn outputs(&self, size: usize) -> usize {
        // Saturating: the sizes come from the model.
        let reach = (self.kernel.max(1) - 1)
            .saturating_mul(self.dilation)
            .saturating_add(1);
        size.saturating_add(self.padding.saturating_mul(2))
            .saturating_add(1)
            .saturating_sub(reach)
    }
}

/// Planes of at most this many bytes take this path.
pub(super) const MAX_PLANE: usize = 64 * 64;

/// Max pool of `x`'s planes (`ih × iw` each, at most `MAX_PLANE` bytes) into `out`
/// (`oh × ow` each, as `Axis::outputs` gives them). `flip` is 0x80 for int8 (XOR makes
/// their order the unsigned one), 0 for uint8; byte 0 then fills the padding.
pub(super) fn max_pool(
    x: &[u8],
    out: &mut [u8],
    [ih, iw]: [usize; 2],
    [rows, cols]: [Axis; 2],
    flip: u8,
) {
    let (oh, ow) = (rows.outputs(ih), cols.outputs(iw));
    if oh * ow == 0 || ih * iw == 0 {
        return;
    }
    let pitch = iw + 2 * cols.padding;
    let padded_len = (ih + 2 * rows.padding) * pitch;
    let down_len = oh * pitch;
    let per_task = units_per_task(out.len() / (oh * ow), ih * iw, Cost::Move);
    out.par_chunks_mut(oh * ow * per_task)
        .zip(x.par_chunks(ih * iw * per_task))
        .for_each_init(
            || {
                (
                    vec![0u8; padded_len],
                    vec![0u8; down_len],
                    vec![0u8; down_len],
                )
            },
            |(padded, down, across), (out, x)| {
                super::zip::with_avx2(
                    #[inline(always)]
                    || {
                        for (y, plane) in out.chunks_exact_mut(oh * ow).zip(x.chunks_exact(ih * iw))
                        {
                            pool_plane(plane, y, iw, [rows, cols], flip, padded, down, across);
                        }
                    },
                )
            },
        );
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn pool_plane(
    plane: &[u8],
    y: &mut [u8],
    iw: usize,
    [rows, cols]: [Axis; 2],
    flip: u8,
    padded: &mut [u8],
    down: &mut [u8],
    across: &mut [u8],
) {
    let pitch = iw + 2 * cols.padding;
    let ow = cols.outputs(iw);
    // Byte 0 is the lowest value after `flip`: the padding never wins a maximum.
    padded.fill(0);
    for (r, src) in plane.chunks_exact(iw).enumerate() {
        let at = (r + rows.padding) * pitch + cols.padding;
        for (d, s) in padded[at..at + iw].iter_mut().zip(src) {
            *d = s ^ flip;
        }
    }
    // down[i] = max over the window's rows of padded[i + t·dilation·pitch].
    down.copy_from_slice(&padded[..down.len()]);
    for t in 1..rows.kernel {
        let from = &padded[t * rows.dilation * pitch..][..down.len()];
        for (m, v) in down.iter_mut().zip(from) {
            *m = (*m).max(*v);
        }
    }
    // across[i] = max over the window's columns of down[i + t·dilation]; the last
    // (kernel - 1)·dilation positions only feed columns past a row's outputs.
    let reach = (cols.kernel - 1) * cols.dilation;
    let n = down.len() - reach;
    across[..n].copy_from_slice(&down[..n]);
    for t in 1..cols.kernel {
        let from = &down[t * cols.dilation..][..n];
        for (m, v) in across[..n].iter_mut().zip(from) {
            *m = (*m).max(*v);
        }
    }
    for (r, dst) in y.chunks_exact_mut(ow).enumerate() {
        for (d, v) in dst.iter_mut().zip(&across[r * pitch..r * pitch + ow]) {
            *d = v ^ flip;
        }
    }
}
