//! `canonicalize-quant`: simplifications of the quantized form that never lose a
//! quantization op's meaning.
//! - `item` of a one-element literal becomes a `torch.constant`.
//! - Duplicate literals, constants and constant lists are merged (see merge.rs).
//!
//! `collapse-quant-round-trips` (`collapse_quant_round_trips`), for the CPU pipelines
//! only: `_make_per_tensor_quantized_tensor(int_repr(quantize_per_tensor(x, s, z, d)),
//! s, z)` is `quantize_per_tensor(x, s, z, d)`; likewise per channel. Only when the
//! parameters are provably identical: otherwise the pair requantizes. The default
//! `torch` form keeps the round trip: it is the form torch-mlir's ONNX importer writes,
//! and torch-mlir's `torch-fuse-quantized-ops` crashes on a `quantize_*` that feeds
//! `dequantize.self` directly.

use anyhow::Result;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Module, Value as MlirValue, ValueLike};
use melior::{Context, RewriterBase};

use super::constants::{constant_of, defining_op, op_name};
use super::fold_constants::replace_with_constants;
use super::limits::FoldLimits;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, lookup};
use crate::rewrite::{Outcome, PatternResult, Rule, apply_rules};
use crate::runtime::ir_values::result_type;

/// Scale and zero-point tensors are compared by value up to this many elements.
const MAX_COMPARED: usize = 1 << 16;

pub fn canonicalize_quant(context: &Context, module: &mut Module) -> Result<()> {
    let rules: Vec<Rule> = vec![(
        "torch.aten.item",
        vec!["torch.constant.int", "torch.constant.float"],
        Box::new(item_of_literal),
    )];
    apply_rules(context, module, rules)?;
    super::merge::merge_duplicates(context, module);
    Ok(())
}

/// Collapses `_make_*(int_repr(quantize_*(x)))` round trips into `quantize_*(x)`, the
/// form `fuse-for-cpu` matches (see the module comment).
pub fn collapse_quant_round_trips(context: &Context, module: &mut Module) -> Result<()> {
    let rules: Vec<Rule> = vec![
        (
            "torch.aten._make_per_tensor_quantized_tensor",
            vec![],
            Box::new(|_, op, r| round_trip(op, r, "torch.aten.quantize_per_tensor")),
        ),
        (
            "torch.aten._make_per_channel_quantized_tensor",
            vec![],
            Box::new(|_, op, r| round_trip(op, r, "torch.aten.quantize_per_channel")),
        ),
    ];
    apply_rules(context, module, rules)
}

/// `make(int_repr(quantize(x, params..., dtype)), params...)` → `quantize(...)`. The
/// make op's operands after the first are the quantize op's operands after `x`, minus
/// the dtype (last); each pair must be provably the same value.
fn round_trip<'c, 'a>(
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
    quantize_name: &str,
) -> PatternResult {
    let Some(int_repr) = op.operand(0).ok().and_then(defining_op) else {
        crate::no_match!("the integers are not an op result");
    };
    if op_name(int_repr) != "torch.aten.int_repr" {
        crate::no_match!("the integers do not come from int_repr");
    }
    let Some(quantize) = int_repr.operand(0).ok().and_then(defining_op) else {
        crate::no_match!("int_repr does not read an op result");
    };
    if op_name(quantize) != quantize_name {
        crate::no_match!("int_repr does not read {quantize_name}");
    }
    let params = op.operand_count() - 1;
    if quantize.operand_count() != params + 2 {
        crate::no_match!("operand counts of the two ops do not correspond");
    }
    for i in 0..params {
        let (Ok(a), Ok(b)) = (op.operand(i + 1), quantize.operand(i + 1)) else {
            crate::no_match!("missing operand");
        };
        if !same_value(a, b) {
            crate::no_match!("parameter {} differs between the two ops", i + 1);
        }
    }
    let (Ok(made), Ok(quantized)) = (op.result(0), quantize.result(0)) else {
        crate::no_match!("missing result");
    };
    if made.r#type() != quantized.r#type() {
        crate::no_match!("the two ops give different types");
    }
    rewriter.replace_op_with_values(op, &[quantized.into()]);
    Ok(Outcome::Rewritten)
}

/// Whether `a` and `b` are provably the same value: one SSA value, or constants (or
/// `item`s of literals) holding equal values.
pub(super) fn same_value(a: MlirValue, b: MlirValue) -> bool {
    if a == b {
        return true;
    }
    match (known(a), known(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// The compile-time value of a constant, or of `item` of a literal.
fn known(v: MlirValue) -> Option<Value> {
    if let Some(c) = constant_of(v, MAX_COMPARED) {
        return Some(c);
    }
    let op = defining_op(v)?;
    if op_name(op) != "torch.aten.item" {
        return None;
    }
    let arg = constant_of(op.operand(0).ok()?, 1)?;
    let results = [result_type(v).ok()?];
    lookup("torch.aten.item")?(&Call {
        args: &[arg],
        results: &results,
    })
    .ok()?
    .pop()
}

/// `item` of a one-element literal is the constant it reads.
fn item_of_literal<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    let Some(arg) = op.operand(0).ok().and_then(|v| constant_of(v, 1)) else {
        crate::no_match!("item does not read a one-element literal");
    };
    let Some(kernel) = lookup("torch.aten.item") else {
        crate::no_match!("no item kernel");
    };
    let results = [result_type(op.result(0)?.into())?];
    let Ok(out) = kernel(&Call {
        args: &[arg],
        results: &results,
    }) else {
        crate::no_match!("item refused the literal");
    };
    replace_with_constants(context, op, rewriter, &out, &results, FoldLimits::default())
}
