//! Merging duplicate constants: within a block, a literal or constant with the same
//! type and value as an earlier one (and a constant list of the same elements) is
//! replaced by the earlier one. MLIR uniques types and attributes, so equal values
//! have equal handles and the comparison is by pointer.

use std::collections::HashMap;

use melior::ir::attribute::AttributeLike;
use melior::ir::operation::OperationLike;
use melior::ir::r#type::TypeLike;
use melior::ir::{Module, ValueLike};
use melior::{Context, IrRewriter};

use super::constants::{is_constant, op_name};
use super::walk::{module_blocks, operations};

/// Op name, result type, `value` attribute, operands: equal keys, equal results.
type Key = (String, usize, usize, Vec<usize>);

/// Merges duplicates; returns how many ops went.
pub fn merge_duplicates(context: &Context, module: &mut Module) -> usize {
    let rewriter = IrRewriter::new(context);
    let base = rewriter.as_rewriter_base();
    let mut removed = 0;
    for block in module_blocks(module) {
        let mut seen: HashMap<Key, melior::ir::Value> = HashMap::new();
        for op in operations(block) {
            if !is_constant(op) || op.result_count() != 1 {
                continue;
            }
            let Ok(result) = op.result(0) else {
                continue;
            };
            let attr = op
                .attribute("value")
                .map(|a| a.to_raw().ptr as usize)
                .unwrap_or(0);
            let key: Key = (
                op_name(op).to_string(),
                result.r#type().to_raw().ptr as usize,
                attr,
                op.operands().map(|v| v.to_raw().ptr as usize).collect(),
            );
            match seen.get(&key) {
                // The earlier op is above this one in the same block, so it dominates
                // every use.
                Some(&first) => {
                    base.replace_all_uses_with(result.into(), first);
                    base.erase_op(op);
                    removed += 1;
                }
                None => {
                    seen.insert(key, result.into());
                }
            }
        }
    }
    removed
}
