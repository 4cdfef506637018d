//! The fast quantized convolution behind `qlinear_conv`: weights packed once (at plan
//! time when they are constants), blocked im2col of the activations panel by panel,
//! the integer tile of `qgemm` for the products, requantization fused into the tile
//! loop, and a direct kernel for depthwise convolutions. Work is split over (batch,
//! group, pixel panel) or, depthwise, over (batch, channel). Anything this path does
//! not take (ranks above 3-D, operands of other types) returns `None`, and the caller
//! runs the reference kernel, which also reports malformed operands.

use anyhow::Result;
use rayon::prelude::*;

use super::qdriver::{SharedOut, shifted};
use super::qgemm::requant::{self, ColTerms, Output, RowTerms};
use super::qgemm::{self, MR, NR, Signs};
use super::qparams::Params;
use crate::kernels::isa::Isa;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Tensor, bounded_bytes};
use crate::kernels::{Call, ResultType};

/// Constant-weight part of a quantized convolution, packed once.
pub struct ConvWeights {
    shape: Vec<usize>,
    groups: usize,
    /// Output channels per group, and K = input channels per group × kernel taps.
    per_group: usize,
    k: usize,
    /// Per group, `padded_rows(per_group)` rows of `quads(k)` quads.
    packed: Vec<u8>,
    /// Per output channel: Σ_k w', the weight zero point w_zero' (both shifted into
    /// the signed range), and the scale.
    sums: Vec<i32>,
    zeros: Vec<i32>,
    scales: Vec<f32>,
    /// Depthwise only (one input channel per group): `w' - w_zero'` per tap.
    taps: Option<Vec<i32>>,
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
        let mut packed = Vec::new();
        for g in 0..groups {
            packed.extend(qgemm::pack_rows(per_group, k, |r, kk| {
                bytes[(g * per_group + r) * k + kk]
            }));
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
            sums,
            zeros,
            scales,
            taps,
        })
    }
}

/// Sizes of a convolution as three spatial dimensions (1-D and 2-D lead with 1s).
struct Shape {
    batch: usize,
    c_in: usize,
    input: [usize; 3],
    kernel: [usize; 3],
    output: [usize; 3],
    stride: [usize; 3],
    dilation: [usize; 3],
    pad_before: [usize; 3],
}

impl Shape {
    fn pixels(&self) -> usize {
        self.output.iter().product()
    }

