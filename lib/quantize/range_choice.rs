//! The distribution method's rule (which two-sided tensors get a symmetric span, see
//! `ranges::distribution_range`), chosen per model by cross-validation on the
//! calibration samples. A symmetric span only pays off on values the calibration did
//! not see (on the samples themselves the min-max range is never worse), so each rule
//! is judged as held-out data would judge it: with k samples, k times, the ranges come
//! from all samples but one, and the model quantized with them runs on the one left
//! out; the rule of least mean relative L2 error of the outputs against the float
//! model wins. Which tensors widen, and whether any should, then follows the model's
//! own measured error instead of a fixed threshold: on PP-OCR det (chaotic in its
//! ranges) the min-max ranges win, on the T5 encoder the symmetric spans.

use std::collections::HashMap;

use anyhow::{Context, Result};

use super::calibrate::{self, Sample};
use super::ranges::{BALANCES, DEFAULT_BALANCE, MinMax, distribution_range};
use crate::ir::context::new_context;
use crate::kernels::tensor::{Data, Tensor};
use crate::onnx::proto::ModelProto;
use crate::onnx::validate::{self, ValidModel};
use crate::pipeline::{Emit, compile};
use crate::runtime::plan::Plan;

/// Every activation's range, by tensor name.
type Ranges = HashMap<String, (f32, f32)>;

/// Quantizes the model with the given activation ranges.
pub type Build<'a> = dyn Fn(Ranges) -> Result<ModelProto> + 'a;

/// The `balance` of `BALANCES` whose ranges give the least error on left-out samples,
/// `DEFAULT_BALANCE` with fewer than two samples. `per_sample` holds each sample's own
/// min-max of every tensor.
pub fn balance(
    model: &ValidModel,
    samples: &[Sample],
    per_sample: &[HashMap<String, MinMax>],
    build: &Build,
) -> Result<f32> {
    if samples.len() < 2 || per_sample.len() != samples.len() {
        return Ok(DEFAULT_BALANCE);
    }
    let float_plan = plan_of(model).context("compiling the float model")?;
    let mut errors = vec![0.0f64; BALANCES.len()];
    for (left_out, sample) in samples.iter().enumerate() {
        let reference = outputs_by_name(&float_plan, sample)?;
        let seen = union_except(per_sample, left_out);
        let mut tried: Vec<(Ranges, f64)> = Vec::new();
        for (i, &balance) in BALANCES.iter().enumerate() {
            let ranges: Ranges = seen
                .iter()
                .map(|(k, m)| (k.clone(), distribution_range(m, balance)))
                .collect();
            // Rules that agree on every tensor give the same model: run it once.
            let error = match tried.iter().find(|(r, _)| *r == ranges) {
                Some((_, e)) => *e,
                None => {
                    let quantized = validate::validate(build(ranges.clone())?, model.dir.clone())?;
                    let plan =
                        plan_of(&quantized).context("compiling a candidate quantized model")?;
                    let e = relative_l2(&reference, &outputs_by_name(&plan, sample)?);
                    tried.push((ranges, e));
                    e
                }
            };
            errors[i] += error / samples.len() as f64;
        }
    }
    let best = (0..BALANCES.len())
        .min_by(|&a, &b| errors[a].total_cmp(&errors[b]).then(a.cmp(&b)))
        .unwrap_or(0);
    let line: Vec<String> = BALANCES
        .iter()
        .zip(&errors)
        .map(|(b, e)| format!("{} {e:.3e}", rule_name(*b)))
        .collect();
    eprintln!(
        "qlower quantize: distribution: error on left-out calibration samples by rule: {}; \
         chosen: {}",
        line.join(", "),
        rule_name(BALANCES[best])
    );
    Ok(BALANCES[best])
}

fn rule_name(balance: f32) -> String {
    if balance.is_infinite() {
        "min-max".to_string()
    } else {
        format!("symmetric from side ratio {balance}")
    }
}

/// Every tensor's min-max over all samples but `left_out`.
fn union_except(
    per_sample: &[HashMap<String, MinMax>],
    left_out: usize,
) -> HashMap<String, MinMax> {
    let mut out: HashMap<String, MinMax> = HashMap::new();
    for (i, sample) in per_sample.iter().enumerate() {
        if i == left_out {
            continue;
        }
        for (k, m) in sample {
            let u = out.entry(k.clone()).or_insert_with(MinMax::new);
            u.min = u.min.min(m.min);
            u.max = u.max.max(m.max);
        }
    }
    out
}

pub(super) fn plan_of(model: &ValidModel) -> Result<Plan> {
    let context = new_context();
    let module = compile(
        &context,
        model,
        Emit::Backend,
        crate::pipeline::Options::default(),
    )?
    .module;
    Plan::new(&module)
}

/// The float outputs of `plan` on `sample`, by output name.
pub(super) fn outputs_by_name(plan: &Plan, sample: &Sample) -> Result<HashMap<String, Vec<f32>>> {
    let outputs: Vec<Tensor> = plan.run(calibrate::sample_inputs(plan, sample)?)?;
    Ok(plan
        .outputs
        .iter()
        .zip(outputs)
        .filter_map(|(port, t)| match t.data {
            Data::F32(v) => Some((port.name.clone(), v)),
            _ => None,
        })
        .collect())
}

/// The relative L2 error of every float output together (the float model's outputs
/// missing from the quantized model's count as all error).
pub(super) fn relative_l2(
    reference: &HashMap<String, Vec<f32>>,
    got: &HashMap<String, Vec<f32>>,
) -> f64 {
    let (mut signal, mut noise) = (0.0f64, 0.0f64);
    for (name, want) in reference {
        let have = got.get(name);
        for (i, &w) in want.iter().enumerate() {
            let w = f64::from(w);
            let g = have.and_then(|h| h.get(i)).map_or(0.0, |&g| f64::from(g));
            signal += w * w;
            noise += (w - g) * (w - g);
        }
    }
    if signal > 0.0 {
        (noise / signal).sqrt()
    } else {
        noise.sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mm(min: f32, max: f32) -> MinMax {
        MinMax { min, max }
    }

    #[test]
    fn union_leaves_one_sample_out() {
        let per_sample = vec![
            HashMap::from([("x".to_string(), mm(-1.0, 2.0))]),
            HashMap::from([("x".to_string(), mm(-5.0, 1.0))]),
            HashMap::from([("x".to_string(), mm(0.0, 3.0))]),
        ];
        assert_eq!(union_except(&per_sample, 1)["x"], mm(-1.0, 3.0));
        assert_eq!(union_except(&per_sample, 2)["x"], mm(-5.0, 2.0));
    }

    #[test]
    fn relative_l2_counts_a_missing_output_as_error() {
        let want = HashMap::from([("y".to_string(), vec![3.0, 4.0])]);
        assert_eq!(relative_l2(&want, &want), 0.0);
        let half = HashMap::from([("y".to_string(), vec![1.5, 2.0])]);
        assert!((relative_l2(&want, &half) - 0.5).abs() < 1e-12);
        assert_eq!(relative_l2(&want, &HashMap::new()), 1.0);
    }
}
