//! A chain of f32 element-wise ops run as one pass over memory (`qlower.elementwise_chain`,
//! written by `fuse-elementwise-chains`). Operand 0 is the program, a string of steps
//! `op $a [$b]` separated by `;`; the other operands are the chain's inputs, `$0`, `$1`,
//! …, and step `k` is `$(inputs + k)`. The last step is the result.
//!
//! The output is cut into blocks of `BLOCK` elements; each step runs over a whole block
//! (the unary functions through `vector_math`, vectorized) before the next, so the
//! intermediates stay in the cache instead of each op streaming the tensor through
//! memory. Every step rounds exactly as the unfused op's f32 kernel does, so the chain
//! gives the unfused ops' bytes.
//!
//! An input is either the output's shape, one element, or varies along one run of
//! consecutive axes of the output (a norm's gamma, a per-row statistic): element `i`
//! of the output reads element `(i / inner) % count` of it.

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::vector_math::{Arith, Func, map_on, zip_on};
use crate::kernels::isa::Isa;
use crate::kernels::split::{Cost, task_len};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Prepared, args};

/// Elements each step runs over before the next. A chain's blocks (one per step and per
/// broadcast input) stay in L1 at 512: at 2048, a 9-step tanh GELU's missed it and ran
/// 13% slower; at 256 the per-block dispatch costs more than it saves.
const BLOCK: usize = 512;

/// One step's operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepOp {
    /// A `vector_math` function.
    Vector(Func),
    Sqrt,
    Rsqrt,
    Reciprocal,
    Neg,
    Abs,
    Relu,
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

impl StepOp {
    /// The op spelled `name` in a program.
    pub fn parse(name: &str) -> Option<StepOp> {
        Some(match name {
            "exp" => StepOp::Vector(Func::Exp),
            "log" => StepOp::Vector(Func::Log),
            "sigmoid" => StepOp::Vector(Func::Sigmoid),
            "silu" => StepOp::Vector(Func::Silu),
            "tanh" => StepOp::Vector(Func::Tanh),
            "erf" => StepOp::Vector(Func::Erf),
            "gelu" => StepOp::Vector(Func::Gelu),
            "gelu_tanh" => StepOp::Vector(Func::GeluTanh),
            "sqrt" => StepOp::Sqrt,
            "rsqrt" => StepOp::Rsqrt,
            "reciprocal" => StepOp::Reciprocal,
            "neg" => StepOp::Neg,
            "abs" => StepOp::Abs,
            "relu" => StepOp::Relu,
            "add" => StepOp::Add,
            "sub" => StepOp::Sub,
            "mul" => StepOp::Mul,
            "div" => StepOp::Div,
            "pow" => StepOp::Pow,
            _ => return None,
        })
    }

    pub fn arity(self) -> usize {
        match self {
            StepOp::Add | StepOp::Sub | StepOp::Mul | StepOp::Div | StepOp::Pow => 2,
            _ => 1,
        }
    }
}

/// A parsed program: per step its op and the values it reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub inputs: usize,
    pub steps: Vec<(StepOp, Vec<usize>)>,
}

impl Program {
    /// Reads `text` for a chain of `inputs` inputs; every reference must name an input
    /// or an earlier step.
    pub fn parse(text: &str, inputs: usize) -> Result<Program> {
        let mut steps = Vec::new();
        for (k, step) in text.split(';').map(str::trim).enumerate() {
            let mut words = step.split_whitespace();
            let name = words.next().with_context(|| format!("step {k} is empty"))?;
            let op = StepOp::parse(name)
                .with_context(|| format!("step {k}: '{name}' is not a chain op"))?;
            let refs = words
                .map(|w| {
                    let i: usize = w
                        .strip_prefix('$')
                        .and_then(|n| n.parse().ok())
                        .with_context(|| format!("step {k}: '{w}' is not a $N reference"))?;
                    if i >= inputs + k {
                        bail!("step {k} reads ${i}, which is not computed before it");
                    }
                    Ok(i)
                })
                .collect::<Result<Vec<_>>>()?;
            if refs.len() != op.arity() {
                bail!("step {k}: {name} takes {} operands", op.arity());
            }
            steps.push((op, refs));
        }
        if steps.is_empty() {
            bail!("the chain has no steps");
        }
        Ok(Program { inputs, steps })
    }
}

