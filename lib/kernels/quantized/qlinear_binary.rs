//! Quantized element-wise add and multiply, computed the way ONNX Runtime's QLinearAdd
//! and QLinearMul kernels compute them on x86-64, so that results agree element by
//! element (ONNX Runtime also rewrites QDQ `DequantizeLinear → Add/Mul → QuantizeLinear`
//! into these kernels). Both differ from "dequantize, apply the float op, quantize":
//!
//! - Add folds the scales into two float32 ratios `a_scale/c_scale`, `b_scale/c_scale`
//!   and every zero point into one float32 offset, then evaluates each element with
//!   fused multiply-adds and converts with round-half-to-even. Which operand the
//!   kernel streams ("the vector") matters for how the offset is rounded: it is B when
//!   A is constant along ONNX Runtime's innermost broadcast span, else A.
//! - Mul multiplies the centred integers exactly, then scales the product by one
//!   float32 ratio `a_scale·b_scale/c_scale` and adds the output zero point, each step
//!   rounded (no fused multiply-add).
//!
//! A float that is not a 32-bit integer converts to `i32::MIN`, as the x86 conversion
//! does, and so saturates to the low end.
//!
//! This is ONNX Runtime's behaviour on x86-64 CPUs with AVX2 and FMA (its Add kernel for
//! them). Elsewhere it differs: without FMA its Add rounds each product, and on ARM it
//! adds in fixed point; results then may differ from these by one step near ties.

use std::mem::MaybeUninit;

use anyhow::{Result, bail};

use rayon::prelude::*;

use crate::kernels::isa::Isa;
use crate::kernels::linalg::qdriver::shifted;
use crate::kernels::split::{Cost, task_len};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::layout::{broadcast_map, broadcast_shapes, result_count};
use crate::kernels::tensor::unfilled::{as_unfilled, written_by};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor};
use crate::kernels::{Call, ResultType};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Mul,
}

/// Operands: a, a_scale, a_zero_point, b, b_scale, b_zero_point, c_scale,
/// c_zero_point; a and b hold 8-bit integers of the result's storage type.
pub fn qlinear_add(c: &Call) -> Result<Vec<Value>> {
    run(c, Op::Add, false)
}

/// Operands as for `qlinear_add`.
pub fn qlinear_mul(c: &Call) -> Result<Vec<Value>> {
    run(c, Op::Mul, false)
}

/// `qlinear_add` of int8 operands computed as uint8: every integer and zero point
/// shifted up by 128, and the result back down. On x86-64 ONNX Runtime turns each int8
/// QuantizeLinear → DequantizeLinear pair of a QDQ model into a uint8 one this way
/// before fusing, which changes how the float offset rounds.
pub fn qlinear_add_as_uint8(c: &Call) -> Result<Vec<Value>> {
    run(c, Op::Add, true)
}

/// `qlinear_mul` computed as uint8, as `qlinear_add_as_uint8`.
pub fn qlinear_mul_as_uint8(c: &Call) -> Result<Vec<Value>> {
    run(c, Op::Mul, true)
}

/// A per-tensor scale: a float, or a tensor of one element.
fn scale(v: &Value, what: &str) -> Result<f32> {
    let s = match v {
        Value::Tensor(t) => match t.data.to_f64().as_slice() {
            [s] => *s,
            other => bail!("{what} has {} elements, expected 1", other.len()),
        },
        v => v.as_float()?,
    };
    Ok(s as f32)
}

/// A per-tensor zero point inside `lo..=hi`: an int, a tensor of one element, or none
/// (zero).
fn zero_point(v: &Value, what: &str, lo: i64, hi: i64) -> Result<i32> {
    let z = match v {
        Value::None => 0,
        Value::Tensor(t) => match t.data.to_i64().as_slice() {
            [z] => *z,
            other => bail!("{what} has {} elements, expected 1", other.len()),
        },
        v => v.as_int()?,
    };
    if z < lo || z > hi {
        bail!("{what} {z} is outside {lo}..={hi}");
    }
    Ok(z as i32)
}

/// An operand, checked to hold as many values as its shape says.
fn operand<'v>(v: &'v Value, what: &str) -> Result<&'v Tensor> {
    let t = v.as_tensor()?;
    let n = result_count(&t.shape)?;
    if n != t.data.len() {
        bail!(
            "{what} of shape {:?} holds {} elements",
            t.shape,
            t.data.len()
        );
    }
    if !matches!(t.data, Data::U8(_) | Data::I8(_)) {
        bail!("{what} is {}, expected 8-bit integers", t.data.dtype());
    }
    Ok(t)
}

/// Whether ONNX Runtime treats A as a single value per span: its broadcast helper
/// merges dimensions from the back, skipping those where both sizes are 1 (but never
/// the first dimension of the shorter shape), and A is the scalar operand when its size
/// there is 1; a 0-d A always is.
pub fn a_is_span_scalar(a: &[usize], b: &[usize]) -> bool {
    let common = a.len().min(b.len());
    if a.is_empty() {
        return true;
    }
    if common == 0 {
        return a[a.len() - 1] <= 1;
    }
    for k in 1..=common {
        let (x, y) = (a[a.len() - k], b[b.len() - k]);
        if x.max(y) == 1 && k < common {
            continue;
        }
        return x <= 1;
    }
    true
}

