//! Pools over the last 1 to 3 dimensions, with torch's window arithmetic: max pools
//! (dilation, padding that never wins, NaN propagating), average pools
//! (`count_include_pad`, `divisor_override`), both with `ceil_mode`, and adaptive
//! average pools. Values are read into f64; an average accumulates rounding to the
//! element type after every addition, as a sum in that type does (ONNX Runtime's
//! pools sum a window so, and QLinearAveragePool's bytes depend on it), except an f32
//! window that is a whole plane (a global pool): that sums in f64 lanes and rounds
//! once, faster than one long chain of f32 additions and without its drift of up to
//! n ulps.

use anyhow::{Result, bail};
use rayon::prelude::*;

use crate::kernels::split::{Cost, units_per_task};
use crate::kernels::tensor::data::{Prec, from_f64};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::layout::{cartesian_offsets, result_count, strides};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor};
use crate::kernels::{Call, Kernel, args};

use super::{max_pool_bytes, max_pool_small};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.max_pool1d" => |c| max_pool(c, 1),
        "aten.max_pool2d" => |c| max_pool(c, 2),
        "aten.max_pool3d" => |c| max_pool(c, 3),
        "aten.avg_pool1d" => |c| avg_pool(c, 1),
        "aten.avg_pool2d" => |c| avg_pool(c, 2),
        "aten.avg_pool3d" => |c| avg_pool(c, 3),
        "aten.adaptive_avg_pool1d" => |c| adaptive_avg_pool(c, 1),
        "aten.adaptive_avg_pool2d" | "aten._adaptive_avg_pool2d" => |c| adaptive_avg_pool(c, 2),
        "aten.adaptive_avg_pool3d" | "aten._adaptive_avg_pool3d" => |c| adaptive_avg_pool(c, 3),
        _ => return None,
    })
}

/// One output position's window along one axis: the input positions it covers, and
/// for averages the size it has counting padding.
struct AxisWindow {
    taps: Vec<usize>,
    padded_size: usize,
}

/// A pool's windows: the input is `planes` independent blocks of `input` spatial
/// shape; per axis and output coordinate, a window.
struct Windows {
    planes: usize,
    lead: Vec<usize>,
    input: Vec<usize>,
    axes: Vec<Vec<AxisWindow>>,
}

impl Windows {
    fn output(&self) -> Vec<usize> {
        self.axes.iter().map(Vec::len).collect()
    }

    fn shape(&self) -> Vec<usize> {
        let mut s = self.lead.clone();
        s.extend(self.output());
        s
    }

    /// `reduce` of every window of every plane, given the window's input offsets
    /// (within a plane) and its size counting padding. Planes are split over the pool.
    fn apply<T: Copy + Default + Send + Sync>(
        &self,
        x: &[T],
        reduce: impl Fn(&[T], &[usize], f64) -> T + Sync,
    ) -> Result<Vec<T>> {
        let out_shape = self.output();
        let count = result_count(&out_shape)?;
        let in_block = result_count(&self.input)?;
        let in_strides = strides(&self.input);
        let n = self.axes.len();
        // Offsets of every window, computed once for all planes.
        let mut starts = Vec::with_capacity(count + 1);
        let mut offsets = Vec::new();
        let mut sizes = Vec::with_capacity(count);
        let mut coord = vec![0usize; n];
        for _ in 0..count {
            starts.push(offsets.len());
            let lists: Vec<&[usize]> = (0..n)
                .map(|i| self.axes[i][coord[i]].taps.as_slice())
                .collect();
            cartesian_offsets(&lists, &in_strides, &mut offsets);
            // As a float: a product of padded sizes can exceed any integer type.
            sizes.push(
                (0..n)
                    .map(|i| self.axes[i][coord[i]].padded_size as f64)
                    .product::<f64>(),
            );
            for i in (0..n).rev() {
                coord[i] += 1;
                if coord[i] < out_shape[i] {
                    break;
                }
                coord[i] = 0;
            }
        }
        starts.push(offsets.len());
        let mut out = vec![T::default(); result_count(&[self.planes, count])?];
        if count == 0 || in_block == 0 {
            // No windows, or windows of nothing to read (reduce sees empty tap lists).
            for (w, y) in out.iter_mut().enumerate() {
                let w = w % count.max(1);
                *y = reduce(&[], &offsets[starts[w]..starts[w + 1]], sizes[w]);
            }
            return Ok(out);
        }
        let plane = |(p, y): (usize, &mut [T])| {
            let plane = &x[p * in_block..(p + 1) * in_block];
            for (w, y) in y.iter_mut().enumerate() {
                *y = reduce(plane, &offsets[starts[w]..starts[w + 1]], sizes[w]);
            }
        };
        // A tap an element of work, split as `split` decides: small pools stay on this
        // thread, since rayon's split costs more than they do.
        let per_task = units_per_task(self.planes, offsets.len(), Cost::Arith);
        if per_task < self.planes {
            out.par_chunks_mut(count)
                .enumerate()
                .with_min_len(per_task)
                .for_each(plane);
        } else {
            out.chunks_mut(count).enumerate().for_each(plane);
        }
        Ok(out)
    }
}