/// How an input's elements map onto the output's.
enum Source<'a> {
    Full(&'a [f32]),
    Splat(f32),
    /// Element `i` reads `data[(i / inner) % data.len()]`.
    Along {
        data: &'a [f32],
        inner: usize,
    },
}

impl Source<'_> {
    /// The input's elements for output elements `start..start + out.len()`.
    fn fill(&self, start: usize, out: &mut [f32]) {
        match self {
            Source::Full(d) => out.copy_from_slice(&d[start..start + out.len()]),
            Source::Splat(v) => out.fill(*v),
            Source::Along { data, inner: 1 } => {
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
            Source::Along { data, inner } => {
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

/// The shape all of `shapes` broadcast to.
fn broadcast(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; rank];
    for s in shapes {
        for (d, &n) in s.iter().enumerate() {
            let o = &mut out[rank - s.len() + d];
            if *o == 1 {
                *o = n;
            } else if n != 1 && n != *o {
                bail!("operand shapes {shapes:?} do not broadcast");
            }
        }
    }
    Ok(out)
}

/// How input `shape` reads the output `out`: `None` when it varies along axes that are
/// not one run (the pass fuses such an input only when it cannot see that; `run`
/// broadcasts it first).
fn source<'a>(data: &'a [f32], shape: &[usize], out: &[usize]) -> Option<Source<'a>> {
    // One element first: a one-element exponent takes `pow`'s fast path, as unfused.
    if let [v] = data {
        return Some(Source::Splat(*v));
    }
    if data.len() == out.iter().product::<usize>() {
        return Some(Source::Full(data));
    }
    let pad = out.len() - shape.len();
    let varying: Vec<usize> = (0..shape.len())
        .filter(|&d| shape[d] != 1)
        .map(|d| d + pad)
        .collect();
    let (first, last) = (*varying.first()?, *varying.last()?);
    if last - first + 1 != varying.len() {
        return None;
    }
    Some(Source::Along {
        data,
        inner: out[last + 1..].iter().product(),
    })
}

/// `data` of `shape` broadcast to all of `out` (which `broadcast` checked it fits).
fn expand(data: &[f32], shape: &[usize], out: &[usize]) -> Vec<f32> {
    let pad = out.len() - shape.len();
    // The input's stride along each output axis, 0 where it is broadcast.
    let mut strides = vec![0usize; out.len()];
    let mut step = 1;
    for d in (0..shape.len()).rev() {
        if shape[d] != 1 {
            strides[d + pad] = step;
        }
        step *= shape[d];
    }
    let total: usize = out.iter().product();
    let mut v = Vec::with_capacity(total);
    let mut index = vec![0usize; out.len()];
    let mut offset = 0;
    for _ in 0..total {
        v.push(data.get(offset).copied().unwrap_or(f32::NAN));
        for axis in (0..out.len()).rev() {
            index[axis] += 1;
            offset += strides[axis];
            if index[axis] < out[axis] {
                break;
            }
            offset -= strides[axis] * index[axis];
            index[axis] = 0;
        }
    }
    v
}

fn f32_tensor(v: &Value, i: usize) -> Result<(&[usize], &[f32])> {
    match v {
        Value::Tensor(t) => match &t.data {
            Data::F32(d) => Ok((t.shape.as_slice(), d.as_slice())),
            _ => bail!(
                "elementwise_chain input ${i} is a {:?} tensor, not f32",
                t.dtype()
            ),
        },
        other => bail!(
            "elementwise_chain input ${i} is a {}, not an f32 tensor",
            other.kind()
        ),
    }
}

/// The kernel: the program parsed on every call (the plan parses it once instead,
/// through `prepare`).
pub fn elementwise_chain(c: &Call) -> Result<Vec<Value>> {
    let text = args::string(c, 0)?;
    let program = Program::parse(text, c.args.len().saturating_sub(1))?;
    run(&program, c)
}

/// Parses the constant program once, at plan time.
pub fn prepare(constants: &[Option<&Value>]) -> Option<Prepared> {
    let Some(Some(Value::Str(text))) = constants.first() else {
        return None;
    };
    let program = Program::parse(text, constants.len() - 1).ok()?;
    Some(std::sync::Arc::new(move |c: &Call| run(&program, c)))
}

fn run(program: &Program, c: &Call) -> Result<Vec<Value>> {
    let inputs = c
        .args
        .get(1..)
        .context("elementwise_chain has no program")?;
    if inputs.len() != program.inputs {
        bail!(
            "elementwise_chain program reads {} inputs, the op has {}",
            program.inputs,
            inputs.len()
        );
    }
    let tensors = inputs
        .iter()
        .enumerate()
        .map(|(i, v)| f32_tensor(v, i))
        .collect::<Result<Vec<_>>>()?;
    let shapes: Vec<&[usize]> = tensors.iter().map(|t| t.0).collect();
    let out_shape = broadcast(&shapes)?;
    // An input varying along several runs of axes (sizes known only now: the pass
    // declines those it can see) is broadcast to the whole output first.
    let expanded: Vec<Option<Vec<f32>>> = tensors
        .iter()
        .map(|&(shape, d)| {
            source(d, shape, &out_shape)
                .is_none()
                .then(|| expand(d, shape, &out_shape))
        })
        .collect();
    let sources = tensors
        .iter()
        .zip(&expanded)
        .enumerate()
        .map(|(i, (&(shape, d), full))| match full {
            Some(full) => Ok(Source::Full(full)),
            None => source(d, shape, &out_shape).with_context(|| {
                format!("elementwise_chain input ${i} of shape {shape:?} does not broadcast to {out_shape:?}")
            }),
        })
        .collect::<Result<Vec<_>>>()?;
    let exponents = pow_exponents(program, &sources);
    let total: usize = out_shape.iter().product();
    let mut out = vec![0.0f32; total];
    let isa = Isa::best();
    // A chain runs several steps an element, often a polynomial among them.
    let task = task_len(total, Cost::Transcendental, BLOCK);
    if total > task {
        out.par_chunks_mut(task)
            .enumerate()
            .for_each(|(t, y)| evaluate(program, &sources, &exponents, isa, t * task, y));
    } else {
        evaluate(program, &sources, &exponents, isa, 0, &mut out);
    }
    args::ret(c, Tensor::new(out_shape, Data::F32(out))?)
}

/// Per step, the exponent of a `pow` whose exponent is one value (the unfused kernel's
/// fast path), else `None`.
fn pow_exponents(program: &Program, sources: &[Source]) -> Vec<Option<f32>> {
    program
        .steps
        .iter()
        .map(
            |(op, refs)| match (op, refs.get(1).and_then(|&r| sources.get(r))) {
                (StepOp::Pow, Some(Source::Splat(e))) => Some(*e),
                _ => None,
            },
        )
        .collect()
}

/// Output elements `start..start + out.len()`, block by block. Inputs of the output's
/// shape are read in place; the others are written out per block (a splat once).
fn evaluate(
    program: &Program,
    sources: &[Source],
    exponents: &[Option<f32>],
    isa: Isa,
    start: usize,
    out: &mut [f32],
) {
    let n_steps = program.steps.len();
    let mut spread: Vec<Vec<f32>> = sources
        .iter()
        .map(|s| match s {
            Source::Full(_) => Vec::new(),
            Source::Splat(v) => vec![*v; BLOCK],
            Source::Along { .. } => vec![0.0; BLOCK],
        })
        .collect();
    // The last step writes straight into `out`.
    let mut steps: Vec<Vec<f32>> = vec![vec![0.0; BLOCK]; n_steps - 1];
    for (b, y) in out.chunks_mut(BLOCK).enumerate() {
        let at = start + b * BLOCK;
        let n = y.len();
        for (s, buf) in sources.iter().zip(spread.iter_mut()) {
            if let Source::Along { .. } = s {
                s.fill(at, &mut buf[..n]);
            }
        }
        let input = |i: usize| -> &[f32] {
            match &sources[i] {
                Source::Full(d) => &d[at..at + n],
                _ => &spread[i][..n],
            }
        };
        for (k, (op, refs)) in program.steps.iter().enumerate() {
            let (done, rest) = steps.split_at_mut(k.min(n_steps - 1));
            let operand = |r: usize| -> &[f32] {
                if r < program.inputs {
                    input(r)
                } else {
                    &done[r - program.inputs][..n]
                }
            };
            let a = operand(refs[0]);
            let b = refs.get(1).map(|&r| operand(r));
            let dst = if k + 1 == n_steps {
                &mut y[..]
            } else {
                &mut rest[0][..n]
            };
            step(*op, a, b, exponents[k], isa, dst);
        }
    }
}

/// One step over a block, rounding as the op's own f32 kernel does. The steps
/// `vector_math` does not run are plain loops, compiled for AVX2 where the CPU has it:
/// built for the baseline, a cube's f64 products ran two lanes at a time.
fn step(op: StepOp, a: &[f32], b: Option<&[f32]>, exponent: Option<f32>, isa: Isa, y: &mut [f32]) {
    let b = b.unwrap_or(a);
    super::zip::with_avx2(
        #[inline(always)]
        || step_on(op, a, b, exponent, isa, y),
    )
}

#[inline(always)]
fn step_on(op: StepOp, a: &[f32], b: &[f32], exponent: Option<f32>, isa: Isa, y: &mut [f32]) {
    match op {
        StepOp::Vector(func) => map_on(isa, func, a, y),
        StepOp::Sqrt => unary(a, y, f32::sqrt),
        StepOp::Rsqrt => unary(a, y, |x| 1.0 / x.sqrt()),
        StepOp::Reciprocal => unary(a, y, |x| 1.0 / x),
        StepOp::Neg => unary(a, y, |x| -x),
        StepOp::Abs => unary(a, y, f32::abs),
        StepOp::Relu => unary(a, y, |x| if x < 0.0 { 0.0 } else { x }),
        StepOp::Add => zip_on(isa, Arith::Add, a, b, y),
        StepOp::Sub => zip_on(isa, Arith::Sub, a, b, y),
        StepOp::Mul => zip_on(isa, Arith::Mul, a, b, y),
        StepOp::Div => zip_on(isa, Arith::Div, a, b, y),
        StepOp::Pow => match exponent {
            Some(e) => power(a, e, y),
            None => binary(a, b, y, |x, z| (x as f64).powf(z as f64) as f32),
        },
    }
}

#[inline(always)]
fn unary(a: &[f32], y: &mut [f32], f: impl Fn(f32) -> f32) {
    for (y, &x) in y.iter_mut().zip(a) {
        *y = f(x);
    }
}

#[inline(always)]
fn binary(a: &[f32], b: &[f32], y: &mut [f32], f: impl Fn(f32, f32) -> f32) {
    for ((y, &x), &z) in y.iter_mut().zip(a).zip(b) {
        *y = f(x, z);
    }
}

/// `pow` by one exponent, as `math::pow`'s f32 path computes it.
#[inline(always)]
fn power(a: &[f32], e: f32, y: &mut [f32]) {
    let e64 = e as f64;
    if e64 == 2.0 {
        unary(a, y, |x| x * x);
    } else if e64 == 0.5 {
        unary(a, y, super::math::sqrt_power);
    } else if e64 == 3.0 {
        // `small_power`'s order, x·x², in a loop that vectorizes.
        unary(a, y, |x| {
            let x = x as f64;
            (x * (x * x)) as f32
        });
    } else if e64.fract() == 0.0 && e64.abs() <= 8.0 {
        let n = e64 as i32;
        unary(a, y, |x| super::math::small_power(x as f64, n) as f32);
    } else {
        unary(a, y, |x| (x as f64).powf(e64) as f32);
    }
}

#[cfg(test)]
mod tests;