/// The x86 float-to-int32 conversion under round-half-to-even.
#[inline(always)]
fn to_i32(t: f32) -> i32 {
    let r = t.round_ties_even();
    if (-2_147_483_648.0..2_147_483_648.0).contains(&r) {
        r as i32
    } else {
        i32::MIN
    }
}

/// One element's arithmetic, with every constant computed once.
enum Arith {
    /// `c = (w·rw + offset)`, then `+ v·rv`, both fused; v and w are A and B in the
    /// order the kernel streams them.
    Add {
        a_is_v: bool,
        rv: f32,
        rw: f32,
        offset: f32,
    },
    /// `c = ((a - za)(b - zb))·ratio + zc`.
    Mul {
        za: i32,
        zb: i32,
        ratio: f32,
        zc: f32,
    },
}

impl Arith {
    fn new(op: Op, a_is_v: bool, [sa, sb, sc]: [f32; 3], [za, zb, zc]: [i32; 3]) -> Arith {
        match op {
            Op::Add => {
                let (ra, rb) = (sa / sc, sb / sc);
                let (rv, zv, rw, zw) = if a_is_v {
                    (ra, za, rb, zb)
                } else {
                    (rb, zb, ra, za)
                };
                let offset = zc as f32 - (zv as f32).mul_add(rv, rw * zw as f32);
                Arith::Add {
                    a_is_v,
                    rv,
                    rw,
                    offset,
                }
            }
            Op::Mul => Arith::Mul {
                za,
                zb,
                ratio: sa * sb / sc,
                zc: zc as f32,
            },
        }
    }

    #[inline(always)]
    fn apply(&self, a: i32, b: i32) -> i32 {
        match *self {
            Arith::Add {
                a_is_v,
                rv,
                rw,
                offset,
            } => {
                let (v, w) = if a_is_v { (a, b) } else { (b, a) };
                to_i32((v as f32).mul_add(rv, (w as f32).mul_add(rw, offset)))
            }
            Arith::Mul { za, zb, ratio, zc } => {
                let product = (a - za) * (b - zb);
                to_i32(product as f32 * ratio + zc)
            }
        }
    }
}

/// Every element of same-shaped `a` and `b`, bytes read as i8 when `SIGNED` and as u8
/// otherwise, saturated to `lo..=hi`, moved down by `shift` and stored as a byte. Chunks run in parallel; on CPUs with FMA each is compiled for
/// it, so `mul_add` and the rounding are single instructions instead of libm calls,
/// with the same results.
fn apply_all<const SIGNED: bool>(arith: &Arith, a: &[u8], b: &[u8], bounds: Bounds) -> Vec<u8> {
    let n = a.len().min(b.len());
    let chunk = task_len(n, Cost::Requantize, 1);
    let fill = |out: &mut [MaybeUninit<u8>]| {
        let work = out
            .par_chunks_mut(chunk)
            .zip(a[..n].par_chunks(chunk).zip(b[..n].par_chunks(chunk)));
        work.for_each(|(out, (a, b))| apply_chunk_any::<SIGNED>(arith, a, b, bounds, out));
    };
    // SAFETY: `out`, `a[..n]` and `b[..n]` split into the same chunks, and
    // `apply_chunk_any` writes every element of an output as long as its operands.
    unsafe { written_by(n, fill) }
}

/// How a broadcast operand meets the full-shaped one: the result is `outer` blocks
/// of `mid` runs of `inner` elements, and over run m of each block the broadcast
/// operand holds its element m (a scalar: one run; `[1, C, 1, 1]` against
/// `[N, C, H, W]`: N blocks of C runs of H·W).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Runs {
    mid: usize,
    inner: usize,
}

/// `Runs` when `small`'s dimensions other than 1 form one block of `shape`'s
/// dimensions (aligned from the back); `None` otherwise.
fn runs_of(small: &[usize], shape: &[usize]) -> Option<Runs> {
    let offset = shape.len().checked_sub(small.len())?;
    let kept: Vec<usize> = (0..small.len())
        .filter(|&i| small[i] != 1)
        .map(|i| i + offset)
        .collect();
    let (Some(&first), Some(&last)) = (kept.first(), kept.last()) else {
        // One element: one run over everything.
        return Some(Runs {
            mid: 1,
            inner: shape.iter().product(),
        });
    };
    if kept.len() != last - first + 1 || kept.iter().any(|&i| small[i - offset] != shape[i]) {
        return None;
    }
    Some(Runs {
        mid: shape[first..=last].iter().product(),
        inner: shape[last + 1..].iter().product(),
    })
}

