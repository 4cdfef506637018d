//! torch's quantized tensors: quantize, dequantize, and the ops that attach or drop
//! quantization parameters. Arithmetic follows ONNX's QuantizeLinear and
//! DequantizeLinear so results agree with ONNX Runtime element by element:
//! `q = saturate(round_half_even(x / scale) + zero_point)` and
//! `x = (q - zero_point) · scale`, both in f32 with the scale taken as f32.

use std::borrow::Cow;
use std::mem::MaybeUninit;

use anyhow::{Context as _, Result, bail};
use rayon::prelude::*;

use crate::kernels::split::{Cost, task_len};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::unfilled::{as_unfilled, written_by};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten._make_per_tensor_quantized_tensor" => make_per_tensor,
        "aten._make_per_channel_quantized_tensor" => make_per_channel,
        "aten.quantize_per_tensor" => quantize_per_tensor,
        "aten.quantize_per_channel" => quantize_per_channel,
        "aten.dequantize.self" | "aten.dequantize.tensor" => dequantize,
        "aten.int_repr" => int_repr,
        _ => return None,
    })
}

/// Scales and zero points by element: element `i` uses channel `(i / inner) % count`,
/// where `inner` is the number of elements after the channel axis. Per-tensor
/// parameters are one channel.
struct Params {
    scales: Vec<f32>,
    zero_points: Vec<i64>,
    inner: usize,
}

impl Params {
    fn per_tensor(scale: f64, zero_point: i64) -> Params {
        Params {
            scales: vec![scale as f32],
            zero_points: vec![zero_point],
            inner: 1,
        }
    }

    /// Per-channel parameters along `axis` of `shape`, one per index of that axis.
    fn per_channel(
        scales: &[f64],
        zero_points: &[i64],
        axis: usize,
        shape: &[usize],
    ) -> Result<Params> {
        let Some(&channels) = shape.get(axis) else {
            bail!("axis {axis} is out of range for a tensor of shape {shape:?}");
        };
        if scales.len() != channels || zero_points.len() != channels {
            bail!(
                "{} scales and {} zero points for {channels} channels (axis {axis} of shape {shape:?})",
                scales.len(),
                zero_points.len()
            );
        }
        Ok(Params {
            scales: scales.iter().map(|&s| s as f32).collect(),
            zero_points: zero_points.to_vec(),
            inner: shape[axis + 1..].iter().product(),
        })
    }

    fn of(quant: &Quant, shape: &[usize]) -> Result<Params> {
        match quant {
            Quant::PerTensor { scale, zero_point } => Ok(Params::per_tensor(*scale, *zero_point)),
            Quant::PerChannel {
                scales,
                zero_points,
                axis,
            } => Params::per_channel(scales, zero_points, *axis, shape),
        }
    }

    /// The scale and zero point of element `i`.
    fn at(&self, i: usize) -> (f32, i64) {
        let count = self.scales.len().min(self.zero_points.len()).max(1);
        let c = (i / self.inner.max(1)) % count;
        (
            self.scales.get(c).copied().unwrap_or(1.0),
            self.zero_points.get(c).copied().unwrap_or(0),
        )
    }
}

/// The integer range of a quantized type.
fn range(dtype: DType) -> Result<(i64, i64)> {
    Ok(match dtype {
        DType::QUInt8 => (0, 255),
        DType::QInt8 => (-128, 127),
        DType::QInt32 => (i32::MIN.into(), i32::MAX.into()),
        other => bail!("{other} is not a quantized type"),
    })
}

/// The quantized type of `t`'s integers, which must be what the IR declares if it
/// declares one.
fn quantized_type_of(c: &Call, t: &Tensor) -> Result<DType> {
    let Some(q) = t.data.dtype().quantized() else {
        bail!(
            "a {} tensor cannot be made quantized: the integers must be ui8, si8 or si32",
            t.data.dtype()
        );
    };
    if let Some(d) = args::declared_dtype(c)
        && d != q
    {
        bail!(
            "the IR declares {d}, but {} integers make {q}",
            t.data.dtype()
        );
    }
    Ok(q)
}

fn make_per_tensor(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    quantized_type_of(c, x)?;
    let scale = args::float(c, 1)?;
    let zero_point = args::int(c, 2)?;
    let mut t = Tensor::new(x.shape.clone(), x.data.clone())?;
    t.quant = Some(Quant::PerTensor { scale, zero_point });
    args::ret(c, t)
}

