//! After the greedy driver: every op a rule claims must be gone. One that is still
//! there is an error quoting why its rule failed; ops no rule claims are leftovers.
//!
//! The error names every op that could not be lowered, root causes first: an op whose
//! inputs come from another op left in import form (whose result type may then be
//! unknown) is reported as reading that op's result, never with a message that blames
//! its own input.

use anyhow::{Result, bail};
use melior::ir::Module;
use melior::ir::attribute::StringAttribute;
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};

use super::binder::op_label;
use super::{LeftoverOp, Leftovers, Lowerings};
use crate::ops::opset::version_for;
use crate::ops::split_op_name;
use crate::rewrite::FailureLog;

/// A claimed op that is still there: why its rule failed, and the ops left in import
/// form whose results it reads.
struct Failure {
    label: String,
    why: String,
    upstream: Vec<String>,
}

/// At most this many ops are named in one list of the error.
const MAX_NAMED: usize = 12;

pub fn check(module: &Module, lowerings: &Lowerings, log: &FailureLog) -> Result<Leftovers> {
    let mut failures: Vec<Failure> = Vec::new();
    let mut leftovers = Leftovers::default();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let Some(name) = unlowered_name(op) else {
            return WalkResult::Advance;
        };
        let (domain, op_type) = split_op_name(&name);
        let version = version_for(op, domain);
        if lowerings.lowering(domain, op_type, version).is_some() {
            let label = op_label(op, op_type);
            let why = log
                .get(op)
                .map(|f| f.message().to_string())
                .unwrap_or_else(|| format!("{label}: was not lowered"));
            let mut upstream = Vec::new();
            for v in op.operands() {
                if let Some(d) = crate::ir::matchers::defining(v)
                    && let Some(n) = unlowered_name(d)
                {
                    // Another domain's op is named with its domain.
                    let kind = match split_op_name(&n) {
                        ("", op_type) => op_type.to_string(),
                        _ => n.clone(),
                    };
                    let l = op_label(d, &kind);
                    if !upstream.contains(&l) {
                        upstream.push(l);
                    }
                }
            }
            failures.push(Failure {
                label,
                why,
                upstream,
            });
        } else {
            let key = LeftoverOp {
                domain: if domain.is_empty() { "ai.onnx" } else { domain }.to_string(),
                name,
                version,
            };
            *leftovers.ops.entry(key).or_default() += 1;
        }
        WalkResult::Advance
    });
    if failures.is_empty() {
        return Ok(leftovers);
    }
    bail!("{}", describe(&failures))
}

/// The name of `op` when it is an ONNX op left in import form (not one of qlower's
/// own operators).
fn unlowered_name(op: OperationRef) -> Option<String> {
    if op.name().as_string_ref().as_str() != Ok("torch.operator") {
        return None;
    }
    let name = op
        .attribute("name")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .map(|s| s.value().to_string())?;
    (!crate::dialect::qlower::is_private_operator(&name)).then_some(name)
}

/// One line: each root failure's reason, then the ops that read results of ops left in
/// import form, by name.
fn describe(failures: &[Failure]) -> String {
    let (roots, dependents): (Vec<&Failure>, Vec<&Failure>) =
        failures.iter().partition(|f| f.upstream.is_empty());
    let named = |list: &[&Failure]| {
        let mut names: Vec<String> = list
            .iter()
            .take(MAX_NAMED)
            .map(|f| f.label.clone())
            .collect();
        if list.len() > MAX_NAMED {
            names.push(format!("and {} more", list.len() - MAX_NAMED));
        }
        names.join(", ")
    };
    let mut text = if roots.is_empty() {
        // Every failure reads an op no rule lowers: that op is the cause.
        let first = dependents[0];
        format!(
            "{} reads the result of {}, which has no lowering",
            first.label,
            first.upstream.join(" and ")
        )
    } else {
        roots
            .iter()
            .take(MAX_NAMED)
            .map(|f| f.why.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    };
    if roots.len() > MAX_NAMED {
        text.push_str(&format!(
            "; and {} more ops could not be lowered: {}",
            roots.len() - MAX_NAMED,
            named(&roots[MAX_NAMED..])
        ));
    }
    let rest: Vec<&Failure> = if roots.is_empty() {
        dependents[1..].to_vec()
    } else {
        dependents
    };
    if !rest.is_empty() {
        text.push_str(&format!(
            " (then {} {} that read{} results of ops left unlowered: {})",
            rest.len(),
            if rest.len() == 1 { "op" } else { "ops" },
            if rest.len() == 1 { "s" } else { "" },
            named(&rest)
        ));
    }
    text
}
