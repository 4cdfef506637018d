//! The `propagate-permutes` rules for ops that name axes: a permute moves down through
//! them with the axes they name read through the permutation, as ONNX Runtime's
//! transpose optimizer and IREE's transpose propagation do.
//!
//! Axis `a` of `permute(x, p)` is axis `p[a]` of x, so:
//! - a reduction over axes `D` that keeps them is `permute(reduce(x, p[D]), p)`; one
//!   that drops them keeps x's other axes in x's order, so the permute after it is the
//!   order of the kept axes among themselves (none when they stay in order, as NHWC's
//!   `mean` over H and W keeps N, C);
//! - softmax and log_softmax along `d`, `slice.Tensor` along `d`, and the per-channel
//!   quantizations along `axis` take `p[d]` and keep the permute after them;
//! - a pad moves each axis' pads to the axis it comes from (pads stay `!torch.int`s,
//!   so pads known only at run time move too);
//! - `cat` of parts all permuted by the same `p` (or constants, written again
//!   permuted back) joins the unpermuted parts along `p[d]`.
//!
//! A rule needs the axes as constants and the result's rank; it never fires on a
//! permute of a literal (fold-constants makes that a literal).

use melior::Context;
use melior::RewriterBase;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value, ValueLike};

use super::propagate_permutes::{
    GENERATED, as_i64, generated_with, is_identity, is_tensor, permutation, permuted_back,
    unpermuted,
};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{TensorType, tensor_type_of_value as tensor_type};
use crate::ir::matchers::{constant_bool, constant_int, named, op_name};
use crate::rewrite::{Outcome, PatternResult, Rule};

/// How a reduction names its axes.
#[derive(Clone, Copy)]
enum Axes {
    /// A `!torch.list<int>` operand.
    List,
    /// One `!torch.int` operand.
    One,
}

/// Reductions: (op, operand naming the axes, how, operand holding keepdim).
const REDUCTIONS: &[(&str, usize, Axes, usize)] = &[
    ("torch.aten.sum.dim_IntList", 1, Axes::List, 2),
    ("torch.aten.mean.dim", 1, Axes::List, 2),
    ("torch.aten.amax", 1, Axes::List, 2),
    ("torch.aten.amin", 1, Axes::List, 2),
    ("torch.aten.logsumexp", 1, Axes::List, 2),
    ("torch.aten.prod.dim_int", 1, Axes::One, 2),
    ("torch.aten.argmax", 1, Axes::One, 2),
    ("torch.aten.argmin", 1, Axes::One, 2),
    ("torch.aten.linalg_vector_norm", 2, Axes::List, 3),
];

/// Ops of one tensor along one axis that keep the rank: (op, operand naming the axis).
const ALONG_AXIS: &[(&str, usize)] = &[
    ("torch.aten.softmax.int", 1),
    ("torch.aten.log_softmax.int", 1),
    ("torch.aten.slice.Tensor", 1),
    ("torch.aten.quantize_per_channel", 3),
    ("torch.aten._make_per_channel_quantized_tensor", 3),
];

/// Pads: torch's pad list (last dimension first) is operand 1.
const PADS: &[&str] = &["torch.aten.constant_pad_nd", "torch.aten.pad"];

pub(super) fn rules() -> Vec<Rule> {
    let mut rules: Vec<Rule> = Vec::new();
    for &(name, at, axes, keep) in REDUCTIONS {
        rules.push((
            name,
            generated_with(name),
            Box::new(move |c, op, r| through_reduction(c, op, r, at, axes, keep)),
        ));
    }
    for &(name, at) in ALONG_AXIS {
        rules.push((
            name,
            generated_with(name),
            Box::new(move |c, op, r| through_axis_op(c, op, r, at)),
        ));
    }
    for &name in PADS {
        rules.push((name, generated_with(name), Box::new(through_pad)));
    }
    let mut cat = generated_with("torch.aten.cat");
    cat.extend(GENERATED);
    rules.push(("torch.aten.cat", cat, Box::new(through_cat)));
    rules
}

