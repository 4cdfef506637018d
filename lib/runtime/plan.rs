//! `plan`: one walk over a lowered `func.func` that turns it into a flat list of steps
//! (kernel + operand slots + declared result types). Constants are decoded here, once,
//! and steps whose operands are all constants are evaluated here too, so running a
//! plan never touches MLIR.

use std::collections::HashMap;

use anyhow::{Context as _, Result, anyhow, bail};
use melior::ir::attribute::{
    ArrayAttribute, BoolAttribute, DictionaryAttribute, FloatAttribute, IntegerAttribute,
    StringAttribute,
};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{BlockRef, Module, RegionLike, Value as MlirValue, ValueLike};

use super::fuse::{self, Operand};
use super::{fuse_elementwise, fuse_max_pool, fuse_pool};
use crate::dialect::ops::dense_attribute_data;
use crate::dialect::types::TensorType;
use crate::kernels::tensor::Tensor;
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
    pub kernel: StepKernel,
    pub args: Vec<usize>,
    pub results: Vec<usize>,
    pub result_types: Vec<ResultType>,
    /// Slots whose last use is this step: freed right after it.
    pub release: Vec<usize>,
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
}

fn key(v: MlirValue) -> usize {
    v.to_raw().ptr as usize
}

/// The declared type of a value, as the kernels see it.
pub fn result_type(v: MlirValue) -> Result<ResultType> {
    let text = v.r#type().to_string();
    if let Some(t) = TensorType::parse(&text) {
        return Ok(ResultType::Tensor(t));
    }
    Ok(match text.as_str() {
        "!torch.int" => ResultType::Int,
        "!torch.float" => ResultType::Float,
        "!torch.bool" => ResultType::Bool,
        "!torch.str" => ResultType::Str,
        "!torch.none" => ResultType::None,
        other => match other
            .strip_prefix("!torch.list<")
            .and_then(|r| r.strip_suffix('>'))
        {
            Some(elem) => ResultType::List(elem.to_string()),
            None => bail!("values of type {other} cannot be run"),
        },
    })
}

struct Builder {
    slots: HashMap<usize, usize>,
    /// How many operands read each value.
    uses: HashMap<usize, usize>,
    slot_count: usize,
    constants: HashMap<usize, Value>,
    steps: Vec<Step>,
}

impl Builder {
    fn define(&mut self, v: MlirValue) -> usize {
        let s = self.slot_count;
        self.slot_count += 1;
        self.slots.insert(key(v), s);
        s
    }

    /// A slot holding `v` from the start, for operands no IR value stands for.
    fn constant_slot(&mut self, v: Value) -> usize {
        let s = self.slot_count;
        self.slot_count += 1;
        self.constants.insert(s, v);
        s
    }

    /// Whether `v` is read by exactly one operand in the function.
    fn single_use(&self, v: MlirValue) -> bool {
        self.uses.get(&key(v)) == Some(&1)
    }

    fn slot(&self, v: MlirValue) -> Result<usize> {
        self.slots
            .get(&key(v))
            .copied()
            .ok_or_else(|| anyhow!("an operand is defined outside the function body"))
    }
}

fn plan_function(func: OperationRef) -> Result<Plan> {
    let region = func.region(0).context("func.func has no body")?;
    let block = region
        .first_block()
        .context("func.func has an empty body")?;
    let mut b = Builder {
        slots: HashMap::new(),
        uses: count_uses(block),
        slot_count: 0,
        constants: HashMap::new(),
        steps: Vec::new(),
    };
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
    let (constants, steps) = finish(b.constants, b.steps, &inputs, &outputs);
    Ok(Plan {
        inputs,
        outputs,
        steps,
        constants,
        slot_count: b.slot_count,
    })
}