/// Per-channel parameters from operands `scales`, `zero_points` and `axis`, for a
/// tensor of `shape`.
fn channel_operands(
    c: &Call,
    first: usize,
    shape: &[usize],
) -> Result<(Vec<f64>, Vec<i64>, usize)> {
    let scales = args::tensor(c, first)?;
    let zero_points = args::tensor(c, first + 1)?;
    if !scales.data.dtype().is_float() {
        bail!("scales must be floats, but are {}", scales.dtype());
    }
    if scales.rank() > 1 || zero_points.rank() > 1 {
        bail!(
            "scales {:?} and zero points {:?} must be 1-D",
            scales.shape,
            zero_points.shape
        );
    }
    let axis = args::dim(args::int(c, first + 2)?, shape.len()).context("axis")?;
    let (s, z) = (scales.data.to_f64(), zero_points.data.to_i64());
    Params::per_channel(&s, &z, axis, shape)?;
    Ok((s, z, axis))
}

fn make_per_channel(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    quantized_type_of(c, x)?;
    let (scales, zero_points, axis) = channel_operands(c, 1, &x.shape)?;
    let mut t = Tensor::new(x.shape.clone(), x.data.clone())?;
    t.quant = Some(Quant::PerChannel {
        scales,
        zero_points,
        axis,
    });
    args::ret(c, t)
}

/// The float values to quantize, as f32 (borrowed when they are f32 already). torch
/// quantizes float tensors only.
fn f32_input(t: &Tensor) -> Result<Cow<'_, [f32]>> {
    if t.quant.is_some() || !t.data.dtype().is_float() {
        bail!("only float tensors can be quantized, not {}", t.dtype());
    }
    Ok(match &t.data {
        Data::F32(v) => Cow::Borrowed(v),
        other => Cow::Owned(other.to_f64().into_iter().map(|x| x as f32).collect()),
    })
}

/// The quantized type to produce: the dtype operand, agreeing with the declaration.
fn target_type(c: &Call, i: usize) -> Result<DType> {
    let dtype = args::dtype_code(c, i)?;
    if !dtype.is_quantized() {
        bail!("operand {i}: {dtype} is not a quantized type");
    }
    if let Some(d) = args::declared_dtype(c)
        && d != dtype
    {
        bail!("the IR declares {d}, but the dtype operand says {dtype}");
    }
    Ok(dtype)
}

/// ONNX QuantizeLinear of every element. The division and rounding run in f32; the
/// zero point is added to the rounded value exactly, then the sum saturates.
/// `quantize_per_tensor` of `x` to uint8 with `scale` and `zero_point`: the integers
/// the kernel below writes, for fused steps that quantize their own input.
pub(crate) fn quantize_uint8(x: &[f32], scale: f32, zero_point: i64) -> Result<Vec<u8>> {
    match quantize_values(
        x,
        &Params::per_tensor(scale as f64, zero_point),
        DType::QUInt8,
    )? {
        Data::U8(v) => Ok(v),
        _ => bail!("internal error: uint8 quantization gave another type"),
    }
}

/// `quantize_uint8` of `x` into `y` (as long as `x`), on the calling thread: the same
/// per-element arithmetic, so the same bytes, for callers that place each run of
/// elements themselves (dynamic quantization writes rows straight into a matmul's
/// packed operand, one rayon task per block of rows).
pub(crate) fn quantize_uint8_into(x: &[f32], y: &mut [u8], scale: f32, zero_point: u8) {
    let (lo, hi, zero_point) = (0, 255, i32::from(zero_point));
    let y = as_unfilled(y);
    #[cfg(target_arch = "x86_64")]
    if simd::available() {
        // SAFETY: `available` says the CPU has AVX2, `wide` that it has AVX-512; the
        // zero point is a u8, inside 0..=255.
        unsafe {
            if simd::wide() {
                simd::quantize_avx512(x, y, scale, zero_point, lo, hi)
            } else {
                simd::quantize(x, y, scale, zero_point, lo, hi)
            }
        };
        return;
    }
    quantize_run(x, y, scale, zero_point, lo, hi);
}

