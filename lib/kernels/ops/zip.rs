//! Element-wise evaluation over broadcast operands: tensors and torch scalars, read
//! into the f64 or i64 domain (see `data.rs`), combined element by element.

use std::mem::MaybeUninit;

use anyhow::{Result, bail};
use rayon::prelude::*;

use super::promote::{Operand, result_type};
use crate::kernels::Call;
use crate::kernels::args;
use crate::kernels::split::{Cost, task_len};
use crate::kernels::tensor::data::{Prec, from_f64, from_i64};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::layout::{broadcast_shapes, broadcast_strides, result_count};
use crate::kernels::tensor::unfilled::written_by;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};

/// The most operands one element-wise op takes (`where`, `clamp.Tensor`).
const MAX_ARITY: usize = 3;

/// One operand of an element-wise op.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    Tensor(&'a Tensor),
    Int(i64),
    Float(f64),
    Bool(bool),
}

/// Operand `i` of `c`: a tensor (never a quantized one: those are dequantized before
/// arithmetic) or a scalar.
pub fn arg<'c>(c: &'c Call, i: usize) -> Result<Arg<'c>> {
    Ok(match c.arg(i)? {
        Value::Tensor(_) => {
            let t = args::tensor(c, i)?;
            if t.quant.is_some() {
                bail!(
                    "operand {i} is a quantized {} tensor; this op takes plain values",
                    t.dtype()
                );
            }
            Arg::Tensor(t)
        }
        Value::Int(v) => Arg::Int(*v),
        Value::Float(v) => Arg::Float(*v),
        Value::Bool(v) => Arg::Bool(*v),
        other => bail!(
            "operand {i}: expected a tensor or a scalar, got {}",
            other.kind()
        ),
    })
}

/// Operand `i`, or `None` for `!torch.none` or a missing trailing operand.
pub fn opt_arg<'c>(c: &'c Call, i: usize) -> Result<Option<Arg<'c>>> {
    match args::opt(c, i) {
        None => Ok(None),
        Some(_) => arg(c, i).map(Some),
    }
}

impl Arg<'_> {
    pub fn operand(&self) -> Operand {
        match self {
            Arg::Tensor(t) => Operand::Tensor(t.dtype(), t.rank()),
            Arg::Int(_) => Operand::Int,
            Arg::Float(_) => Operand::Float,
            Arg::Bool(_) => Operand::Bool,
        }
    }

    pub fn shape(&self) -> &[usize] {
        match self {
            Arg::Tensor(t) => &t.shape,
            _ => &[],
        }
    }

    /// The values as the given float precision holds them: a scalar or an integer
    /// becomes that dtype first, as torch converts operands to the computation type.
    pub fn floats(&self, prec: Prec) -> Vec<f64> {
        let raw = match self {
            Arg::Tensor(t) => t.data.to_f64(),
            Arg::Int(v) => vec![*v as f64],
            Arg::Float(v) => vec![*v],
            Arg::Bool(v) => vec![f64::from(u8::from(*v))],
        };
        raw.into_iter().map(|x| prec.round(x)).collect()
    }

    /// The values as integers; float values truncate toward zero.
    pub fn ints(&self) -> Vec<i64> {
        match self {
            Arg::Tensor(t) => t.data.to_i64(),
            Arg::Int(v) => vec![*v],
            Arg::Float(v) => vec![*v as i64],
            Arg::Bool(v) => vec![i64::from(*v)],
        }
    }
}

/// `f` applied to the broadcast elements of `inputs` (each a shape and its values):
/// the broadcast shape and one result per element, in row-major order.
pub fn zip<T: Copy + Default, R>(
    inputs: &[(&[usize], Vec<T>)],
    mut f: impl FnMut(&[T]) -> Result<R>,
) -> Result<(Vec<usize>, Vec<R>)> {
    if inputs.len() > MAX_ARITY {
        bail!(
            "internal error: {} operands to an element-wise op",
            inputs.len()
        );
    }
    let mut shape = Vec::new();
    for (s, _) in inputs {
        shape = broadcast_shapes(&shape, s)?;
    }
    let n = result_count(&shape)?;
    let steps = inputs
        .iter()
        .map(|(s, _)| broadcast_strides(s, &shape))
        .collect::<Result<Vec<_>>>()?;
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return Ok((shape, out));
    }
    match inputs {
        [a] => zip_rows([a], n, &shape, &steps, &mut out, |x: [T; 1]| f(&x))?,
        [a, b] => zip_rows([a, b], n, &shape, &steps, &mut out, |x: [T; 2]| f(&x))?,
        [a, b, c] => zip_rows([a, b, c], n, &shape, &steps, &mut out, |x: [T; 3]| f(&x))?,
        _ => bail!("internal error: an element-wise op without operands"),
    }
    Ok((shape, out))
}

