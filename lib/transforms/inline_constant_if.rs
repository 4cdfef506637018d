//! `inline-constant-if`: a `torch.prim.If` whose condition is a `torch.constant.bool`
//! (folded from shapes or constants) is replaced by the ops of the branch it takes,
//! moved in front of it, and its results by what that branch yields. The other
//! branch goes with the If. Values the branch read from outside stay valid: they are
//! defined above the If, so above the moved ops too.

use anyhow::Result;
use melior::ir::attribute::BoolAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Module, RegionLike, Value};
use melior::{Context, RewriterBase};

use super::constants::{defining_op, op_name};
use crate::rewrite::{Outcome, PatternResult, Rule, apply_rules};

const IF: &str = "torch.prim.If";
const YIELD: &str = "torch.prim.If.yield";

/// Inlines every prim.If with a constant condition; returns whether any was.
pub fn inline_constant_if(context: &Context, module: &mut Module) -> Result<bool> {
    let before = super::op_names(module).contains(IF);
    if !before {
        return Ok(false);
    }
    let count = count_ifs(module);
    let rules: Vec<Rule> = vec![(IF, vec![], Box::new(inline))];
    apply_rules(context, module, rules)?;
    Ok(count_ifs(module) < count)
}

fn count_ifs(module: &Module) -> usize {
    super::walk::module_blocks(module)
        .into_iter()
        .flat_map(super::walk::operations)
        .filter(|o| op_name(*o) == IF)
        .count()
}

fn inline<'c, 'a>(
    _context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    let Some(cond) = op.operand(0).ok().and_then(defining_op) else {
        crate::no_match!("the condition is not defined by an op");
    };
    if op_name(cond) != "torch.constant.bool" {
        crate::no_match!("the condition is not a torch.constant.bool");
    }
    let Some(taken) = cond
        .attribute("value")
        .ok()
        .and_then(|a| BoolAttribute::try_from(a).ok())
        .map(|b| b.value())
    else {
        crate::no_match!("the condition's value is not a bool attribute");
    };
    if op.region_count() != 2 {
        crate::no_match!("a prim.If without two regions");
    }
    let region = op.region(if taken { 0 } else { 1 })?;
    let Some(block) = region.first_block() else {
        crate::no_match!("the taken region is empty");
    };
    if block.next_in_region().is_some() || block.argument_count() != 0 {
        crate::no_match!("the taken region is not one block without arguments");
    }
    let mut last = block.first_operation();
    while let Some(next) = last.and_then(|o| o.next_in_block()) {
        last = Some(next);
    }
    let Some(end) = last.filter(|o| op_name(*o) == YIELD) else {
        crate::no_match!("the taken region does not end in {YIELD}");
    };
    if end.operand_count() != op.result_count() {
        crate::no_match!(
            "the branch yields {} values for {} results",
            end.operand_count(),
            op.result_count()
        );
    }
    let yielded: Vec<Value> = end.operands().collect();
    rewriter.inline_block_before(block, op, &[]);
    rewriter.erase_op(end);
    rewriter.replace_op_with_values(op, &yielded);
    Ok(Outcome::Rewritten)
}