/// The op over a full-shaped operand and a broadcast one that is constant over
/// `runs`: each run's constant is spread into a buffer and the run goes through the
/// same-shape loop. `full_is_a` says which operand of the op the full one is.
fn apply_runs(
    arith: &Arith,
    full: &[u8],
    small: &[u8],
    runs: Runs,
    full_is_a: bool,
    signed: bool,
    bounds: Bounds,
) -> Vec<u8> {
    let n = full.len();
    let Runs { mid, inner } = runs;
    if inner == 0 || mid == 0 || small.len() < mid {
        return vec![0u8; n];
    }
    let pick = |a: &[u8], b: &[u8], out: &mut [MaybeUninit<u8>]| {
        if signed {
            apply_chunk_any::<true>(arith, a, b, bounds, out);
        } else {
            apply_chunk_any::<false>(arith, a, b, bounds, out);
        }
    };
    if inner == 1 {
        // The broadcast operand's elements are the last dimensions': each block of
        // `mid` elements of the full operand meets all of it, as same-shaped operands.
        let per_task = task_len(n, Cost::Requantize, mid);
        let work = |(out, full): (&mut [MaybeUninit<u8>], &[u8])| {
            for (out, full) in out.chunks_mut(mid).zip(full.chunks(mid)) {
                let small = &small[..full.len()];
                let (a, b) = if full_is_a {
                    (full, small)
                } else {
                    (small, full)
                };
                pick(a, b, out);
            }
        };
        let fill = |out: &mut [MaybeUninit<u8>]| {
            out.par_chunks_mut(per_task)
                .zip(full.par_chunks(per_task))
                .for_each(work)
        };
        // SAFETY: each task's output pairs with as long a part of `full`, cut into
        // blocks of `mid` that meet as many elements of `small` (at least `mid`), and
        // `pick` writes every element of each block.
        return unsafe { written_by(n, fill) };
    }
    let per_task = task_len(n, Cost::Requantize, inner);
    let work = |(k, (out, full)): (usize, (&mut [MaybeUninit<u8>], &[u8]))| {
        let mut spread = vec![0u8; inner];
        let first = k * per_task / inner;
        for (r, (out, full)) in out.chunks_mut(inner).zip(full.chunks(inner)).enumerate() {
            let spread = &mut spread[..full.len()];
            spread.fill(small[(first + r) % mid]);
            let (a, b) = if full_is_a {
                (full, &*spread)
            } else {
                (&*spread, full)
            };
            pick(a, b, out);
        }
    };
    let fill = |out: &mut [MaybeUninit<u8>]| {
        out.par_chunks_mut(per_task)
            .zip(full.par_chunks(per_task))
            .enumerate()
            .for_each(work)
    };
    // SAFETY: each task's output pairs with as long a part of `full`, cut into runs
    // that `pick` writes whole against a spread run as long.
    unsafe { written_by(n, fill) }
}

/// `apply_chunk`, on CPUs with FMA through its vectorized twins.
fn apply_chunk_any<const SIGNED: bool>(
    arith: &Arith,
    a: &[u8],
    b: &[u8],
    bounds: Bounds,
    out: &mut [MaybeUninit<u8>],
) {
    #[cfg(target_arch = "x86_64")]
    if Isa::best().includes(Isa::Avx512Vnni) {
        // SAFETY: the level's features (AVX-512 F/BW/VL, AVX2 and FMA) were detected.
        return unsafe { apply_chunk_avx512::<SIGNED>(arith, a, b, bounds, out) };
    }
    #[cfg(target_arch = "x86_64")]
    if Isa::best().includes(Isa::Avx2) {
        // SAFETY: the level's features (AVX2 and FMA) were detected on this CPU.
        return unsafe { apply_chunk_fma::<SIGNED>(arith, a, b, bounds, out) };
    }
    apply_chunk::<SIGNED>(arith, a, b, bounds, out)
}

/// The saturation bounds and the shift of `apply_all`.
#[derive(Clone, Copy)]
struct Bounds {
    lo: i32,
    hi: i32,
    shift: i32,
}

#[inline(always)]
fn widen<const SIGNED: bool>(byte: u8) -> i32 {
    if SIGNED {
        byte as i8 as i32
    } else {
        byte as i32
    }
}

/// Eight lanes at a time: `vfmadd` is the fused multiply-add `mul_add` computes, and
/// `vcvtps2dq` rounds half to even and gives `i32::MIN` out of range, as `to_i32`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn apply_chunk_fma<const SIGNED: bool>(
    arith: &Arith,
    a: &[u8],
    b: &[u8],
    bounds: Bounds,
    out: &mut [MaybeUninit<u8>],
) {
    use std::arch::x86_64::*;
    let Bounds { lo, hi, shift } = bounds;
    let (vlo, vhi, vshift) = (
        _mm256_set1_epi32(lo),
        _mm256_set1_epi32(hi),
        _mm256_set1_epi32(shift),
    );
    // The low byte of each 32-bit lane to the lane's first four bytes, then the two
    // 128-bit halves' first dwords together.
    let low_bytes = _mm256_setr_epi8(
        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, //
        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    );
    let halves = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
    let (a8, _) = a.as_chunks::<8>();
    let (b8, _) = b.as_chunks::<8>();
    let (o8, _) = out.as_chunks_mut::<8>();
    for ((x, y), o) in a8.iter().zip(b8).zip(o8.iter_mut()) {
        let widen8 = |v: __m128i| {
            if SIGNED {
                _mm256_cvtepi8_epi32(v)
            } else {
                _mm256_cvtepu8_epi32(v)
            }
        };
        let (x, y) = (
            widen8(_mm_cvtsi64_si128(i64::from_le_bytes(*x))),
            widen8(_mm_cvtsi64_si128(i64::from_le_bytes(*y))),
        );
        let r = match *arith {
            Arith::Add {
                a_is_v,
                rv,
                rw,
                offset,
            } => {
                let (v, w) = if a_is_v { (x, y) } else { (y, x) };
                let inner = _mm256_fmadd_ps(
                    _mm256_cvtepi32_ps(w),
                    _mm256_set1_ps(rw),
                    _mm256_set1_ps(offset),
                );
                _mm256_cvtps_epi32(_mm256_fmadd_ps(
                    _mm256_cvtepi32_ps(v),
                    _mm256_set1_ps(rv),
                    inner,
                ))
            }
            Arith::Mul { za, zb, ratio, zc } => {
                let product = _mm256_mullo_epi32(
                    _mm256_sub_epi32(x, _mm256_set1_epi32(za)),
                    _mm256_sub_epi32(y, _mm256_set1_epi32(zb)),
                );
                let scaled = _mm256_mul_ps(_mm256_cvtepi32_ps(product), _mm256_set1_ps(ratio));
                _mm256_cvtps_epi32(_mm256_add_ps(scaled, _mm256_set1_ps(zc)))
            }
        };
        let r = _mm256_sub_epi32(_mm256_min_epi32(_mm256_max_epi32(r, vlo), vhi), vshift);
        let packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(r, low_bytes), halves);
        *o = _mm_cvtsi128_si64(_mm256_castsi256_si128(packed))
            .to_le_bytes()
            .map(MaybeUninit::new);
    }
    let done = a8.len() * 8;
    apply_chunk::<SIGNED>(arith, &a[done..], &b[done..], bounds, &mut out[done..]);
}