/// The input split into leading plane dimensions and `n` spatial ones; torch takes
/// an optional batch dimension in front of the channels.
fn split_input(x: &Tensor, n: usize) -> Result<(Vec<usize>, Vec<usize>)> {
    if x.quant.is_some() {
        bail!("pooling a quantized tensor is not supported; pool its values");
    }
    split_shape(x, n)
}

/// `split_input` without the check that the tensor is not quantized: the quantized
/// max pool reads the integers.
fn split_shape(x: &Tensor, n: usize) -> Result<(Vec<usize>, Vec<usize>)> {
    if x.rank() != n + 1 && x.rank() != n + 2 {
        bail!(
            "a {n}-d pool of a tensor of shape {:?}: expected rank {} or {}",
            x.shape,
            n + 1,
            n + 2
        );
    }
    let (lead, spatial) = x.shape.split_at(x.rank() - n);
    Ok((lead.to_vec(), spatial.to_vec()))
}

/// The geometry of a sliding-window pool.
struct Sliding {
    kernel: Vec<usize>,
    stride: Vec<usize>,
    padding: Vec<usize>,
    dilation: Vec<usize>,
    ceil_mode: bool,
}

impl Sliding {
    fn read(c: &Call, n: usize, dilation: Option<usize>, ceil_mode: usize) -> Result<Sliding> {
        let kernel = args::per_axis(c, 1, n, "kernel_size", 1)?;
        let stride = if args::ints(c, 2)?.is_empty() {
            kernel.clone()
        } else {
            args::per_axis(c, 2, n, "stride", 1)?
        };
        let padding = args::per_axis(c, 3, n, "padding", 0)?;
        let dilation = match dilation {
            Some(i) => args::per_axis(c, i, n, "dilation", 1)?,
            None => vec![1; n],
        };
        for i in 0..n {
            if padding[i] > kernel[i] / 2 {
                bail!(
                    "padding {} is more than half the kernel size {} (spatial dimension {i})",
                    padding[i],
                    kernel[i]
                );
            }
        }
        Ok(Sliding {
            kernel,
            stride,
            padding,
            dilation,
            ceil_mode: args::boolean(c, ceil_mode)?,
        })
    }

    /// Kernel, stride, padding and dilation of axis `i`, wide enough that no
    /// arithmetic on them overflows.
    fn axis(&self, i: usize) -> [i128; 4] {
        [
            self.kernel[i],
            self.stride[i],
            self.padding[i],
            self.dilation[i],
        ]
        .map(|v| v as i128)
    }

    /// The number of windows along axis `i` of `size`: torch's rule, in which a
    /// ceil_mode window must start inside the input or its begin padding.
    fn windows(&self, i: usize, size: usize) -> Result<usize> {
        let [k, s, p, d] = self.axis(i);
        let size = size as i128;
        let extent = (k - 1) * d + 1;
        let padded = size + 2 * p;
        if padded < extent {
            bail!(
                "spatial dimension {i} of size {size} (padded {padded}) is smaller than the window {extent}"
            );
        }
        let span = padded - extent;
        let mut n = if self.ceil_mode {
            (span + s - 1) / s
        } else {
            span / s
        } + 1;
        if self.ceil_mode && (n - 1) * s >= size + p {
            n -= 1;
        }
        Ok(usize::try_from(n)?)
    }

    fn window_list(&self, input: &[usize]) -> Result<Vec<Vec<AxisWindow>>> {
        let mut axes = Vec::with_capacity(input.len());
        for (i, &size) in input.iter().enumerate() {
            let count = self.windows(i, size)?;
            let [k, s, p, d] = self.axis(i);
            let n = size as i128;
            let windows = (0..count as i128)
                .map(|o| {
                    let start = o * s - p;
                    // The taps j in [0, k) with start + j·d inside [0, n).
                    let first = if start >= 0 { 0 } else { (-start + d - 1) / d };
                    let last = if n - 1 - start < 0 {
                        -1
                    } else {
                        ((n - 1 - start) / d).min(k - 1)
                    };
                    let taps = (first..=last).map(|j| (start + j * d) as usize).collect();
                    // An average window may reach into the end padding, not past it.
                    let end = (start + k).min(n + p);
                    AxisWindow {
                        taps,
                        padded_size: (end - start).max(0) as usize,
                    }
                })
                .collect();
            axes.push(windows);
        }
        Ok(axes)
    }
}

