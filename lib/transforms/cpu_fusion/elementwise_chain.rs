//! `fuse-elementwise-chains`: a connected group of f32 element-wise torch ops of one
//! result shape, whose intermediate values nothing else reads, becomes one
//! `qlower.elementwise_chain` (see `kernels::ops::elementwise_chain`), which runs them
//! in one pass over memory instead of one pass per op. The GELUs exported models write
//! out (Pow, Mul, Add, Tanh or Div, Erf, Add, Mul), x·sigmoid(x), and the
//! `/ statistic · gamma + beta` tails of norms are such groups. The kernel rounds each
//! step as the op's own kernel does, so the results do not change. An op of a tensor
//! and a constant scalar (`mul.Scalar`, QuickGelu's `x · 1.702`) is a step reading the
//! scalar as a one-element f32 literal, the f32 its own kernel rounds it to.
//!
//! A group grows backwards from its last op (the root, whose result may have any
//! users): an op defining an operand joins when it is fusible, in the same block, of
//! the root's result shape, and every user of its result is already in the group. Its
//! other operands are the chain's inputs. The pass declines (leaves the ops as they
//! are) a group of one op, ops on other types, an `add`/`sub` whose alpha is not a
//! constant 1, and an input whose static sizes vary along more than one run of the
//! output's axes (the kernel reads inputs along one run; sizes known only at run time
//! are taken as possibly 1, and the kernel broadcasts such an input whole when they
//! are not).

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Module, Type, Value as MlirValue, ValueLike};
use melior::{Context, IrRewriter};

use super::key;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::qlower;
use crate::dialect::types::{Dim, tensor_type_of_value};
use crate::ir::matchers::{constant_float, constant_int, constant_str, defining, is_one, op_name};
use crate::kernels::tensor::dtype::DType;
use crate::transforms::walk::{module_blocks, operations};

/// Torch ops of one tensor and the chain step each becomes.
const UNARY: &[(&str, &str)] = &[
    ("torch.aten.exp", "exp"),
    ("torch.aten.log", "log"),
    ("torch.aten.sigmoid", "sigmoid"),
    ("torch.aten.silu", "silu"),
    ("torch.aten.tanh", "tanh"),
    ("torch.aten.erf", "erf"),
    ("torch.aten.sqrt", "sqrt"),
    ("torch.aten.rsqrt", "rsqrt"),
    ("torch.aten.reciprocal", "reciprocal"),
    ("torch.aten.neg", "neg"),
    ("torch.aten.abs", "abs"),
    ("torch.aten.relu", "relu"),
];

/// Binary torch ops; the `add`/`sub` ones carry an alpha as their third operand.
const BINARY: &[(&str, &str)] = &[
    ("torch.aten.add.Tensor", "add"),
    ("torch.aten.sub.Tensor", "sub"),
    ("torch.aten.mul.Tensor", "mul"),
    ("torch.aten.div.Tensor", "div"),
    ("torch.aten.pow.Tensor_Tensor", "pow"),
];

/// Torch ops of a tensor and a scalar: the step each becomes, and whether the scalar is
/// the step's first operand (`rsub`: `scalar - alpha·x`). The add/sub ones carry an
/// alpha as their third operand. Their kernels round the scalar to f32 first, so the
/// chain reads it as a one-element f32 input and rounds each step alike.
const SCALAR: &[(&str, &str, bool)] = &[
    ("torch.aten.add.Scalar", "add", false),
    ("torch.aten.sub.Scalar", "sub", false),
    ("torch.aten.rsub.Scalar", "sub", true),
    ("torch.aten.mul.Scalar", "mul", false),
    ("torch.aten.div.Scalar", "div", false),
];

/// Ops per chain at most: the kernel keeps a group of vectors per step (2 KiB on
/// AVX-512; 32 of them stay in L2), and growing a chain rescans its members, which a
/// graph of 100k element-wise ops in a row would make quadratic. A longer run becomes
/// several chains.
const MAX_STEPS: usize = 32;