    /// The zero-padded plane of one channel the depthwise kernel reads: the extent
    /// every output needs, before and after the input, with room in each row for a
    /// whole chunk of NR outputs past the last, so chunks read in bounds. `None` when
    /// it exceeds the tensor budget (padding and dilation are the model's to choose).
    fn depthwise_plane(&self) -> Option<[usize; 3]> {
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
fn shape(c: &Call, x: &Tensor, w: &ConvWeights) -> Option<Shape> {
    let n = x.rank().checked_sub(2).filter(|&n| (1..=3).contains(&n))?;
    if w.shape.len() != n + 2 || x.shape[1] != w.shape[1] * w.groups {
        return None;
    }
    let stride = list(c.arg(8).ok()?, n)?;
    let padding = list(c.arg(9).ok()?, n)?;
    let dilation = list(c.arg(10).ok()?, n)?;
    // Extra padding (torch order: last dimension first) from an asymmetric pad.
    let mut before = padding.clone();
    let mut after = padding;
    match c.arg(12).ok()? {
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

/// Runs the convolution, or returns `None` for the reference kernel to run.
pub fn run(c: &Call, w: &ConvWeights) -> Result<Option<Vec<Value>>> {
    run_on(Isa::best(), c, w)
}

pub(crate) fn run_on(isa: Isa, c: &Call, w: &ConvWeights) -> Result<Option<Vec<Value>>> {
    let x = c.arg(0)?.as_tensor()?;
    let Ok(xp) = Params::read(c.arg(1)?, c.arg(2)?) else {
        return Ok(None);
    };
    let Ok(yp) = Params::read(c.arg(13)?, c.arg(14)?) else {
        return Ok(None);
    };
    let ResultType::Tensor(ty) = c.result(0)? else {
        return Ok(None);
    };
    let Some((signed_out, quantized)) = super::qparams::output_kind(ty.dtype) else {
        return Ok(None);
    };
    if xp.len() != 1 || yp.len() != 1 || c.arg(11)?.as_int().ok() != Some(w.groups as i64) {
        return Ok(None);
    }
    let Some(s) = shape(c, x, w) else {
        return Ok(None);
    };
    let Some((xb, x_shift)) = shifted(&x.data, false) else {
        return Ok(None);
    };
    let Ok(x_zero) = u8::try_from(xp.zero_point(0) + x_shift) else {
        return Ok(None);
    };
    let c_out = w.shape[0];
    let Some(bias) = bias(c, c_out)? else {
        return Ok(None);
    };
    let (k, x_zero) = (w.k as i32, x_zero as i32);
    // Σ (x' - xz)(w' - wz) = Σ x'w' - xz·Σw' - wz·Σx' + K·xz·wz; all but Σ x'w' and
    // the per-pixel Σx' are known per channel.
    let offsets: Vec<i32> = (0..c_out)
        .map(|m| {
            bias[m]
                .wrapping_sub(x_zero.wrapping_mul(w.sums[m]))
                .wrapping_add(k.wrapping_mul(x_zero).wrapping_mul(w.zeros[m]))
        })
        .collect();
    let multipliers: Vec<f32> = w
        .scales
        .iter()
        .map(|&ws| xp.scale(0) * ws / yp.scale(0))
        .collect();
    if !requant::finite(&multipliers) {
        return Ok(None);
    }
    let y_zero = yp.zero_point(0);
    let Some(out) = Output::new(y_zero, signed_out) else {
        return Ok(None);
    };
    let mut shape_out = vec![s.batch, c_out];
    shape_out.extend(&s.output[3 - (x.rank() - 2)..]);
    let total = crate::kernels::tensor::bounded_count(&shape_out)?;
    let mut y = vec![0u8; total];
    let job = Job {
        s: &s,
        w,
        x: &xb,
        x_zero: x_zero as u8,
        bias: &bias,
        offsets: &offsets,
        multipliers: &multipliers,
        out,
        isa,
        padded: None,
        plane: [0; 3],
    };
    // A depthwise plane over the budget leaves the work to im2col, which needs none.
    match (&w.taps, s.depthwise_plane()) {
        (Some(taps), Some(plane)) => Job { plane, ..job }.depthwise(taps, &mut y),
        _ => Job {
            padded: Padded::new(&s, &xb, x_zero as u8),
            ..job
        }
        .gemm(&mut y),
    }
    let t = out.tensor(shape_out, y, quantized.then(|| yp.scale(0)))?;
    Ok(Some(vec![Value::tensor(t)]))
}

/// The int32 bias minus its zero point, per output channel (zeros without a bias), as
/// the reference reads it; `None` if its length does not fit.
fn bias(c: &Call, c_out: usize) -> Result<Option<Vec<i32>>> {
    let Value::Tensor(b) = c.arg(6)? else {
        return Ok(Some(vec![0; c_out]));
    };
    let zero_points: Vec<i64> = match c.arg(7)? {
        Value::None => vec![0],
        Value::Tensor(z) => z.data.to_i64(),
        v => vec![v.as_int()?],
    };
    let values = b.data.to_i64();
    if values.len() != c_out {
        return Ok(None);
    }
    Ok(Some(
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let z = zero_points.get(i).or(zero_points.first()).copied();
                (v - z.unwrap_or(0)) as i32
            })
            .collect(),
    ))
}

struct Job<'a> {
    s: &'a Shape,
    w: &'a ConvWeights,
    /// The input in the unsigned range, and its zero point there.
    x: &'a [u8],
    x_zero: u8,
    /// Per output channel: the bias, and the bias with the zero-point terms im2col's
    /// uncentred products need.
    bias: &'a [i32],
    offsets: &'a [i32],
    multipliers: &'a [f32],
    out: Output,
    isa: Isa,
    /// For stride-1 2-D (and 1-D) convolutions: the input padded with its zero point.
    padded: Option<Padded>,
    /// Depthwise only: `Shape::depthwise_plane`.
    plane: [usize; 3],
}

/// The input with its padding written out, `height × width` per (batch, channel).
/// With stride 1, output pixel (y, x) reads tap (i, j) at `(y + i·dh)·width + x +
/// j·dw`: numbering pixels `y·width + x` (columns `x ≥ output width` computed and
/// dropped), each tap's im2col row is one contiguous copy.
struct Padded {
    data: Vec<u8>,
    height: usize,
    width: usize,
}

impl Padded {
    fn new(s: &Shape, x: &[u8], zero: u8) -> Option<Padded> {
        if s.stride != [1, 1, 1] || s.input[0] != 1 || s.kernel[0] != 1 {
            return None;
        }
        let [_, ih, iw] = s.input;
        let height = s.output[1] + (s.kernel[1] - 1) * s.dilation[1];
        let width = s.output[2] + (s.kernel[2] - 1) * s.dilation[2];
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
            data,
            height,
            width,
        })
    }
}