/// `max_poolNd(self, kernel_size, stride, padding, dilation, ceil_mode)`.
fn max_pool(c: &Call, n: usize) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let (lead, input) = split_input(x, n)?;
    let sliding = Sliding::read(c, n, Some(4), 5)?;
    let windows = Windows {
        planes: result_count(&lead)?,
        axes: sliding.window_list(&input)?,
        lead,
        input,
    };
    // f32 compares exactly as its f64 image does, so f32 stays f32.
    if let Data::F32(v) = &x.data {
        // Without NaNs and negative zeros, equal values have equal bits and no value
        // is unordered, so the order of comparisons cannot show: the two passes of
        // `separable_max` give the same bytes.
        // Branch-free over the bits, so the scan vectorizes (ReLU outputs make a
        // test for zero unpredictable).
        let plain = || {
            let odd = v.iter().fold(false, |odd, f| {
                let b = f.to_bits();
                odd | (b == 0x8000_0000) | ((b & 0x7fff_ffff) > 0x7f80_0000)
            });
            !odd
        };
        if n == 2 && plain() {
            let values = separable_max(&windows, &sliding, v, f32::NEG_INFINITY)?;
            return args::ret(c, Tensor::new(windows.shape(), Data::F32(values))?);
        }
        let values = windows.apply(v, |plane, taps, _| max_of(plane, taps, f32::NEG_INFINITY))?;
        return args::ret(c, Tensor::new(windows.shape(), Data::F32(values))?);
    }
    let values = windows.apply(&x.data.to_f64(), |plane, taps, _| {
        max_of(plane, taps, f64::NEG_INFINITY)
    })?;
    args::ret(
        c,
        Tensor::new(windows.shape(), from_f64(x.data.dtype(), &values))?,
    )
}

/// `quantize_per_tensor(max_poolNd(dequantize(x)))` with the quantize's parameters
/// equal to x's, run on x's 8-bit integers (`qlower.qmax_pool`, see
/// `transforms::cpu_fusion::max_pool`). Operands: x, kernel, stride, padding,
/// dilation, ceil_mode, y_scale, y_zero_point (both `none`: the result keeps x's
/// quantization, as `compose-lookups` writes it). A window wholly in the padding gives
/// the type's lowest value, as quantizing -inf does.
pub fn quantized_max_pool(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let n = c.arg(1)?.as_int_list()?.len();
    let (lead, input) = split_shape(x, n)?;
    let sliding = Sliding::read(c, n, Some(4), 5)?;
    let windows = Windows {
        planes: result_count(&lead)?,
        axes: sliding.window_list(&input)?,
        lead,
        input,
    };
    let bytes = |v: &[u8], flip: u8| -> Result<Vec<u8>> {
        if let Some(axes) = small_stride_one(&sliding, &windows) {
            let (oh, ow) = (windows.axes[0].len(), windows.axes[1].len());
            let mut out = vec![0; result_count(&[windows.planes, oh, ow])?];
            max_pool_small::max_pool(
                v,
                &mut out,
                [windows.input[0], windows.input[1]],
                axes,
                flip,
            );
            return Ok(out);
        }
        let [kernel, stride, padding, dilation] = sliding.axis(1).map(|v| v as usize);
        let cols = max_pool_bytes::Columns {
            kernel,
            stride,
            padding,
            dilation,
            outputs: windows.axes[1].len(),
        };
        let rows: Vec<&[usize]> = windows.axes[0].iter().map(|w| w.taps.as_slice()).collect();
        let mut out = vec![flip; result_count(&[windows.planes, rows.len(), cols.outputs])?];
        max_pool_bytes::max_pool(
            v,
            &mut out,
            [windows.input[0], windows.input[1]],
            &rows,
            cols,
            flip,
        );
        Ok(out)
    };
    // The row pass pads whole rows: not for a padding far wider than the input.
    let narrow = n == 2 && sliding.padding[1] <= windows.input[1].max(64);
    let data = match (&x.data, n) {
        (Data::U8(v), 2) if narrow => Data::U8(bytes(v, 0)?),
        (Data::I8(v), 2) if narrow => {
            // SAFETY: i8 and u8 have one size and alignment, and every bit pattern is
            // valid for both.
            let v = unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, v.len()) };
            let v = bytes(v, 0x80)?;
            Data::I8(v.into_iter().map(|b| b as i8).collect())
        }
        (Data::U8(v), _) => Data::U8(windows.apply(v, |p, taps, _| max_of(p, taps, u8::MIN))?),
        (Data::I8(v), _) => Data::I8(windows.apply(v, |p, taps, _| max_of(p, taps, i8::MIN))?),
        (other, _) => bail!("a quantized max pool of {} values", other.dtype()),
    };
    let mut t = Tensor::new(windows.shape(), data)?;
    t.quant = match (c.arg(6)?, c.arg(7)?) {
        (Value::None, Value::None) => x.quant.clone(),
        _ => Some(Quant::PerTensor {
            scale: args::float(c, 6)?,
            zero_point: args::int(c, 7)?,
        }),
    };
    args::ret(c, t)
}

