//! `--bias-correction auto`: whether correcting the biases pays off on this model,
//! judged as `range_choice` judges the distribution rule. With k calibration samples,
//! k times, the correction is computed from every sample but one and the model
//! quantized with it runs on the one left out; its mean relative L2 error against the
//! float model is compared with the uncorrected model's on the same samples. A sample
//! never judges a correction it contributed to, so the choice sees what held-out data
//! would see: on CNNs the correction removes a real shift, on encoders whose means are
//! dominated by a few outlier channels it adds noise, and the measurement tells which.

use std::collections::HashMap;

use anyhow::{Context, Result};

use super::calibrate::{ChannelMeans, Sample};
use super::range_choice::{outputs_by_name, plan_of, relative_l2};
use crate::onnx::proto::ModelProto;
use crate::onnx::validate::{self, ValidModel};

/// Quantizes the model with the given input means for bias correction (none: no
/// correction), the activation ranges already fixed.
pub type Build<'a> = dyn Fn(&HashMap<String, Vec<f64>>) -> Result<ModelProto> + 'a;

/// True when the corrected model's error on left-out samples is below the uncorrected
/// one's. False with fewer than two samples, or when there is nothing to correct.
pub fn corrects(
    model: &ValidModel,
    samples: &[Sample],
    means: &ChannelMeans,
    build: &Build,
) -> Result<bool> {
    if samples.len() < 2 || means.means(None).is_empty() {
        return Ok(false);
    }
    let compile = |m: &HashMap<String, Vec<f64>>| -> Result<_> {
        let quantized = validate::validate(build(m)?, model.dir.clone())?;
        plan_of(&quantized).context("compiling a candidate quantized model")
    };
    let float_plan = plan_of(model).context("compiling the float model")?;
    let plain = compile(&HashMap::new())?;
    let (mut off, mut on) = (0.0f64, 0.0f64);
    for (left_out, sample) in samples.iter().enumerate() {
        let reference = outputs_by_name(&float_plan, sample)?;
        let corrected = compile(&means.means(Some(left_out)))?;
        off += relative_l2(&reference, &outputs_by_name(&plain, sample)?);
        on += relative_l2(&reference, &outputs_by_name(&corrected, sample)?);
    }
    let k = samples.len() as f64;
    let chosen = on < off;
    eprintln!(
        "qlower quantize: bias correction: error on left-out calibration samples {:.3e} \
         without, {:.3e} with; chosen: {}",
        off / k,
        on / k,
        if chosen { "on" } else { "off" }
    );
    Ok(chosen)
}
