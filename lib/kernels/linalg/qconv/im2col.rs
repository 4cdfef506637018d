//! im2col for the quantized convolution: the input bytes each kernel tap reads, built
//! block by block into `qgemm`'s panels (four taps interleaved per quad), from the
//! input itself or, for stride-1 convolutions, from a copy padded with the zero point
//! where each tap's row is one contiguous copy. Stride-2 rows use a byte shuffle of
//! the instruction set.

use std::borrow::Cow;

use super::super::qgemm::requant;
use super::super::qgemm::{self, NR};
use super::super::strided::inside;
use super::Job;
use super::gemm::Target;
use super::geometry::Shape;
use crate::kernels::isa::Isa;
use crate::kernels::tensor::bounded_bytes;
use crate::kernels::tensor::dtype::DType;

/// The input with its padding written out, `height × width` per (batch, channel).
/// With stride 1, output pixel (y, x) reads tap (i, j) at `(y + i·dh)·width + x +
/// j·dw`: numbering pixels `y·width + x` (columns `x ≥ output width` computed and
/// dropped), each tap's im2col row is one contiguous copy.
pub(super) struct Padded<'a> {
    /// Borrowed from the input when it needs no padding (a 1×1 kernel without pads).
    pub(super) data: Cow<'a, [u8]>,
    pub(super) height: usize,
    pub(super) width: usize,
}

impl<'a> Padded<'a> {
    pub(super) fn new(s: &Shape, x: &'a [u8], zero: u8) -> Option<Padded<'a>> {
        if s.stride != [1, 1, 1] || s.input[0] != 1 || s.kernel[0] != 1 {
            return None;
        }
        let [_, ih, iw] = s.input;
        let height = s.output[1] + (s.kernel[1] - 1) * s.dilation[1];
        let width = s.output[2] + (s.kernel[2] - 1) * s.dilation[2];
        if [height, width] == [ih, iw] && s.pad_before[1..] == [0, 0] {
            // Already laid out so: every position is an input position.
            return Some(Padded {
                data: Cow::Borrowed(x),
                height,
                width,
            });
        }
        // Over the budget (large padding or dilation), im2col reads the input instead.
        let n = bounded_bytes(&[s.batch, s.c_in, height, width], DType::U8).ok()?;
        let mut data = vec![zero; n];
        for (plane, src) in data
            .chunks_exact_mut(height * width)
            .zip(x.chunks_exact(ih * iw))
        {
            for (y, row) in src.chunks_exact(iw).enumerate() {
                let (py, px) = (y + s.pad_before[1], s.pad_before[2]);
                if py < height && px < width {
                    let n = iw.min(width - px);
                    plane[py * width + px..][..n].copy_from_slice(&row[..n]);
                }
            }
        }
        Some(Padded {
            data: Cow::Owned(data),
            height,
            width,
        })
    }
}

/// Where one kernel tap reads, relative to an output pixel's input origin: the input
/// channel's offset within the group and the tap's offset along each dimension.
#[derive(Clone, Copy)]
pub(super) struct Tap {
    channel: usize,
    at: [isize; 3],
    /// The output columns whose input column lies inside the row: `columns.0..columns.1`.
    columns: (usize, usize),
}

/// A run of consecutive output pixels along one output row.
#[derive(Clone, Copy)]
struct Run {
    /// Index within the block, and length.
    start: usize,
    len: usize,
    /// Output coordinates of the first pixel.
    z: usize,
    y: usize,
    x: usize,
}

impl<E: super::super::qgemm::requant::Epilogue> Job<'_, E> {
    /// How many im2col columns there are: output pixels, or in the padded layout
    /// every position of the padded rows up to the last output pixel.
    pub(super) fn columns(&self) -> usize {
        match &self.padded {
            Some(p) => (self.s.output[1] - 1) * p.width + self.s.output[2],
            None => self.s.pixels(),
        }
    }

    /// Every kernel tap in K order (input channel, then kernel dimensions row-major).
    pub(super) fn taps(&self) -> Vec<Tap> {
        let s = self.s;
        let [kd, kh, kw] = s.kernel;
        let c_per_group = s.c_in / self.w.groups;
        let mut taps = Vec::with_capacity(self.w.k);
        for channel in 0..c_per_group {
            for a in 0..kd {
                for b in 0..kh {
                    for c in 0..kw {
                        let x = (c * s.dilation[2]) as isize - s.pad_before[2] as isize;
                        taps.push(Tap {
                            channel,
                            at: [
                                (a * s.dilation[0]) as isize - s.pad_before[0] as isize,
                                (b * s.dilation[1]) as isize - s.pad_before[1] as isize,
                                x,
                            ],
                            columns: inside(x, s.stride[2], s.input[2], s.output[2]),
                        });
                    }
                }
            }
        }
        taps
    }