/// What `quantize_per_tensor(dequantize(q))` gives for every 8-bit q of type `dtype`
/// (QUInt8 or QInt8), indexed by q's bit pattern: dequantized with `from` and quantized
/// with `to` (scale, zero point) by the kernels below, so a table lookup gives the
/// unfused ops' bytes.
pub(crate) fn requantize_table(
    dtype: DType,
    from: (f64, i64),
    to: (f64, i64),
) -> Result<[u8; 256]> {
    let dequantized = match dtype {
        DType::QUInt8 => {
            let q: Vec<u8> = (0..=255).collect();
            dequantize_narrow(&q, &Params::per_tensor(from.0, from.1), false)
        }
        DType::QInt8 => {
            let q: Vec<i8> = (0..=255u8).map(|b| b as i8).collect();
            dequantize_narrow(&q, &Params::per_tensor(from.0, from.1), false)
        }
        other => bail!("requantizing {other}: only 8-bit types are tabulated"),
    };
    let bytes: Vec<u8> =
        match quantize_values(&dequantized, &Params::per_tensor(to.0, to.1), dtype)? {
            Data::U8(v) => v,
            Data::I8(v) => v.into_iter().map(|b| b as u8).collect(),
            _ => bail!("internal error: 8-bit quantization gave another type"),
        };
    bytes
        .try_into()
        .map_err(|_| anyhow::anyhow!("internal error: a requantization table of the wrong size"))
}

fn quantize_values(x: &[f32], params: &Params, dtype: DType) -> Result<Data> {
    let (lo, hi) = range(dtype)?;
    if let Some(z) = params.zero_points.iter().find(|&&z| z < lo || z > hi) {
        bail!("zero point {z} is outside the range of {dtype}");
    }
    let simd = simd::available();
    Ok(match dtype {
        DType::QUInt8 => Data::U8(quantize_narrow(x, params, lo, hi, simd)),
        DType::QInt8 => Data::I8(quantize_narrow(x, params, lo, hi, simd)),
        _ => {
            let mut out = vec![0i32; x.len()];
            for_runs(&mut out, params, |at, y, scale, zero_point| {
                for (v, y) in x[at..at + y.len()].iter().zip(y) {
                    *y = quantize_wide(*v, scale, zero_point, lo, hi) as i32;
                }
            });
            Data::I32(out)
        }
    })
}

/// The reference formula of one element: the f32 quotient rounded, plus the zero point in
/// f64, saturated to `lo..=hi`.
fn quantize_wide(v: f32, scale: f32, zero_point: i64, lo: i64, hi: i64) -> i64 {
    let r = (v / scale).round_ties_even() as f64 + zero_point as f64;
    // NaN saturates to the low end rather than to an arbitrary value.
    if r.is_nan() {
        lo
    } else {
        r.clamp(lo as f64, hi as f64) as i64
    }
}

/// An 8-bit quantized storage type.
trait Narrow: Copy + Default + Send + Sync {
    const SIGNED: bool;
    fn from_i32(v: i32) -> Self;
    fn to_i32(self) -> i32;
}

impl Narrow for u8 {
    const SIGNED: bool = false;
    fn from_i32(v: i32) -> Self {
        v as u8
    }
    fn to_i32(self) -> i32 {
        self.into()
    }
}

impl Narrow for i8 {
    const SIGNED: bool = true;
    fn from_i32(v: i32) -> Self {
        v as i8
    }
    fn to_i32(self) -> i32 {
        self.into()
    }
}

/// `quantize_wide` for 8-bit targets, in f32 and i32 so it vectorizes: the same f32
/// quotient and rounding; then, as the rounded value `q` is an integer (or infinite, or
/// NaN) and the zero point lies in `lo..=hi`, saturating `q + zp` to `lo..=hi` equals
/// clamping `q` to `lo - zp..=hi - zp` (exact small integers in f32) and adding `zp`.
#[inline(always)]
fn quantize_run<Q: Narrow>(
    x: &[f32],
    y: &mut [MaybeUninit<Q>],
    scale: f32,
    zero_point: i32,
    lo: i32,
    hi: i32,
) {
    let (q_lo, q_hi) = ((lo - zero_point) as f32, (hi - zero_point) as f32);
    for (v, y) in x.iter().zip(y) {
        let q = (v / scale).round_ties_even();
        // `max` returns `q_lo` for a NaN, which then gives `lo`, as quantizing a NaN
        // does; a whole number in range converts without the saturating cast's
        // checks, so the loop vectorizes.
        let clamped = q.max(q_lo).min(q_hi);
        // SAFETY: `clamped` lies in `q_lo..=q_hi`, whole numbers within ±2^16 (8- and
        // 16-bit ranges minus a zero point in them), which i32 holds.
        let r: i32 = unsafe { clamped.to_int_unchecked() };
        y.write(Q::from_i32(r + zero_point));
    }
}

