//! `propagate-permutes`: layout as a pass, as ONNX Runtime's transpose optimizer does.
//! Permutes move down through ops that treat every element alike, so that a permute
//! meets the next one and the two merge, vanishing when they compose to the identity.
//! A tf2onnx NHWC network writes a Transpose before and after every Conv; once the
//! Transpose after one Conv has moved through the quantize/dequantize, activation and
//! residual Add that follow, it meets the Transpose before the next Conv and both go.
//!
//! - `permute(permute(x, p), q)` is `permute(x, p∘q)`, or `x` for the identity; so is
//!   a permute that is itself the identity.
//! - `u(permute(x, p), …)` for an element-wise `u` of one tensor (per-tensor
//!   quantize/dequantize, casts, activations) is `permute(u(x, …), p)`.
//! - `b(permute(x, p), permute(y, p))` for an element-wise binary `b` is
//!   `permute(b(x, y), p)`; with a constant for the other operand (a literal, or a
//!   quantized literal's dequantization), the constant is permuted back instead
//!   (broadcast to x's rank first): the pass writes the permuted literal.
//!
//! Permutes only move down, and the binary rule never puts a permute on an operand that
//! is computed at run time, so the rules cannot undo one another. Per-channel ops (an
//! `axis` operand) and shape-dependent ops stop a permute.

use anyhow::Result;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Module, Value, ValueLike};
use melior::{Context, RewriterBase};

use super::constants::{constant_of, fits, materialize_as};
use super::limits::DEFAULT_MAX_ELEMENTS;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{TensorType, tensor_type_of_value as tensor_type};
use crate::ir::matchers::{constant_int, named, op_name};
use crate::kernels::tensor::value::Value as Constant;
use crate::kernels::{Call, ResultType, lookup};
use crate::rewrite::{Outcome, PatternResult, Rule, apply_rules};

pub const PERMUTE: &str = "torch.aten.permute";

/// Element-wise ops of their first operand whose other operands are scalars.
pub const UNARY: &[&str] = &[
    "torch.aten.quantize_per_tensor",
    "torch.aten.int_repr",
    "torch.aten._make_per_tensor_quantized_tensor",
    "torch.aten.dequantize.self",
    "torch.aten.dequantize.tensor",
    "torch.aten.to.dtype",
    "torch.aten.relu",
    "torch.aten.relu6",
    "torch.aten.leaky_relu",
    "torch.aten.hardtanh",
    "torch.aten.clamp",
    "torch.aten.sigmoid",
    "torch.aten.tanh",
    "torch.aten.gelu",
    "torch.aten.silu",
    "torch.aten.hardswish",
    "torch.aten.hardsigmoid",
    "torch.aten.exp",
    "torch.aten.neg",
    "torch.aten.abs",
    "torch.aten.sqrt",
    "torch.aten.round",
    "torch.aten.erf",
];

/// Element-wise ops of their first two operands (broadcasting), other operands scalars.
pub const BINARY: &[&str] = &[
    "torch.aten.add.Tensor",
    "torch.aten.sub.Tensor",
    "torch.aten.mul.Tensor",
    "torch.aten.div.Tensor",
    "torch.aten.maximum",
    "torch.aten.minimum",
];

/// The ops a rule may create.
pub(super) const GENERATED: &[&str] = &[
    PERMUTE,
    "torch.vtensor.literal",
    "torch.prim.ListConstruct",
    "torch.constant.int",
];

pub fn propagate_permutes(context: &Context, module: &mut Module) -> Result<()> {
    let mut rules: Vec<Rule> = vec![(PERMUTE, GENERATED.to_vec(), Box::new(merge))];
    for &name in UNARY {
        rules.push((name, generated_with(name), Box::new(through_unary)));
    }
    for &name in BINARY {
        rules.push((name, generated_with(name), Box::new(through_binary)));
    }
    rules.extend(super::permute_axes::rules());
    apply_rules(context, module, rules)
}

/// `GENERATED` and `name`: a rule that rewrites an op creates one of the same name.
pub(super) fn generated_with(name: &'static str) -> Vec<&'static str> {
    let mut all = GENERATED.to_vec();
    all.push(name);
    all
}

/// The permutation of a `torch.aten.permute` (normalized), and its input.
pub(super) fn permutation<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<(Value<'c, 'a>, Vec<usize>)> {
    let op = named(v, PERMUTE)?;
    let list = named(op.operand(1).ok()?, "torch.prim.ListConstruct")?;
    let rank = list.operand_count() as i64;
    let mut perm = Vec::new();
    for d in list.operands() {
        let d = constant_int(d)?;
        let d = if d < 0 { d + rank } else { d };
        perm.push(usize::try_from(d).ok().filter(|&d| (d as i64) < rank)?);
    }
    let mut seen = vec![false; perm.len()];
    for &d in &perm {
        if std::mem::replace(&mut seen[d], true) {
            return None;
        }
    }
    Some((op.operand(0).ok()?, perm))
}

/// The shape before `perm` of a tensor whose shape after it is `t`'s.
pub(super) fn unpermuted(t: &TensorType, perm: &[usize]) -> Option<TensorType> {
    let shape = t.shape.as_ref()?;
    if shape.len() != perm.len() {
        return None;
    }
    let mut before = vec![None; shape.len()];
    for (i, &p) in perm.iter().enumerate() {
        before[p] = shape[i];
    }
    Some(TensorType {
        dtype: t.dtype,
        shape: Some(before),
    })
}

pub(super) fn is_identity(perm: &[usize]) -> bool {
    perm.iter().enumerate().all(|(i, &d)| i == d)
}

fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    inv
}