/// The rows of the broadcast result along its last dimension, each operand read as a
/// slice of its row or, where it broadcasts along that dimension, as a row of its one
/// value; the outer dimensions counted like an odometer. With the arity a constant and
/// every operand a slice of the row's length, the inner loop has no per-element index
/// arithmetic or bounds checks: the integer ops of position-bias and mask subgraphs ran
/// at 3 ns an element with both.
fn zip_rows<T: Copy + Default, R, const N: usize>(
    inputs: [&(&[usize], Vec<T>); N],
    n: usize,
    shape: &[usize],
    steps: &[Vec<usize>],
    out: &mut Vec<R>,
    mut f: impl FnMut([T; N]) -> Result<R>,
) -> Result<()> {
    let rank = shape.len();
    let row = shape.last().copied().unwrap_or(1);
    let mut offsets = [0usize; N];
    let mut counter = vec![0usize; rank.saturating_sub(1)];
    let mut filled: [Vec<T>; N] = std::array::from_fn(|_| Vec::new());
    for _ in 0..n / row {
        let contiguous: [bool; N] =
            std::array::from_fn(|k| steps[k].last().copied().unwrap_or(0) == 1);
        for k in 0..N {
            if !contiguous[k] {
                filled[k].clear();
                filled[k].resize(row, inputs[k].1[offsets[k]]);
            }
        }
        let lanes: [&[T]; N] = std::array::from_fn(|k| {
            if contiguous[k] {
                &inputs[k].1[offsets[k]..offsets[k] + row]
            } else {
                &filled[k][..]
            }
        });
        // `j` indexes every lane at once, which an iterator over one of them cannot.
        #[allow(clippy::needless_range_loop)]
        for j in 0..row {
            out.push(f(std::array::from_fn(|k| lanes[k][j]))?);
        }
        for d in (0..counter.len()).rev() {
            counter[d] += 1;
            for (k, steps) in steps.iter().enumerate() {
                offsets[k] += steps[d];
            }
            if counter[d] < shape[d] {
                break;
            }
            counter[d] = 0;
            for (k, steps) in steps.iter().enumerate() {
                offsets[k] -= steps[d] * shape[d];
            }
        }
    }
    Ok(())
}

/// `f` over `args` in the f64 domain at precision `prec`, each result rounded to it.
pub fn zip_float(
    args: &[Arg],
    prec: Prec,
    f: impl Fn(&[f64]) -> f64,
) -> Result<(Vec<usize>, Vec<f64>)> {
    let inputs: Vec<(&[usize], Vec<f64>)> =
        args.iter().map(|a| (a.shape(), a.floats(prec))).collect();
    zip(&inputs, |x| Ok(prec.round(f(x))))
}

/// An operand of the f32 fast path: an f32 tensor's values, or a scalar rounded to f32 as
/// `Arg::floats` rounds it.
#[derive(Clone, Copy)]
enum F32<'a> {
    Values(&'a [f32]),
    Scalar(f32),
}