fn quantize_narrow<Q: Narrow>(x: &[f32], params: &Params, lo: i64, hi: i64, simd: bool) -> Vec<Q> {
    let (lo, hi) = (lo as i32, hi as i32);
    let wide = simd && simd::wide();
    let quantize_span = |at: usize, y: &mut [MaybeUninit<Q>], scale: f32, zero_point: i64| {
        // The caller checked every zero point against `lo..=hi`.
        let (x, zero_point) = (&x[at..at + y.len()], zero_point as i32);
        #[cfg(target_arch = "x86_64")]
        if simd {
            // SAFETY: `simd` says the CPU has AVX2, `wide` that it has AVX-512.
            unsafe {
                if wide {
                    simd::quantize_avx512(x, y, scale, zero_point, lo, hi)
                } else {
                    simd::quantize(x, y, scale, zero_point, lo, hi)
                }
            };
            return;
        }
        let _ = simd;
        quantize_run(x, y, scale, zero_point, lo, hi);
    };
    let fill = |out: &mut [MaybeUninit<Q>]| for_runs(out, params, quantize_span);
    // SAFETY: `for_runs` covers `out` with runs, and each path of `quantize_span` writes
    // every element of a run from the run of `x` as long (whole blocks through the
    // vector stores, the rest through `quantize_run`).
    unsafe { written_by(x.len(), fill) }
}

/// `(q - zero_point) · scale` for 8-bit integers: the difference is exact in i32 (the
/// zero point is small) and converts to the same f32 as the i64 difference.
#[inline(always)]
/// Writes every element of `y` (as long as `q`), never reading it.
fn dequantize_run<Q: Narrow>(q: &[Q], y: &mut [MaybeUninit<f32>], scale: f32, zero_point: i32) {
    for (q, y) in q.iter().zip(y) {
        y.write((q.to_i32() - zero_point) as f32 * scale);
    }
}

fn dequantize_narrow<Q: Narrow>(q: &[Q], params: &Params, simd: bool) -> Vec<f32> {
    let fill = |out: &mut [MaybeUninit<f32>]| {
        for_runs(out, params, |at, y, scale, zero_point| {
            dequantize_narrow_into(&q[at..at + y.len()], y, scale, zero_point, simd)
        })
    };
    // SAFETY: `for_runs` covers `out` with runs, and `dequantize_narrow_into` writes
    // every element of each run from the run of `q` as long.
    unsafe { written_by(q.len(), fill) }
}

