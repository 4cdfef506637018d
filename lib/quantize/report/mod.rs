//! Where a quantized model's error comes from (`qlower compare`, `qlower quantize
//! --report`): both models run on qlower's CPU backend over the calibration samples,
//! every intermediate tensor kept (as calibration does), and each quantized tensor's
//! dequantized value is measured against the float model's tensor, as ONNX Runtime's
//! `qdq_loss_debug` does. The rows come worst first, with the tensors to keep in 16
//! bits or in float (`suggest`).

mod grid;
mod pairs;
mod render;
mod sqnr;
mod suggest;
mod verify;

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::calibrate::{self, Sample};
use super::graph_edit;
use crate::kernels::tensor::{Data, Tensor};
use crate::onnx::validate::ValidModel;
use crate::progress;
use crate::runtime::plan::Plan;
pub use pairs::Kind;
pub use suggest::Advice;
pub use verify::{Trial, Verified};

/// One quantized tensor's errors.
#[derive(Clone, Debug)]
pub struct Row {
    pub name: String,
    pub kind: Kind,
    pub op: String,
    /// The quantized model's tensor that was measured (its DequantizeLinear output).
    pub dequantized: String,
    /// SQNR of the dequantized tensor against the float model's (all upstream error
    /// included), in dB.
    pub sqnr_db: f64,
    /// The error of this tensor's quantization alone: SQNR of the float model's tensor
    /// against itself quantized with this tensor's scale and zero point (`grid`); for a
    /// weight the same as `sqnr_db`. Where the parameters are not one constant each
    /// (DynamicQuantizeLinear, per axis), the QuantizeLinear input against the
    /// DequantizeLinear output in the quantized model instead.
    pub own_sqnr_db: f64,
    pub advice: Option<Advice>,
}

/// The comparison of a quantized model with its float model.
#[derive(Clone, Debug)]
pub struct Report {
    pub samples: usize,
    /// Each float graph output the quantized model also has, with its SQNR in dB.
    pub outputs: Vec<(String, f64)>,
    /// Worst SQNR first.
    pub rows: Vec<Row>,
    /// The median own SQNR the suggestions are measured from.
    pub median_own_db: Option<f64>,
    /// The 16-bit suggestions checked by re-quantizing (`verify_suggestions`).
    pub verified: Option<Verified>,
}

impl Report {
    /// The names suggested for `advice`, worst first.
    pub fn suggested(&self, advice: Advice) -> Vec<&str> {
        self.rows
            .iter()
            .filter(|r| r.advice == Some(advice))
            .map(|r| r.name.as_str())
            .collect()
    }

    /// The table (`top` rows at most), with the outputs' SQNR and the suggestions.
    pub fn table(&self, top: Option<usize>) -> String {
        render::table(self, top)
    }

    /// The same as a JSON document.
    pub fn json(&self, top: Option<usize>) -> String {
        render::json(self, top)
    }
}

/// Compares `quantized` with `float` over the `*.npz` samples of `dir`.
pub fn compare_with_samples(
    float: &ValidModel,
    quantized: &ValidModel,
    dir: &Path,
) -> Result<Report> {
    let samples = calibrate::read_samples(dir)?;
    compare(float, quantized, &samples)
}