impl<'a> F32<'a> {
    fn of(a: &Arg<'a>) -> Option<F32<'a>> {
        Some(match a {
            Arg::Tensor(t) => match &t.data {
                Data::F32(v) => F32::Values(v),
                _ => return None,
            },
            Arg::Float(v) => F32::Scalar(*v as f32),
            Arg::Int(v) => F32::Scalar(*v as f64 as f32),
            Arg::Bool(v) => F32::Scalar(f32::from(u8::from(*v))),
        })
    }
}

/// Runs `body` compiled for AVX2 where the CPU has it: the fast paths' float
/// operations round the same at any vector width, so only their speed changes. The
/// caller marks `body` `#[inline(always)]`, so it is compiled into the wrapper.
#[inline(always)]
pub(crate) fn with_avx2<R>(body: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::isa::Isa::best().includes(crate::kernels::isa::Isa::Avx2) {
        #[target_feature(enable = "avx2")]
        fn run<R>(body: impl FnOnce() -> R) -> R {
            body()
        }
        // SAFETY: the level's features were detected on this CPU.
        return unsafe { run(body) };
    }
    body()
}

/// A part of an f32 output not written yet.
type Unfilled<'a> = &'a mut [MaybeUninit<f32>];

/// `f` applied to each element of `x` into `out` (as long), every element of which it
/// writes; split over the pool when large.
fn map_into<T: Copy + Sync, R: Send>(
    x: &[T],
    out: &mut [MaybeUninit<R>],
    f: impl Fn(T) -> R + Sync,
) {
    let body = |(x, y): (&[T], &mut [MaybeUninit<R>])| {
        with_avx2(
            #[inline(always)]
            || {
                for (x, y) in x.iter().zip(y.iter_mut()) {
                    y.write(f(*x));
                }
            },
        )
    };
    let chunk = task_len(x.len(), Cost::Arith, 1);
    if x.len() > chunk {
        x.par_chunks(chunk)
            .zip(out.par_chunks_mut(chunk))
            .for_each(body);
    } else {
        body((x, out));
    }
}

/// A scalar operand as the f32 computation holds it (`None` for a tensor).
pub fn scalar_f32(a: &Arg) -> Option<f32> {
    match F32::of(a)? {
        F32::Scalar(v) => Some(v),
        F32::Values(_) => None,
    }
}

/// The shape shared by the tensor operands, if they all have one and there is one.
fn same_shape<'a>(args: &[&Arg<'a>]) -> Option<&'a [usize]> {
    let mut shape: Option<&'a [usize]> = None;
    for a in args {
        if let Arg::Tensor(t) = a {
            match shape {
                Some(s) if s != t.shape.as_slice() => return None,
                _ => shape = Some(&t.shape),
            }
        }
    }
    shape
}

/// `f` over an f32 tensor `x`, in f32: the fast path of element-wise kernels whose
/// result is f32 and whose `f` gives in f32 the numbers the f64 domain gives (one
/// correctly rounded step, or none). `None` when `x` is not an f32 tensor.
pub fn fast_f32_unary(x: &Arg, f: impl Fn(f32) -> f32 + Sync) -> Option<(Vec<usize>, Vec<f32>)> {
    let shape = same_shape(&[x])?;
    let F32::Values(v) = F32::of(x)? else {
        return None;
    };
    // SAFETY: `map_into` writes every element of an output as long as its input.
    let out = unsafe { written_by(v.len(), |out| map_into(v, out, f)) };
    Some((shape.to_vec(), out))
}

/// Whether `small` broadcasts against `big` by repeating whole: its shape, leading 1s
/// aside, is the tail of `big`'s (a bias over the last axis, a `[1, 1, N]` row).
fn repeats_over(small: &[usize], big: &[usize]) -> bool {
    let dims: Vec<usize> = small.iter().copied().skip_while(|&d| d == 1).collect();
    small.len() <= big.len() && big.ends_with(&dims) && dims.iter().all(|&d| d > 0)
}