/// The permuted tensor `op` reads as operand 0, when it is a permute of a value that
/// is not a literal, and `op`'s one result with a known rank.
fn permuted_operand<'c: 'a, 'a>(
    op: OperationRef<'c, 'a>,
) -> Option<(Value<'c, 'a>, Vec<usize>, TensorType)> {
    if op.result_count() != 1 {
        return None;
    }
    let (x, perm) = permutation(op.operand(0).ok()?)?;
    if named(x, "torch.vtensor.literal").is_some() {
        return None;
    }
    let result = tensor_type(op.result(0).ok()?.into())?;
    result.rank()?;
    Some((x, perm, result))
}

/// Axis `a` of a rank-`rank` tensor (negative counts from the end), if in range.
fn axis(a: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    let a = if a < 0 { a + r } else { a };
    usize::try_from(a).ok().filter(|&a| a < rank)
}

/// `op` rebuilt on `operands` with result type `inner`, then permuted by `q` (left
/// out when `q` is the identity) back to `op`'s result type.
fn rebuilt_then_permuted<'c: 'a, 'a>(
    b: &TorchBuilder<'c, 'a>,
    op: OperationRef<'c, 'a>,
    operands: &[Value<'c, 'a>],
    inner: &TensorType,
    q: &[usize],
) -> anyhow::Result<Value<'c, 'a>> {
    let rebuilt = b.op(&op_name(op), operands, &[b.tensor_type(inner)?], &[])?;
    let value: Value = rebuilt.result(0)?.into();
    let result = op.result(0)?.r#type();
    if is_identity(q) && value.r#type() == result {
        return Ok(value);
    }
    let list = b.int_list(&as_i64(q))?;
    b.aten("permute", &[value, list], result)
}

/// `reduce(permute(x, p), D, keepdim)` → `permute(reduce(x, p[D], keepdim), q)`.
fn through_reduction<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
    at: usize,
    kind: Axes,
    keep_at: usize,
) -> PatternResult {
    let Some((x, perm, result)) = permuted_operand(op) else {
        crate::no_match!("not a reduction of a permute of a computed tensor, ranked");
    };
    let rank = perm.len();
    let (Ok(named_axes), Ok(keep)) = (op.operand(at), op.operand(keep_at)) else {
        crate::no_match!("missing axes or keepdim operand");
    };
    let Some(keep) = constant_bool(keep) else {
        crate::no_match!("keepdim is not a constant");
    };
    let listed: Option<Vec<i64>> = match kind {
        Axes::One => constant_int(named_axes).map(|a| vec![a]),
        Axes::List => named(named_axes, "torch.prim.ListConstruct")
            .and_then(|l| l.operands().map(constant_int).collect()),
    };
    let Some(reduced) = listed
        .filter(|l| !l.is_empty())
        .and_then(|l| l.iter().map(|&a| axis(a, rank)).collect::<Option<Vec<_>>>())
    else {
        crate::no_match!("the axes are not constants in range (or none, meaning all)");
    };
    let mut is_reduced = vec![false; rank];
    for &a in &reduced {
        if std::mem::replace(&mut is_reduced[a], true) {
            crate::no_match!("an axis is listed twice");
        }
    }
    let Some(shape) = result.shape.clone() else {
        crate::no_match!("unranked result");
    };
    let (inner, q) = if keep {
        let Some(inner) = unpermuted(&result, &perm) else {
            crate::no_match!("the result's rank differs from the permute's");
        };
        (inner, perm.clone())
    } else {
        // The kept axes of x, in the permuted order and in x's order.
        let kept: Vec<usize> = (0..rank)
            .filter(|&a| !is_reduced[a])
            .map(|a| perm[a])
            .collect();
        if shape.len() != kept.len() {
            crate::no_match!("the result's rank is not the kept axes'");
        }
        let mut sorted = kept.clone();
        sorted.sort_unstable();
        let q: Vec<usize> = kept
            .iter()
            .filter_map(|k| sorted.iter().position(|s| s == k))
            .collect();
        let mut before = vec![None; q.len()];
        for (j, &to) in q.iter().enumerate() {
            before[to] = shape[j];
        }
        let inner = TensorType {
            dtype: result.dtype,
            shape: Some(before),
        };
        (inner, q)
    };
    let mut mapped: Vec<i64> = reduced.iter().map(|&a| perm[a] as i64).collect();
    mapped.sort_unstable();
    let b = TorchBuilder::new(context, rewriter, op.location());
    let mut operands: Vec<Value> = op.operands().collect();
    operands[0] = x;
    operands[at] = match kind {
        Axes::One => b.int(mapped[0])?,
        Axes::List => b.int_list(&mapped)?,
    };
    let moved = rebuilt_then_permuted(&b, op, &operands, &inner, &q)?;
    rewriter.replace_op_with_values(op, &[moved]);
    Ok(Outcome::Rewritten)
}