/// `apply_chunk_fma` sixteen lanes at a time: the same fused multiply-adds and
/// conversions, and `vpmovdb` keeps each saturated result's low byte; the last
/// elements go through the eight-lane loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
fn apply_chunk_avx512<const SIGNED: bool>(
    arith: &Arith,
    a: &[u8],
    b: &[u8],
    bounds: Bounds,
    out: &mut [MaybeUninit<u8>],
) {
    use std::arch::x86_64::*;
    let Bounds { lo, hi, shift } = bounds;
    let (vlo, vhi, vshift) = (
        _mm512_set1_epi32(lo),
        _mm512_set1_epi32(hi),
        _mm512_set1_epi32(shift),
    );
    let (a16, _) = a.as_chunks::<16>();
    let (b16, _) = b.as_chunks::<16>();
    let (o16, _) = out.as_chunks_mut::<16>();
    let widen = |bytes: &[u8; 16]| {
        // SAFETY: 16 bytes, one unaligned 16-byte load.
        let v = unsafe { _mm_loadu_si128(bytes.as_ptr() as *const _) };
        if SIGNED {
            _mm512_cvtepi8_epi32(v)
        } else {
            _mm512_cvtepu8_epi32(v)
        }
    };
    for ((x, y), o) in a16.iter().zip(b16).zip(o16.iter_mut()) {
        let (x, y) = (widen(x), widen(y));
        let r = match *arith {
            Arith::Add {
                a_is_v,
                rv,
                rw,
                offset,
            } => {
                let (v, w) = if a_is_v { (x, y) } else { (y, x) };
                let inner = _mm512_fmadd_ps(
                    _mm512_cvtepi32_ps(w),
                    _mm512_set1_ps(rw),
                    _mm512_set1_ps(offset),
                );
                _mm512_cvtps_epi32(_mm512_fmadd_ps(
                    _mm512_cvtepi32_ps(v),
                    _mm512_set1_ps(rv),
                    inner,
                ))
            }
            Arith::Mul { za, zb, ratio, zc } => {
                let product = _mm512_mullo_epi32(
                    _mm512_sub_epi32(x, _mm512_set1_epi32(za)),
                    _mm512_sub_epi32(y, _mm512_set1_epi32(zb)),
                );
                let scaled = _mm512_mul_ps(_mm512_cvtepi32_ps(product), _mm512_set1_ps(ratio));
                _mm512_cvtps_epi32(_mm512_add_ps(scaled, _mm512_set1_ps(zc)))
            }
        };
        let r = _mm512_sub_epi32(_mm512_min_epi32(_mm512_max_epi32(r, vlo), vhi), vshift);
        // SAFETY: `o` is 16 bytes, one unaligned 16-byte store.
        unsafe { _mm_storeu_si128(o.as_mut_ptr() as *mut _, _mm512_cvtepi32_epi8(r)) };
    }
    let done = a16.len().min(b16.len()) * 16;
    apply_chunk_fma::<SIGNED>(arith, &a[done..], &b[done..], bounds, &mut out[done..]);
}

#[inline(always)]
fn apply_chunk<const SIGNED: bool>(
    arith: &Arith,
    a: &[u8],
    b: &[u8],
    bounds: Bounds,
    out: &mut [MaybeUninit<u8>],
) {
    let Bounds { lo, hi, shift } = bounds;
    for ((&x, &y), o) in a.iter().zip(b).zip(out) {
        let v = arith.apply(widen::<SIGNED>(x), widen::<SIGNED>(y));
        o.write((v.clamp(lo, hi) - shift) as u8);
    }
}

