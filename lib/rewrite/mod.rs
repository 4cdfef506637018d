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

use anyhow::Result;
use melior::ir::Module;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::{
    Context, GreedyRewriteDriverConfig, GreedySimplifyRegionLevel, PatternRewriter, RewritePattern,
    RewritePatternSet, RewriterBase, apply_patterns_and_fold_greedily, create_op_rewrite_pattern,
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

/// Runs `patterns` to a fixed point over `module` on MLIR's greedy driver. Region
/// simplification is off: it could drop block arguments that stand for graph inputs.
pub fn apply_greedily(module: &Module, patterns: RewritePatternSet) -> Result<()> {
    let config = GreedyRewriteDriverConfig::new();
    config.set_region_simplification_level(GreedySimplifyRegionLevel::Disabled);
    config.set_max_iterations(64);
    apply_patterns_and_fold_greedily(module, patterns.freeze(), &config)
        .map_err(|e| anyhow::anyhow!("the rewrite driver did not converge: {e}"))
}