/// `f(permute(x, p), d, …)` → `permute(f(x, p[d], …), p)` for an op along one axis
/// that keeps the rank.
fn through_axis_op<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
    at: usize,
) -> PatternResult {
    let Some((x, perm, result)) = permuted_operand(op) else {
        crate::no_match!("not an op of a permute of a computed tensor, ranked");
    };
    let Some(d) = op
        .operand(at)
        .ok()
        .and_then(constant_int)
        .and_then(|d| axis(d, perm.len()))
    else {
        crate::no_match!("the axis is not a constant in range");
    };
    let Some(inner) = unpermuted(&result, &perm) else {
        crate::no_match!("the result's rank differs from the permute's");
    };
    let b = TorchBuilder::new(context, rewriter, op.location());
    let mut operands: Vec<Value> = op.operands().collect();
    operands[0] = x;
    operands[at] = b.int(perm[d] as i64)?;
    let moved = rebuilt_then_permuted(&b, op, &operands, &inner, &perm)?;
    rewriter.replace_op_with_values(op, &[moved]);
    Ok(Outcome::Rewritten)
}

/// `pad(permute(x, p), pads, …)` → `permute(pad(x, pads'), p)`, where pads' gives
/// axis `p[a]` of x the pads of axis `a`.
fn through_pad<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    let Some((x, perm, result)) = permuted_operand(op) else {
        crate::no_match!("not a pad of a permute of a computed tensor, ranked");
    };
    // A pool reads its pad as its own padding (avg_pool.rs fuses the two with ONNX
    // Runtime's rounding): the pad stays next to it.
    let read_by_pool = op.result(0).is_ok_and(|r| {
        let padded: Value = r.into();
        let mut next = op.next_in_block();
        while let Some(o) = next {
            if op_name(o).contains("_pool") && o.operands().any(|v| v == padded) {
                return true;
            }
            next = o.next_in_block();
        }
        false
    });
    if read_by_pool {
        crate::no_match!("a pool reads the pad");
    }
    let rank = perm.len();
    let Some(list) = op
        .operand(1)
        .ok()
        .and_then(|l| named(l, "torch.prim.ListConstruct"))
    else {
        crate::no_match!("the pads are not a list construct");
    };
    let pads: Vec<Value> = list.operands().collect();
    if !pads.len().is_multiple_of(2) || pads.len() / 2 > rank {
        crate::no_match!("{} pads for rank {rank}", pads.len());
    }
    let Some(inner) = unpermuted(&result, &perm) else {
        crate::no_match!("the result's rank differs from the permute's");
    };
    // Pair k of torch's list pads axis rank-1-k; it moves to x's axis perm[rank-1-k].
    let mut of_axis: Vec<Option<(Value, Value)>> = vec![None; rank];
    for (k, pair) in pads.chunks_exact(2).enumerate() {
        of_axis[perm[rank - 1 - k]] = Some((pair[0], pair[1]));
    }
    // The list stops at the first axis that is padded: pairs of constant zeros
    // before it are left out.
    let zeros = |(begin, end): &(Value, Value)| {
        constant_int(*begin) == Some(0) && constant_int(*end) == Some(0)
    };
    let Some(first) = of_axis
        .iter()
        .position(|pair| pair.as_ref().is_some_and(|p| !zeros(p)))
    else {
        crate::no_match!("no pads (a pad of nothing, left to fold)");
    };
    let b = TorchBuilder::new(context, rewriter, op.location());
    let zero = b.int(0)?;
    let mut reordered = Vec::with_capacity(2 * (rank - first));
    for pair in of_axis[first..].iter().rev() {
        let (begin, end) = pair.unwrap_or((zero, zero));
        reordered.push(begin);
        reordered.push(end);
    }
    let mut operands: Vec<Value> = op.operands().collect();
    operands[0] = x;
    operands[1] = b.list(&reordered, "int")?;
    let moved = rebuilt_then_permuted(&b, op, &operands, &inner, &perm)?;
    rewriter.replace_op_with_values(op, &[moved]);
    Ok(Outcome::Rewritten)
}

