//! What the steps that own regions (`if_step.rs`, `loop_step.rs`) share: finding the
//! values a region reads from outside it and bringing them into the region's
//! sub-plan.
//!
//! A sub-plan reads nothing but its own slots. Each outside value gets a slot of its
//! own there: an outside constant is copied into the sub-plan's constants, so work on
//! weights alone is still done once, at plan time; any other value becomes an operand
//! of the step, which the kernel copies in before running the sub-plan.

use std::collections::HashSet;

use anyhow::Result;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockRef, RegionLike, Value as MlirValue};

use super::plan::{Builder, key};

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