fn op_key(op: OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// The shape of an f32 ranked tensor value.
fn f32_shape(v: MlirValue) -> Option<Vec<Dim>> {
    let ty = tensor_type_of_value(v)?;
    (ty.dtype == Some(DType::F32)).then_some(())?;
    ty.shape
}

/// What a step reads: a tensor, or a constant scalar as the f32 its op's kernel
/// rounds it to (kept as its bits, so equal scalars are one input).
#[derive(Clone, Copy)]
enum Operand<'c, 'a> {
    Tensor(MlirValue<'c, 'a>),
    Scalar(u32),
}

impl<'c, 'a> Operand<'c, 'a> {
    /// Tells operands apart across both kinds, for the chain's table of inputs.
    fn id(self) -> (bool, usize) {
        match self {
            Operand::Tensor(v) => (false, key(v)),
            Operand::Scalar(bits) => (true, bits as usize),
        }
    }

    fn shape(self) -> Option<Vec<Dim>> {
        match self {
            Operand::Tensor(v) => f32_shape(v),
            Operand::Scalar(_) => Some(Vec::new()),
        }
    }
}

/// `op` as a chain step: its name and what it reads, when it is an f32 element-wise
/// op the kernel computes alike.
fn step_of<'c: 'a, 'a>(op: OperationRef<'c, 'a>) -> Option<(&'static str, Vec<Operand<'c, 'a>>)> {
    let name = op_name(op);
    if name == "torch.aten.gelu" {
        return gelu_step(op);
    }
    if let Some(&(_, step, reversed)) = SCALAR.iter().find(|(n, _, _)| *n == name) {
        return scalar_step(op, step, reversed);
    }
    let (step, arity) = if let Some((_, s)) = UNARY.iter().find(|(n, _)| *n == name) {
        (*s, 1)
    } else {
        let (_, s) = BINARY.iter().find(|(n, _)| *n == name)?;
        (*s, 2)
    };
    let with_alpha = matches!(step, "add" | "sub");
    if op.operand_count() != arity + usize::from(with_alpha) || op.result_count() != 1 {
        return None;
    }
    if with_alpha && !op.operand(2).is_ok_and(is_one) {
        return None;
    }
    let operands: Vec<MlirValue> = (0..arity)
        .map(|i| op.operand(i).ok())
        .collect::<Option<_>>()?;
    if operands.iter().any(|v| f32_shape(*v).is_none()) {
        return None;
    }
    f32_shape(op.result(0).ok()?.into())?;
    Some((step, operands.into_iter().map(Operand::Tensor).collect()))
}

/// An f32 tensor op with a constant scalar as the `step` of the tensor and the scalar
/// (`reversed`: of the scalar and the tensor).
fn scalar_step<'c: 'a, 'a>(
    op: OperationRef<'c, 'a>,
    step: &'static str,
    reversed: bool,
) -> Option<(&'static str, Vec<Operand<'c, 'a>>)> {
    let with_alpha = matches!(step, "add" | "sub");
    if op.operand_count() != 2 + usize::from(with_alpha) || op.result_count() != 1 {
        return None;
    }
    if with_alpha && !op.operand(2).is_ok_and(is_one) {
        return None;
    }
    let x = op.operand(0).ok()?;
    f32_shape(x)?;
    f32_shape(op.result(0).ok()?.into())?;
    let s = op.operand(1).ok()?;
    let value = match constant_float(s) {
        Some(f) => f as f32,
        None => constant_int(s)? as f64 as f32,
    };
    let pair = [Operand::Tensor(x), Operand::Scalar(value.to_bits())];
    let operands = if reversed {
        vec![pair[1], pair[0]]
    } else {
        pair.to_vec()
    };
    Some((step, operands))
}

/// `torch.aten.gelu(x, approximate)` as the chain's `gelu` or `gelu_tanh` step: the
/// kernel's steps are the same `vector_math` functions the op's own kernel runs.
fn gelu_step<'c: 'a, 'a>(op: OperationRef<'c, 'a>) -> Option<(&'static str, Vec<Operand<'c, 'a>>)> {
    if op.operand_count() != 2 || op.result_count() != 1 {
        return None;
    }
    let step = match constant_str(op.operand(1).ok()?)?.as_str() {
        "none" => "gelu",
        "tanh" => "gelu_tanh",
        _ => return None,
    };
    let x = op.operand(0).ok()?;
    f32_shape(x)?;
    f32_shape(op.result(0).ok()?.into())?;
    Some((step, vec![Operand::Tensor(x)]))
}

/// Whether an input of shape `input` may read the output `out` along one run of axes
/// (or be the output's shape, or one element), so that the kernel can index it in
/// place. A size known only at run time counts as possibly 1: an attention mask
/// `[?,1,1,?]` is one run at batch 1, and when it is not, the kernel broadcasts the
/// input whole first (the same bytes, one copy more).
fn reads_along_one_run(input: &[Dim], out: &[Dim]) -> bool {
    if input.len() > out.len() {
        return false;
    }
    let pad = out.len() - input.len();
    let varying: Vec<usize> = (0..input.len())
        .filter(|&d| matches!(input[d], Some(n) if n != 1))
        .collect();
    let contiguous = varying.windows(2).all(|w| w[1] == w[0] + 1);
    contiguous
        && varying
            .iter()
            .all(|&d| out[d + pad].is_none() || input[d] == out[d + pad])
}

/// One chain found: its ops in block order (the root last) and its program's inputs.
struct Chain<'c, 'a> {
    root: OperationRef<'c, 'a>,
    inputs: Vec<Operand<'c, 'a>>,
    program: String,
}