fn run(c: &Call, op: Op, as_uint8: bool) -> Result<Vec<Value>> {
    let ResultType::Tensor(ty) = c.result(0)? else {
        bail!("the quantized result must be a tensor");
    };
    let (lo, hi, storage) = match ty.dtype {
        Some(DType::QUInt8) => (0, 255, DType::U8),
        Some(DType::QInt8) => (-128, 127, DType::I8),
        other => bail!("a fused quantized add or mul to {other:?} is not supported"),
    };
    let (ta, tb) = (operand(c.arg(0)?, "a")?, operand(c.arg(3)?, "b")?);
    let (a_type, b_type) = (ta.data.dtype(), tb.data.dtype());
    if a_type != storage || b_type != storage {
        bail!("operands of {a_type} and {b_type} for a result stored as {storage}");
    }
    if as_uint8 && storage != DType::I8 {
        bail!("only int8 operands are computed as uint8");
    }
    let (lo64, hi64) = (lo as i64, hi as i64);
    let scales = [
        scale(c.arg(1)?, "a_scale")?,
        scale(c.arg(4)?, "b_scale")?,
        scale(c.arg(6)?, "c_scale")?,
    ];
    let zero_points = [
        zero_point(c.arg(2)?, "a_zero_point", lo64, hi64)?,
        zero_point(c.arg(5)?, "b_zero_point", lo64, hi64)?,
        zero_point(c.arg(7)?, "c_zero_point", lo64, hi64)?,
    ];
    let (a_shape, b_shape) = (&ta.shape[..], &tb.shape[..]);
    let shape = broadcast_shapes(a_shape, b_shape)?;
    let n = result_count(&shape)?;
    // int8 computed as uint8: values and zero points move up by 128 together, and the
    // result moves back down.
    let shift = if as_uint8 { 128 } else { 0 };
    let arith = Arith::new(
        op,
        !a_is_span_scalar(a_shape, b_shape),
        scales,
        zero_points.map(|z| z + shift),
    );
    let bounds = Bounds {
        lo: lo + shift,
        hi: hi + shift,
        shift,
    };
    // The operands' bytes, moved up when computed as uint8; read as i8 when `signed`.
    let signed = storage == DType::I8 && !as_uint8;
    let (Some((xa, _)), Some((xb, _))) = (shifted(&ta.data, signed), shifted(&tb.data, signed))
    else {
        bail!("operands of {a_type} and {b_type}, expected 8-bit integers");
    };
    // Index maps cost a word per element: only the general broadcast builds them.
    let (a_full, b_full) = (a_shape == shape.as_slice(), b_shape == shape.as_slice());
    // Long runs of one value, or a whole broadcast operand repeating along the tail.
    let runs = |small: &[usize]| {
        runs_of(small, &shape).filter(|r| r.inner >= 8 || (r.inner == 1 && r.mid >= 8))
    };
    let bytes = match (a_full, b_full, runs(a_shape), runs(b_shape)) {
        (true, true, _, _) if signed => apply_all::<true>(&arith, &xa, &xb, bounds),
        (true, true, _, _) => apply_all::<false>(&arith, &xa, &xb, bounds),
        (true, false, _, Some(runs)) => apply_runs(&arith, &xa, &xb, runs, true, signed, bounds),
        (false, true, Some(runs), _) => apply_runs(&arith, &xb, &xa, runs, false, signed, bounds),
        _ => {
            let (ia, ib) = (
                broadcast_map(a_shape, &shape)?,
                broadcast_map(b_shape, &shape)?,
            );
            let at = |m: &Option<Vec<usize>>, i: usize| m.as_ref().map_or(i, |m| m[i]);
            let mut out = vec![0u8; n];
            for (i, o) in out.iter_mut().enumerate() {
                let (x, y) = (xa[at(&ia, i)], xb[at(&ib, i)]);
                let mut one = [0u8];
                if signed {
                    apply_chunk::<true>(&arith, &[x], &[y], bounds, as_unfilled(&mut one));
                } else {
                    apply_chunk::<false>(&arith, &[x], &[y], bounds, as_unfilled(&mut one));
                }
                *o = one[0];
            }
            out
        }
    };
    let data = match storage {
        DType::U8 => Data::U8(bytes),
        _ => Data::I8(bytes.into_iter().map(|v| v as i8).collect()),
    };
    let mut t = Tensor::new(shape, data)?;
    // As the unfused quantize_per_tensor records them.
    t.quant = Some(Quant::PerTensor {
        scale: c.arg(6)?.as_float().unwrap_or(scales[2] as f64),
        zero_point: zero_points[2] as i64,
    });
    Ok(vec![Value::tensor(t)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Kernel;
    use crate::kernels::tensor::tensor_type::TensorType;

    fn tensor(shape: Vec<usize>, data: Data) -> Value {
        Value::tensor(Tensor::new(shape, data).unwrap())
    }

    fn declared(dtype: DType, shape: &[usize]) -> [ResultType; 1] {
        [ResultType::Tensor(TensorType::new(
            dtype,
            shape.iter().map(|&d| Some(d as i64)).collect(),
        ))]
    }

    /// `kernel` on a, b with parameters [sa, sb, sc] and [za, zb, zc].
    fn call(
        kernel: fn(&Call) -> Result<Vec<Value>>,
        a: Value,
        b: Value,
        s: [f64; 3],
        z: [i64; 3],
        result: &[ResultType],
    ) -> Result<Tensor> {
        let args = [
            a,
            Value::Float(s[0]),
            Value::Int(z[0]),
            b,
            Value::Float(s[1]),
            Value::Int(z[1]),
            Value::Float(s[2]),
            Value::Int(z[2]),
        ];
        let out = kernel(&Call {
            args: &args,
            results: result,
        })?;
        Ok((**out[0].as_tensor()?).clone())
    }

    #[test]
    fn add_rounds_exact_ties_to_even_and_saturates() {
        // Ratios 0.5 and 0.5, offset 0: (1 + 0)/2, (3 + 0)/2, (255 + 255)/2, and 255 + 255
        // with c_scale 0.5 (ratios 2) saturating.
        let a = tensor(vec![3], Data::U8(vec![1, 3, 255]));
        let b = tensor(vec![3], Data::U8(vec![0, 0, 255]));
        let ty = declared(DType::QUInt8, &[3]);
        let y = call(
            qlinear_add,
            a.clone(),
            b.clone(),
            [1.0, 1.0, 2.0],
            [0; 3],
            &ty,
        )
        .unwrap();
        assert_eq!(y.data, Data::U8(vec![0, 2, 255]));
        assert_eq!(y.dtype(), DType::QUInt8);
        let y = call(qlinear_add, a, b, [1.0, 1.0, 0.5], [0; 3], &ty).unwrap();
        assert_eq!(y.data, Data::U8(vec![2, 6, 255]));
    }

    #[test]
    fn add_folds_zero_points_into_one_offset() {
        // int8: (a - 10)·0.5 + (b + 20)·0.25 - 3.
        let a = tensor(vec![2], Data::I8(vec![-128, 127]));
        let b = tensor(vec![2], Data::I8(vec![127, -128]));
        let ty = declared(DType::QInt8, &[2]);
        let y = call(qlinear_add, a, b, [0.5, 0.25, 1.0], [10, -20, -3], &ty).unwrap();
        // -69 + 36.75 - 3 = -35.25 -> -35; 58.5 - 27 - 3 = 28.5 -> 28.
        assert_eq!(y.data, Data::I8(vec![-35, 28]));
    }

    /// Inputs within float32 rounding of a tie, with what ONNX Runtime 1.31 (x86-64,
    /// AVX2 kernel) gives: [a_scale, b_scale, c_scale], [za, zb, zc], a, b, its result.
    /// Dequantize-add-quantize in float32 gives 128, 147, 163 and 152; without the
    /// fused multiply-add in the offset, 129, 148, 162 and 152.
    /// Scales, zero points, a, b and ONNX Runtime's result.
    type Case = ([f32; 3], [i64; 3], u8, u8, u8);
    /// As `Case` for int8, with the result of the plain int8 arithmetic last.
    type Case8 = ([f32; 3], [i64; 3], i8, i8, i8, i8);

    const NEAR_TIES: [Case; 4] = [
        (
            [0.08147528, 0.08175437, 0.053955927],
            [152, 85, 221],
            166,
            10,
            128,
        ),
        (
            [0.09027937, 0.08520195, 0.042278443],
            [219, 152, 126],
            247,
            133,
            148,
        ),
        (
            [0.09006758, 0.08785857, 0.0067591355],
            [181, 167, 180],
            207,
            139,
            163,
        ),
        (
            [0.08159046, 0.03506295, 0.019158665],
            [84, 166, 143],
            54,
            241,
            153,
        ),
    ];

    #[test]
    fn add_agrees_with_onnx_runtime_near_ties() {
        // Two elements each: with one, A would be the span scalar (see below).
        let ty = declared(DType::QUInt8, &[2]);
        for (s, z, a, b, want) in NEAR_TIES {
            let a = tensor(vec![2], Data::U8(vec![a, a]));
            let b = tensor(vec![2], Data::U8(vec![b, b]));
            let s = s.map(|x| x as f64);
            let y = call(qlinear_add, a, b, s, z, &ty).unwrap();
            assert_eq!(y.data, Data::U8(vec![want, want]), "{s:?} {z:?}");
        }
    }

    #[test]
    fn add_streams_b_when_a_is_the_span_scalar_as_onnx_runtime_does() {
        // A [2, 1] + B [1, 2]: A is the span scalar. ONNX Runtime gives 229 and 193 at
        // (a, b) = (206, 72) and (128, 18); streaming A would give 230 and 194.
        let cases = [
            (
                [0.057677202f32, 0.09270763, 0.013524424],
                [145, 102, 175],
                206,
                72,
                229u8,
            ),
            (
                [0.064225055, 0.07929913, 0.012471645],
                [103, 41, 211],
                128,
                18,
                193,
            ),
        ];
        let ty = declared(DType::QUInt8, &[2, 2]);
        for (s, z, a, b, want) in cases {
            let a = tensor(vec![2, 1], Data::U8(vec![a, 0]));
            let b = tensor(vec![1, 2], Data::U8(vec![b, 0]));
            let y = call(qlinear_add, a, b, s.map(|x| x as f64), z, &ty).unwrap();
            let Data::U8(values) = &y.data else {
                panic!("not u8")
            };
            assert_eq!(values[0], want, "{s:?} {z:?}");
        }
        // One element each: A is the span scalar too, and ONNX Runtime gives 147 where
        // two-element vectors give 148 (the second near tie above).
        let (s, z, a, b, _) = NEAR_TIES[1];
        let one = declared(DType::QUInt8, &[1]);
        let a = tensor(vec![1], Data::U8(vec![a]));
        let b = tensor(vec![1], Data::U8(vec![b]));
        let y = call(qlinear_add, a, b, s.map(|x| x as f64), z, &one).unwrap();
        assert_eq!(y.data, Data::U8(vec![147]));
    }

    #[test]
    fn add_broadcasts_and_streams_b_when_a_is_the_span_scalar() {
        assert!(a_is_span_scalar(&[2, 1], &[1, 3]));
        assert!(!a_is_span_scalar(&[1, 3], &[2, 1]));
        assert!(!a_is_span_scalar(&[2, 3], &[3]));
        assert!(a_is_span_scalar(&[], &[3]));
        assert!(a_is_span_scalar(&[1], &[1]));
        assert!(!a_is_span_scalar(&[3], &[]));
        assert!(a_is_span_scalar(&[1, 1], &[3, 1]));
        assert!(!a_is_span_scalar(&[3, 1], &[1, 1]));
        let a = tensor(vec![2, 1], Data::U8(vec![10, 20]));
        let b = tensor(vec![1, 3], Data::U8(vec![1, 2, 3]));
        let ty = declared(DType::QUInt8, &[2, 3]);
        let y = call(qlinear_add, a, b, [1.0, 1.0, 1.0], [0; 3], &ty).unwrap();
        assert_eq!(y.shape, vec![2, 3]);
        assert_eq!(y.data, Data::U8(vec![11, 12, 13, 21, 22, 23]));
    }

    #[test]
    fn mul_scales_the_exact_product_once() {
        // (a - 1)(b - 2)·(0.5·0.5/0.5) + 3: products 0, -2, 254·253, -1·-2.
        let a = tensor(vec![4], Data::U8(vec![1, 2, 255, 0]));
        let b = tensor(vec![4], Data::U8(vec![9, 0, 255, 0]));
        let ty = declared(DType::QUInt8, &[4]);
        let y = call(qlinear_mul, a, b, [0.5, 0.5, 0.5], [1, 2, 3], &ty).unwrap();
        // 3, -1+3=2 (-2·0.5 = -1), saturated, 1+3.
        assert_eq!(y.data, Data::U8(vec![3, 2, 255, 4]));
    }

    #[test]
    fn mul_rounds_half_to_even() {
        // Products 1, 3, 5 times 0.5: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2.
        let a = tensor(vec![3], Data::I8(vec![1, 3, 5]));
        let b = tensor(vec![1], Data::I8(vec![1]));
        let ty = declared(DType::QInt8, &[3]);
        let y = call(qlinear_mul, a, b, [1.0, 0.5, 1.0], [0; 3], &ty).unwrap();
        assert_eq!(y.data, Data::I8(vec![0, 2, 2]));
    }

    #[test]
    fn int8_computed_as_uint8_agrees_with_onnx_runtime_on_qdq_pairs() {
        // ONNX Runtime's results for int8 QDQ Mul and Add (its pairs turned uint8);
        // the int8 arithmetic is one step off on each.
        let ty = declared(DType::QInt8, &[2]);
        // (as uint8, as int8, case)
        let cases: [(Kernel, Kernel, Case8); 3] = [
            (
                qlinear_mul_as_uint8,
                qlinear_mul,
                ([0.03, 0.3, 0.018], [55, 90, 93], -128, 91, 2, 1),
            ),
            (
                qlinear_mul_as_uint8,
                qlinear_mul,
                ([0.3, 0.019, 0.00228], [-30, -59, -55], -77, -60, 62, 63),
            ),
            (
                qlinear_add_as_uint8,
                qlinear_add,
                (
                    [0.017672596, 0.05229742, 0.051893882],
                    [31, 68, -1],
                    11,
                    108,
                    33,
                    32,
                ),
            ),
        ];
        for (kernel, plain, (s, z, a, b, want, as_int8)) in cases {
            let a = tensor(vec![2], Data::I8(vec![a, a]));
            let b = tensor(vec![2], Data::I8(vec![b, b]));
            let s = s.map(|x| x as f64);
            let y = call(kernel, a.clone(), b.clone(), s, z, &ty).unwrap();
            assert_eq!(y.data, Data::I8(vec![want, want]), "{s:?} {z:?}");
            let y = call(plain, a, b, s, z, &ty).unwrap();
            assert_eq!(y.data, Data::I8(vec![as_int8, as_int8]), "{s:?} {z:?}");
        }
        let u = tensor(vec![1], Data::U8(vec![1]));
        let ty = declared(DType::QUInt8, &[1]);
        assert!(call(qlinear_add_as_uint8, u.clone(), u, [1.0; 3], [0; 3], &ty).is_err());
    }

    #[test]
    fn conversions_out_of_range_saturate_low_as_on_x86() {
        assert_eq!(to_i32(f32::NAN), i32::MIN);
        assert_eq!(to_i32(3e9), i32::MIN);
        assert_eq!(to_i32(-2.5), -2);
        // c_scale 0 makes every ratio infinite (or NaN): the low end.
        let a = tensor(vec![2], Data::U8(vec![5, 0]));
        let b = tensor(vec![2], Data::U8(vec![5, 0]));
        let ty = declared(DType::QUInt8, &[2]);
        let y = call(qlinear_add, a, b, [1.0, 1.0, 0.0], [0; 3], &ty).unwrap();
        assert_eq!(y.data, Data::U8(vec![0, 0]));
    }

    #[test]
    fn bad_operands_are_errors() {
        let u = tensor(vec![2], Data::U8(vec![1, 2]));
        let i = tensor(vec![2], Data::I8(vec![1, 2]));
        let ty = declared(DType::QUInt8, &[2]);
        assert!(call(qlinear_add, u.clone(), i, [1.0; 3], [0; 3], &ty).is_err());
        assert!(
            call(
                qlinear_add,
                u.clone(),
                u.clone(),
                [1.0; 3],
                [0, 0, 300],
                &ty
            )
            .is_err()
        );
        let three = tensor(vec![3], Data::U8(vec![1, 2, 3]));
        assert!(call(qlinear_mul, u.clone(), three, [1.0; 3], [0; 3], &ty).is_err());
        let f = tensor(vec![2], Data::F32(vec![1.0, 2.0]));
        assert!(call(qlinear_mul, u.clone(), f, [1.0; 3], [0; 3], &ty).is_err());
        let int32 = declared(DType::I32, &[2]);
        assert!(call(qlinear_mul, u.clone(), u, [1.0; 3], [0; 3], &int32).is_err());
    }

    #[test]
    fn lanes_and_parallel_chunks_match_one_element_at_a_time() {
        // Lengths around the 8-lane step and past one parallel chunk, each op, each
        // signedness, scales whose quotients round on ties.
        use crate::kernels::testing::test_bytes;
        for (seed, n) in [(1u64, 7usize), (2, 8), (3, 29), (4, (1 << 14) + 13)] {
            let (a, b) = (test_bytes(seed, n), test_bytes(seed + 50, n));
            for op in [Op::Add, Op::Mul] {
                let arith = Arith::new(op, seed % 2 == 0, [0.5, 0.25, 0.375], [3, -7, 1]);
                for (lo, hi, shift) in [(0, 255, 0), (-128, 127, 0), (0, 255, 128)] {
                    let bounds = Bounds { lo, hi, shift };
                    let (lanes, one) = if lo < 0 {
                        (apply_all::<true>(&arith, &a, &b, bounds), {
                            let mut o = vec![0; n];
                            apply_chunk::<true>(&arith, &a, &b, bounds, as_unfilled(&mut o));
                            o
                        })
                    } else {
                        (apply_all::<false>(&arith, &a, &b, bounds), {
                            let mut o = vec![0; n];
                            apply_chunk::<false>(&arith, &a, &b, bounds, as_unfilled(&mut o));
                            o
                        })
                    };
                    assert_eq!(lanes, one, "n {n} lo {lo} shift {shift}");
                }
            }
        }
    }

    #[test]
    fn broadcast_runs_match_element_by_element() {
        use crate::kernels::testing::test_bytes;
        let full_shape = [2usize, 5, 3, 4];
        let n: usize = full_shape.iter().product();
        let full = test_bytes(3, n);
        for small_shape in [
            &[1usize, 5, 1, 1][..],
            &[],
            &[5, 3, 4],
            &[2, 5, 1, 1],
            &[3, 4],
        ] {
            let runs = runs_of(small_shape, &full_shape).expect("one block of dimensions");
            let small = test_bytes(4, small_shape.iter().product());
            let map = broadcast_map(small_shape, &full_shape).unwrap();
            let at = |i: usize| map.as_ref().map_or(i, |m| m[i]);
            for full_is_a in [true, false] {
                let arith = Arith::new(Op::Add, full_is_a, [0.3, 0.7, 0.5], [5, -3, 2]);
                for (signed, lo, hi) in [(false, 0, 255), (true, -128, 127)] {
                    let bounds = Bounds { lo, hi, shift: 0 };
                    let got = apply_runs(&arith, &full, &small, runs, full_is_a, signed, bounds);
                    let want: Vec<u8> = (0..n)
                        .map(|i| {
                            let (f, s) = (full[i], small[at(i)]);
                            let (a, b) = if full_is_a { (f, s) } else { (s, f) };
                            let mut one = [0u8];
                            if signed {
                                apply_chunk::<true>(
                                    &arith,
                                    &[a],
                                    &[b],
                                    bounds,
                                    as_unfilled(&mut one),
                                );
                            } else {
                                apply_chunk::<false>(
                                    &arith,
                                    &[a],
                                    &[b],
                                    bounds,
                                    as_unfilled(&mut one),
                                );
                            }
                            one[0]
                        })
                        .collect();
                    assert_eq!(got, want, "{small_shape:?} {full_is_a} {signed}");
                }
            }
        }
        assert_eq!(runs_of(&[5, 1, 4], &full_shape), None);
        assert_eq!(runs_of(&[1, 2, 5, 3, 4], &full_shape), None);
    }
}