/// Where one kernel tap reads, relative to an output pixel's input origin: the input
/// channel's offset within the group and the tap's offset along each dimension.
#[derive(Clone, Copy)]
struct Tap {
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

impl Job<'_> {
    /// Grouped or dense convolution: each work item packs a block of panels of `NR`
    /// output pixels (im2col, padded positions holding the zero point) and multiplies
    /// every output channel of its group against them.
    /// How many im2col columns there are: output pixels, or in the padded layout
    /// every position of the padded rows up to the last output pixel.
    fn columns(&self) -> usize {
        match &self.padded {
            Some(p) => (self.s.output[1] - 1) * p.width + self.s.output[2],
            None => self.s.pixels(),
        }
    }

    fn gemm(&self, y: &mut [u8]) {
        let (s, w) = (self.s, self.w);
        let panels = self.columns().div_ceil(NR);
        // Enough blocks for every thread, each at most 8 panels.
        let threads = rayon::current_num_threads();
        let per_block = (panels / (4 * threads)).clamp(1, 8);
        let blocks = panels.div_ceil(per_block);
        // Few pixels and many channels (late layers): split the channels too, each
        // split packing the block again, so every thread has work.
        let row_blocks = qgemm::padded_rows(w.per_group) / MR;
        let units = s.batch * w.groups * blocks;
        let splits = (4 * threads).div_ceil(units).clamp(1, row_blocks.max(1));
        let g = Gemm {
            job: self,
            taps: self.taps(),
            per_block,
            blocks,
            splits,
            need_sums: w.zeros.iter().any(|&z| z != 0),
            shared: SharedOut::new(y),
        };
        let items = units * splits;
        (0..items).into_par_iter().for_each(|item| {
            SCRATCH.with_borrow_mut(|scratch| {
                scratch.fit(w.k, per_block);
                match self.isa {
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: the instruction set was detected on this CPU.
                    Isa::Avx512Vnni if self.isa.available() => unsafe {
                        gemm_item_avx512(&g, scratch, item)
                    },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: as above.
                    Isa::Avx2 if self.isa.available() => unsafe {
                        gemm_item_avx2(&g, scratch, item)
                    },
                    _ => gemm_item(&g, scratch, item),
                }
            })
        });
    }

