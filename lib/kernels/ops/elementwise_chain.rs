//! A chain of f32 element-wise ops run as one pass over memory (`qlower.elementwise_chain`,
//! written by `fuse-elementwise-chains`). Operand 0 is the program, a string of steps
//! `op $a [$b]` separated by `;`; the other operands are the chain's inputs, `$0`, `$1`,
//! …, and step `k` is `$(inputs + k)`. The last step is the result.
//!
//! The program is evaluated a group of vectors at a time (`vector_math::chain`): every
//! step runs over the group before the next group is read, so the intermediates stay in
//! L1 instead of each op streaming the tensor through memory. Every step
//! rounds exactly as the unfused op's f32 kernel does, so the chain gives the unfused
//! ops' bytes.
//!
//! An input is either the output's shape, one element, or varies along one run of
//! consecutive axes of the output (a norm's gamma, a per-row statistic): element `i`
//! of the output reads element `(i / inner) % count` of it.

use std::mem::MaybeUninit;

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::vector_math::chain::{Op, Operand, Step, evaluate_on};
use super::vector_math::{Arith, Func};
use crate::kernels::isa::Isa;
use crate::kernels::split::{Cost, task_len};
use crate::kernels::tensor::unfilled::written_by;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Prepared, args};

/// Elements a task's length is a multiple of: whole groups of vectors.
const UNIT: usize = 64;

/// The op spelled `name` in a program, and how many operands it takes. `pow` parses
/// as the general power; `compile` picks its fast path for one exponent.
fn parse_op(name: &str) -> Option<(Op, usize)> {
    Some(match name {
        "exp" => (Op::Func(Func::Exp), 1),
        "log" => (Op::Func(Func::Log), 1),
        "sigmoid" => (Op::Func(Func::Sigmoid), 1),
        "silu" => (Op::Func(Func::Silu), 1),
        "tanh" => (Op::Func(Func::Tanh), 1),
        "erf" => (Op::Func(Func::Erf), 1),
        "gelu" => (Op::Func(Func::Gelu), 1),
        "gelu_tanh" => (Op::Func(Func::GeluTanh), 1),
        "sqrt" => (Op::Sqrt, 1),
        "rsqrt" => (Op::Rsqrt, 1),
        "reciprocal" => (Op::Reciprocal, 1),
        "neg" => (Op::Neg, 1),
        "abs" => (Op::Abs, 1),
        "relu" => (Op::Relu, 1),
        "add" => (Op::Arith(Arith::Add), 2),
        "sub" => (Op::Arith(Arith::Sub), 2),
        "mul" => (Op::Arith(Arith::Mul), 2),
        "div" => (Op::Arith(Arith::Div), 2),
        "pow" => (Op::Pow, 2),
        _ => return None,
    })
}

/// A parsed program: per step its op and the values it reads.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Program {
    pub(crate) inputs: usize,
    pub(crate) steps: Vec<(Op, Vec<usize>)>,
}

impl Program {
    /// Reads `text` for a chain of `inputs` inputs; every reference must name an input
    /// or an earlier step.
    pub(crate) fn parse(text: &str, inputs: usize) -> Result<Program> {
        let mut steps = Vec::new();
        for (k, step) in text.split(';').map(str::trim).enumerate() {
            let mut words = step.split_whitespace();
            let name = words.next().with_context(|| format!("step {k} is empty"))?;
            let (op, arity) =
                parse_op(name).with_context(|| format!("step {k}: '{name}' is not a chain op"))?;
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
            if refs.len() != arity {
                bail!("step {k}: {name} takes {arity} operands");
            }
            steps.push((op, refs));
        }
        if steps.is_empty() {
            bail!("the chain has no steps");
        }
        Ok(Program { inputs, steps })
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
fn source<'a>(data: &'a [f32], shape: &[usize], out: &[usize]) -> Option<Operand<'a>> {
    // One element first: a one-element exponent takes `pow`'s fast path, as unfused.
    if let [v] = data {
        return Some(Operand::Splat(*v));
    }
    if data.len() == out.iter().product::<usize>() {
        return Some(Operand::Full(data));
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
    Some(Operand::Along {
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
            Some(full) => Ok(Operand::Full(full)),
            None => source(d, shape, &out_shape).with_context(|| {
                format!("elementwise_chain input ${i} of shape {shape:?} does not broadcast to {out_shape:?}")
            }),
        })
        .collect::<Result<Vec<_>>>()?;
    let steps = compile(program, &sources);
    let total: usize = out_shape.iter().product();
    let isa = Isa::best();
    // A chain runs several steps an element, often a polynomial among them.
    let task = task_len(total, Cost::Transcendental, UNIT);
    let fill = |out: &mut [MaybeUninit<f32>]| {
        if total > task {
            out.par_chunks_mut(task)
                .enumerate()
                .for_each(|(t, y)| evaluate_on(isa, &steps, &sources, t * task, y));
        } else {
            evaluate_on(isa, &steps, &sources, 0, out);
        }
    };
    // SAFETY: `evaluate_on` writes every element of each part it is given.
    let out = unsafe { written_by(total, fill) };
    args::ret(c, Tensor::new(out_shape, Data::F32(out))?)
}

/// The program's steps as `chain` evaluates them. A `pow` whose exponent is one value
/// takes the unfused kernel's fast path for it (`math::pow`'s f32 path).
fn compile(program: &Program, sources: &[Operand]) -> Vec<Step> {
    program
        .steps
        .iter()
        .map(|(op, refs)| {
            let a = refs[0];
            let b = refs.get(1).copied().unwrap_or(a);
            let op = match (op, sources.get(b)) {
                (Op::Pow, Some(Operand::Splat(e))) => power(*e as f64),
                _ => *op,
            };
            Step { op, a, b }
        })
        .collect()
}

/// The step computing `pow(x, e)` for one exponent `e`.
fn power(e: f64) -> Op {
    if e == 2.0 {
        Op::Square
    } else if e == 0.5 {
        Op::SqrtPower
    } else if e == 3.0 {
        Op::Cube
    } else if e.fract() == 0.0 && e.abs() <= 8.0 {
        Op::SmallPower(e as i32)
    } else {
        Op::Powf(e)
    }
}

#[cfg(test)]
mod tests;