/// Runs the pass over `module`; returns how many chains it fused.
pub fn fuse_elementwise_chains(context: &Context, module: &mut Module) -> Result<usize> {
    let mut users: HashMap<usize, Vec<usize>> = HashMap::new();
    for block in module_blocks(module) {
        for o in operations(block) {
            for v in o.operands() {
                users.entry(key(v)).or_default().push(op_key(o));
            }
        }
    }
    let rewriter = IrRewriter::new(context);
    let mut fused = 0;
    for block in module_blocks(module) {
        let ops = operations(block);
        let chains = find_chains(&ops, &users);
        let mut replacements = Vec::with_capacity(chains.len());
        for chain in &chains {
            rewriter
                .as_rewriter_base()
                .set_insertion_point_before(chain.root);
            let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), chain.root.location());
            let mut operands = vec![b.str(&chain.program)?];
            for input in &chain.inputs {
                operands.push(match *input {
                    Operand::Tensor(v) => v,
                    Operand::Scalar(bits) => {
                        b.scalar_literal(DType::F32, f64::from(f32::from_bits(bits)))?
                    }
                });
            }
            let types: Vec<Type> = chain.root.results().map(|r| r.r#type()).collect();
            let op = b.op(qlower::ELEMENTWISE_CHAIN, &operands, &types, &[])?;
            let results: Vec<MlirValue> = op.results().map(Into::into).collect();
            replacements.push(results);
        }
        // Replaced after every fused op exists: a chain reading another's root then
        // reads that root's replacement.
        for (chain, results) in chains.iter().zip(&replacements) {
            rewriter
                .as_rewriter_base()
                .replace_op_with_values(chain.root, results);
            fused += 1;
        }
    }
    Ok(fused)
}

/// The chains of one block, found on the IR as it is.
fn find_chains<'c: 'a, 'a>(
    ops: &[OperationRef<'c, 'a>],
    users: &HashMap<usize, Vec<usize>>,
) -> Vec<Chain<'c, 'a>> {
    let position: HashMap<usize, usize> = ops
        .iter()
        .enumerate()
        .map(|(i, &o)| (op_key(o), i))
        .collect();
    let mut taken: HashSet<usize> = HashSet::new();
    let mut chains = Vec::new();
    for &root in ops.iter().rev() {
        if taken.contains(&op_key(root)) || step_of(root).is_none() {
            continue;
        }
        if let Some((chain, members)) = grow(root, &position, &taken, users) {
            taken.extend(members);
            chains.push(chain);
        }
    }
    chains
}

/// The chain ending at `root`, and its ops' keys; `None` when it would be one op or an
/// input could not be read along one run of axes.
fn grow<'c: 'a, 'a>(
    root: OperationRef<'c, 'a>,
    position: &HashMap<usize, usize>,
    taken: &HashSet<usize>,
    users: &HashMap<usize, Vec<usize>>,
) -> Option<(Chain<'c, 'a>, Vec<usize>)> {
    let shape = f32_shape(root.result(0).ok()?.into())?;
    let mut members: Vec<OperationRef> = vec![root];
    let mut in_chain: HashSet<usize> = HashSet::from([op_key(root)]);
    while members.len() < MAX_STEPS {
        let mut joined = None;
        'search: for &m in &members {
            let (_, operands) = step_of(m)?;
            for v in operands {
                let Operand::Tensor(v) = v else { continue };
                let Some(d) = defining(v) else { continue };
                let k = op_key(d);
                if in_chain.contains(&k) || taken.contains(&k) || !position.contains_key(&k) {
                    continue;
                }
                let joins = step_of(d).is_some()
                    && f32_shape(v).as_ref() == Some(&shape)
                    && users
                        .get(&key(v))
                        .is_some_and(|u| u.iter().all(|o| in_chain.contains(o)));
                if joins {
                    joined = Some(d);
                    break 'search;
                }
            }
        }
        match joined {
            Some(d) => {
                in_chain.insert(op_key(d));
                members.push(d);
            }
            None => break,
        }
    }
    if members.len() < 2 {
        return None;
    }
    members.sort_by_key(|&m| position.get(&op_key(m)).copied().unwrap_or(usize::MAX));
    let results: HashMap<usize, usize> = members
        .iter()
        .enumerate()
        .filter_map(|(i, m)| Some((key(m.result(0).ok()?), i)))
        .collect();
    let result_of = |v: Operand| match v {
        Operand::Tensor(v) => results.get(&key(v)).copied(),
        Operand::Scalar(_) => None,
    };
    let mut inputs: Vec<Operand> = Vec::new();
    let mut input_index: HashMap<(bool, usize), usize> = HashMap::new();
    let mut steps = Vec::with_capacity(members.len());
    for &m in &members {
        for v in step_of(m)?.1 {
            if result_of(v).is_none() && !input_index.contains_key(&v.id()) {
                if !reads_along_one_run(&v.shape()?, &shape) {
                    return None;
                }
                input_index.insert(v.id(), inputs.len());
                inputs.push(v);
            }
        }
    }
    for &m in &members {
        let (step, operands) = step_of(m)?;
        let refs = operands
            .iter()
            .map(|v| {
                let i = match result_of(*v) {
                    Some(s) => inputs.len() + s,
                    None => *input_index.get(&v.id())?,
                };
                Some(format!("${i}"))
            })
            .collect::<Option<Vec<String>>>()?;
        steps.push(format!("{step} {}", refs.join(" ")));
    }
    let keys = members.iter().map(|&m| op_key(m)).collect();
    Some((
        Chain {
            root,
            inputs,
            program: steps.join("; "),
        },
        keys,
    ))
}