/// `f` over `big` and `small` (which `repeats_over` it; `big` is whole periods of
/// `small`, not empty), element `i` of `big` against element `i mod len(small)`;
/// `swap` when `small` is the first operand of `f`.
fn repeating(
    big: &[f32],
    small: &[f32],
    swap: bool,
    f: &(impl Fn(f32, f32) -> f32 + Sync),
) -> Vec<f32> {
    let period = small.len();
    if let &[s] = small {
        // A one-element tensor (a rank-0 constant): a scalar, held by value so that the
        // loop keeps it in a register and vectorizes (behind a reference it was loaded
        // again for each element, and the loop stayed scalar).
        let fill = |out: &mut [MaybeUninit<f32>]| {
            if swap {
                map_into(big, out, move |x| f(s, x));
            } else {
                map_into(big, out, move |x| f(x, s));
            }
        };
        // SAFETY: `map_into` writes every element of an output as long as its input.
        return unsafe { written_by(big.len(), fill) };
    }
    let body = |(x, y): (&[f32], &mut [MaybeUninit<f32>])| {
        with_avx2(
            #[inline(always)]
            || {
                for (x, y) in x.chunks(period).zip(y.chunks_mut(period)) {
                    // `small` is a whole period, at least as long as `x`'s last chunk.
                    let pairs = x.iter().zip(small).zip(y.iter_mut());
                    if swap {
                        pairs.for_each(|((x, s), y)| _ = y.write(f(*s, *x)));
                    } else {
                        pairs.for_each(|((x, s), y)| _ = y.write(f(*x, *s)));
                    }
                }
            },
        )
    };
    // Whole periods per task, so that every chunk starts at element 0 of `small`.
    let chunk = task_len(big.len(), Cost::Arith, period);
    let fill = |out: &mut [MaybeUninit<f32>]| {
        if big.len() > chunk {
            big.par_chunks(chunk)
                .zip(out.par_chunks_mut(chunk))
                .for_each(body);
        } else {
            body((big, out));
        }
    };
    // SAFETY: the chunks of `out` pair with chunks of `big` as long, whose periods pair
    // with `small` whole (`repeats_over`: `big`'s length is a multiple of its), so every
    // element is written.
    unsafe { written_by(big.len(), fill) }
}

/// How many elements of `big` share each element of `small` when `small`'s shape is
/// `big`'s with its trailing dimensions set to 1 (leading 1s aside): `[1, 7, 1]`
/// against `[1, 7, 512]`, a per-row divisor, gives 512. `None` for any other broadcast
/// and for no broadcast at all.
fn per_row(small: &[usize], big: &[usize]) -> Option<usize> {
    let pad = big.len().checked_sub(small.len())?;
    let aligned = |d: usize| if d < pad { 1 } else { small[d - pad] };
    let kept = (0..big.len()).take_while(|&d| aligned(d) == big[d]).count();
    let inner: usize = big[kept..].iter().product();
    let trailing_ones = (kept..big.len()).all(|d| aligned(d) == 1);
    (trailing_ones && inner > 1).then_some(inner)
}

/// `f` over `big` and `small` (which broadcasts `per_row` over it, `inner` elements a
/// row, one row for each element of `small`): element `i` of `big` against element `i / inner` of `small`; `swap` when
/// `small` is the first operand of `f`.
fn rowwise(
    big: &[f32],
    small: &[f32],
    inner: usize,
    swap: bool,
    f: &(impl Fn(f32, f32) -> f32 + Sync),
) -> Vec<f32> {
    let body = |((x, y), s): ((&[f32], Unfilled), &[f32])| {
        with_avx2(
            #[inline(always)]
            || {
                for ((x, y), &s) in x.chunks(inner).zip(y.chunks_mut(inner)).zip(s) {
                    let pairs = x.iter().zip(y.iter_mut());
                    if swap {
                        pairs.for_each(|(x, y)| _ = y.write(f(s, *x)));
                    } else {
                        pairs.for_each(|(x, y)| _ = y.write(f(*x, s)));
                    }
                }
            },
        )
    };
    // Whole rows per task, each with its own elements of `small`.
    let chunk = task_len(big.len(), Cost::Arith, inner);
    let rows = chunk / inner;
    let fill = |out: &mut [MaybeUninit<f32>]| {
        if big.len() > chunk {
            big.par_chunks(chunk)
                .zip(out.par_chunks_mut(chunk))
                .zip(small.par_chunks(rows))
                .for_each(body);
        } else {
            body(((big, out), small));
        }
    };
    // SAFETY: `per_row` made `big` whole rows of `inner`, one per element of `small`,
    // and each task's rows meet as many elements of `small`, so every element of
    // `out` is written.
    unsafe { written_by(big.len(), fill) }
}

