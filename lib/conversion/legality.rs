//! After the greedy driver: every op a rule claims must be gone. One that is still
//! there is an error quoting why its rule failed; ops no rule claims are leftovers.

use anyhow::{Result, bail};
use melior::ir::Module;
use melior::ir::attribute::StringAttribute;
use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};

use super::binder::op_label;
use super::{LeftoverOp, Leftovers};
use crate::ops::opset::version_for;
use crate::ops::{Registry, split_op_name};
use crate::rewrite::FailureLog;

pub fn check(module: &Module, registry: &Registry, log: &FailureLog) -> Result<Leftovers> {
    let mut errors: Vec<String> = Vec::new();
    let mut leftovers = Leftovers::default();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() != Ok("torch.operator") {
            return WalkResult::Advance;
        }
        let Some(name) = op
            .attribute("name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .map(|s| s.value().to_string())
        else {
            return WalkResult::Advance;
        };
        if crate::dialect::qlower::is_private_operator(&name) {
            return WalkResult::Advance;
        }
        let (domain, op_type) = split_op_name(&name);
        let version = version_for(op, domain);
        if registry.lowering(domain, op_type, version).is_some() {
            let why = log
                .get(op)
                .map(|f| f.message().to_string())
                .unwrap_or_else(|| format!("{}: was not lowered", op_label(op, op_type)));
            errors.push(why);
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
    match errors.len() {
        0 => Ok(leftovers),
        1 => bail!("{}", errors[0]),
        n => bail!(
            "{} (and {} more ops could not be lowered)",
            errors[0],
            n - 1
        ),
    }
}
