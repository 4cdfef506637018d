//! `torch.prim.If` in the plan: each branch region becomes a sub-plan of its own
//! (steps, constants, slots), and the If one step whose kernel reads the condition and
//! runs the chosen branch's sub-plan, returning what it yields.
//!
//! As for loops, the values a branch reads from outside become extra operands of the
//! If step (each once, shared by both branches) or constants of the branch's sub-plan
//! (`region_step.rs`). Only the branch taken runs: the other may not even be valid for the
//! inputs given (a squeeze of a dimension that is not 1).

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::{Context as _, Result, anyhow, bail};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockRef, RegionLike};

use super::plan::{Builder, Step, StepKernel, describe, finish, plan_op, result_types};
use super::region_step::capture;
use super::run::execute;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Prepared};

pub(super) const IF: &str = "torch.prim.If";
const YIELD: &str = "torch.prim.If.yield";

/// A planned branch: its sub-plan and where its inputs come from.
struct Branch {
    steps: Vec<Step>,
    constants: Vec<(usize, Value)>,
    slot_count: usize,
    /// (slot in the branch, index among the If step's operands) of each outside value
    /// the branch reads.
    captured: Vec<(usize, usize)>,
    /// The slots the branch's yield reads, in result order.
    yields: Vec<usize>,
}

/// Plans `op`, a `torch.prim.If`, as one step of `outer`.
pub(super) fn plan_if(outer: &mut Builder, op: OperationRef) -> Result<()> {
    if op.operand_count() != 1 {
        bail!(
            "expected one operand, the condition, got {}",
            op.operand_count()
        );
    }
    if op.region_count() != 2 {
        bail!(
            "expected two regions (then, else), got {}",
            op.region_count()
        );
    }
    let mut args = vec![outer.slot(op.operand(0)?)?];
    // Outside slot → index among the step's operands, so both branches share one.
    let mut arg_index: HashMap<usize, usize> = HashMap::new();
    let mut branches = Vec::with_capacity(2);
    for (r, what) in [(0, "then"), (1, "else")] {
        let region = op.region(r)?;
        let block = region
            .first_block()
            .with_context(|| format!("the {what} region is empty"))?;
        if block.next_in_region().is_some() || block.argument_count() != 0 {
            bail!("the {what} region must be one block without arguments");
        }
        let branch = plan_branch(outer, block, &mut args, &mut arg_index)
            .with_context(|| format!("the {what} branch"))?;
        if branch.yields.len() != op.result_count() {
            bail!(
                "the {what} branch yields {} values for {} results",
                branch.yields.len(),
                op.result_count()
            );
        }
        branches.push(branch);
    }
    let else_branch = branches.pop().context("internal error: no else branch")?;
    let then_branch = branches.pop().context("internal error: no then branch")?;

    let branches = Arc::new((then_branch, else_branch));
    let kernel: Prepared = Arc::new(move |c: &Call| run_if(&branches.0, &branches.1, c));
    let types = result_types(op)?;
    outer.push_step(op, IF, StepKernel::Prepared(kernel), args, types)
}

fn plan_branch(
    outer: &Builder,
    block: BlockRef,
    args: &mut Vec<usize>,
    arg_index: &mut HashMap<usize, usize>,
) -> Result<Branch> {
    let mut inner = Builder::default();
    let captured = capture(outer, &mut inner, block, |slot| {
        *arg_index.entry(slot).or_insert_with(|| {
            args.push(slot);
            args.len() - 1
        })
    })?;
    let yields = plan_body(&mut inner, block)?;
    let (constants, steps) = finish(inner.constants, inner.steps, &yields);
    Ok(Branch {
        steps,
        constants,
        slot_count: inner.slot_count,
        captured,
        yields,
    })
}

/// Plans the branch's ops up to its yield; returns the slots the yield reads.
fn plan_body(inner: &mut Builder, block: BlockRef) -> Result<Vec<usize>> {
    let mut next = block.first_operation();
    while let Some(o) = next {
        let name = o.name().as_string_ref().as_str().unwrap_or("").to_string();
        if name == YIELD {
            return (0..o.operand_count())
                .map(|i| inner.slot(o.operand(i)?))
                .collect();
        }
        plan_op(inner, o, &name).with_context(|| describe(o, &name))?;
        next = o.next_in_block();
    }
    bail!("the branch does not end in {YIELD}")
}

/// The If step's kernel. Operands: the condition, then the outside values the branches
/// read; results: the chosen branch's yields.
fn run_if(then_branch: &Branch, else_branch: &Branch, c: &Call) -> Result<Vec<Value>> {
    let condition = c.args.first().context("missing condition")?.as_bool()?;
    let (branch, what) = if condition {
        (then_branch, "then")
    } else {
        (else_branch, "else")
    };
    let mut slots: Vec<Option<Value>> = vec![None; branch.slot_count];
    for (slot, v) in &branch.constants {
        slots[*slot] = Some(v.clone());
    }
    for &(slot, index) in &branch.captured {
        let v = c
            .args
            .get(index)
            .with_context(|| format!("missing captured operand {index}"))?;
        slots[slot] = Some(v.clone());
    }
    execute(&branch.steps, &mut slots, None).with_context(|| format!("the {what} branch"))?;
    branch
        .yields
        .iter()
        .map(|&s| {
            slots[s]
                .clone()
                .ok_or_else(|| anyhow!("internal error: the {what} branch left a yield empty"))
        })
        .collect()
}
