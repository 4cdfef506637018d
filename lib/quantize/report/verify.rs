//! Suggestions checked by measurement (`qlower quantize --report --verify-suggestions`).
//!
//! The own-error rule (`suggest`) finds tensors the 8-bit grid covers badly, but not how
//! much of their error reaches the outputs: a network may amplify the error of tensors
//! that look fine, and keeping one tensor in 16 bits can even lower the outputs' SQNR
//! where errors of several tensors partly cancelled. So each suggested tensor, worst
//! own SQNR first, is kept in 16 bits in turn on top of those kept before it, the model
//! quantized again and run over the calibration samples, and the tensor stays in the
//! list only when the outputs' SQNR (all float outputs together) rises by at least
//! `MIN_GAIN_DB`. The result is the fewest of the suggestions, in that greedy sense,
//! that raise the outputs' SQNR, with the gain measured.

use anyhow::{Context, Result};

use super::super::calibrate::{self, Sample};
use super::super::{Options, quantize};
use super::sqnr::Sqnr;
use crate::kernels::tensor::{Data, Tensor};
use crate::onnx::validate::{self, ValidModel};
use crate::pipeline::plan_onnx;
use crate::runtime::plan::Plan;

/// The least rise of the outputs' SQNR that keeps a tensor: below it the difference is
/// within what rounding moves.
pub const MIN_GAIN_DB: f64 = 0.05;

/// One trial: the tensor added, the outputs' SQNR with it, and whether it stayed.
#[derive(Clone, Debug)]
pub struct Trial {
    pub name: String,
    pub outputs_db: f64,
    pub kept: bool,
}

#[derive(Clone, Debug)]
pub struct Verified {
    /// The outputs' SQNR of the model as `options` quantize it.
    pub before_db: f64,
    /// With every kept tensor in 16 bits.
    pub after_db: f64,
    pub trials: Vec<Trial>,
}

impl Verified {
    pub fn kept(&self) -> Vec<&str> {
        self.trials
            .iter()
            .filter(|t| t.kept)
            .map(|t| t.name.as_str())
            .collect()
    }
}

/// Tries each of `candidates` in turn, as the module says.
pub fn verify(
    float: &ValidModel,
    options: &Options,
    candidates: &[&str],
    samples: &[Sample],
) -> Result<Verified> {
    let float_plan = plan_onnx(float).context("planning the float model")?;
    let reference = samples
        .iter()
        .map(|s| float_plan.run(calibrate::sample_inputs(&float_plan, s)?))
        .collect::<Result<Vec<_>>>()
        .context("running the float model")?;
    let score = |keep: &[String]| -> Result<f64> {
        let mut o = options.clone();
        o.keep_16bit.extend(keep.iter().cloned());
        let proto = quantize(copy(float), &o)?;
        let valid = validate::validate(proto, float.dir.clone())?;
        let plan = plan_onnx(&valid)?;
        let mut s = Sqnr::default();
        for (sample, want) in samples.iter().zip(&reference) {
            let got = plan.run(calibrate::sample_inputs(&plan, sample)?)?;
            add_outputs(&mut s, &float_plan, want, &plan, &got);
        }
        Ok(s.db())
    };
    let before_db = score(&[]).context("measuring the quantized model")?;
    let (mut best, mut kept, mut trials) = (before_db, Vec::new(), Vec::new());
    for &name in candidates {
        let mut keep = kept.clone();
        keep.push(name.to_string());
        let db = score(&keep).with_context(|| format!("keeping '{name}' in 16 bits"))?;
        let better = db >= best + MIN_GAIN_DB;
        if better {
            best = db;
            kept = keep;
        }
        trials.push(Trial {
            name: name.to_string(),
            outputs_db: db,
            kept: better,
        });
    }
    Ok(Verified {
        before_db,
        after_db: best,
        trials,
    })
}

/// A model is consumed by quantizing; each trial quantizes a copy.
fn copy(m: &ValidModel) -> ValidModel {
    ValidModel {
        proto: m.proto.clone(),
        dir: m.dir.clone(),
        order: m.order.clone(),
        opsets: m.opsets.clone(),
        sized_for_run: m.sized_for_run,
    }
}

/// Adds each float output of the float model that the quantized one has (by name).
fn add_outputs(s: &mut Sqnr, fp: &Plan, want: &[Tensor], qp: &Plan, got: &[Tensor]) {
    for (port, w) in fp.outputs.iter().zip(want) {
        let Some(g) = qp
            .outputs
            .iter()
            .position(|p| p.name == port.name)
            .and_then(|i| got.get(i))
        else {
            continue;
        };
        if let (Data::F32(a), Data::F32(b)) = (&w.data, &g.data)
            && a.len() == b.len()
        {
            s.add(a, b);
        }
    }
}
