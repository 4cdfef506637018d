//! A program of element-wise steps evaluated a group of vectors at a time: every step
//! runs over the group before the next group is read, so a value passes through the
//! first level of cache once a step instead of streaming the tensor through memory.
//! The steps are one inlined dispatch over the ops, each a tight loop over the group;
//! operands are read in place and the last step writes straight into the output. Each
//! step rounds as the op's own f32 kernel does (the functions are `vector_math`'s; the
//! powers are computed in f64 as `math::pow` computes them), so a program gives the
//! unfused ops' bytes on every instruction set.

use std::mem::MaybeUninit;

use super::lanes::{self, Lanes};
use super::{Arith, Func, erf, exp, log};
use crate::kernels::isa::Isa;
use crate::kernels::ops::math::{small_power, sqrt_power};
use crate::kernels::tensor::unfilled::as_unfilled;

/// Vectors a step runs over before the next step (2 KiB of f32 on AVX-512). Measured on
/// a tanh GELU (9 steps) and a scaled, masked attention score (2 cheap steps): with 8,
/// the per-group dispatch and staging cost a third more on the cheap chain; at 32 both
/// match or beat the unfused kernels. A 9-step chain's groups (18 KiB) stay in L1, a
/// 32-step one's in L2.
const GROUP: usize = 32;

/// The most lanes any instruction set has.
const MAX_LANES: usize = 16;

/// One step's operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Op {
    Func(Func),
    Arith(Arith),
    Sqrt,
    /// `1 / sqrt(x)`, two roundings.
    Rsqrt,
    Reciprocal,
    Neg,
    Abs,
    /// `x < 0 ? 0 : x` (NaN and -0.0 pass).
    Relu,
    /// `pow(x, 2)`: `x·x` in f32.
    Square,
    /// `pow(x, 3)`: `x·x²` in f64.
    Cube,
    /// `pow(x, 0.5)`: `math::sqrt_power`.
    SqrtPower,
    /// `pow(x, n)`, |n| ≤ 8 and integral: `math::small_power` in f64, lane by lane.
    SmallPower(i32),
    /// `pow(x, e)` for any other one exponent, in f64, lane by lane.
    Powf(f64),
    /// `pow(a, b)` element by element, in f64, lane by lane.
    Pow,
}

/// A step: `op` of values `a` (and `b` for the binary ops; `a` again otherwise). Values
/// are numbered operands first, then steps; a step reads only earlier values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Step {
    pub op: Op,
    pub a: usize,
    pub b: usize,
}

/// How an operand's elements map onto the output's.
pub(crate) enum Operand<'a> {
    /// The output's shape: element `i` is `data[i]`.
    Full(&'a [f32]),
    Splat(f32),
    /// Element `i` is `data[(i / inner) % data.len()]` (a norm's gamma, a per-row
    /// statistic).
    Along {
        data: &'a [f32],
        inner: usize,
    },
}

impl Operand<'_> {
    /// The operand's elements for output elements `start..start + out.len()`.
    fn fill(&self, start: usize, out: &mut [f32]) {
        match self {
            Operand::Full(d) => out.copy_from_slice(&d[start..start + out.len()]),
            Operand::Splat(v) => out.fill(*v),
            Operand::Along { data, inner: 1 } => {
                // Consecutive elements: copy runs of `data`, wrapping round.
                let mut i = start % data.len();
                let mut o = 0;
                while o < out.len() {
                    let run = (data.len() - i).min(out.len() - o);
                    out[o..o + run].copy_from_slice(&data[i..i + run]);
                    o += run;
                    i = 0;
                }
            }
            Operand::Along { data, inner } => {
                let (inner, count) = (*inner, data.len());
                let mut i = start;
                let mut o = 0;
                while o < out.len() {
                    let v = data[(i / inner) % count];
                    let run = (inner - i % inner).min(out.len() - o);
                    out[o..o + run].fill(v);
                    o += run;
                    i += run;
                }
            }
        }
    }
}

