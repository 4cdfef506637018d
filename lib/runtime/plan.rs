//! `plan`: one walk over a lowered `func.func` that turns it into a flat list of steps
//! (kernel + operand slots + declared result types). Each op runs the one kernel its
//! name maps to: a `qlower.` op (written by `fuse-for-cpu`) its fused kernel, any other
//! op its torch kernel; the plan matches no patterns. Constants are decoded here, once,
//! and steps whose operands are all constants are evaluated here too, so running a
//! plan never touches MLIR.

use std::collections::HashMap;

use anyhow::{Context as _, Result, anyhow, bail};
use melior::ir::attribute::{ArrayAttribute, DictionaryAttribute, StringAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockRef, Module, RegionLike, Value as MlirValue, ValueLike};

use super::fused_kernels;
use super::ir_values::{constant_value, result_type};
use super::{if_step, loop_step};
use crate::dialect::qlower;
use crate::dialect::types::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::{self, Call, Kernel, Prepared, ResultType};

/// A graph input or output: its ONNX name, declared type and slot.
#[derive(Clone, Debug)]
pub struct Port {
    pub name: String,
    pub ty: TensorType,
    pub slot: usize,
}

/// What a step runs: a kernel, or one the plan specialised to its constant operands.
pub(super) enum StepKernel {
    Plain(Kernel),
    Prepared(Prepared),
}

impl StepKernel {
    pub fn call(&self, c: &Call) -> Result<Vec<Value>> {
        match self {
            StepKernel::Plain(k) => k(c),
            StepKernel::Prepared(k) => k(c),
        }
    }
}

pub(super) struct Step {
    pub op: String,
    /// The ONNX node the op came from, when its location names one.
    pub node: Option<String>,
    /// How errors name the step: `node 'Reshape_3' (torch.aten.reshape)` when the op
    /// kept its ONNX node's name, so a bad value met at run time names its node.
    pub label: String,
    pub kernel: StepKernel,
    pub args: Vec<usize>,
    pub results: Vec<usize>,
    pub result_types: Vec<ResultType>,
    /// Slots whose last use is this step: freed right after it.
    pub release: Vec<usize>,
    /// Per operand: whether it is its slot's last read, which takes the value out of
    /// the slot instead of cloning it (a reference count, or a list's copy, saved).
    pub moves: Vec<bool>,
}

pub struct Plan {
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
    pub(super) steps: Vec<Step>,
    pub(super) constants: Vec<(usize, Value)>,
    pub(super) slot_count: usize,
}

impl Plan {
    /// Plans the first `func.func` of `module`.
    pub fn new(module: &Module) -> Result<Plan> {
        let body = module.body();
        let mut op = body.first_operation();
        while let Some(o) = op {
            if o.name().as_string_ref().as_str() == Ok("func.func") {
                return plan_function(o);
            }
            op = o.next_in_block();
        }
        bail!("the module has no func.func to run")
    }

    pub fn step_count(&self) -> usize {
        self.steps.len()
    }

    /// Bytes of the tensors the plan keeps between runs (weights, packed or not, and
    /// other constants), each counted once.
    pub fn constant_bytes(&self) -> usize {
        self.constants
            .iter()
            .filter_map(|(_, v)| v.as_tensor().ok())
            .map(|t| t.data.len() * t.data.dtype().size())
            .sum()
    }

    /// The op each step runs, in order: what the backend executes, for tests and
    /// diagnostics.
    pub fn step_ops(&self) -> Vec<&str> {
        self.steps.iter().map(|s| s.op.as_str()).collect()
    }
}

pub(super) fn key(v: MlirValue) -> usize {
    v.to_raw().ptr as usize
}

/// Slots, constants and steps of one body being planned: the function's, or a loop
/// region's (`loop_step`), which has its own.
#[derive(Default)]
pub(super) struct Builder {
    pub slots: HashMap<usize, usize>,
    pub slot_count: usize,
    pub constants: HashMap<usize, Value>,
    pub steps: Vec<Step>,
}

impl Builder {
    pub fn define(&mut self, v: MlirValue) -> usize {
        let s = self.slot_count;
        self.slot_count += 1;
        self.slots.insert(key(v), s);
        s
    }