/// `cat([permute(x₁, p), …], d)` → `permute(cat([x₁, …], p[d]), p)`; a part may be a
/// constant of the full rank instead, written again permuted back.
fn through_cat<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    if op.result_count() != 1 || op.operand_count() != 2 {
        crate::no_match!("not a cat of a list along one axis");
    }
    let Some(list) = named(op.operand(0)?, "torch.prim.ListConstruct") else {
        crate::no_match!("the parts are not a list construct");
    };
    let parts: Vec<Value> = list.operands().collect();
    let permuted: Vec<Option<(Value, Vec<usize>)>> = parts
        .iter()
        .map(|&v| permutation(v).filter(|(x, _)| named(*x, "torch.vtensor.literal").is_none()))
        .collect();
    let Some(perm) = permuted.iter().flatten().map(|(_, p)| p.clone()).next() else {
        crate::no_match!("no part is a permute of a computed tensor");
    };
    if permuted.iter().flatten().any(|(_, p)| *p != perm) {
        crate::no_match!("the parts are permuted differently");
    }
    let rank = perm.len();
    let Some(d) = op
        .operand(1)
        .ok()
        .and_then(constant_int)
        .and_then(|d| axis(d, rank))
    else {
        crate::no_match!("the axis is not a constant in range");
    };
    let Some(inner) = tensor_type(op.result(0)?.into()).and_then(|t| unpermuted(&t, &perm)) else {
        crate::no_match!("the result's rank is unknown or differs");
    };
    let full_rank = |v: Value| tensor_type(v).and_then(|t| t.rank()) == Some(rank);
    if parts.iter().any(|&v| !is_tensor(v) || !full_rank(v)) {
        crate::no_match!("a part is not a tensor of the permute's rank");
    }
    let b = TorchBuilder::new(context, rewriter, op.location());
    let mut unpermuted_parts = Vec::with_capacity(parts.len());
    for (&v, p) in parts.iter().zip(&permuted) {
        let part = match p {
            Some((x, _)) => Some(*x),
            None => permuted_back(&b, v, &perm)?,
        };
        let Some(part) = part else {
            b.erase_inserted();
            crate::no_match!("a part is computed at run time, not a permute of it");
        };
        unpermuted_parts.push(part);
    }
    let joined = b.list(&unpermuted_parts, "vtensor")?;
    let dim = b.int(perm[d] as i64)?;
    let moved = rebuilt_then_permuted(&b, op, &[joined, dim], &inner, &perm)?;
    rewriter.replace_op_with_values(op, &[moved]);
    Ok(Outcome::Rewritten)
}

#[cfg(test)]
mod tests {
    use super::axis;

    #[test]
    fn axes_count_back_from_the_end() {
        assert_eq!(axis(-1, 4), Some(3));
        assert_eq!(axis(3, 4), Some(3));
        assert_eq!(axis(4, 4), None);
        assert_eq!(axis(-5, 4), None);
    }
}