/// `fast_f32_unary` for two operands: f32 tensors of one shape, one of them a scalar,
/// one repeating whole over the other (`repeats_over`: a bias over the last axis), or
/// one with an element per row of the other (`per_row`: a `[1, 7, 1]` divisor of a
/// `[1, 7, 512]` tensor). `None` for other broadcasts.
pub fn fast_f32_binary(
    a: &Arg,
    b: &Arg,
    f: impl Fn(f32, f32) -> f32 + Sync,
) -> Option<(Vec<usize>, Vec<f32>)> {
    if let (Arg::Tensor(ta), Arg::Tensor(tb)) = (a, b)
        && ta.shape != tb.shape
    {
        let (F32::Values(va), F32::Values(vb)) = (F32::of(a)?, F32::of(b)?) else {
            return None;
        };
        // The outputs are written unzeroed, so the lengths the shapes promise are
        // checked against the values held.
        let whole_periods =
            |big: &[f32], small: &[f32]| !small.is_empty() && big.len().is_multiple_of(small.len());
        let row_each = |big: &[f32], small: &[f32], inner: usize| {
            small.len().checked_mul(inner) == Some(big.len())
        };
        if repeats_over(&tb.shape, &ta.shape) && whole_periods(va, vb) {
            return Some((ta.shape.clone(), repeating(va, vb, false, &f)));
        }
        if repeats_over(&ta.shape, &tb.shape) && whole_periods(vb, va) {
            return Some((tb.shape.clone(), repeating(vb, va, true, &f)));
        }
        if let Some(inner) = per_row(&tb.shape, &ta.shape)
            && row_each(va, vb, inner)
        {
            return Some((ta.shape.clone(), rowwise(va, vb, inner, false, &f)));
        }
        if let Some(inner) = per_row(&ta.shape, &tb.shape)
            && row_each(vb, va, inner)
        {
            return Some((tb.shape.clone(), rowwise(vb, va, inner, true, &f)));
        }
        return None;
    }
    let shape = same_shape(&[a, b])?;
    let n: usize = shape.iter().product();
    let (a, b) = (F32::of(a)?, F32::of(b)?);
    // Each operand that is a tensor has `shape`, so holds `n` values.
    if [a, b]
        .iter()
        .any(|v| matches!(v, F32::Values(v) if v.len() != n))
    {
        return None;
    }
    let fill = |out: &mut [MaybeUninit<f32>]| match (a, b) {
        (F32::Values(a), F32::Values(b)) => {
            let body = |((a, b), y): ((&[f32], &[f32]), Unfilled)| {
                with_avx2(
                    #[inline(always)]
                    || {
                        for ((a, b), y) in a.iter().zip(b).zip(y.iter_mut()) {
                            y.write(f(*a, *b));
                        }
                    },
                )
            };
            let chunk = task_len(n, Cost::Arith, 1);
            if n > chunk {
                a.par_chunks(chunk)
                    .zip(b.par_chunks(chunk))
                    .zip(out.par_chunks_mut(chunk))
                    .for_each(body);
            } else {
                body(((a, b), out));
            }
        }
        (F32::Values(a), F32::Scalar(b)) => map_into(a, out, move |a| f(a, b)),
        (F32::Scalar(a), F32::Values(b)) => map_into(b, out, move |b| f(a, b)),
        (F32::Scalar(_), F32::Scalar(_)) => {}
    };
    if matches!((a, b), (F32::Scalar(_), F32::Scalar(_))) {
        return None;
    }
    // SAFETY: at least one operand is a tensor of `n` values (checked above), and each
    // arm writes every element of an output as long as its tensor operands.
    let out = unsafe { written_by(n, fill) };
    Some((shape.to_vec(), out))
}

/// An operand of the i64 fast path: an i64 tensor's values, or one value.
#[derive(Clone, Copy)]
enum I64<'a> {
    Values(&'a [i64]),
    One(i64),
}

impl<'a> I64<'a> {
    fn of(a: &Arg<'a>) -> Option<(&'a [usize], I64<'a>)> {
        Some(match a {
            Arg::Tensor(t) => match &t.data {
                Data::I64(v) if v.len() == 1 => (&t.shape[..], I64::One(v[0])),
                Data::I64(v) => (&t.shape[..], I64::Values(v)),
                _ => return None,
            },
            Arg::Int(v) => (&[][..], I64::One(*v)),
            _ => return None,
        })
    }
}

