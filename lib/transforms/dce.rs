//! `dce`: removes ops whose results nothing reads and which our list (side_effects.rs)
//! says are free of side effects. MLIR does not treat unregistered ops as dead, so its
//! driver never does this for the torch dialect.

use std::collections::HashMap;

use melior::ir::operation::OperationLike;
use melior::ir::{Module, ValueLike};
use melior::{Context, IrRewriter};

use super::side_effects::is_pure;
use super::walk::{module_blocks, operations};

fn key<'c, 'a>(v: impl ValueLike<'c>) -> usize {
    v.to_raw().ptr as usize
}

/// Removes dead pure ops until none is left; returns how many went.
pub fn dce(context: &Context, module: &mut Module) -> usize {
    let blocks = module_blocks(module);
    let mut uses: HashMap<usize, usize> = HashMap::new();
    for &b in &blocks {
        for o in operations(b) {
            for v in o.operands() {
                *uses.entry(key(v)).or_default() += 1;
            }
        }
    }
    let rewriter = IrRewriter::new(context);
    let mut removed = 0;
    loop {
        let before = removed;
        // Walking each block backwards sees a value's readers before its definer, so
        // one sweep removes whole dead chains; the loop covers uses across blocks.
        for &b in &blocks {
            for o in operations(b).into_iter().rev() {
                let dead = o
                    .results()
                    .all(|r| uses.get(&key(r)).copied().unwrap_or(0) == 0);
                if !dead || !is_pure(o) {
                    continue;
                }
                for v in o.operands() {
                    if let Some(n) = uses.get_mut(&key(v)) {
                        *n = n.saturating_sub(1);
                    }
                }
                rewriter.as_rewriter_base().erase_op(o);
                removed += 1;
            }
        }
        if removed == before {
            return removed;
        }
    }
}