/// The geometry of a 2-D stride-1 pool over small planes, for `max_pool_small`, when
/// its output sizes are the windows' and no padding is wider than its axis: that path
/// lays out every padded row, so a padding the model sets far past the plane (the
/// window list itself stays as small as the output) must not reach it.
fn small_stride_one(sliding: &Sliding, windows: &Windows) -> Option<[max_pool_small::Axis; 2]> {
    let [ih, iw] = [*windows.input.first()?, *windows.input.get(1)?];
    if windows.input.len() != 2 || ih * iw > max_pool_small::MAX_PLANE {
        return None;
    }
    let axis = |i: usize, size: usize| {
        let [k, s, p, d] = sliding.axis(i).map(|v| v as usize);
        let a = max_pool_small::Axis {
            kernel: k,
            padding: p,
            dilation: d,
        };
        (s == 1 && k >= 1 && p <= size && a.outputs(size) == windows.axes[i].len()).then_some(a)
    };
    Some([axis(0, ih)?, axis(1, iw)?])
}

/// A 2-D max pool in two passes: per output row, the maxima of the input rows its
/// window covers, then each such row's maxima over the column windows — the same
/// maxima for values that are totally ordered and equal only when their bits are
/// (integers, or floats without NaNs and negative zeros). Rows first, because a
/// strided pool has fewer output rows than input rows and the row pass reads whole
/// contiguous rows; both passes are compiled for AVX2 where the CPU has it.
fn separable_max<T: Copy + PartialOrd + Send + Sync>(
    w: &Windows,
    sliding: &Sliding,
    x: &[T],
    low: T,
) -> Result<Vec<T>> {
    let rows = &w.axes[0];
    let (ih, iw) = (w.input[0], w.input[1]);
    let (oh, ow) = (rows.len(), w.axes[1].len());
    let plane_out = result_count(&[oh, ow])?;
    let mut out = vec![low; result_count(&[w.planes, plane_out])?];
    if plane_out == 0 || ih * iw == 0 {
        return Ok(out);
    }
    let [k, s, p, d] = sliding.axis(1).map(|v| v as usize);
    out.par_chunks_mut(plane_out)
        .zip(x.par_chunks(ih * iw))
        .with_min_len(units_per_task(w.planes, ih * iw, Cost::Arith))
        .for_each_init(
            || (Vec::new(), Vec::new()),
            |(down, phases), (y, plane)| {
                super::zip::with_avx2(
                    #[inline(always)]
                    || {
                        down.clear();
                        down.resize(iw, low);
                        for (window, y) in rows.iter().zip(y.chunks_exact_mut(ow)) {
                            down.fill(low);
                            for &r in &window.taps {
                                for (m, &v) in down.iter_mut().zip(&plane[r * iw..(r + 1) * iw]) {
                                    *m = if v > *m { v } else { *m };
                                }
                            }
                            row_maxima(down, [k, s, p, d], low, phases, y);
                        }
                    },
                )
            },
        );
    Ok(out)
}