    /// Every kernel tap in K order (input channel, then kernel dimensions row-major).
    fn taps(&self) -> Vec<Tap> {
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
    fn pack(
        &self,
        b: usize,
        g: usize,
        first: usize,
        count: usize,
        taps: &[Tap],
        scratch: &mut Scratch,
        need_sums: bool,
    ) {
        let s = self.s;
        let [_, oh, ow] = s.output;
        let [id, ih, iw] = s.input;
        let c_per_group = s.c_in / self.w.groups;
        if let Some(padded) = &self.padded {
            let plane = padded.height * padded.width;
            let base = (b * s.c_in + g * c_per_group) * plane + first;
            self.interleave(scratch, need_sums, |t, row| {
                let Some(tap) = taps.get(t) else {
                    return row.fill(0);
                };
                // tap.at holds the offsets minus the padding, which the layout includes.
                let y = (tap.at[1] + s.pad_before[1] as isize) as usize;
                let x = (tap.at[2] + s.pad_before[2] as isize) as usize;
                let at = base + tap.channel * plane + y * padded.width + x;
                row[..count].copy_from_slice(&padded.data[at..at + count]);
                row[count..].fill(0);
            });
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
        self.interleave(scratch, need_sums, |t, row| {
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
        });
    }

    /// Builds the panels four taps (one quad) at a time: `row(t, bytes)` writes tap
    /// t's bytes for every column, then the four rows interleave into quads. With
    /// `need_sums`, also each column's sum.
    #[inline(always)]
    fn interleave(
        &self,
        scratch: &mut Scratch,
        need_sums: bool,
        mut row: impl FnMut(usize, &mut [u8]),
    ) {
        let width = scratch.width;
        let panels = width / NR;
        let kq = qgemm::quads(self.w.k);
        for q in 0..kq {
            for t in 0..4 {
                row(q * 4 + t, &mut scratch.rows[t * width..(t + 1) * width]);
            }
            let [r0, r1, r2, r3] = [0, 1, 2, 3].map(|t| &scratch.rows[t * width..(t + 1) * width]);
            for p in 0..panels {
                let quad = &mut scratch.panels[(p * kq + q) * NR * 4..][..NR * 4];
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
                    scratch.sums.fill(0);
                }
                for (j, sum) in scratch.sums.iter_mut().enumerate() {
                    *sum += r0[j] as i32 + r1[j] as i32 + r2[j] as i32 + r3[j] as i32;
                }
            }
        }
    }

    /// One input channel per group: each output channel is a weighted sum of
    /// `kernel` taps over one zero-padded input plane, centred on the zero points.
    fn depthwise(&self, taps: &[i32], y: &mut [u8]) {
        let (s, w) = (self.s, self.w);
        let pixels = s.pixels();
        let c_out = w.shape[0];
        let per_group = w.per_group;
        y.par_chunks_mut(pixels)
            .enumerate()
            .for_each_init(Vec::new, |plane, (item, dest)| {
                let (b, channel) = (item / c_out, item % c_out);
                let input = b * s.c_in + channel / per_group;
                let n: usize = s.kernel.iter().product();
                let terms = &taps[channel * n..(channel + 1) * n];
                depthwise_channel(self.isa, self, input, channel, terms, plane, dest);
            });
    }
}

/// What every work item of `Job::gemm` shares.
struct Gemm<'a> {
    job: &'a Job<'a>,
    taps: Vec<Tap>,
    per_block: usize,
    blocks: usize,
    /// How many parts the group's output channels are split into.
    splits: usize,
    need_sums: bool,
    shared: SharedOut,
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn gemm_item_avx512(g: &Gemm, scratch: &mut Scratch, item: usize) {
    gemm_item(g, scratch, item)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gemm_item_avx2(g: &Gemm, scratch: &mut Scratch, item: usize) {
    gemm_item(g, scratch, item)
}

/// One block of pixel panels of one (batch, group): im2col, then every row block of
/// the group's weights against every panel, each tile requantized as it comes.
/// Inlined into each instruction set's wrapper, so packing and requantization are
/// compiled for it too.
#[inline(always)]
fn gemm_item(g: &Gemm, scratch: &mut Scratch, item: usize) {
    let job = g.job;
    let (s, w) = (job.s, job.w);
    let pixels = s.pixels();
    let columns = job.columns();
    let kq = qgemm::quads(w.k);
    let rows = qgemm::padded_rows(w.per_group);
    let stride = kq * 4;
    let (split, item) = (item % g.splits, item / g.splits);
    let block = item % g.blocks;
    let group = (item / g.blocks) % w.groups;
    let b = item / g.blocks / w.groups;
    let row_blocks = rows / MR;
    let part = row_blocks.div_ceil(g.splits);
    let first = block * g.per_block * NR;
    let count = (g.per_block * NR).min(columns - first);
    job.pack(b, group, first, count, &g.taps, scratch, g.need_sums);
    let lhs = &w.packed[group * rows * stride..(group + 1) * rows * stride];
    for row_block in split * part..row_blocks.min((split + 1) * part) {
        for p in 0..count.div_ceil(NR) {
            let panel = &scratch.panels[p * kq * NR * 4..(p + 1) * kq * NR * 4];
            let tile = &mut scratch.tile;
            qgemm::tile(
                job.isa,
                Signs::SignedLhs,
                &lhs[row_block * MR * stride..],
                stride,
                panel,
                kq,
                tile,
            );
            let cols = NR.min(count - p * NR);
            let sums = scratch.sums[p * NR..(p + 1) * NR].first_chunk::<NR>();
            for (r, acc) in tile.iter().enumerate() {
                let m = row_block * MR + r;
                if m >= w.per_group {
                    break;
                }
                let channel = group * w.per_group + m;
                let plane = (b * w.shape[0] + channel) * pixels;
                let terms = RowTerms {
                    offset: job.offsets[channel],
                    zero: w.zeros[channel],
                    sum: 0,
                    multiplier: job.multipliers[channel],
                };
                let col = ColTerms {
                    sum: sums.filter(|_| g.need_sums),
                    ..Default::default()
                };
                let column = first + p * NR;
                match &job.padded {
                    None => {
                        // SAFETY: (channel, these pixels) belong to this item alone.
                        let dest = unsafe { g.shared.slice(plane + column, cols) };
                        requant::row(acc, terms, col, job.out, dest);
                    }
                    Some(padded) => {
                        let mut q = [0u8; NR];
                        requant::row(acc, terms, col, job.out, &mut q);
                        // Each padded row's first `output width` columns are pixels.
                        let (width, ow) = (padded.width, s.output[2]);
                        let mut j = 0;
                        while j < cols {
                            let (y, x) = ((column + j) / width, (column + j) % width);
                            let run = (width - x).min(cols - j);
                            if x < ow {
                                let n = (ow - x).min(run);
                                // SAFETY: (channel, these pixels) belong to this item.
                                let dest = unsafe { g.shared.slice(plane + y * ow + x, n) };
                                requant::small_copy(dest, &q[j..j + n]);
                            }
                            j += run;
                        }
                    }
                }
            }
        }
    }
}

/// Per-worker buffers of `gemm`: four tap rows, the packed panels, column sums.
struct Scratch {
    width: usize,
    rows: Vec<u8>,
    panels: Vec<u8>,
    sums: Vec<i32>,
    tile: qgemm::Tile,
}

thread_local! {
    /// Reused across calls: the buffers are rewritten before each read.
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new(Scratch {
            width: 0,
            rows: Vec::new(),
            panels: Vec::new(),
            sums: Vec::new(),
            tile: [[0; NR]; MR],
        })
    };
}

impl Scratch {
    /// Sizes the buffers for `panels` panels of K = `k`.
    fn fit(&mut self, k: usize, panels: usize) {
        self.width = panels * NR;
        self.rows.resize(4 * self.width, 0);
        self.panels.resize(panels * qgemm::quads(k) * NR * 4, 0);
        self.sums.resize(self.width, 0);
    }
}

/// One tap's bytes for a run of output pixels starting at output column `x0` of an
/// input row `src`: input column `x·stride + offset`, the zero point outside the row.
/// The output columns `x` (below `outputs`) whose input column `x·stride + offset`
/// lies in `0..width`: one range, computed once per tap so runs need no division.
fn inside(offset: isize, stride: usize, width: usize, outputs: usize) -> (usize, usize) {
    let (s, last) = (stride as isize, width as isize - 1);
    let lo = ((-offset).max(0) + s - 1) / s;
    let hi = if last >= offset {
        (last - offset) / s + 1
    } else {
        0
    };
    let hi = (hi.max(0) as usize).min(outputs);
    ((lo as usize).min(hi), hi)
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
                // Whole chunks of 32 first: fixed-length loops vectorize (one byte
                // shuffle per 64 input bytes); then the rest one by one.
                let src = &src[start..];
                let whole = (inner.len() / 32).min(src.len() / 64);
                let (chunks, _) = inner.as_chunks_mut::<32>();
                for (d, s) in chunks.iter_mut().zip(src.as_chunks::<64>().0).take(whole) {
                    even_bytes(isa, d, s);
                }
                let n = inner.len();
                let last = n.saturating_sub(32);
                // The tail as one more chunk ending at the run's end, overlapping
                // the previous, when the input row has the bytes.
                match (inner[last..].first_chunk_mut::<32>(), src.get(2 * last..)) {
                    (Some(d), Some(s)) if whole > 0 && s.len() >= 64 => {
                        even_bytes(isa, d, s.first_chunk::<64>().unwrap_or(&[0; 64]));
                    }
                    _ => {
                        // Runs of 16 to 31: two 16-byte chunks, overlapping.
                        let pair = (
                            inner.first_chunk_mut::<16>().is_some(),
                            src.get(2 * n.saturating_sub(16)..).map_or(0, <[u8]>::len) >= 32,
                        );
                        if whole == 0 && pair == (true, true) {
                            for at in [0, n - 16] {
                                if let (Some(d), Some(s)) = (
                                    inner[at..].first_chunk_mut::<16>(),
                                    src[2 * at..].first_chunk::<32>(),
                                ) {
                                    even_bytes16(isa, d, s);
                                }
                            }
                        } else {
                            for (i, d) in inner.iter_mut().enumerate().skip(whole * 32) {
                                *d = src[2 * i];
                            }
                        }
                    }
                }
            }
            _ => {
                for (d, v) in inner.iter_mut().zip(src[start..].iter().step_by(stride)) {
                    *d = *v;
                }
            }
        }
    }
}