    /// im2col of pixels `first..first+count` of batch `b`, group `g`: one row of
    /// bytes per tap, built run by run (output rows are contiguous or strided input
    /// reads), then four rows at a time interleaved into the panels' quads. With
    /// `need_sums`, also each pixel's sum over its column.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn pack(
        &self,
        b: usize,
        g: usize,
        first: usize,
        count: usize,
        taps: &[Tap],
        target: Target,
        need_sums: bool,
    ) {
        if let Some(cl) = &self.channels_last {
            return self.pack_channels_last(cl, (b, g), (first, count), target, need_sums);
        }
        let s = self.s;
        let [_, oh, ow] = s.output;
        let [id, ih, iw] = s.input;
        let c_per_group = s.c_in / self.w.groups;
        if let Some(padded) = &self.padded {
            let plane = padded.height * padded.width;
            let base = (b * s.c_in + g * c_per_group) * plane + first;
            self.interleave(
                target,
                need_sums,
                #[inline(always)]
                |t, row| {
                    let Some(tap) = taps.get(t) else {
                        return row.fill(0);
                    };
                    // tap.at holds the offsets minus the padding, which the layout includes.
                    let y = (tap.at[1] + s.pad_before[1] as isize) as usize;
                    let x = (tap.at[2] + s.pad_before[2] as isize) as usize;
                    let at = base + tap.channel * plane + y * padded.width + x;
                    row[..count].copy_from_slice(&padded.data[at..at + count]);
                    row[count..].fill(0);
                },
            );
            return;
        }
        let plane = id * ih * iw;
        let group = &self.x[(b * s.c_in + g * c_per_group) * plane..][..c_per_group * plane];
        let mut runs = Vec::new();
        let mut j = 0;
        while j < count {
            let n = first + j;
            let (z, y, x) = (n / (oh * ow), (n / ow) % oh, n % ow);
            let len = (ow - x).min(count - j);
            runs.push(Run {
                start: j,
                len,
                z,
                y,
                x,
            });
            j += len;
        }
        let zero = self.x_zero;
        self.interleave(
            target,
            need_sums,
            #[inline(always)]
            |t, row| {
                let Some(tap) = taps.get(t) else {
                    return row.fill(0);
                };
                let channel = &group[tap.channel * plane..][..plane];
                for run in &runs {
                    let dst = &mut row[run.start..run.start + run.len];
                    let iz = (run.z * s.stride[0]) as isize + tap.at[0];
                    let iy = (run.y * s.stride[1]) as isize + tap.at[1];
                    if iz < 0 || iy < 0 || iz as usize >= id || iy as usize >= ih {
                        dst.fill(zero);
                        continue;
                    }
                    let src = &channel[(iz as usize * ih + iy as usize) * iw..][..iw];
                    fill_run(self.isa, dst, src, run.x, s.stride[2], tap, zero);
                }
                row[count..].fill(0);
            },
        );
    }

    /// Builds the panels four taps (one quad) at a time: `row(t, bytes)` writes tap
    /// t's bytes for every column, then the four rows interleave into quads. With
    /// `need_sums`, also each column's sum.
    #[inline(always)]
    fn interleave(&self, target: Target, need_sums: bool, mut row: impl FnMut(usize, &mut [u8])) {
        let Target {
            rows,
            panels: out,
            sums,
        } = target;
        let width = sums.len();
        let panels = width / NR;
        let kq = qgemm::quads(self.w.k);
        for q in 0..kq {
            for t in 0..4 {
                row(q * 4 + t, &mut rows[t * width..(t + 1) * width]);
            }
            let [r0, r1, r2, r3] = [0, 1, 2, 3].map(|t| &rows[t * width..(t + 1) * width]);
            for p in 0..panels {
                let quad = &mut out[(p * kq + q) * NR * 4..][..NR * 4];
                let at = p * NR;
                let (r0, r1, r2, r3) = (
                    &r0[at..at + NR],
                    &r1[at..at + NR],
                    &r2[at..at + NR],
                    &r3[at..at + NR],
                );
                let mut words = [0u32; NR];
                for j in 0..NR {
                    words[j] = u32::from_le_bytes([r0[j], r1[j], r2[j], r3[j]]);
                }
                for (dst, word) in quad.chunks_exact_mut(4).zip(words) {
                    dst.copy_from_slice(&word.to_le_bytes());
                }
            }
            if need_sums {
                if q == 0 {
                    sums.fill(0);
                }
                for (j, sum) in sums.iter_mut().enumerate() {
                    *sum += r0[j] as i32 + r1[j] as i32 + r2[j] as i32 + r3[j] as i32;
                }
            }
        }
    }
}