/// The maxima of one input row over windows of `k` taps `d` apart, one window every
/// `s` columns starting at column `-p` (as many windows as `maxima` holds; positions
/// outside the row hold `low`, which never wins). The row, padded, is split into its
/// `s` phases: tap t of every window then reads one contiguous run of phase
/// `t·d mod s`, so each tap is a lane-wise maximum of two runs.
#[inline(always)]
fn row_maxima<T: Copy + PartialOrd>(
    row: &[T],
    [k, s, p, d]: [usize; 4],
    low: T,
    phases: &mut Vec<T>,
    maxima: &mut [T],
) {
    let ow = maxima.len();
    let s = s.max(1);
    // Each phase holds the windows' starts plus the furthest tap's shift.
    let len = ow + (k.saturating_sub(1) * d) / s + 1;
    phases.clear();
    phases.resize(s * len, low);
    for (r, phase) in phases.chunks_exact_mut(len).enumerate() {
        // Padded position i·s + r is row column i·s + r - p: the first i past the
        // left padding, then every s-th column of the row.
        let i0 = p.saturating_sub(r).div_ceil(s);
        let Some(c0) = (i0 * s + r).checked_sub(p) else {
            continue;
        };
        if let (Some(phase), Some(row)) = (phase.get_mut(i0..), row.get(c0..)) {
            match s {
                1 => every::<T, 1>(phase, row),
                2 => every::<T, 2>(phase, row),
                3 => every::<T, 3>(phase, row),
                _ => {
                    for (v, &x) in phase.iter_mut().zip(row.iter().step_by(s)) {
                        *v = x;
                    }
                }
            }
        }
    }
    maxima.fill(low);
    for t in 0..k {
        let o = t * d;
        let run = &phases[(o % s) * len + o / s..][..ow];
        for (m, &v) in maxima.iter_mut().zip(run) {
            *m = if v > *m { v } else { *m };
        }
    }
}

/// `dst[i] = src[i·S]` while both have elements: with `S` known, the loads vectorize.
#[inline(always)]
fn every<T: Copy, const S: usize>(dst: &mut [T], src: &[T]) {
    let (whole, rest) = src.as_chunks::<S>();
    for (d, chunk) in dst.iter_mut().zip(whole) {
        *d = chunk[0];
    }
    if let (Some(d), Some(&v)) = (dst.get_mut(whole.len()), rest.first()) {
        *d = v;
    }
}

/// The largest of `plane` at `taps`, `low` for none; the first NaN met wins.
fn max_of<T: Copy + PartialOrd>(plane: &[T], taps: &[usize], low: T) -> T {
    let mut m = low;
    for &t in taps {
        let v = plane[t];
        // NaN is the one value unequal to itself.
        #[allow(clippy::eq_op)]
        if v != v {
            return v;
        }
        if v > m {
            m = v;
        }
    }
    m
}

/// The f32 average of `plane` at `taps`: the sum rounded to f32 after each addition and
/// the quotient rounded once, as the f64 domain at f32 precision computes them (one
/// correctly rounded step each time, so f32 arithmetic gives the same numbers); a
/// window of the whole plane (taps ascending and distinct) sums in f64 lanes instead.
fn average_f32(plane: &[f32], taps: &[usize], divisor: f64) -> f32 {
    if !plane.is_empty() && taps.len() == plane.len() {
        return (super::row_reduce::sum_f64(plane) / divisor) as f32;
    }
    let sum = taps.iter().fold(0.0f32, |acc, &t| acc + plane[t]);
    sum / divisor as f32
}

/// `avg_poolNd(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
/// divisor_override?)`; 1-D has no divisor_override.
fn avg_pool(c: &Call, n: usize) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let dtype = averaged_dtype(x)?;
    let (lead, input) = split_input(x, n)?;
    let sliding = Sliding::read(c, n, None, 4)?;
    let count_include_pad = args::boolean(c, 5)?;
    let divisor = match args::opt_int(c, 6)? {
        Some(0) => bail!("divisor_override must not be 0"),
        Some(d) => Some(d as f64),
        None => None,
    };
    let windows = Windows {
        planes: result_count(&lead)?,
        axes: sliding.window_list(&input)?,
        lead,
        input,
    };
    let prec = Prec(dtype);
    let divisor_of = |taps: &[usize], padded_size: f64| match divisor {
        Some(d) => d,
        None if count_include_pad => padded_size,
        None => taps.len() as f64,
    };
    if let Data::F32(v) = &x.data {
        let values = windows.apply(v, |plane, taps, padded_size| {
            average_f32(plane, taps, divisor_of(taps, padded_size))
        })?;
        return args::ret(c, Tensor::new(windows.shape(), Data::F32(values))?);
    }
    let values = windows.apply(&x.data.to_f64(), |plane, taps, padded_size| {
        let sum = taps.iter().fold(0.0, |acc, &t| prec.round(acc + plane[t]));
        prec.round(sum / prec.round(divisor_of(taps, padded_size)))
    })?;
    args::ret(c, Tensor::new(windows.shape(), from_f64(dtype, &values))?)
}