/// `even_bytes` for 16 bytes.
#[inline(always)]
fn even_bytes16(isa: Isa, dst: &mut [u8; 16], src: &[u8; 32]) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the instruction set (avx512bw with vl) was detected on this CPU;
        // both arrays are exactly one register wide.
        Isa::Avx512Vnni if isa.available() => unsafe {
            use std::arch::x86_64::*;
            let v = _mm256_loadu_si256(src.as_ptr() as *const _);
            _mm_storeu_si128(dst.as_mut_ptr() as *mut _, _mm256_cvtepi16_epi8(v));
        },
        _ => {
            for (j, d) in dst.iter_mut().enumerate() {
                *d = src[2 * j];
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

fn depthwise_channel(
    isa: Isa,
    job: &Job,
    input: usize,
    channel: usize,
    taps: &[i32],
    plane: &mut Vec<i16>,
    dest: &mut [u8],
) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the instruction set was detected on this CPU.
        Isa::Avx512Vnni if isa.available() => unsafe {
            depthwise_avx512(job, input, channel, taps, plane, dest)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Isa::Avx2 if isa.available() => unsafe {
            depthwise_avx2(job, input, channel, taps, plane, dest)
        },
        _ => depthwise_body(job, input, channel, taps, plane, dest),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn depthwise_avx512(
    job: &Job,
    input: usize,
    channel: usize,
    taps: &[i32],
    plane: &mut Vec<i16>,
    dest: &mut [u8],
) {
    depthwise_body(job, input, channel, taps, plane, dest)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn depthwise_avx2(
    job: &Job,
    input: usize,
    channel: usize,
    taps: &[i32],
    plane: &mut Vec<i16>,
    dest: &mut [u8],
) {
    depthwise_body(job, input, channel, taps, plane, dest)
}

/// One output channel of a depthwise convolution. The input plane is copied once,
/// centred and padded with zeros (the zero point, centred), so the tap loops need no
/// bounds checks and run along contiguous rows when the stride is 1.
#[inline(always)]
fn depthwise_body(
    job: &Job,
    input: usize,
    channel: usize,
    taps: &[i32],
    plane: &mut Vec<i16>,
    dest: &mut [u8],
) {
    let s = job.s;
    let [id, ih, iw] = s.input;
    let [od, oh, ow] = s.output;
    let [kd, kh, kw] = s.kernel;
    let [pd, ph, pw] = job.plane;
    plane.clear();
    plane.resize(pd * ph * pw, 0);
    let x = &job.x[input * id * ih * iw..][..id * ih * iw];
    let zero = job.x_zero as i16;
    for z in 0..id {
        for yy in 0..ih {
            let src = &x[(z * ih + yy) * iw..][..iw];
            let row = ((z + s.pad_before[0]) * ph + yy + s.pad_before[1]) * pw + s.pad_before[2];
            for (d, &v) in plane[row..row + iw].iter_mut().zip(src) {
                *d = v as i16 - zero;
            }
        }
    }
    let terms = RowTerms {
        offset: job.bias[channel],
        zero: 0,
        sum: 0,
        multiplier: job.multipliers[channel],
    };
    let sw = s.stride[2];
    // Each tap's offset from the chunk's first input position.
    let mut offsets = Vec::with_capacity(taps.len());
    for a in 0..kd {
        for b in 0..kh {
            for c in 0..kw {
                offsets.push((a * s.dilation[0] * ph + b * s.dilation[1]) * pw + c * s.dilation[2]);
            }
        }
    }
    let mut strided = [0i16; NR];
    for z in 0..od {
        for yy in 0..oh {
            for x0 in (0..ow).step_by(NR) {
                let base = (z * s.stride[0] * ph + yy * s.stride[1]) * pw + x0 * sw;
                let mut acc = [0i32; NR];
                if sw == 1 {
                    chunk(job.isa, plane, base, &offsets, taps, &mut acc);
                } else {
                    for (&off, &tap) in offsets.iter().zip(taps) {
                        let src = plane[base + off..].iter().step_by(sw);
                        for (d, v) in strided.iter_mut().zip(src) {
                            *d = *v;
                        }
                        add_products(&mut acc, &strided, tap);
                    }
                }
                let at = (z * oh + yy) * ow + x0;
                let out = &mut dest[at..at + NR.min(ow - x0)];
                requant::row(&acc, terms, ColTerms::default(), job.out, out);
            }
        }
    }
}

/// Σ over taps of `plane[base + offset..][..NR] · tap`, for stride 1: the depthwise
/// inner loop, with the accumulators held in registers on AVX-512.
#[inline(always)]
fn chunk(
    isa: Isa,
    plane: &[i16],
    base: usize,
    offsets: &[usize],
    taps: &[i32],
    acc: &mut [i32; NR],
) {
    let last = offsets.iter().max().map_or(0, |&o| base + o + NR);
    assert!(last <= plane.len(), "depthwise chunk out of the plane");
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the CPU has the features; the assert bounds every read.
        Isa::Avx512Vnni if isa.available() => unsafe {
            chunk_avx512(plane, base, offsets, taps, acc)
        },
        _ => {
            *acc = [0; NR];
            for (&off, &tap) in offsets.iter().zip(taps) {
                if let Some(src) = plane[base + off..].first_chunk::<NR>() {
                    add_products(acc, src, tap);
                }
            }
        }
    }
}

/// # Safety
/// avx512f and avx512bw are available; `plane[base + o..][..NR]` is in bounds for
/// every offset `o`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn chunk_avx512(
    plane: &[i16],
    base: usize,
    offsets: &[usize],
    taps: &[i32],
    acc: &mut [i32; NR],
) {
    use std::arch::x86_64::*;
    const _: () = assert!(NR == 32);
    let mut lo = _mm512_setzero_si512();
    let mut hi = _mm512_setzero_si512();
    for (&off, &tap) in offsets.iter().zip(taps) {
        let t = _mm512_set1_epi32(tap);
        // SAFETY: 32 i16s from base + off are in bounds (the caller's promise).
        let (a, b) = unsafe {
            let p = plane.as_ptr().add(base + off);
            (
                _mm256_loadu_si256(p as *const _),
                _mm256_loadu_si256(p.add(16) as *const _),
            )
        };
        lo = _mm512_add_epi32(lo, _mm512_mullo_epi32(_mm512_cvtepi16_epi32(a), t));
        hi = _mm512_add_epi32(hi, _mm512_mullo_epi32(_mm512_cvtepi16_epi32(b), t));
    }
    // SAFETY: `acc` holds 32 i32s, two 64-byte stores.
    unsafe {
        _mm512_storeu_si512(acc.as_mut_ptr() as *mut _, lo);
        _mm512_storeu_si512(acc.as_mut_ptr().add(16) as *mut _, hi);
    }
}

/// `acc += src · tap`, lane by lane: a fixed-length loop that vectorizes.
#[inline(always)]
fn add_products(acc: &mut [i32; NR], src: &[i16; NR], tap: i32) {
    for j in 0..NR {
        acc[j] = acc[j].wrapping_add(src[j] as i32 * tap);
    }
}