/// One tap's bytes for a run of output pixels starting at output column `x0` of an
/// input row `src`: input column `x·stride + offset`, the zero point outside the row.
#[inline(always)]
fn fill_run(isa: Isa, dst: &mut [u8], src: &[u8], x0: usize, stride: usize, tap: &Tap, zero: u8) {
    let len = dst.len();
    let lo = tap.columns.0.saturating_sub(x0).min(len);
    let hi = tap.columns.1.saturating_sub(x0).clamp(lo, len);
    // Padding is short: a loop, not a libc call per run.
    let (head, rest) = dst.split_at_mut(lo);
    for d in head.iter_mut().chain(rest[hi - lo..].iter_mut()) {
        *d = zero;
    }
    let offset = tap.at[2];
    let s = stride as isize;
    let x0 = x0 as isize;
    if lo < hi {
        let start = ((x0 + lo as isize) * s + offset) as usize;
        let inner = &mut dst[lo..hi];
        match stride {
            1 => requant::small_copy(inner, &src[start..start + inner.len()]),
            2 => {
                // Whole chunks of 32 (one byte shuffle per 64 input bytes), then the
                // rest as one short chunk.
                let src = &src[start..];
                let whole = (inner.len() / 32).min(src.len() / 64);
                let (chunks, _) = inner.as_chunks_mut::<32>();
                for (d, s) in chunks.iter_mut().zip(src.as_chunks::<64>().0).take(whole) {
                    even_bytes(isa, d, s);
                }
                even_tail(isa, &mut inner[whole * 32..], &src[whole * 64..]);
            }
            _ => {
                for (d, v) in inner.iter_mut().zip(src[start..].iter().step_by(stride)) {
                    *d = *v;
                }
            }
        }
    }
}

/// `dst[i] = src[2i]` for a row's last columns, after its whole chunks: with AVX-512,
/// chunks of up to 32 through masked loads and stores, which touch only the bytes the
/// row has.
#[inline(always)]
fn even_tail(isa: Isa, dst: &mut [u8], src: &[u8]) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the instruction set (avx512bw) was detected on this CPU; the masks
        // cover `bytes` bytes of `src` from `2·at` and `n` bytes of `dst` from `at`,
        // both inside the slices, and masked-off bytes are not accessed.
        Isa::Avx512Vnni if isa.available() => unsafe {
            use std::arch::x86_64::*;
            let mut at = 0;
            while let Some(rest) = src.get(2 * at..).filter(|r| !r.is_empty())
                && at < dst.len()
            {
                let bytes = rest.len().min(64);
                // As many outputs as the row has left: output i reads byte 2i.
                let n = (dst.len() - at).min(bytes.div_ceil(2));
                let v =
                    _mm512_maskz_loadu_epi8(u64::MAX >> (64 - bytes), rest.as_ptr() as *const i8);
                _mm256_mask_storeu_epi8(
                    dst.as_mut_ptr().add(at) as *mut i8,
                    u32::MAX >> (32 - n),
                    _mm512_cvtepi16_epi8(v),
                );
                at += n;
            }
        },
        _ => {
            for (d, s) in dst.iter_mut().zip(src.iter().step_by(2)) {
                *d = *s;
            }
        }
    }
}

/// The bytes at even positions of `src`: a stride-2 row of im2col.
#[inline(always)]
fn even_bytes(isa: Isa, dst: &mut [u8; 32], src: &[u8; 64]) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the instruction set was detected on this CPU; both arrays are
        // exactly one register wide.
        Isa::Avx512Vnni if isa.available() => unsafe {
            use std::arch::x86_64::*;
            let v = _mm512_loadu_si512(src.as_ptr() as *const _);
            _mm256_storeu_si256(dst.as_mut_ptr() as *mut _, _mm512_cvtepi16_epi8(v));
        },
        _ => {
            for (j, d) in dst.iter_mut().enumerate() {
                *d = src[2 * j];
            }
        }
    }
}