/// Runs both models over `samples` and measures every quantized tensor.
pub fn compare(float: &ValidModel, quantized: &ValidModel, samples: &[Sample]) -> Result<Report> {
    let pairs = pairs::find(float.graph(), quantized.graph());
    if pairs.is_empty() {
        bail!(
            "the quantized model has no DequantizeLinear of a tensor the float model has: \
             nothing to compare (QDQ models only)"
        );
    }
    let float_plan = calibrate::plan_with_every_tensor(float).context("the float model")?;
    let quant_plan = calibrate::plan_with_every_tensor(quantized).context("the quantized model")?;
    same_inputs(&float_plan, &quant_plan)?;

    // Weights need no run: the float initializer is the reference.
    let mut float_weights: HashMap<&str, Vec<f32>> = HashMap::new();
    for p in pairs.iter().filter(|p| p.kind != Kind::Activation) {
        if let Some((values, _)) =
            graph_edit::float_initializer(float.graph(), &p.name, float.dir.as_deref())?
        {
            float_weights.insert(p.name.as_str(), values);
        }
    }
    let mut grids: Vec<Option<grid::Grid>> = Vec::with_capacity(pairs.len());
    for p in &pairs {
        grids.push(match &p.quantizer {
            Some((scale, zero_point)) => grid::Grid::of(
                quantized.graph(),
                quantized.dir.as_deref(),
                scale,
                zero_point.as_deref(),
            )
            .with_context(|| format!("the quantization parameters of '{}'", p.name))?,
            None => None,
        });
    }
    let output_names: Vec<&str> = float
        .graph()
        .output
        .iter()
        .map(|o| o.name.as_str())
        .filter(|n| quant_plan.outputs.iter().any(|p| p.name == *n))
        .collect();

    let mut errors = vec![(sqnr::Sqnr::default(), sqnr::Sqnr::default()); pairs.len()];
    let mut outputs = vec![sqnr::Sqnr::default(); output_names.len()];
    let bar = progress::bar(samples.len() as u64, "compare");
    bar.set_message("samples");
    for (index, sample) in samples.iter().enumerate() {
        let label = || format!("sample '{}'", sample.file.display());
        let inputs = calibrate::sample_inputs(&float_plan, sample)?;
        let f_out = float_plan
            .run(inputs.clone())
            .with_context(|| format!("{}: the float model", label()))?;
        let q_out = quant_plan
            .run(inputs.clone())
            .with_context(|| format!("{}: the quantized model", label()))?;
        let f = by_name(&float_plan, &inputs, &f_out);
        let q = by_name(&quant_plan, &inputs, &q_out);
        for ((p, (error, own)), grid) in pairs.iter().zip(errors.iter_mut()).zip(&grids) {
            let Some(deq) = q.get(p.dequantized.as_str()).copied().and_then(floats) else {
                continue;
            };
            let reference = match p.kind {
                Kind::Activation => f.get(p.name.as_str()).copied().and_then(floats),
                // Constant: measured once.
                _ if index > 0 => continue,
                _ => float_weights.get(p.name.as_str()).map(Vec::as_slice),
            };
            let Some(reference) = reference else {
                continue;
            };
            check_len(&p.name, reference, deq)?;
            error.add(reference, deq);
            match (grid, p.before.as_deref()) {
                (Some(g), _) => own.add(reference, &g.round_trip(reference)),
                (None, Some(b)) => {
                    if let Some(before) = q.get(b).copied().and_then(floats) {
                        check_len(b, before, deq)?;
                        own.add(before, deq);
                    }
                }
                (None, None) => own.add(reference, deq),
            }
        }
        for (name, s) in output_names.iter().zip(outputs.iter_mut()) {
            let (Some(x), Some(y)) = (
                f.get(name).copied().and_then(floats),
                q.get(name).copied().and_then(floats),
            ) else {
                continue;
            };
            check_len(name, x, y)?;
            s.add(x, y);
        }
        bar.inc(1);
    }
    bar.finish_and_clear();

    let measured: Vec<(pairs::Pair, f64, f64)> = pairs
        .into_iter()
        .zip(errors)
        .filter(|(_, (e, _))| *e != sqnr::Sqnr::default())
        .map(|(p, (e, o))| (p, e.db(), o.db()))
        .collect();
    let kinds: Vec<(Kind, f64)> = measured.iter().map(|(p, _, o)| (p.kind, *o)).collect();
    let (median_own_db, advice) = suggest::advise(&kinds);
    let mut rows: Vec<Row> = measured
        .into_iter()
        .zip(advice)
        .map(|((p, e, o), advice)| Row {
            name: p.name,
            kind: p.kind,
            op: p.op,
            dequantized: p.dequantized,
            sqnr_db: e,
            own_sqnr_db: o,
            advice,
        })
        .collect();
    // Worst first; NaN (a non-finite value) before everything, then by name.
    rows.sort_by(|a, b| {
        let key = |r: &Row| {
            if r.sqnr_db.is_nan() {
                f64::NEG_INFINITY
            } else {
                r.sqnr_db
            }
        };
        key(a).total_cmp(&key(b)).then_with(|| a.name.cmp(&b.name))
    });
    Ok(Report {
        samples: samples.len(),
        outputs: output_names
            .iter()
            .zip(outputs)
            .map(|(n, s)| (n.to_string(), s.db()))
            .collect(),
        rows,
        median_own_db,
        verified: None,
    })
}

/// Checks the report's 16-bit suggestions by quantizing `float` again as `options`
/// say with each kept in turn (`verify`), over the samples of `dir`.
pub fn verify_suggestions(
    float: &ValidModel,
    options: &super::Options,
    report: &mut Report,
    dir: &Path,
) -> Result<()> {
    let samples = calibrate::read_samples(dir)?;
    let candidates = report.suggested(Advice::Keep16Bit);
    let verified = verify::verify(float, options, &candidates, &samples)?;
    report.verified = Some(verified);
    Ok(())
}

/// The two models must take the same inputs: same names, same types.
fn same_inputs(float: &Plan, quantized: &Plan) -> Result<()> {
    let describe = |plan: &Plan| {
        plan.inputs
            .iter()
            .map(|p| format!("'{}' {}", p.name, p.ty))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let same = float.inputs.len() == quantized.inputs.len()
        && float
            .inputs
            .iter()
            .zip(&quantized.inputs)
            .all(|(a, b)| a.name == b.name && a.ty == b.ty);
    if !same {
        bail!(
            "the models' inputs differ: the float model takes {}, the quantized model {}",
            describe(float),
            describe(quantized)
        );
    }
    Ok(())
}

/// Every tensor of one run by name: the plan's outputs, and its inputs.
fn by_name<'a>(
    plan: &'a Plan,
    inputs: &'a [Tensor],
    outputs: &'a [Tensor],
) -> HashMap<&'a str, &'a Tensor> {
    plan.inputs
        .iter()
        .zip(inputs)
        .chain(plan.outputs.iter().zip(outputs))
        .map(|(p, t)| (p.name.as_str(), t))
        .collect()
}

fn floats(t: &Tensor) -> Option<&[f32]> {
    match &t.data {
        Data::F32(v) => Some(v),
        _ => None,
    }
}

fn check_len(name: &str, a: &[f32], b: &[f32]) -> Result<()> {
    if a.len() != b.len() {
        bail!(
            "tensor '{name}' has {} elements in the float model but {} in the quantized one",
            a.len(),
            b.len()
        );
    }
    Ok(())
}