/// Output elements `start..start + out.len()` of `steps` over `operands` (the last step
/// is the result), every one written, on `isa`, which the CPU must have. `steps` must be
/// non-empty and read only values before them; a `Full` operand must hold the elements
/// asked for.
pub(crate) fn evaluate_on(
    isa: Isa,
    steps: &[Step],
    operands: &[Operand],
    start: usize,
    out: &mut [MaybeUninit<f32>],
) {
    #[cfg(target_arch = "x86_64")]
    {
        if isa >= Isa::Avx512Vnni && isa.available() {
            // SAFETY: the level's features were detected on this CPU.
            return unsafe { evaluate_avx512(steps, operands, start, out) };
        }
        if isa >= Isa::Avx2 && isa.available() {
            // SAFETY: as above.
            return unsafe { evaluate_avx2(steps, operands, start, out) };
        }
    }
    let _ = isa;
    evaluate::<f32>(steps, operands, start, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn evaluate_avx2(steps: &[Step], operands: &[Operand], start: usize, out: &mut [MaybeUninit<f32>]) {
    evaluate::<super::avx2::Avx2>(steps, operands, start, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
fn evaluate_avx512(
    steps: &[Step],
    operands: &[Operand],
    start: usize,
    out: &mut [MaybeUninit<f32>],
) {
    evaluate::<super::avx512::Avx512>(steps, operands, start, out);
}

/// Where a value's elements for the current group are read.
#[derive(Clone, Copy)]
enum Place<'a> {
    /// In place: `data[at..at + width]`.
    Data(&'a [f32], usize),
    /// Operand `i`'s elements copied into `staged`.
    Staged(usize),
    /// Step `k`'s result in `scratch`.
    Step(usize),
}

/// Each value's elements pass through L1 once a step: read in place where the operand
/// lies whole in memory, staged where it is a splat, a broadcast that wraps round, or
/// the last partial group; the last step writes straight into `out`.
#[inline(always)]
fn evaluate<V: Lanes>(
    steps: &[Step],
    operands: &[Operand],
    start: usize,
    out: &mut [MaybeUninit<f32>],
) {
    if steps.is_empty() {
        return;
    }
    let inputs = operands.len();
    let width = GROUP * V::N;
    let mut staged = vec![0.0f32; inputs * width];
    for (i, operand) in operands.iter().enumerate() {
        if let Operand::Splat(v) = operand {
            staged[i * width..(i + 1) * width].fill(*v);
        }
    }
    let mut phases: Vec<Option<usize>> = vec![None; inputs];
    let mut scratch = vec![0.0f32; steps.len() * width];
    let mut places: Vec<Place> = Vec::with_capacity(inputs + steps.len());
    let mut tail = [0.0f32; GROUP * MAX_LANES];
    let last = steps.len() - 1;
    let mut at = 0;
    while at < out.len() {
        let n = width.min(out.len() - at);
        let first = start + at;
        places.clear();
        for (i, operand) in operands.iter().enumerate() {
            let place = match *operand {
                Operand::Splat(_) => Place::Staged(i),
                Operand::Full(d) if n == width => Place::Data(d, first),
                Operand::Along { data, inner: 1 }
                    if n == width && first % data.len() + width <= data.len() =>
                {
                    Place::Data(data, first % data.len())
                }
                // A period shorter than the group: every group starting at the same
                // phase stages the same elements, so they are staged once per phase.
                Operand::Along { data, inner: 1 }
                    if n == width && phases[i] == Some(first % data.len()) =>
                {
                    Place::Staged(i)
                }
                _ => {
                    // A partial group reads zeros past the end; its lanes are dropped.
                    let group = &mut staged[i * width..(i + 1) * width];
                    group[n..].fill(0.0);
                    operand.fill(first, &mut group[..n]);
                    phases[i] = match *operand {
                        Operand::Along { data, inner: 1 } if n == width => Some(first % data.len()),
                        _ => None,
                    };
                    Place::Staged(i)
                }
            };
            places.push(place);
        }
        places.extend((0..steps.len()).map(Place::Step));
        for (k, step) in steps.iter().enumerate() {
            let (done, rest) = scratch.split_at_mut(k * width);
            let read = |v: usize| -> &[f32] {
                match places[v] {
                    Place::Data(d, from) => &d[from..from + width],
                    Place::Staged(i) => &staged[i * width..(i + 1) * width],
                    Place::Step(j) => &done[j * width..(j + 1) * width],
                }
            };
            let (a, b) = (read(step.a), read(step.b));
            let r = if k < last {
                as_unfilled(&mut rest[..width])
            } else if n == width {
                &mut out[at..at + width]
            } else {
                as_unfilled(&mut tail[..width])
            };
            apply::<V>(step.op, a, b, r);
        }
        if n < width {
            for (o, &t) in out[at..at + n].iter_mut().zip(&tail[..n]) {
                o.write(t);
            }
        }
        at += n;
    }
}

/// Each arm passes an `#[inline(always)]` closure: a function item would be called
/// through a shim compiled without the caller's target features, and not inlined.
#[inline(always)]
fn apply<V: Lanes>(op: Op, a: &[f32], b: &[f32], r: &mut [MaybeUninit<f32>]) {
    let zero = V::splat(0.0);
    let one = V::splat(1.0);
    match op {
        Op::Func(func) => match func {
            Func::Exp => each(
                a,
                r,
                #[inline(always)]
                |x: V| exp::exp(x),
            ),
            Func::Log => each(
                a,
                r,
                #[inline(always)]
                |x: V| log::log(x),
            ),
            Func::Sigmoid => each(
                a,
                r,
                #[inline(always)]
                |x: V| exp::sigmoid(x),
            ),
            Func::Silu => each(
                a,
                r,
                #[inline(always)]
                |x: V| exp::silu(x),
            ),
            Func::Tanh => each(
                a,
                r,
                #[inline(always)]
                |x: V| exp::tanh(x),
            ),
            Func::Erf => each(
                a,
                r,
                #[inline(always)]
                |x: V| erf::erf(x),
            ),
            Func::Gelu => each(
                a,
                r,
                #[inline(always)]
                |x: V| erf::gelu(x),
            ),
            Func::GeluTanh => each(
                a,
                r,
                #[inline(always)]
                |x: V| exp::gelu_tanh(x),
            ),
        },
        Op::Arith(Arith::Add) => each2(
            a,
            b,
            r,
            #[inline(always)]
            |x: V, y: V| x.add(y),
        ),
        Op::Arith(Arith::Sub) => each2(
            a,
            b,
            r,
            #[inline(always)]
            |x: V, y: V| x.sub(y),
        ),
        Op::Arith(Arith::Mul) => each2(
            a,
            b,
            r,
            #[inline(always)]
            |x: V, y: V| x.mul(y),
        ),
        Op::Arith(Arith::Div) => each2(
            a,
            b,
            r,
            #[inline(always)]
            |x: V, y: V| x.div(y),
        ),
        Op::Sqrt => each(
            a,
            r,
            #[inline(always)]
            |x: V| x.sqrt(),
        ),
        Op::Rsqrt => each(
            a,
            r,
            #[inline(always)]
            |x: V| one.div(x.sqrt()),
        ),
        Op::Reciprocal => each(
            a,
            r,
            #[inline(always)]
            |x: V| one.div(x),
        ),
        // Adding 2³¹ to the bits flips the sign bit alone, NaNs included.
        Op::Neg => each(
            a,
            r,
            #[inline(always)]
            |x: V| V::from_bits(V::iadd(x.bits(), V::isplat(i32::MIN))),
        ),
        Op::Abs => each(
            a,
            r,
            #[inline(always)]
            |x: V| lanes::abs(x),
        ),
        Op::Relu => each(
            a,
            r,
            #[inline(always)]
            |x: V| V::select(x.lt(zero), zero, x),
        ),
        Op::Square => each(
            a,
            r,
            #[inline(always)]
            |x: V| x.mul(x),
        ),
        Op::Cube => each(
            a,
            r,
            #[inline(always)]
            |x: V| x.cube(),
        ),
        Op::SqrtPower => each(
            a,
            r,
            #[inline(always)]
            |x: V| lane_by_lane(x, sqrt_power),
        ),
        Op::SmallPower(n) => each(
            a,
            r,
            #[inline(always)]
            |x: V| lane_by_lane(x, |v| small_power(v as f64, n) as f32),
        ),
        Op::Powf(e) => each(
            a,
            r,
            #[inline(always)]
            |x: V| lane_by_lane(x, |v| (v as f64).powf(e) as f32),
        ),
        Op::Pow => each2(
            a,
            b,
            r,
            #[inline(always)]
            |x: V, y: V| {
                let (mut p, mut q) = ([0.0f32; MAX_LANES], [0.0f32; MAX_LANES]);
                x.store(&mut p);
                y.store(&mut q);
                for (p, &q) in p.iter_mut().zip(&q).take(V::N) {
                    *p = (*p as f64).powf(q as f64) as f32;
                }
                V::load(&p)
            },
        ),
    }
}

/// `f` over whole vectors of `a` into `r` (a group's width, a multiple of the lanes).
#[inline(always)]
fn each<V: Lanes>(a: &[f32], r: &mut [MaybeUninit<f32>], f: impl Fn(V) -> V) {
    for (r, a) in r.chunks_exact_mut(V::N).zip(a.chunks_exact(V::N)) {
        f(V::load(a)).store_to(r);
    }
}

#[inline(always)]
fn each2<V: Lanes>(a: &[f32], b: &[f32], r: &mut [MaybeUninit<f32>], f: impl Fn(V, V) -> V) {
    for ((r, a), b) in r
        .chunks_exact_mut(V::N)
        .zip(a.chunks_exact(V::N))
        .zip(b.chunks_exact(V::N))
    {
        f(V::load(a), V::load(b)).store_to(r);
    }
}

/// `f` of each lane in plain Rust, for the rare steps no vector path has.
#[inline(always)]
fn lane_by_lane<V: Lanes>(x: V, f: impl Fn(f32) -> f32) -> V {
    let mut buf = [0.0f32; MAX_LANES];
    x.store(&mut buf);
    for v in buf.iter_mut().take(V::N) {
        *v = f(*v);
    }
    V::load(&buf)
}