pub(super) fn as_i64(perm: &[usize]) -> Vec<i64> {
    perm.iter().map(|&d| d as i64).collect()
}

/// Whether `v` is a tensor; scalars (`!torch.int`, …) are not.
pub(super) fn is_tensor(v: Value) -> bool {
    v.r#type().to_string().starts_with("!torch.vtensor")
}

/// `permute(permute(x, p), q)`.
pub fn merge<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    let Some((input, second)) = permutation(op.result(0)?.into()) else {
        crate::no_match!("not a constant permute");
    };
    let result = op.result(0)?;
    if is_identity(&second) && input.r#type() == result.r#type() {
        rewriter.replace_op_with_values(op, &[input]);
        return Ok(Outcome::Rewritten);
    }
    let Some((x, first)) = permutation(input) else {
        crate::no_match!("the input is not a constant permute");
    };
    if first.len() != second.len() {
        crate::no_match!("ranks differ");
    }
    let composed: Vec<usize> = second.iter().map(|&i| first[i]).collect();
    if is_identity(&composed) {
        if x.r#type() != result.r#type() {
            crate::no_match!("the identity changes the declared type");
        }
        rewriter.replace_op_with_values(op, &[x]);
        return Ok(Outcome::Rewritten);
    }
    let b = TorchBuilder::new(context, rewriter, op.location());
    let list = b.int_list(&as_i64(&composed))?;
    let merged = b.aten("permute", &[x, list], result.r#type())?;
    rewriter.replace_op_with_values(op, &[merged]);
    Ok(Outcome::Rewritten)
}

/// `u(permute(x, p), …)` → `permute(u(x, …), p)`.
pub fn through_unary<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    if op.result_count() != 1 || op.operand_count() == 0 {
        crate::no_match!("not a one-result op");
    }
    let Some((x, perm)) = permutation(op.operand(0)?) else {
        crate::no_match!("the first operand is not a constant permute");
    };
    if op.operands().skip(1).any(is_tensor) {
        crate::no_match!("another operand is a tensor");
    }
    if named(x, "torch.vtensor.literal").is_some() {
        // fold-constants makes the permute of a literal a literal; moved, it would not be.
        crate::no_match!("the permute reads a literal");
    }
    let list = named(op.operand(0)?, PERMUTE)
        .and_then(|p| p.operand(1).ok())
        .ok_or_else(|| anyhow::anyhow!("permute without its list"))?;
    let result = op.result(0)?;
    let Some(before) = tensor_type(result.into()).and_then(|t| unpermuted(&t, &perm)) else {
        crate::no_match!("the result's rank is unknown or differs");
    };
    let b = TorchBuilder::new(context, rewriter, op.location());
    let mut operands: Vec<Value> = op.operands().collect();
    operands[0] = x;
    let moved = op_then_permute(&b, op, &operands, &before, list)?;
    rewriter.replace_op_with_values(op, &[moved]);
    Ok(Outcome::Rewritten)
}

/// `op`'s kind applied to `operands` with result type `before`, then permuted by `list`
/// back to `op`'s result type: the moved form of `op`.
fn op_then_permute<'c: 'a, 'a>(
    b: &TorchBuilder<'c, 'a>,
    op: OperationRef<'c, 'a>,
    operands: &[Value<'c, 'a>],
    before: &TensorType,
    list: Value<'c, 'a>,
) -> anyhow::Result<Value<'c, 'a>> {
    let inner = b.op(&op_name(op), operands, &[b.tensor_type(before)?], &[])?;
    b.aten(
        "permute",
        &[inner.result(0)?.into(), list],
        op.result(0)?.r#type(),
    )
}

