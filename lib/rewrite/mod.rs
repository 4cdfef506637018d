//! Rewrite patterns on MLIR's greedy driver, through one adapter that every pattern
//! uses. The adapter turns the C API's raw handles into melior objects, catches panics
//! (one would abort the process as it unwinds into C++), and records why a match failed
//! so that a later legality check can quote the reason.

mod failures;
mod panics;

pub use failures::{Failure, FailureLog};
pub use panics::install_panic_hook;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;

use anyhow::{Result, bail};
use melior::ir::Module;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::{
    Context, GreedyRewriteDriverConfig, GreedySimplifyRegionLevel, PatternRewriter, RewritePattern,
    RewriterBase, create_op_rewrite_pattern,
};

/// What a pattern did with an op.
pub enum Outcome {
    Rewritten,
    /// The op is not this pattern's to rewrite; the reason is kept for diagnostics.
    NoMatch(String),
}

pub type PatternResult = Result<Outcome>;

/// Early "no match" return with a formatted reason.
#[macro_export]
macro_rules! no_match {
    ($($arg:tt)*) => {
        return Ok($crate::rewrite::Outcome::NoMatch(format!($($arg)*)))
    };
}

/// The body of a pattern: the matched op, its context and the rewriter positioned
/// before it. It must leave the IR untouched unless it returns `Outcome::Rewritten`.
pub type PatternFn =
    dyn for<'c, 'a> Fn(&'c Context, OperationRef<'c, 'a>, RewriterBase<'c, 'a>) -> PatternResult;

/// A pattern rooted at ops named `root`, whose failures are recorded in `log`.
/// `generated` lists the op names the pattern may create.
pub fn op_pattern(
    context: &Context,
    root: &str,
    benefit: u32,
    generated: &[&str],
    log: Rc<FailureLog>,
    body: Box<PatternFn>,
) -> RewritePattern {
    let callback = move |_pattern, raw_op, raw_rewriter| {
        // SAFETY: the driver hands us a live operation for this call only, and the
        // handle does not escape the callback.
        let op = unsafe { OperationRef::from_raw(raw_op) };
        // SAFETY: likewise for the rewriter, live and ours for this call only.
        let rewriter = unsafe { PatternRewriter::from_raw(raw_rewriter) };
        let base = rewriter.as_rewriter_base();
        let context_ref = op.context();
        // SAFETY: `to_ref` points into the `ContextRef` it is called on, so that value
        // must outlive every use of the reference: it is a local that lives for the
        // whole call, and the reference is not returned.
        let context = unsafe { context_ref.to_ref() };
        let outcome =
            panics::inside_pattern(|| catch_unwind(AssertUnwindSafe(|| body(context, op, base))));
        match outcome {
            Ok(Ok(Outcome::Rewritten)) => {
                log.forget(op);
                true
            }
            Ok(Ok(Outcome::NoMatch(why))) => {
                log.record(op, Failure::NoMatch(why));
                false
            }
            Ok(Err(e)) => {
                log.record(op, Failure::Error(format!("{e:#}")));
                false
            }
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "unknown panic".to_string());
                log.record(
                    op,
                    Failure::Error(format!("internal error in a rewrite pattern: {what}")),
                );
                false
            }
        }
    };
    create_op_rewrite_pattern(root, benefit, context, callback, generated)
}

/// A pattern given as data: its root op, the ops it may create, and its body.
pub type Rule = (&'static str, Vec<&'static str>, Box<PatternFn>);

/// Runs `rules` (benefit 1 each, failures recorded in one log) to a fixed point.
pub fn apply_rules(context: &Context, module: &Module, rules: Vec<Rule>) -> Result<()> {
    let log = Rc::new(FailureLog::default());
    let patterns = rules
        .into_iter()
        .map(|(root, generated, body)| {
            op_pattern(context, root, 1, &generated, Rc::clone(&log), body)
        })
        .collect();
    apply_greedily(context, module, patterns)
}

/// Runs `patterns` to a fixed point over `module` on MLIR's greedy driver. Region
/// simplification is off: it could drop block arguments that stand for graph inputs.
pub fn apply_greedily(
    context: &Context,
    module: &Module,
    patterns: Vec<RewritePattern>,
) -> Result<()> {
    let config = GreedyRewriteDriverConfig::new();
    config.set_region_simplification_level(GreedySimplifyRegionLevel::Disabled);
    config.set_max_iterations(64);
    // The set is handled through the C API because melior's wrappers leak twice per
    // run (found by LeakSanitizer under the onnx_import fuzz target): freezing moves
    // the set's contents out but nothing deletes the moved-from set, and
    // `apply_patterns_and_fold_greedily` forgets the frozen set, which the driver only
    // borrows. Both are destroyed here.
    // SAFETY: the context is live; the set is destroyed below and used only before.
    let set = unsafe { mlir_sys::mlirRewritePatternSetCreate(context.to_raw()) };
    for p in patterns {
        // SAFETY: `into_raw` gives up the pattern, and adding transfers it to the set.
        unsafe { mlir_sys::mlirRewritePatternSetAdd(set, p.into_raw()) };
    }
    // SAFETY: freezing moves the patterns into the new frozen set; `set` stays a valid,
    // empty object that we still own.
    let frozen = unsafe { mlir_sys::mlirFreezeRewritePattern(set) };
    // SAFETY: `set` is ours, emptied by the move, and not used after this.
    unsafe { mlir_sys::mlirRewritePatternSetDestroy(set) };
    // SAFETY: `module`, `frozen` and `config` are live handles; the driver does not keep
    // the pattern set past the call.
    let result = unsafe {
        mlir_sys::mlirApplyPatternsAndFoldGreedily(module.to_raw(), frozen, config.to_raw())
    };
    // SAFETY: `frozen` is ours and not used after this; destroying it drops the
    // patterns and their callbacks.
    unsafe { mlir_sys::mlirFrozenRewritePatternSetDestroy(frozen) };
    if result.value == 0 {
        bail!("the rewrite driver did not converge: failed to apply patterns");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::context::new_context;
    use crate::ir::parse::parse_module;

    /// Regression (LeakSanitizer, onnx_import fuzz target): every run of the driver
    /// leaked its pattern set, so each pattern's closure, and what it holds, lived on.
    /// The closures must be gone once the driver returns. (The moved-from set that
    /// freezing leaves behind is invisible here; tools/asan.sh runs this test under
    /// LeakSanitizer, which sees it.)
    #[test]
    fn the_driver_frees_its_patterns() {
        let context = new_context();
        let module = parse_module(
            &context,
            "func.func @f() { \"test.op\"() : () -> () \n return }",
            "t.mlir",
        )
        .unwrap();
        let log = Rc::new(FailureLog::default());
        for _ in 0..3 {
            let patterns = (0..4)
                .map(|_| {
                    op_pattern(
                        &context,
                        "test.op",
                        1,
                        &[],
                        Rc::clone(&log),
                        Box::new(|_, _, _| Ok(Outcome::NoMatch("never".into()))),
                    )
                })
                .collect();
            apply_greedily(&context, &module, patterns).unwrap();
            assert_eq!(Rc::strong_count(&log), 1);
        }
    }
}
