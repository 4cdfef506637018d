//! What the steps that own regions (`if_step.rs`, `loop_step.rs`) share: finding the
//! values a region reads from outside it, bringing them into the region's sub-plan,
//! and pushing the one step that runs it.
//!
//! A sub-plan reads nothing but its own slots. Each outside value gets a slot of its
//! own there: an outside constant is copied into the sub-plan's constants, so work on
//! weights alone is still done once, at plan time; any other value becomes an operand
//! of the step, which the kernel copies in before running the sub-plan.

use std::collections::HashSet;

use anyhow::Result;
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockRef, RegionLike, Value as MlirValue};

use super::ir_values::result_type;
use super::plan::{Builder, Step, StepKernel, describe, key, node_name};
use crate::kernels::Prepared;

/// Defines in `inner` every value `block` reads from outside it (`free_values`):
/// constants of `outer` are copied in; each other value's outer slot is passed to
/// `operand`, which returns its index among the step's operands. Returns (slot in
/// `inner`, operand index) of each value that is not a constant.
pub(super) fn capture(
    outer: &Builder,
    inner: &mut Builder,
    block: BlockRef,
    mut operand: impl FnMut(usize) -> usize,
) -> Result<Vec<(usize, usize)>> {
    let mut captured = Vec::new();
    for v in free_values(block) {
        let outer_slot = outer.slot(v)?;
        let inner_slot = inner.define(v);
        match outer.constants.get(&outer_slot) {
            Some(c) => {
                inner.constants.insert(inner_slot, c.clone());
            }
            None => captured.push((inner_slot, operand(outer_slot))),
        }
    }
    Ok(captured)
}

/// Pushes onto `outer` the step `name` that runs `op`'s regions with `kernel`, reading
/// the slots `args` and defining `op`'s results.
pub(super) fn push_step(
    outer: &mut Builder,
    op: OperationRef,
    name: &str,
    kernel: Prepared,
    args: Vec<usize>,
) -> Result<()> {
    let mut result_types = Vec::new();
    let mut results = Vec::new();
    for i in 0..op.result_count() {
        let r: MlirValue = op.result(i)?.into();
        result_types.push(result_type(r)?);
        results.push(outer.define(r));
    }
    outer.steps.push(Step {
        op: name.to_string(),
        node: node_name(op),
        label: describe(op, name),
        kernel: StepKernel::Prepared(kernel),
        args,
        results,
        result_types,
        release: Vec::new(),
        moves: Vec::new(),
    });
    Ok(())
}

/// The values `block` (and any region nested in it) reads but does not define, each
/// once, in the order they are first read.
fn free_values<'c, 'a>(block: BlockRef<'c, 'a>) -> Vec<MlirValue<'c, 'a>> {
    let mut defined = HashSet::new();
    let mut reads = Vec::new();
    collect(block, &mut defined, &mut reads);
    let mut seen = HashSet::new();
    reads
        .into_iter()
        .filter(|v| !defined.contains(&key(*v)) && seen.insert(key(*v)))
        .collect()
}

fn collect<'c, 'a>(
    block: BlockRef<'c, 'a>,
    defined: &mut HashSet<usize>,
    reads: &mut Vec<MlirValue<'c, 'a>>,
) {
    for i in 0..block.argument_count() {
        if let Ok(a) = block.argument(i) {
            defined.insert(key(a.into()));
        }
    }
    let mut next = block.first_operation();
    while let Some(o) = next {
        reads.extend(o.operands());
        defined.extend(o.results().map(|r| key(r.into())));
        for region in o.regions() {
            let mut b = region.first_block();
            while let Some(inner) = b {
                collect(inner, defined, reads);
                b = inner.next_in_region();
            }
        }
        next = o.next_in_block();
    }
}