fn count_uses(block: BlockRef) -> HashMap<usize, usize> {
    let mut uses = HashMap::new();
    let mut op = block.first_operation();
    while let Some(o) = op {
        for i in 0..o.operand_count() {
            if let Ok(v) = o.operand(i) {
                *uses.entry(key(v)).or_insert(0) += 1;
            }
        }
        op = o.next_in_block();
    }
    uses
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
fn describe(op: OperationRef, name: &str) -> String {
    let loc = op.location().to_string();
    match loc.strip_prefix("loc(\"").and_then(|r| r.split_once('"')) {
        Some((node, rest)) if !rest.starts_with(':') => format!("node '{node}' ({name})"),
        _ => name.to_string(),
    }
}

fn plan_op(b: &mut Builder, op: OperationRef, name: &str) -> Result<()> {
    if let Some(value) = constant_value(op, name)? {
        let result: MlirValue = op.result(0)?.into();
        let slot = b.define(result);
        b.constants.insert(slot, value);
        return Ok(());
    }
    if name == "torch.operator" {
        let onnx = op
            .attribute("name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .map(|s| s.value().to_string())
            .unwrap_or_default();
        bail!("{onnx} was not lowered, so it cannot run");
    }
    let fused = match name {
        "torch.aten.quantize_per_tensor" => fuse::match_quantized(op)
            .or_else(|| fuse_elementwise::match_quantized(op))
            .or_else(|| fuse_pool::match_quantized(op))
            .or_else(|| fuse_max_pool::match_quantized(op)),
        "torch.aten.int_repr" if b.single_use(op.operand(0)?) => fuse::match_int_repr(op),
        "torch.aten.dequantize.self" => fuse::match_dequantized(op),
        _ => None,
    };
    let (kernel, args, prepare) = match fused {
        Some(f) => {
            let args = f
                .operands
                .into_iter()
                .map(|o| match o {
                    Operand::Ir(v) => b.slot(v),
                    Operand::Const(c) => Ok(b.constant_slot(c)),
                })
                .collect::<Result<Vec<_>>>()?;
            (f.kernel, args, f.prepare)
        }
        None => {
            let kernel = kernels::lookup(name)
                .ok_or_else(|| anyhow!("the CPU backend has no kernel for {name}"))?;
            let args = (0..op.operand_count())
                .map(|i| b.slot(op.operand(i)?))
                .collect::<Result<Vec<_>>>()?;
            (kernel, args, None)
        }
    };
    let mut result_types = Vec::new();
    for i in 0..op.result_count() {
        result_types.push(result_type(op.result(i)?.into())?);
    }
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
    let results = (0..op.result_count())
        .map(|i| Ok(b.define(op.result(i)?.into())))
        .collect::<Result<Vec<_>>>()?;
    // Weights known now are packed now, once for every run.
    let constants: Vec<Option<&Value>> = args.iter().map(|a| b.constants.get(a)).collect();
    let kernel = match prepare.and_then(|p| p(&constants)) {
        Some(prepared) => StepKernel::Prepared(prepared),
        None => StepKernel::Plain(kernel),
    };
    b.steps.push(Step {
        op: name.to_string(),
        kernel,
        args,
        results,
        result_types,
        release: Vec::new(),
    });
    Ok(())
}

/// The value of a constant-producing op, decoded once.
fn constant_value(op: OperationRef, name: &str) -> Result<Option<Value>> {
    let attr = || {
        op.attribute("value")
            .map_err(|_| anyhow!("{name} has no value"))
    };
    Ok(Some(match name {
        "torch.constant.none" => Value::None,
        "torch.constant.int" => Value::Int(
            IntegerAttribute::try_from(attr()?)
                .map_err(|_| anyhow!("torch.constant.int needs an integer value"))?
                .value(),
        ),
        "torch.constant.float" => Value::Float(
            FloatAttribute::try_from(attr()?)
                .map_err(|_| anyhow!("torch.constant.float needs a float value"))?
                .value(),
        ),
        "torch.constant.bool" => Value::Bool(
            BoolAttribute::try_from(attr()?)
                .map_err(|_| anyhow!("torch.constant.bool needs a bool value"))?
                .value(),
        ),
        "torch.constant.str" => Value::Str(
            StringAttribute::try_from(attr()?)
                .map_err(|_| anyhow!("torch.constant.str needs a string value"))?
                .value()
                .to_string(),
        ),
        "torch.vtensor.literal" => {
            let ResultType::Tensor(ty) = result_type(op.result(0)?.into())? else {
                bail!("torch.vtensor.literal must produce a tensor");
            };
            let data = dense_attribute_data(attr()?, &ty)
                .ok_or_else(|| anyhow!("literal of type {ty} cannot be decoded"))?;
            Value::tensor(Tensor::from_tensor_data(&data)?)
        }
        _ => return Ok(None),
    }))
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
                && d != tensor.dtype()
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

/// Drops steps and constants nothing reads (the float steps a fused step replaced,
/// weights only they used), orders the constants, and computes, per step, which slots
/// die after it.
fn finish(
    mut constants: HashMap<usize, Value>,
    steps: Vec<Step>,
    inputs: &[Port],
    outputs: &[Port],
) -> (Vec<(usize, Value)>, Vec<Step>) {
    let mut live: std::collections::HashSet<usize> = outputs.iter().map(|o| o.slot).collect();
    let mut kept = Vec::with_capacity(steps.len());
    for step in steps.into_iter().rev() {
        if step.results.iter().any(|r| live.contains(r)) {
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
    for o in outputs {
        last_use.remove(&o.slot);
    }
    // Inputs die after their last use like any other value.
    let _ = inputs;
    for (slot, step) in last_use {
        steps[step].release.push(slot);
    }
    let mut constants: Vec<(usize, Value)> = constants.into_iter().collect();
    constants.sort_by_key(|(s, _)| *s);
    (constants, steps)
}