/// One run of `q` sharing its parameters, dequantized into `y` (as long), every
/// element of which it writes.
fn dequantize_narrow_into<Q: Narrow>(
    q: &[Q],
    y: &mut [MaybeUninit<f32>],
    scale: f32,
    zero_point: i64,
    simd: bool,
) {
    // Zero points this small keep `q - zero_point` far inside i32 and exact in f32's
    // conversion; others take the i64 formula.
    if zero_point.unsigned_abs() > 1 << 24 {
        for (q, y) in q.iter().zip(y) {
            y.write((i64::from(q.to_i32()).wrapping_sub(zero_point) as f32) * scale);
        }
        return;
    }
    let zero_point = zero_point as i32;
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` says the CPU has AVX2.
        unsafe { simd::dequantize(q, y, scale, zero_point) };
        return;
    }
    let _ = simd;
    dequantize_run(q, y, scale, zero_point);
}

/// The values `dequantize` gives elements `at..at + y.len()` of an 8-bit tensor
/// quantized per tensor (its storage `data`), written into `y`: for fused kernels
/// that dequantize only the part of a tensor they read.
pub(crate) fn dequantize_span(data: &Data, at: usize, y: &mut [f32], quant: &Quant) -> Result<()> {
    let Quant::PerTensor { scale, zero_point } = quant else {
        bail!("only a tensor quantized per tensor is dequantized in part");
    };
    let params = Params::per_tensor(*scale, *zero_point);
    let (scale, zero_point) = params.at(0);
    let end = at.checked_add(y.len());
    let simd = simd::available();
    match data {
        Data::U8(q) => match end.and_then(|end| q.get(at..end)) {
            Some(q) => dequantize_narrow_into(q, as_unfilled(y), scale, zero_point, simd),
            None => bail!("elements {at}.. lie outside the tensor's {}", q.len()),
        },
        Data::I8(q) => match end.and_then(|end| q.get(at..end)) {
            Some(q) => dequantize_narrow_into(q, as_unfilled(y), scale, zero_point, simd),
            None => bail!("elements {at}.. lie outside the tensor's {}", q.len()),
        },
        other => bail!("{} is not an 8-bit quantized storage", other.dtype()),
    }
    Ok(())
}

/// `f(start, out[start..start + len], scale, zero_point)` over runs of elements that
/// share their parameters, covering `out` in order; large outputs are split over the pool
/// (a quantize or dequantize runs at a fraction of a nanosecond an element, so only
/// large ones: smart-turn's 27 dequantizes of 154K elements took 10 µs more each at 2
/// threads than at 1 in 32K tasks).
fn for_runs<R: Send>(out: &mut [R], params: &Params, f: impl Fn(usize, &mut [R], f32, i64) + Sync) {
    let inner = params.inner.max(1);
    let per_tensor = params.scales.len().min(params.zero_points.len()) <= 1;
    let per_task = task_len(out.len(), Cost::Arith, 1);
    let work = |(k, chunk): (usize, &mut [R])| {
        let base = k * per_task;
        let mut i = 0;
        while i < chunk.len() {
            let at = base + i;
            let left = chunk.len() - i;
            let len = if per_tensor {
                left
            } else {
                (inner - at % inner).min(left)
            };
            let (scale, zero_point) = params.at(at);
            f(at, &mut chunk[i..i + len], scale, zero_point);
            i += len;
        }
    };
    if out.len() > per_task {
        out.par_chunks_mut(per_task).enumerate().for_each(work);
    } else {
        work((0, out));
    }
}

/// The same loops compiled for AVX2, where `round_ties_even` is one instruction and
/// the loops vectorize; chosen at run time. The arithmetic is the portable loops' own.
mod simd {
    #[cfg(target_arch = "x86_64")]
    use std::mem::MaybeUninit;

    #[cfg(target_arch = "x86_64")]
    use super::{Narrow, dequantize_run, quantize_run};
    #[cfg(target_arch = "x86_64")]
    use crate::kernels::quantized::quotient;

    use crate::kernels::isa::Isa;

    pub fn available() -> bool {
        Isa::best().includes(Isa::Avx2)
    }

    /// Whole blocks through `quotient`'s reciprocal, the rest (and scales it declines)
    /// through the division.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub unsafe fn quantize<Q: Narrow>(
        x: &[f32],
        y: &mut [MaybeUninit<Q>],
        scale: f32,
        zero_point: i32,
        lo: i32,
        hi: i32,
    ) {
        blocks(x, y, scale, zero_point, lo, hi, |xb, y, r, q_lo, q_hi| {
            // SAFETY: AVX2 is enabled here; `blocks` passes LANES bytes and bounds in
            // the type's range.
            unsafe { quotient::quantize_avx2(xb, y, scale, r, q_lo, q_hi, zero_point, Q::SIGNED) }
        })
    }

    /// `quantize` with AVX-512 blocks.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2")]
    pub unsafe fn quantize_avx512<Q: Narrow>(
        x: &[f32],
        y: &mut [MaybeUninit<Q>],
        scale: f32,
        zero_point: i32,
        lo: i32,
        hi: i32,
    ) {
        blocks(x, y, scale, zero_point, lo, hi, |xb, y, r, q_lo, q_hi| {
            // SAFETY: AVX-512 F is enabled here; as above.
            unsafe { quotient::quantize_avx512(xb, y, scale, r, q_lo, q_hi, zero_point) }
        })
    }

    /// Each whole block of `x` through `one(block, its output bytes, reciprocal, q_lo,
    /// q_hi)`, the rest through `quantize_run`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn blocks<Q: Narrow>(
        x: &[f32],
        y: &mut [MaybeUninit<Q>],
        scale: f32,
        zero_point: i32,
        lo: i32,
        hi: i32,
        one: impl Fn(&[f32; quotient::LANES], *mut u8, f32, f32, f32),
    ) {
        const { assert!(std::mem::size_of::<Q>() == 1) };
        let Some(r) = quotient::reciprocal(scale) else {
            return quantize_run(x, y, scale, zero_point, lo, hi);
        };
        // The caller checked the zero point against `lo..=hi`.
        let (q_lo, q_hi) = ((lo - zero_point) as f32, (hi - zero_point) as f32);
        let (blocks, x_rest) = x.as_chunks::<{ quotient::LANES }>();
        let (y_blocks, y_rest) = y.as_chunks_mut::<{ quotient::LANES }>();
        for (xb, yb) in blocks.iter().zip(y_blocks) {
            one(xb, yb.as_mut_ptr() as *mut u8, r, q_lo, q_hi);
        }
        quantize_run(x_rest, y_rest, scale, zero_point, lo, hi)
    }

    /// Whether the CPU has AVX-512 for `quantize_avx512`.
    pub fn wide() -> bool {
        Isa::best().includes(Isa::Avx512Vnni)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub unsafe fn dequantize<Q: Narrow>(
        q: &[Q],
        y: &mut [MaybeUninit<f32>],
        scale: f32,
        zero_point: i32,
    ) {
        dequantize_run(q, y, scale, zero_point)
    }
}

fn quantize_per_tensor(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let params = Params::per_tensor(args::float(c, 1)?, args::int(c, 2)?);
    let dtype = target_type(c, 3)?;
    let data = quantize_values(&f32_input(x)?, &params, dtype)?;
    let mut t = Tensor::new(x.shape.clone(), data)?;
    t.quant = Some(Quant::PerTensor {
        scale: args::float(c, 1)?,
        zero_point: args::int(c, 2)?,
    });
    args::ret(c, t)
}

fn quantize_per_channel(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let (scales, zero_points, axis) = channel_operands(c, 1, &x.shape)?;
    let dtype = target_type(c, 4)?;
    let params = Params::per_channel(&scales, &zero_points, axis, &x.shape)?;
    let data = quantize_values(&f32_input(x)?, &params, dtype)?;
    let mut t = Tensor::new(x.shape.clone(), data)?;
    t.quant = Some(Quant::PerChannel {
        scales,
        zero_points,
        axis,
    });
    args::ret(c, t)
}

/// ONNX DequantizeLinear: the integer difference `q - zero_point`, converted to f32,
/// times the f32 scale. A float tensor dequantizes to itself as f32, as in torch.
pub(crate) fn dequantize(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let Some(quant) = &x.quant else {
        if x.data.dtype().is_float() {
            let data = crate::kernels::tensor::data::cast(&x.data, DType::F32);
            return args::ret(c, Tensor::new(x.shape.clone(), data)?);
        }
        bail!(
            "dequantize of a {} tensor, which is not quantized",
            x.dtype()
        );
    };
    let params = Params::of(quant, &x.shape)?;
    let simd = simd::available();
    let values = match &x.data {
        Data::U8(q) => dequantize_narrow(q, &params, simd),
        Data::I8(q) => dequantize_narrow(q, &params, simd),
        Data::I32(q) => {
            let mut out = vec![0.0f32; q.len()];
            for_runs(&mut out, &params, |at, y, scale, zero_point| {
                for (q, y) in q[at..at + y.len()].iter().zip(y) {
                    *y = (i64::from(*q).wrapping_sub(zero_point) as f32) * scale;
                }
            });
            out
        }
        other => reference_dequantize(other, &params),
    };
    args::ret(c, Tensor::new(x.shape.clone(), Data::F32(values))?)
}

/// Dequantization of any integer storage, element by element through i64: the formula
/// the typed loops above reproduce.
fn reference_dequantize(data: &Data, params: &Params) -> Vec<f32> {
    data.to_i64()
        .into_iter()
        .enumerate()
        .map(|(i, q)| {
            let (scale, zero_point) = params.at(i);
            (q.wrapping_sub(zero_point) as f32) * scale
        })
        .collect()
}

fn int_repr(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    if x.quant.is_none() {
        bail!("int_repr of a {} tensor, which is not quantized", x.dtype());
    }
    args::ret(c, Tensor::new(x.shape.clone(), x.data.clone())?)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::tensor::{Data, Quant};
    use crate::kernels::testing::*;

    fn quint8() -> Value {
        Value::Int(DType::QUInt8.torch_scalar_type())
    }

    #[test]
    fn quantize_rounds_half_to_even_and_saturates() {
        // x / 0.5 is exactly 0.5, 1.5, 2.5, -0.5, -1.5: ties go to the even neighbour.
        let x = f32s(&[7], &[0.25, 0.75, 1.25, -0.25, -0.75, 1000.0, -1000.0]);
        let args = [x, Value::Float(0.5), Value::Int(10), quint8()];
        let q = run1("aten.quantize_per_tensor", &args, of(DType::QUInt8)).unwrap();
        assert_eq!(q.data, Data::U8(vec![10, 12, 12, 10, 8, 255, 0]));
        assert_eq!(
            q.quant,
            Some(Quant::PerTensor {
                scale: 0.5,
                zero_point: 10
            })
        );
        let qint8 = Value::Int(DType::QInt8.torch_scalar_type());
        let x = f32s(&[3], &[-200.0, 200.0, 2.5]);
        let args = [x, Value::Float(1.0), Value::Int(0), qint8];
        let q = run1("aten.quantize_per_tensor", &args, of(DType::QInt8)).unwrap();
        assert_eq!(q.data, Data::I8(vec![-128, 127, 2]));
    }

    #[test]
    fn quantize_divides_in_f32() {
        // x / 0.1 is exactly 32.5 in f32 and rounds to 32; multiplying by the f32
        // reciprocal would give 32.500004 and round to 33.
        let x = 6500.0f32 * 0.0005;
        let args = [
            f32s(&[1], &[x]),
            Value::Float(0.1f32 as f64),
            Value::Int(0),
            quint8(),
        ];
        let q = run1("aten.quantize_per_tensor", &args, of(DType::QUInt8)).unwrap();
        assert_eq!(q.data, Data::U8(vec![32]));
    }

    #[test]
    fn per_channel_parameters_follow_the_axis() {
        // Shape [2, 3], channels along axis 1.
        let x = f32s(&[2, 3], &[1.0, 1.0, 1.0, -1.0, -1.0, -1.0]);
        let scales = f32s(&[3], &[1.0, 0.5, 0.25]);
        let zps = tensor(&[3], Data::I8(vec![0, 1, -1]));
        let qint8 = Value::Int(DType::QInt8.torch_scalar_type());
        let args = [x, scales, zps, Value::Int(1), qint8];
        let q = run1("aten.quantize_per_channel", &args, of(DType::QInt8)).unwrap();
        assert_eq!(q.data, Data::I8(vec![1, 3, 3, -1, -1, -5]));
        let d = run1("aten.dequantize.self", &[Value::Tensor(q)], of(DType::F32)).unwrap();
        assert_eq!(f32_values(&d), vec![1.0, 1.0, 1.0, -1.0, -1.0, -1.0]);
    }

    #[test]
    fn dequantize_per_channel_along_axis_zero() {
        let x = tensor(&[2, 2], Data::U8(vec![10, 20, 10, 20]));
        let scales = f32s(&[2], &[0.5, 2.0]);
        let zps = tensor(&[2], Data::U8(vec![10, 0]));
        let args = [x, scales, zps, Value::Int(0)];
        let q = run1(
            "aten._make_per_channel_quantized_tensor",
            &args,
            of(DType::QUInt8),
        )
        .unwrap();
        let d = run1("aten.dequantize.self", &[Value::Tensor(q)], of(DType::F32)).unwrap();
        assert_eq!(f32_values(&d), vec![0.0, 5.0, 20.0, 40.0]);
    }

    #[test]
    fn make_per_tensor_then_dequantize_and_int_repr() {
        let x = tensor(&[3], Data::I32(vec![-4, 0, 7]));
        let args = [x, Value::Float(0.25), Value::Int(0)];
        let q = run1(
            "aten._make_per_tensor_quantized_tensor",
            &args,
            of(DType::QInt32),
        )
        .unwrap();
        assert_eq!(q.dtype(), DType::QInt32);
        let d = run1(
            "aten.dequantize.tensor",
            &[Value::Tensor(q.clone())],
            unknown(),
        )
        .unwrap();
        assert_eq!(f32_values(&d), vec![-1.0, 0.0, 1.75]);
        let i = run1("aten.int_repr", &[Value::Tensor(q)], of(DType::I32)).unwrap();
        assert_eq!(i.data, Data::I32(vec![-4, 0, 7]));
        assert_eq!(i.quant, None);
    }

    #[test]
    fn bad_parameters_are_errors() {
        // Three scales for two channels.
        let x = tensor(&[2], Data::U8(vec![1, 2]));
        let args = [
            x.clone(),
            f32s(&[3], &[1.0; 3]),
            tensor(&[3], Data::U8(vec![0; 3])),
            Value::Int(0),
        ];
        assert!(
            run(
                "aten._make_per_channel_quantized_tensor",
                &args,
                &[unknown()]
            )
            .is_err()
        );
        // An i64 tensor has no quantized type.
        let wide = tensor(&[1], Data::I64(vec![1]));
        let args = [wide, Value::Float(1.0), Value::Int(0)];
        assert!(
            run(
                "aten._make_per_tensor_quantized_tensor",
                &args,
                &[unknown()]
            )
            .is_err()
        );
        // The declared type must match the storage.
        let args = [x, Value::Float(1.0), Value::Int(0)];
        assert!(
            run(
                "aten._make_per_tensor_quantized_tensor",
                &args,
                &[of(DType::QInt8)]
            )
            .is_err()
        );
        // A zero point outside the target range.
        let args = [
            f32s(&[1], &[0.0]),
            Value::Float(1.0),
            Value::Int(300),
            quint8(),
        ];
        assert!(run("aten.quantize_per_tensor", &args, &[unknown()]).is_err());
        // Dequantizing plain integers.
        assert!(run("aten.dequantize.self", &[i32s(&[1], &[1])], &[unknown()]).is_err());
    }

    /// The typed, vectorized loops give exactly the reference formula's integers and
    /// floats: ties, saturation, NaN, infinities, huge values, both zero-point signs,
    /// per tensor and per channel, with and without AVX2, and across chunk boundaries.
    #[test]
    fn fast_loops_are_bit_identical_to_the_formula() {
        use super::{
            Params, dequantize_narrow, quantize_narrow, quantize_wide, reference_dequantize,
        };
        let mut x: Vec<f32> = vec![
            0.0,
            -0.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e30,
            -1e30,
            3.4e38,
            0.5,
            1.5,
            2.5,
            -0.5,
            -1.5,
            127.5,
            128.5,
            -128.5,
            255.5,
        ];
        let mut state = 0x1234_5678_9abc_def0u64;
        // Several tasks and a ragged last one at 2 threads.
        let task =
            crate::kernels::split::task_len_on(1 << 21, crate::kernels::split::Cost::Arith, 1, 2);
        while x.len() < 3 * task + 17 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Values around the 8-bit ranges, with many exact halves.
            x.push(((state % 2048) as f32 - 1024.0) * 0.25);
        }
        let shape = [x.len() / 17, 17];
        let channel = |zps: Vec<i64>| {
            let scales: Vec<f64> = (0..17).map(|i| 0.25 + i as f64 * 0.1).collect();
            Params::per_channel(&scales, &zps, 1, &shape).unwrap()
        };
        for (lo, hi, zps) in [
            (0, 255, vec![0, 128, 255, 7]),
            (-128, 127, vec![-128, 0, 127, -3]),
        ] {
            let mut cases: Vec<Params> = zps.iter().map(|&z| Params::per_tensor(0.5, z)).collect();
            cases.push(channel((0..17).map(|i| zps[i % zps.len()]).collect()));
            for params in &cases {
                let want: Vec<i64> = x
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| {
                        let (scale, zp) = params.at(i);
                        quantize_wide(v, scale, zp, lo, hi)
                    })
                    .collect();
                for simd in [false, super::simd::available()] {
                    if lo == 0 {
                        let got: Vec<u8> = quantize_narrow(&x, params, lo, hi, simd);
                        assert!(got.iter().zip(&want).all(|(&g, &w)| i64::from(g) == w));
                        let back = dequantize_narrow(&got, params, simd);
                        let reference = reference_dequantize(&Data::U8(got), params);
                        assert!(
                            back.iter()
                                .zip(&reference)
                                .all(|(a, b)| a.to_bits() == b.to_bits())
                        );
                    } else {
                        let got: Vec<i8> = quantize_narrow(&x, params, lo, hi, simd);
                        assert!(got.iter().zip(&want).all(|(&g, &w)| i64::from(g) == w));
                        let back = dequantize_narrow(&got, params, simd);
                        let reference = reference_dequantize(&Data::I8(got), params);
                        assert!(
                            back.iter()
                                .zip(&reference)
                                .all(|(a, b)| a.to_bits() == b.to_bits())
                        );
                    }
                }
            }
        }
        // A zero point too large for the i32 difference takes the i64 formula.
        let params = Params::per_tensor(1.0, 1 << 40);
        let q = vec![0u8, 255];
        assert_eq!(
            dequantize_narrow(&q, &params, false),
            reference_dequantize(&Data::U8(q), &params)
        );
    }
}
