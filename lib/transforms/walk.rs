//! Walking a module's blocks and op names, for the passes that work block by block.

use std::collections::BTreeSet;

use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockRef, Module, RegionLike};

/// Every block nested in `op`'s regions, outermost first.
pub fn blocks<'c, 'a>(op: OperationRef<'c, 'a>, out: &mut Vec<BlockRef<'c, 'a>>) {
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            out.push(b);
            for o in operations(b) {
                if o.region_count() > 0 {
                    blocks(o, out);
                }
            }
            block = b.next_in_region();
        }
    }
}

/// The ops of `block`, in order.
pub fn operations<'c, 'a>(block: BlockRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut ops = Vec::new();
    let mut op = block.first_operation();
    while let Some(o) = op {
        ops.push(o);
        op = o.next_in_block();
    }
    ops
}

/// Every block of `module`.
pub fn module_blocks<'c, 'a>(module: &'a Module<'c>) -> Vec<BlockRef<'c, 'a>> {
    let mut out = Vec::new();
    blocks(module.as_operation(), &mut out);
    out
}

/// The distinct op names in `module`.
pub fn op_names(module: &Module) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for b in module_blocks(module) {
        for o in operations(b) {
            if let Ok(n) = o.name().as_string_ref().as_str() {
                names.insert(n.to_string());
            }
        }
    }
    names
}