    pub fn slot(&self, v: MlirValue) -> Result<usize> {
        self.slots
            .get(&key(v))
            .copied()
            .ok_or_else(|| anyhow!("an operand is defined outside the function body"))
    }

    /// Pushes the step `name` that runs `op` with `kernel` on the slots `args`,
    /// defining `op`'s results, of `result_types` (`result_types(op)`).
    pub(super) fn push_step(
        &mut self,
        op: OperationRef,
        name: &str,
        kernel: StepKernel,
        args: Vec<usize>,
        result_types: Vec<ResultType>,
    ) -> Result<()> {
        let results = (0..op.result_count())
            .map(|i| Ok(self.define(op.result(i)?.into())))
            .collect::<Result<Vec<_>>>()?;
        self.steps.push(Step {
            op: name.to_string(),
            node: node_name(op),
            label: describe(op, name),
            kernel,
            args,
            results,
            result_types,
            release: Vec::new(),
            moves: Vec::new(),
        });
        Ok(())
    }
}

/// The kernel types of `op`'s results.
pub(super) fn result_types(op: OperationRef) -> Result<Vec<ResultType>> {
    (0..op.result_count())
        .map(|i| result_type(op.result(i)?.into()))
        .collect()
}

fn plan_function(func: OperationRef) -> Result<Plan> {
    let region = func.region(0).context("func.func has no body")?;
    let block = region
        .first_block()
        .context("func.func has an empty body")?;
    let mut b = Builder::default();
    let arg_names = port_names(func, "arg_attrs");
    let mut inputs = Vec::new();
    for i in 0..block.argument_count() {
        let arg: MlirValue = block.argument(i)?.into();
        let ResultType::Tensor(ty) = result_type(arg)? else {
            bail!("function argument {i} is not a tensor");
        };
        let slot = b.define(arg);
        let name = arg_names
            .get(i)
            .cloned()
            .flatten()
            .unwrap_or_else(|| format!("arg{i}"));
        inputs.push(Port { name, ty, slot });
    }
    let outputs = plan_block(&mut b, block, func)?;
    let output_slots: Vec<usize> = outputs.iter().map(|o| o.slot).collect();
    let (constants, steps) = finish(b.constants, b.steps, &output_slots);
    Ok(Plan {
        inputs,
        outputs,
        steps,
        constants,
        slot_count: b.slot_count,
    })
}

/// Walks the body; returns the output ports from `func.return`.
fn plan_block(b: &mut Builder, block: BlockRef, func: OperationRef) -> Result<Vec<Port>> {
    let result_names = port_names(func, "res_attrs");
    let mut op = block.first_operation();
    while let Some(o) = op {
        let name = o.name().as_string_ref().as_str().unwrap_or("").to_string();
        if name == "func.return" {
            let mut outputs = Vec::new();
            for i in 0..o.operand_count() {
                let v = o.operand(i)?;
                let ResultType::Tensor(ty) = result_type(v)? else {
                    bail!("function result {i} is not a tensor");
                };
                let name = result_names
                    .get(i)
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| format!("result{i}"));
                outputs.push(Port {
                    name,
                    ty,
                    slot: b.slot(v)?,
                });
            }
            return Ok(outputs);
        }
        plan_op(b, o, &name).with_context(|| describe(o, &name))?;
        op = o.next_in_block();
    }
    bail!("the function body has no func.return")
}

/// `node 'conv1' (torch.aten.convolution)` when the op carries its node's name.
pub(super) fn describe(op: OperationRef, name: &str) -> String {
    match node_name(op) {
        Some(node) => format!("node '{node}' ({name})"),
        None => name.to_string(),
    }
}

/// The ONNX node name in the op's location (`loc("conv1")`), if it has one; file
/// locations (`loc("x.mlir":3:5)`) are not node names.
pub(super) fn node_name(op: OperationRef) -> Option<String> {
    let loc = op.location().to_string();
    match loc.strip_prefix("loc(\"").and_then(|r| r.split_once('"')) {
        Some((node, rest)) if !rest.starts_with(':') => Some(node.to_string()),
        _ => None,
    }
}