/// `f` over two i64 operands of one shape, or one of them a single value, with no
/// conversions (the general path copies each operand to i64 and checks each result):
/// the integer ops of position-bucket and mask subgraphs. `None` for other operands.
pub fn fast_i64_binary<R>(
    a: &Arg,
    b: &Arg,
    f: impl Fn(i64, i64) -> R,
) -> Option<(Vec<usize>, Vec<R>)> {
    let ((sa, va), (sb, vb)) = (I64::of(a)?, I64::of(b)?);
    let shape = broadcast_shapes(sa, sb).ok()?;
    let n = result_count(&shape).ok()?;
    let v = match (va, vb) {
        (I64::Values(x), I64::Values(y)) if x.len() == n && y.len() == n => {
            x.iter().zip(y).map(|(&x, &y)| f(x, y)).collect()
        }
        (I64::Values(x), I64::One(y)) if x.len() == n => x.iter().map(|&x| f(x, y)).collect(),
        (I64::One(x), I64::Values(y)) if y.len() == n => y.iter().map(|&y| f(x, y)).collect(),
        (I64::One(x), I64::One(y)) if n == 1 => vec![f(x, y)],
        _ => return None,
    };
    Some((shape, v))
}

/// `f` over `args` in the i64 domain.
pub fn zip_int(args: &[Arg], f: impl Fn(&[i64]) -> Result<i64>) -> Result<(Vec<usize>, Vec<i64>)> {
    let inputs: Vec<(&[usize], Vec<i64>)> = args.iter().map(|a| (a.shape(), a.ints())).collect();
    zip(&inputs, f)
}

/// The result's element type: as declared, else as torch promotes `operands`.
pub fn out_dtype(c: &Call, operands: &[Arg]) -> Result<DType> {
    let ops: Vec<Operand> = operands.iter().map(Arg::operand).collect();
    let dtype = args::declared_dtype(c)
        .or_else(|| result_type(&ops))
        .ok_or_else(|| anyhow::anyhow!("the result type cannot be determined"))?;
    if dtype.is_quantized() {
        bail!("the IR declares a quantized {dtype} result for plain values");
    }
    Ok(dtype)
}

/// The one result, of `dtype`, from values in the f64 domain.
pub fn float_result(c: &Call, shape: Vec<usize>, v: &[f64], dtype: DType) -> Result<Vec<Value>> {
    args::ret(c, Tensor::new(shape, from_f64(dtype, v))?)
}

