//! `torch.prim.Loop` in the plan: its body region becomes a sub-plan of its own (steps,
//! constants, slots), and the loop one step whose kernel runs that sub-plan once per
//! iteration, feeding each iteration's yielded values to the next.
//!
//! Why a sub-plan and not unrolling: the trip count is an operand, often known only at
//! run time (a sequence length), and the plan must be built once for every input.
//! The body reads values defined outside it (weights, inputs); those are found before
//! the body is planned and become extra operands of the loop step, or constants of
//! the sub-plan (`region_step.rs`).

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

pub(super) const LOOP: &str = "torch.prim.Loop";
const CONDITION: &str = "torch.prim.Loop.condition";

/// A planned loop body: where each iteration's inputs go and where its yields are read.
struct Body {
    steps: Vec<Step>,
    constants: Vec<(usize, Value)>,
    slot_count: usize,
    /// The induction variable's slot.
    index: usize,
    /// The loop-carried block arguments' slots.
    carried: Vec<usize>,
    /// The slots of the outside values the body reads, in the loop step's operand order.
    captured: Vec<usize>,
    /// The condition and the carried values the terminator yields.
    condition: usize,
    yields: Vec<usize>,
}

/// Plans `op`, a `torch.prim.Loop`, as one step of `outer`.
pub(super) fn plan_loop(outer: &mut Builder, op: OperationRef) -> Result<()> {
    let operands = op.operand_count();
    if operands < 2 {
        bail!("expected a trip count and an initial condition, got {operands} operands");
    }
    let carried_count = operands - 2;
    if op.result_count() != carried_count {
        bail!(
            "{} results for {carried_count} loop-carried values",
            op.result_count()
        );
    }
    let region = op.region(0).context("the loop has no body region")?;
    let block = region.first_block().context("the loop body is empty")?;
    if block.next_in_region().is_some() {
        bail!("the loop body has more than one block");
    }
    if block.argument_count() != carried_count + 1 {
        bail!(
            "the loop body takes {} arguments, expected the index and {carried_count} \
             loop-carried values",
            block.argument_count()
        );
    }

    let mut inner = Builder::default();
    let index = inner.define(block.argument(0)?.into());
    let carried = (1..=carried_count)
        .map(|i| Ok(inner.define(block.argument(i)?.into())))
        .collect::<Result<Vec<_>>>()?;
    let mut args = (0..operands)
        .map(|i| outer.slot(op.operand(i)?))
        .collect::<Result<Vec<_>>>()?;
    let captured = capture(outer, &mut inner, block, |slot| {
        args.push(slot);
        args.len() - 1
    })?
    .into_iter()
    .map(|(slot, _)| slot)
    .collect();

    let (condition, yields) = plan_body(&mut inner, block)?;
    if yields.len() != carried_count {
        bail!(
            "the body yields {} values for {carried_count} loop-carried values",
            yields.len()
        );
    }
    let mut live = yields.clone();
    live.push(condition);
    let (constants, steps) = finish(inner.constants, inner.steps, &live);
    let body = Arc::new(Body {
        steps,
        constants,
        slot_count: inner.slot_count,
        index,
        carried,
        captured,
        condition,
        yields,
    });

    let kernel: Prepared = Arc::new(move |c: &Call| run_loop(&body, c));
    let types = result_types(op)?;
    outer.push_step(op, LOOP, StepKernel::Prepared(kernel), args, types)
}

/// Plans the body's ops up to its terminator; returns the slots the terminator reads.
fn plan_body(inner: &mut Builder, block: BlockRef) -> Result<(usize, Vec<usize>)> {
    let mut next = block.first_operation();
    while let Some(o) = next {
        let name = o.name().as_string_ref().as_str().unwrap_or("").to_string();
        if name == CONDITION {
            if o.operand_count() == 0 {
                bail!("{CONDITION} has no condition operand");
            }
            let condition = inner.slot(o.operand(0)?)?;
            let yields = (1..o.operand_count())
                .map(|i| inner.slot(o.operand(i)?))
                .collect::<Result<Vec<_>>>()?;
            return Ok((condition, yields));
        }
        plan_op(inner, o, &name).with_context(|| describe(o, &name))?;
        next = o.next_in_block();
    }
    bail!("the loop body does not end in {CONDITION}")
}

/// The loop step's kernel. Operands: the trip count, the initial condition, the
/// loop-carried values, then the captured outside values; results: the carried values
/// after the last iteration.
fn run_loop(body: &Body, c: &Call) -> Result<Vec<Value>> {
    let carried_count = body.carried.len();
    let trips = c.args.first().context("missing trip count")?.as_int()?;
    let mut go_on = c.args.get(1).context("missing condition")?.as_bool()?;
    let mut carried: Vec<Value> = c
        .args
        .get(2..2 + carried_count)
        .context("missing loop-carried values")?
        .to_vec();
    let captured = c
        .args
        .get(2 + carried_count..)
        .context("missing captured values")?;
    let mut i = 0;
    while go_on && i < trips {
        let mut slots: Vec<Option<Value>> = vec![None; body.slot_count];
        for (slot, v) in &body.constants {
            slots[*slot] = Some(v.clone());
        }
        slots[body.index] = Some(Value::Int(i));
        for (&slot, v) in body.carried.iter().zip(carried.drain(..)) {
            slots[slot] = Some(v);
        }
        for (&slot, v) in body.captured.iter().zip(captured) {
            slots[slot] = Some(v.clone());
        }
        execute(&body.steps, &mut slots, None).with_context(|| format!("iteration {i}"))?;
        let read = |slot: usize| {
            slots[slot]
                .clone()
                .ok_or_else(|| anyhow!("internal error: the loop body left a yield empty"))
        };
        go_on = read(body.condition)?.as_bool()?;
        carried = body
            .yields
            .iter()
            .map(|&s| read(s))
            .collect::<Result<_>>()?;
        i += 1;
    }
    Ok(carried)
}