pub(super) fn plan_op(b: &mut Builder, op: OperationRef, name: &str) -> Result<()> {
    if let Some(value) = constant_value(op)? {
        let result: MlirValue = op.result(0)?.into();
        let slot = b.define(result);
        b.constants.insert(slot, value);
        return Ok(());
    }
    let inner;
    let name = if name == "torch.operator" {
        inner = op
            .attribute("name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .map(|s| s.value().to_string())
            .unwrap_or_default();
        // A `qlower.` operator is a lowering's own op (the recurrent layers), which
        // runs by its name; any other is an ONNX op left unlowered.
        if !qlower::is_private_operator(&inner) {
            bail!("{inner} was not lowered, so it cannot run");
        }
        inner.as_str()
    } else {
        name
    };
    if name == RUNTIME_ASSERT {
        return plan_assert(b, op);
    }
    if name == loop_step::LOOP {
        return loop_step::plan_loop(b, op);
    }
    if name == if_step::IF {
        return if_step::plan_if(b, op);
    }
    // `qlower.` ops (written by `fuse-for-cpu`) run their fused kernel, specialised
    // to constant weights at plan time; every other op runs its torch kernel.
    let (kernel, prepare) = match fused_kernels::lookup(name) {
        Some(f) => (f.kernel, f.prepare),
        None => (
            kernels::lookup(name)
                .ok_or_else(|| anyhow!("the CPU backend has no kernel for {name}"))?,
            None,
        ),
    };
    let args = (0..op.operand_count())
        .map(|i| b.slot(op.operand(i)?))
        .collect::<Result<Vec<_>>>()?;
    let result_types = result_types(op)?;
    // Steps whose operands are all constants run now, once: weights are dequantized
    // or reshaped a single time however often the plan runs.
    if args.iter().all(|a| b.constants.contains_key(a)) {
        let values: Vec<Value> = args.iter().map(|a| b.constants[a].clone()).collect();
        let out = kernel(&Call {
            args: &values,
            results: &result_types,
        })?;
        check_results(&out, &result_types)?;
        for (i, v) in out.into_iter().enumerate() {
            let slot = b.define(op.result(i)?.into());
            b.constants.insert(slot, v);
        }
        return Ok(());
    }
    // Weights known now are packed now, once for every run.
    let constants: Vec<Option<&Value>> = args.iter().map(|a| b.constants.get(a)).collect();
    let kernel = match prepare.and_then(|p| p(&constants)) {
        Some(prepared) => StepKernel::Prepared(prepared),
        None => StepKernel::Plain(kernel),
    };
    b.push_step(op, name, kernel, args, result_types)
}

const RUNTIME_ASSERT: &str = "torch.runtime.assert";

/// `torch.runtime.assert`: its message is an attribute, which kernels do not see, so the
/// step is a closure holding it. A condition already known is checked now: a model that
/// can never pass it is refused before it runs.
fn plan_assert(b: &mut Builder, op: OperationRef) -> Result<()> {
    let message = op
        .attribute("message")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .map(|s| s.value().to_string())
        .unwrap_or_else(|| "assertion failed".to_string());
    let arg = b.slot(op.operand(0)?)?;
    if let Some(cond) = b.constants.get(&arg) {
        if !cond.as_bool()? {
            bail!("{}: {message}", describe(op, RUNTIME_ASSERT));
        }
        return Ok(());
    }
    let check: Prepared = std::sync::Arc::new(move |c: &Call| {
        if !c.arg(0)?.as_bool()? {
            bail!("{message}");
        }
        Ok(Vec::new())
    });
    b.steps.push(Step {
        op: RUNTIME_ASSERT.to_string(),
        node: node_name(op),
        label: describe(op, RUNTIME_ASSERT),
        kernel: StepKernel::Prepared(check),
        args: vec![arg],
        results: Vec::new(),
        result_types: Vec::new(),
        release: Vec::new(),
        moves: Vec::new(),
    });
    Ok(())
}

/// The ONNX names kept in `arg_attrs` / `res_attrs` as `{onnx.name = "x"}`.
fn port_names(func: OperationRef, attr: &str) -> Vec<Option<String>> {
    let Ok(a) = func.attribute(attr) else {
        return Vec::new();
    };
    let Ok(array) = ArrayAttribute::try_from(a) else {
        return Vec::new();
    };
    (0..array.len())
        .map(|i| {
            let dict = DictionaryAttribute::try_from(array.element(i).ok()?).ok()?;
            let name = dict.element_by_name("onnx.name")?;
            StringAttribute::try_from(name)
                .ok()
                .map(|s| s.value().to_string())
        })
        .collect()
}

/// Checks a kernel's outputs against the IR's declared result types.
pub(super) fn check_results(values: &[Value], types: &[ResultType]) -> Result<()> {
    if values.len() != types.len() {
        bail!(
            "internal error: the kernel gave {} results for {} declared",
            values.len(),
            types.len()
        );
    }
    for (i, (v, t)) in values.iter().zip(types).enumerate() {
        if let (Value::Tensor(tensor), ResultType::Tensor(ty)) = (v, t) {
            if let Some(d) = ty.dtype
                && !d.holds(tensor.dtype())
            {
                bail!(
                    "internal error: result {i} is {} but the IR declares {d}",
                    tensor.dtype()
                );
            }
            if let Some(dims) = &ty.shape {
                let fits = dims.len() == tensor.shape.len()
                    && dims
                        .iter()
                        .zip(&tensor.shape)
                        .all(|(d, &n)| d.is_none_or(|d| d as usize == n));
                if !fits {
                    bail!(
                        "result {i} has shape {:?}, but the IR declares {ty}",
                        tensor.shape
                    );
                }
            }
        }
    }
    Ok(())
}

/// Drops steps and constants nothing reads (in IR that was not cleaned up, such as the
/// float ops a fused op replaced in a `.mlir` that `fuse-for-cpu` just ran on, and
/// weights only they used), orders the constants, and computes, per step, which slots
/// die after it.
pub(super) fn finish(
    mut constants: HashMap<usize, Value>,
    steps: Vec<Step>,
    outputs: &[usize],
) -> (Vec<(usize, Value)>, Vec<Step>) {
    let mut live: std::collections::HashSet<usize> = outputs.iter().copied().collect();
    let mut kept = Vec::with_capacity(steps.len());
    for step in steps.into_iter().rev() {
        // A step without results (an assertion) is there for its effect: always kept.
        if step.results.is_empty() || step.results.iter().any(|r| live.contains(r)) {
            live.extend(step.args.iter().copied());
            kept.push(step);
        }
    }
    kept.reverse();
    let mut steps = kept;
    constants.retain(|slot, _| live.contains(slot));
    let mut last_use: HashMap<usize, usize> = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        for &a in &s.args {
            last_use.insert(a, i);
        }
    }
    // Inputs die after their last use like any other value; outputs live on.
    for o in outputs {
        last_use.remove(o);
    }
    for (slot, step) in last_use {
        steps[step].release.push(slot);
    }
    for step in &mut steps {
        let args = &step.args;
        step.moves = (0..args.len())
            .map(|i| step.release.contains(&args[i]) && !args[i + 1..].contains(&args[i]))
            .collect();
    }
    let mut constants: Vec<(usize, Value)> = constants.into_iter().collect();
    constants.sort_by_key(|(s, _)| *s);
    (constants, steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(args: Vec<usize>, result: usize) -> Step {
        fn nothing(_: &Call) -> Result<Vec<Value>> {
            Ok(vec![Value::None])
        }
        Step {
            op: "test.op".to_string(),
            node: None,
            label: "test.op".to_string(),
            kernel: StepKernel::Plain(nothing),
            args,
            results: vec![result],
            result_types: vec![ResultType::None],
            release: Vec::new(),
            moves: Vec::new(),
        }
    }

    #[test]
    fn only_an_operands_last_read_moves_it() {
        // 2 = f(0, 1); 3 = g(2, 2, 0); output 3. Slot 0 is read again by g, so f clones
        // it; g reads 2 twice: the second read moves it; output slots never move.
        let (_, steps) = finish(
            HashMap::new(),
            vec![step(vec![0, 1], 2), step(vec![2, 2, 0], 3)],
            &[3],
        );
        assert_eq!(steps[0].moves, [false, true]);
        assert_eq!(steps[1].moves, [false, true, true]);
        let (_, steps) = finish(HashMap::new(), vec![step(vec![0], 1)], &[0, 1]);
        assert_eq!(steps[0].moves, [false]);
    }
}