/// The element type of a tensor to average: only floats are.
fn averaged_dtype(x: &Tensor) -> Result<DType> {
    let dtype = x.data.dtype();
    if !dtype.is_float() {
        bail!(
            "average pool of a {} tensor: only floats are averaged",
            x.dtype()
        );
    }
    Ok(dtype)
}

/// `adaptive_avg_poolNd(self, output_size)`: output position `o` of an axis averages
/// input positions `floor(o·in/out)` to `ceil((o+1)·in/out)`.
fn adaptive_avg_pool(c: &Call, n: usize) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let dtype = averaged_dtype(x)?;
    let (lead, input) = split_input(x, n)?;
    let sizes = args::per_axis(c, 1, n, "output_size", 0)?;
    result_count(&[lead.clone(), sizes.clone()].concat())?;
    let mut axes = Vec::with_capacity(n);
    for (i, (&size, &out)) in input.iter().zip(&sizes).enumerate() {
        if out == 0 || size == 0 {
            bail!("adaptive pool of size {size} to {out} along spatial dimension {i}");
        }
        axes.push(
            (0..out)
                .map(|o| {
                    let start = o * size / out;
                    let end = ((o + 1) * size).div_ceil(out);
                    AxisWindow {
                        taps: (start..end).collect(),
                        padded_size: end - start,
                    }
                })
                .collect(),
        );
    }
    let windows = Windows {
        planes: result_count(&lead)?,
        lead,
        input,
        axes,
    };
    if let Data::F32(v) = &x.data {
        let values = windows.apply(v, |plane, taps, _| {
            average_f32(plane, taps, taps.len() as f64)
        })?;
        return args::ret(c, Tensor::new(windows.shape(), Data::F32(values))?);
    }
    let prec = Prec(dtype);
    let values = windows.apply(&x.data.to_f64(), |plane, taps, _| {
        let sum = taps.iter().fold(0.0, |acc, &t| prec.round(acc + plane[t]));
        prec.round(sum / prec.round(taps.len() as f64))
    })?;
    args::ret(c, Tensor::new(windows.shape(), from_f64(dtype, &values))?)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    fn iota(shape: &[usize]) -> Value {
        let n: usize = shape.iter().product();
        f32s(shape, &(0..n).map(|i| i as f32).collect::<Vec<_>>())
    }

    fn max_pool2d(
        x: Value,
        k: &[i64],
        s: &[i64],
        p: &[i64],
        d: &[i64],
        ceil: bool,
    ) -> (Vec<usize>, Vec<f32>) {
        let args = [x, ints(k), ints(s), ints(p), ints(d), Value::Bool(ceil)];
        let t = run1("aten.max_pool2d", &args, unknown()).unwrap();
        (t.shape.clone(), f32_values(&t))
    }

    #[test]
    fn max_pool_floor_and_ceil_mode() {
        // 1x1x5x5 of 0..25, kernel 2, stride 2.
        let (shape, v) = max_pool2d(iota(&[1, 1, 5, 5]), &[2], &[2], &[0], &[1], false);
        assert_eq!(shape, vec![1, 1, 2, 2]);
        assert_eq!(v, vec![6.0, 8.0, 16.0, 18.0]);
        // ceil_mode adds the partial windows at the end.
        let (shape, v) = max_pool2d(iota(&[1, 1, 5, 5]), &[2], &[2], &[0], &[1], true);
        assert_eq!(shape, vec![1, 1, 3, 3]);
        assert_eq!(v, vec![6.0, 8.0, 9.0, 16.0, 18.0, 19.0, 21.0, 23.0, 24.0]);
        // Size 4, kernel 2, stride 2, padding 1: ceil(4 / 2) + 1 = 3 windows, the last
        // starting at 3, inside the input: all stay.
        let (shape, _) = max_pool2d(iota(&[1, 1, 4, 4]), &[2], &[2], &[1], &[1], true);
        assert_eq!(shape, vec![1, 1, 3, 3]);
        // Stride 3: ceil(4 / 3) + 1 = 3 windows, the last starting at 5, in the end
        // padding: dropped.
        let (shape, _) = max_pool2d(iota(&[1, 1, 4, 4]), &[2], &[3], &[1], &[1], true);
        assert_eq!(shape, vec![1, 1, 2, 2]);
    }

    #[test]
    fn two_pass_max_pool_equals_the_window_by_window_one() {
        // A second plane holding a NaN sends the whole call window by window; the
        // first plane's windows must then come out the same as in a call alone.
        let values: Vec<f32> = test_bytes(77, 9 * 11)
            .iter()
            .map(|&b| b as f32 * 0.5 - 60.0)
            .collect();
        for (k, st, p, d, ceil) in [
            (3, 2, 1, 1, false),
            (3, 2, 1, 1, true),
            (2, 3, 1, 1, true),
            (3, 1, 1, 2, false),
            (4, 2, 2, 1, false),
            (1, 1, 0, 1, false),
        ] {
            let alone = f32s(&[1, 1, 9, 11], &values);
            let (shape, fast) = max_pool2d(alone, &[k], &[st], &[p], &[d], ceil);
            let mut both = values.clone();
            both.extend(values.iter().map(|_| f32::NAN));
            let (_, slow) = max_pool2d(f32s(&[2, 1, 9, 11], &both), &[k], &[st], &[p], &[d], ceil);
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&fast),
                bits(&slow[..fast.len()]),
                "{k} {st} {p} {d} {ceil} {shape:?}"
            );
        }
    }

    #[test]
    fn max_pool_dilation_padding_and_nan() {
        let x = f32s(&[1, 1, 5], &[-1.0, -2.0, -3.0, -4.0, -5.0]);
        let args = [
            x,
            ints(&[2]),
            ints(&[1]),
            ints(&[1]),
            ints(&[2]),
            Value::Bool(false),
        ];
        let t = run1("aten.max_pool1d", &args, unknown()).unwrap();
        // Windows start at -1: taps {-1, 1}, {0, 2}, {1, 3}, {2, 4}, {3, 5}; padding
        // never wins.
        assert_eq!(f32_values(&t), vec![-2.0, -1.0, -2.0, -3.0, -4.0]);
        let x = f32s(&[1, 3], &[1.0, f32::NAN, 0.0]);
        let args = [
            x,
            ints(&[2]),
            ints(&[1]),
            ints(&[0]),
            ints(&[1]),
            Value::Bool(false),
        ];
        let t = run1("aten.max_pool1d", &args, unknown()).unwrap();
        assert!(f32_values(&t).iter().all(|v| v.is_nan()));
        let x = tensor(&[1, 1, 3], Data::I8(vec![-128, -5, 7]));
        let args = [
            x,
            ints(&[2]),
            ints(&[1]),
            ints(&[0]),
            ints(&[1]),
            Value::Bool(false),
        ];
        let t = run1("aten.max_pool1d", &args, unknown()).unwrap();
        assert_eq!(t.data, Data::I8(vec![-5, 7]));
        // Padding beyond half the kernel is refused.
        let args = [
            iota(&[1, 1, 4]),
            ints(&[2]),
            ints(&[1]),
            ints(&[2]),
            ints(&[1]),
            Value::Bool(false),
        ];
        assert!(run("aten.max_pool1d", &args, &[unknown()]).is_err());
    }

    fn avg_pool1d(x: Value, k: i64, s: i64, p: i64, ceil: bool, include: bool) -> Vec<f32> {
        let args = [
            x,
            ints(&[k]),
            ints(&[s]),
            ints(&[p]),
            Value::Bool(ceil),
            Value::Bool(include),
        ];
        f32_values(&run1("aten.avg_pool1d", &args, unknown()).unwrap())
    }

    #[test]
    fn avg_pool_counts_padding_or_not() {
        let x = f32s(&[1, 1, 4], &[1.0, 2.0, 3.0, 4.0]);
        // Windows [-1, 1), [1, 3), [3, 5): padding counts toward the divisor or not.
        assert_eq!(
            avg_pool1d(x.clone(), 2, 2, 1, false, true),
            vec![0.5, 2.5, 2.0]
        );
        assert_eq!(
            avg_pool1d(x.clone(), 2, 2, 1, false, false),
            vec![1.0, 2.5, 4.0]
        );
        // ceil_mode: size 4, kernel 3, stride 2 → windows at 0 and 2 ([2, 5) is cut at 4:
        // beyond the padding, so it is not counted even with count_include_pad).
        assert_eq!(avg_pool1d(x.clone(), 3, 2, 0, true, true), vec![2.0, 3.5]);
        assert_eq!(avg_pool1d(x, 3, 2, 0, false, true), vec![2.0]);
    }

    #[test]
    fn avg_pool_divisor_override_and_2d() {
        let args = [
            iota(&[1, 1, 2, 2]),
            ints(&[2, 2]),
            ints(&[]),
            ints(&[0, 0]),
            Value::Bool(false),
            Value::Bool(true),
            Value::Int(2),
        ];
        let t = run1("aten.avg_pool2d", &args, unknown()).unwrap();
        assert_eq!(
            (t.shape.clone(), f32_values(&t)),
            (vec![1, 1, 1, 1], vec![3.0])
        );
        let mut args = args;
        args[6] = Value::None;
        let t = run1("aten.avg_pool2d", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![1.5]);
    }

    #[test]
    fn adaptive_average_windows_overlap() {
        // Size 5 to 3: windows [0, 2), [1, 4), [3, 5).
        let x = f32s(&[1, 1, 5], &[1.0, 2.0, 3.0, 4.0, 5.0]);
        let t = run1("aten.adaptive_avg_pool1d", &[x, ints(&[3])], unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![1.5, 3.0, 4.5]);
        let t = run1(
            "aten.adaptive_avg_pool2d",
            &[iota(&[1, 2, 2, 2]), ints(&[1, 1])],
            unknown(),
        )
        .unwrap();
        assert_eq!(
            (t.shape.clone(), f32_values(&t)),
            (vec![1, 2, 1, 1], vec![1.5, 5.5])
        );
    }

    /// The f32 paths of the max and average pools against the f64 formulas, on a pool
    /// big enough to be split over threads: the max bit for bit; the global average (an
    /// f64 sum, one rounded quotient) within one f32 ulp of the in-order f64 sum's,
    /// since the f64 sum's order moves only its last bits.
    #[test]
    fn f32_pools_are_bit_identical_to_the_f64_formulas() {
        let (planes, h, w) = (40, 17, 23);
        let x = super::super::arith::tests::awkward_f32s(planes * h * w, 5);
        // Mostly finite values, so averages are not all NaN.
        let x: Vec<f32> = x
            .iter()
            .map(|v| {
                if v.is_finite() {
                    v.clamp(-1e6, 1e6)
                } else {
                    *v
                }
            })
            .collect();
        let input = f32s(&[2, planes / 2, h, w], &x);
        let (shape, got) = max_pool2d(input.clone(), &[3, 3], &[2, 2], &[1, 1], &[1, 1], false);
        assert_eq!(shape, vec![2, planes / 2, 9, 12]);
        let (oh, ow) = (9, 12);
        for p in 0..planes {
            for i in 0..oh {
                for j in 0..ow {
                    let mut m = f64::NEG_INFINITY;
                    'window: for di in 0..3 {
                        for dj in 0..3 {
                            let (y, z) = ((2 * i + di) as i64 - 1, (2 * j + dj) as i64 - 1);
                            if y < 0 || z < 0 || y >= h as i64 || z >= w as i64 {
                                continue;
                            }
                            let v = x[p * h * w + y as usize * w + z as usize] as f64;
                            if v.is_nan() {
                                m = v;
                                break 'window;
                            }
                            m = m.max(v);
                        }
                    }
                    let g = got[(p * oh + i) * ow + j];
                    assert!(g.to_bits() == (m as f32).to_bits() || (g.is_nan() && m.is_nan()));
                }
            }
        }
        let args = [input, ints(&[1, 1])];
        let t = run1("aten.adaptive_avg_pool2d", &args, unknown()).unwrap();
        let got = f32_values(&t);
        for p in 0..planes {
            let sum: f64 = x[p * h * w..(p + 1) * h * w]
                .iter()
                .map(|&v| v as f64)
                .sum();
            let want = (sum / (h * w) as f64) as f32;
            let ulps = (got[p].to_bits() as i64 - want.to_bits() as i64).abs();
            assert!(
                ulps <= 1 || got[p] == want || (got[p].is_nan() && want.is_nan()),
                "plane {p}: {} against {want}",
                got[p]
            );
        }
    }

    /// A global average over a large plane, against the float64 mean of the same f32
    /// inputs: within an ulp. Summed in f32 in order, as before, it was 412 ulps off.
    #[test]
    fn a_large_average_is_within_an_ulp_of_the_float64_mean() {
        let (h, w) = (100, 100);
        let x: Vec<f32> = (0..h * w).map(|i| 0.1 + (i % 7) as f32 * 0.013).collect();
        let args = [f32s(&[1, 1, h, w], &x), ints(&[1, 1])];
        let got = f32_values(&run1("aten.adaptive_avg_pool2d", &args, unknown()).unwrap())[0];
        let mean = x.iter().map(|&v| v as f64).sum::<f64>() / (h * w) as f64;
        let ulp = (mean as f32).to_bits().abs_diff(got.to_bits());
        assert!(ulp <= 1, "{got} against {mean}: {ulp} ulps");
        let in_order = x.iter().fold(0.0f32, |s, &v| s + v) / (h * w) as f32;
        assert!((mean as f32).to_bits().abs_diff(in_order.to_bits()) > 1);
    }
}