/// `b(permute(x, p), permute(y, p))` → `permute(b(x, y), p)`; either side may be a
/// literal instead, which is permuted back.
pub fn through_binary<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    if op.result_count() != 1 || op.operand_count() < 2 {
        crate::no_match!("not a binary op");
    }
    if op.operands().skip(2).any(is_tensor) {
        crate::no_match!("a third operand is a tensor");
    }
    let (a, c) = (op.operand(0)?, op.operand(1)?);
    let (pa, pc) = (permutation(a), permutation(c));
    let (perm, list) = match (&pa, &pc) {
        (Some((_, p)), _) => (p.clone(), named(a, PERMUTE)),
        (None, Some((_, p))) => (p.clone(), named(c, PERMUTE)),
        (None, None) => crate::no_match!("neither operand is a constant permute"),
    };
    let Some(list) = list.and_then(|p| p.operand(1).ok()) else {
        crate::no_match!("permute without its list");
    };
    if let (Some((_, p)), Some((_, q))) = (&pa, &pc)
        && p != q
    {
        crate::no_match!("the operands are permuted differently");
    }
    let result = op.result(0)?;
    let Some(before) = tensor_type(result.into()).and_then(|t| unpermuted(&t, &perm)) else {
        crate::no_match!("the result's rank is unknown or differs");
    };
    let b = TorchBuilder::new(context, rewriter, op.location());
    let back = |v: Value<'c, 'a>, p: &Option<(Value<'c, 'a>, Vec<usize>)>| {
        if let Some((inner, _)) = p {
            return Ok(Some(*inner));
        }
        permuted_back(&b, v, &perm)
    };
    let (Some(x), Some(y)) = (back(a, &pa)?, back(c, &pc)?) else {
        b.erase_inserted();
        crate::no_match!("the other operand is computed at run time, not a permute of it");
    };
    let mut operands: Vec<Value> = op.operands().collect();
    operands[0] = x;
    operands[1] = y;
    let moved = op_then_permute(&b, op, &operands, &before, list)?;
    rewriter.replace_op_with_values(op, &[moved]);
    Ok(Outcome::Rewritten)
}

/// A constant operand `v` of a binary op whose other operand is permuted by `perm`, as
/// the constant that broadcasts against the unpermuted operand the same way: reshaped to
/// the full rank (broadcasting aligns the trailing axes), then permuted by the inverse.
/// A literal becomes the permuted literal (up to fold-constants' size limit); a
/// constant behind element-wise ops of one tensor (a quantized constant's
/// `dequantize(_make_per_tensor_quantized_tensor(literal))`, as ONNX Runtime's QDQ
/// models write them) has the same ops rebuilt on its permuted literal, so it stays a
/// quantized constant. `None` for anything else, or more axes than `perm`.
pub(super) fn permuted_back<'c: 'a, 'a>(
    b: &TorchBuilder<'c, 'a>,
    v: Value<'c, 'a>,
    perm: &[usize],
) -> anyhow::Result<Option<Value<'c, 'a>>> {
    let Some(t) = tensor_type(v) else {
        return Ok(None);
    };
    let (Some(dims), Some(dtype)) = (t.static_dims(), t.dtype) else {
        return Ok(None);
    };
    let rank = perm.len();
    if dims.len() > rank {
        return Ok(None);
    }
    if dims.iter().all(|&d| d == 1) {
        // One value broadcasts the same way whatever the layout.
        return Ok(Some(v));
    }
    let mut full = vec![1i64; rank - dims.len()];
    full.extend(&dims);
    let inv = inverse(perm);
    let back: Vec<i64> = inv.iter().map(|&i| full[i]).collect();
    if let Some(op) = crate::ir::matchers::defining(v)
        && UNARY.contains(&op_name(op).as_str())
        && op.result_count() == 1
        && !op.operands().skip(1).any(is_tensor)
    {
        let Some(inner) = permuted_back(b, op.operand(0)?, perm)? else {
            return Ok(None);
        };
        let mut operands: Vec<Value> = op.operands().collect();
        operands[0] = inner;
        let rebuilt = b.op(
            &op_name(op),
            &operands,
            &[b.tensor_type(&TensorType::known(dtype, &back))?],
            &[],
        )?;
        return Ok(Some(rebuilt.result(0)?.into()));
    }
    if named(v, "torch.vtensor.literal").is_none() {
        return Ok(None);
    }
    // The permuted literal itself, computed now by the permute kernel (as fold-constants
    // would): a permute op here would block the fusions that read the literal.
    let Some(Constant::Tensor(data)) = constant_of(v, DEFAULT_MAX_ELEMENTS) else {
        return Ok(None);
    };
    let mut data = (*data).clone();
    data.shape = full.iter().map(|&d| d as usize).collect();
    let declared = ResultType::Tensor(TensorType::known(dtype, &back));
    let Some(kernel) = lookup(PERMUTE) else {
        return Ok(None);
    };
    let out = kernel(&Call {
        args: &[Constant::tensor(data), Constant::IntList(as_i64(&inv))],
        results: std::slice::from_ref(&declared),
    })?;
    match out.first() {
        Some(value) if fits(value, &declared) => Ok(Some(materialize_as(b, value, &declared)?)),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpermuting_restores_the_input_shape() {
        // NCHW [1, 3, 8, 6] permuted to NHWC by [0, 2, 3, 1] is [1, 8, 6, 3].
        let nhwc = TensorType::known(crate::onnx::dtype::DType::F32, &[1, 8, 6, 3]);
        let nchw = unpermuted(&nhwc, &[0, 2, 3, 1]).unwrap();
        assert_eq!(nchw.static_dims().unwrap(), vec![1, 3, 8, 6]);
        assert_eq!(inverse(&[0, 2, 3, 1]), vec![0, 3, 1, 2]);
    }
}