/// The one result, of `dtype`, from values in the i64 domain.
pub fn int_result(c: &Call, shape: Vec<usize>, v: &[i64], dtype: DType) -> Result<Vec<Value>> {
    args::ret(c, Tensor::new(shape, from_i64(dtype, v))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::tensor::Data;

    #[test]
    fn i64_fast_path_equals_the_general_path_where_it_applies() {
        let a = Tensor::new(vec![2, 3], Data::I64(vec![-4, 7, i64::MAX, 0, 3, -9])).unwrap();
        let b = Tensor::new(vec![2, 3], Data::I64(vec![5, -7, 1, 0, 2, 9])).unwrap();
        let one = Tensor::new(vec![1, 1, 1], Data::I64(vec![3])).unwrap();
        let row = Tensor::new(vec![3], Data::I64(vec![1, 2, 3])).unwrap();
        let f = |x: i64, y: i64| x.wrapping_mul(y).wrapping_sub(y);
        let cases = [
            (Arg::Tensor(&a), Arg::Tensor(&b)),
            (Arg::Tensor(&a), Arg::Int(-2)),
            (Arg::Int(11), Arg::Tensor(&b)),
            (Arg::Tensor(&a), Arg::Tensor(&one)),
        ];
        for (x, y) in cases {
            let fast = fast_i64_binary(&x, &y, f).unwrap();
            let general = zip_int(&[x, y], |v| Ok(f(v[0], v[1]))).unwrap();
            assert_eq!(fast, general);
        }
        // A broadcast along a row is left to the general path.
        assert!(fast_i64_binary(&Arg::Tensor(&a), &Arg::Tensor(&row), f).is_none());
    }

    #[test]
    fn operands_broadcast_against_each_other_and_scalars() {
        let a = Tensor::new(vec![2, 1], Data::F32(vec![1.0, 2.0])).unwrap();
        let b = Tensor::new(vec![3], Data::F32(vec![10.0, 20.0, 30.0])).unwrap();
        let (shape, v) = zip_float(
            &[Arg::Tensor(&a), Arg::Tensor(&b), Arg::Int(100)],
            Prec(DType::F32),
            |x| x[0] + x[1] + x[2],
        )
        .unwrap();
        assert_eq!(shape, vec![2, 3]);
        assert_eq!(v, vec![111.0, 121.0, 131.0, 112.0, 122.0, 132.0]);
    }

    /// Every mix of operands read along the row and operands broadcast across it, at
    /// arities 1 to 3, against each element's operands found from its index.
    #[test]
    fn rows_mix_contiguous_and_broadcast_operands() {
        let shapes: [&[usize]; 5] = [&[2, 1, 3], &[4, 1], &[1, 4, 3], &[], &[3]];
        let operand = |shape: &'static [usize], base: i64| {
            let n = shape.iter().product::<usize>() as i64;
            (shape, (base..base + n).collect::<Vec<i64>>())
        };
        // The operand's element at the result index `idx` (broadcast dims read 0).
        let pick = |(shape, v): &(&[usize], Vec<i64>), idx: &[usize]| -> i64 {
            let idx = &idx[idx.len() - shape.len()..];
            let flat = shape
                .iter()
                .zip(idx)
                .fold(0, |acc, (&n, &i)| acc * n + if n == 1 { 0 } else { i });
            v[flat]
        };
        let code = |x: &[i64]| x.iter().fold(0, |acc, v| acc * 10_000 + v);
        let check = |inputs: &[(&[usize], Vec<i64>)]| {
            let (shape, got) = zip(inputs, |x| Ok(code(x))).unwrap();
            let mut idx = vec![0usize; shape.len()];
            for (i, &g) in got.iter().enumerate() {
                let mut rest = i;
                for d in (0..shape.len()).rev() {
                    idx[d] = rest % shape[d];
                    rest /= shape[d];
                }
                let want: Vec<i64> = inputs.iter().map(|op| pick(op, &idx)).collect();
                assert_eq!(g, code(&want), "element {i} of {shape:?}");
            }
        };
        for a in shapes {
            check(&[operand(a, 1)]);
            for b in shapes {
                check(&[operand(a, 1), operand(b, 100)]);
                for c in shapes {
                    check(&[operand(a, 1), operand(b, 100), operand(c, 1000)]);
                }
            }
        }
    }

    #[test]
    fn the_fast_path_repeats_a_trailing_operand_either_side() {
        let big: Vec<f32> = (0..24).map(|i| i as f32 * 0.5 - 3.0).collect();
        let a = Tensor::new(vec![2, 3, 4], Data::F32(big)).unwrap();
        let b = Tensor::new(vec![1, 4], Data::F32(vec![0.25, -1.0, 7.0, 0.1])).unwrap();
        for swap in [false, true] {
            let (x, y) = if swap { (&b, &a) } else { (&a, &b) };
            let (x, y) = (Arg::Tensor(x), Arg::Tensor(y));
            let (shape, fast) = fast_f32_binary(&x, &y, |p, q| p - q).unwrap();
            let (_, slow) = zip_float(&[x, y], Prec(DType::F32), |v| v[0] - v[1]).unwrap();
            assert_eq!(shape, vec![2, 3, 4]);
            let slow: Vec<f32> = slow.iter().map(|&v| v as f32).collect();
            assert_eq!(fast, slow);
        }
        let one = Tensor::new(vec![], Data::F32(vec![0.5])).unwrap();
        let (_, v) = fast_f32_binary(&Arg::Tensor(&one), &Arg::Tensor(&b), |p, q| p / q).unwrap();
        assert_eq!(v, vec![2.0, -0.5, 0.5 / 7.0, 0.5 / 0.1]);
        // [3, 1] does not repeat whole over [3, 4]: the general path takes it.
        let c = Tensor::new(vec![3, 1], Data::F32(vec![1.0; 3])).unwrap();
        assert!(fast_f32_binary(&Arg::Tensor(&a), &Arg::Tensor(&c), |p, q| p + q).is_none());
        assert!(repeats_over(&[1, 1, 4], &[2, 3, 4]));
        assert!(repeats_over(&[], &[2, 3]));
        assert!(!repeats_over(&[2, 1], &[2, 3]));
        assert!(!repeats_over(&[2, 3, 4], &[3, 4]));
    }

    #[test]
    fn the_fast_path_pairs_each_row_with_its_element_either_side() {
        use crate::kernels::testing::{assert_same_f32_bits, awkward_f32s};
        type Op = (fn(f32, f32) -> f32, fn(f64, f64) -> f64);
        let ops: [Op; 4] = [
            (|p, q| p + q, |p, q| p + q),
            (|p, q| p - q, |p, q| p - q),
            (|p, q| p * q, |p, q| p * q),
            (|p, q| p / q, |p, q| p / q),
        ];
        let cases: &[(&[usize], &[usize], usize)] = &[
            (&[1, 7, 512], &[1, 7, 1], 512),
            (&[2, 3, 5], &[2, 3, 1], 5),
            (&[2, 3, 5], &[2, 1, 1], 15),
            (&[1, 3, 5], &[3, 1], 5),
            (&[4, 1, 3], &[4, 1, 1], 3),
            (&[7, 2], &[7, 1], 2),
            (&[0, 4], &[0, 1], 4),
            // More than one task's worth of rows, and rows longer than a task.
            (&[40, 1000], &[40, 1], 1000),
            (&[3, 40000], &[3, 1], 40000),
        ];
        for (seed, &(big, small, inner)) in cases.iter().enumerate() {
            assert_eq!(per_row(small, big), Some(inner), "{small:?} in {big:?}");
            let n: usize = big.iter().product();
            let m: usize = small.iter().product();
            let x = Tensor::new(
                big.to_vec(),
                Data::F32(awkward_f32s(2 * seed as u64, n, true)),
            );
            let y = Tensor::new(
                small.to_vec(),
                Data::F32(awkward_f32s(1 + 2 * seed as u64, m, true)),
            );
            let (x, y) = (x.unwrap(), y.unwrap());
            for (fast_op, slow_op) in ops {
                for swap in [false, true] {
                    let (p, q) = if swap { (&y, &x) } else { (&x, &y) };
                    let (p, q) = (Arg::Tensor(p), Arg::Tensor(q));
                    let (shape, fast) = fast_f32_binary(&p, &q, fast_op).unwrap();
                    let (_, slow) =
                        zip_float(&[p, q], Prec(DType::F32), |v| slow_op(v[0], v[1])).unwrap();
                    assert_eq!(shape, big.to_vec());
                    let slow: Vec<f32> = slow.iter().map(|&v| v as f32).collect();
                    let what = format!("{small:?} in {big:?}, swap {swap}");
                    assert_same_f32_bits(&fast, &slow, &what);
                }
            }
        }
        // Broadcasts on both sides, or over a middle dimension, are not rows.
        assert_eq!(per_row(&[2, 1, 5], &[2, 3, 5]), None);
        assert_eq!(per_row(&[1, 3, 1], &[2, 3, 5]), None);
        assert_eq!(per_row(&[3, 1], &[2, 3, 5]), None);
        assert_eq!(per_row(&[3, 1], &[3, 1]), None);
        assert_eq!(per_row(&[2, 3, 1], &[3, 5]), None);
        assert_eq!(per_row(&[2, 0], &[2, 0]), None);
    }

    #[test]
    fn scalars_take_the_computation_precision() {
        let (_, v) = zip_float(&[Arg::Float(0.1)], Prec(DType::F32), |x| x[0]).unwrap();
        assert_eq!(v, vec![0.1f32 as f64]);
    }
}
