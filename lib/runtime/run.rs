//! `run`: executes a plan's steps over a vector of slots, with no MLIR in sight.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context as _, Result, bail};

use super::plan::{Plan, Step, check_results};
use super::profile::Profile;
use super::threads::with_workers_awake;
use crate::kernels::Call;
use crate::kernels::ResultType;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Tensor, bounded_bytes};

impl Plan {
    /// Checks `inputs` against the declared input types (dynamic dims take any size).
    pub fn check_inputs(&self, inputs: &[Tensor]) -> Result<()> {
        if inputs.len() != self.inputs.len() {
            bail!(
                "the model takes {} inputs, {} were given",
                self.inputs.len(),
                inputs.len()
            );
        }
        self.inputs
            .iter()
            .zip(inputs)
            .try_for_each(|(port, t)| check_input(port, t))
    }

    /// Runs the plan on `inputs`, given in the order of `self.inputs`.
    pub fn run(&self, inputs: Vec<Tensor>) -> Result<Vec<Tensor>> {
        self.run_observed(inputs, None)
    }

    /// Runs the plan as `run` does, adding each step's time to `profile` (made by
    /// `Plan::profile`).
    pub fn run_profiled(&self, inputs: Vec<Tensor>, profile: &mut Profile) -> Result<Vec<Tensor>> {
        let outputs = self.run_observed(inputs, Some(profile))?;
        profile.runs += 1;
        Ok(outputs)
    }

    fn run_observed(
        &self,
        inputs: Vec<Tensor>,
        profile: Option<&mut Profile>,
    ) -> Result<Vec<Tensor>> {
        self.check_inputs(&inputs)?;
        let mut slots: Vec<Option<Value>> = vec![None; self.slot_count];
        for (slot, v) in &self.constants {
            slots[*slot] = Some(v.clone());
        }
        for (port, t) in self.inputs.iter().zip(inputs) {
            slots[port.slot] = Some(Value::tensor(t));
        }
        with_workers_awake(|| execute(&self.steps, &mut slots, profile))?;
        // Several graph outputs may name one value (an output and the Identity of it, or
        // a constant listed twice): each gets a copy, the last one takes the value.
        let mut readers: HashMap<usize, usize> = HashMap::new();
        for port in &self.outputs {
            *readers.entry(port.slot).or_default() += 1;
        }
        self.outputs
            .iter()
            .map(|port| {
                let left = readers.entry(port.slot).or_default();
                *left -= 1;
                let value = if *left == 0 {
                    slots[port.slot].take()
                } else {
                    slots[port.slot].clone()
                };
                match value {
                    Some(Value::Tensor(t)) => {
                        Ok(Arc::try_unwrap(t).unwrap_or_else(|t| (*t).clone()))
                    }
                    _ => bail!("output '{}' was not computed", port.name),
                }
            })
            .collect()
    }
}

/// Runs `steps` in order over `slots`: a plan's body, or a loop body's per iteration
/// (`loop_step`). A profile, when given, gets each step's time by its index.
pub(super) fn execute(
    steps: &[Step],
    slots: &mut [Option<Value>],
    mut profile: Option<&mut Profile>,
) -> Result<()> {
    for (index, step) in steps.iter().enumerate() {
        // Only a profiled run reads the clock.
        let start = profile.as_ref().map(|_| Instant::now());
        check_budget(step)?;
        let mut args = Vec::with_capacity(step.args.len());
        for (i, &s) in step.args.iter().enumerate() {
            let value = if step.moves.get(i) == Some(&true) {
                slots[s].take()
            } else {
                slots[s].clone()
            };
            args.push(
                value
                    .with_context(|| format!("internal error: {} reads an empty slot", step.op))?,
            );
        }
        let out = step
            .kernel
            .call(&Call {
                args: &args,
                results: &step.result_types,
            })
            .and_then(|out| check_results(&out, &step.result_types).map(|_| out))
            .with_context(|| step.label.clone())?;
        drop(args);
        for (&slot, v) in step.results.iter().zip(out) {
            slots[slot] = Some(v);
        }
        for &slot in &step.release {
            slots[slot] = None;
        }
        if let (Some(p), Some(start)) = (profile.as_deref_mut(), start) {
            p.record(index, start.elapsed());
        }
    }
    Ok(())
}

fn check_input(port: &super::plan::Port, t: &Tensor) -> Result<()> {
    if let Some(d) = port.ty.dtype
        && !d.holds(t.dtype())
    {
        bail!(
            "input '{}' must be {d}, but the given tensor is {}",
            port.name,
            t.dtype()
        );
    }
    // A 4-bit input arrives in its 8-bit storage (a .npy has no 4-bit type).
    if let Some((lo, hi)) = port.ty.dtype.and_then(DType::four_bit_range)
        && let Some(v) = t.data.to_i64().into_iter().find(|v| !(lo..=hi).contains(v))
    {
        bail!(
            "input '{}' is {}, but holds {v}, outside [{lo}, {hi}]",
            port.name,
            port.ty.dtype.map_or("?", DType::onnx_name)
        );
    }
    if let Some(dims) = &port.ty.shape {
        let fits = dims.len() == t.shape.len()
            && dims
                .iter()
                .zip(&t.shape)
                .all(|(d, &n)| d.is_none_or(|d| d as usize == n));
        if !fits {
            bail!(
                "input '{}' must have shape {}, but the given tensor has {:?}",
                port.name,
                shape_text(dims),
                t.shape
            );
        }
    }
    Ok(())
}

fn shape_text(dims: &[Option<i64>]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .map(|d| d.map(|n| n.to_string()).unwrap_or_else(|| "?".into()))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// Refuses a step whose declared result is over the tensor budget before its kernel
/// allocates it. Results of dynamic shape are checked by the kernels themselves, when
/// they know the size.
fn check_budget(step: &Step) -> Result<()> {
    for ty in &step.result_types {
        let ResultType::Tensor(t) = ty else { continue };
        let (Some(dtype), Some(dims)) = (t.dtype, t.static_dims()) else {
            continue;
        };
        let shape: Vec<usize> = dims.iter().map(|&d| d.max(0) as usize).collect();
        bounded_bytes(&shape, dtype).with_context(|| format!("{}: result", step.label))?;
    }
    Ok(())
}
