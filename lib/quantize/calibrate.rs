//! Static calibration: runs the float model on qlower's CPU backend over the samples
//! of a folder (`*.npz`, one per sample, keyed by input name) and collects the range
//! of every float tensor that nodes produce or read.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::CalibrateMethod;
use super::ranges::{Histogram, MinMax, percentile_range};
use crate::ir::context::new_context;
use crate::kernels::tensor::{Data, Tensor};
use crate::onnx::proto::ValueInfoProto;
use crate::onnx::validate::{self, ValidModel};
use crate::pipeline::{Emit, Options, compile};
use crate::progress;
use crate::runtime::io::npy;
use crate::runtime::plan::Plan;

/// One calibration sample: the file it came from and its tensors by name.
pub struct Sample {
    pub file: PathBuf,
    pub tensors: HashMap<String, Tensor>,
}

/// Reads every `*.npz` of `dir`, in name order.
pub fn read_samples(dir: &Path) -> Result<Vec<Sample>> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read calibration folder '{}'", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "npz") && p.is_file())
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("calibration folder '{}' has no .npz sample", dir.display());
    }
    files
        .into_iter()
        .map(|file| {
            let tensors = read_npz(&file)
                .with_context(|| format!("calibration sample '{}'", file.display()))?;
            Ok(Sample { file, tensors })
        })
        .collect()
}

/// An `.npz` is a zip (stored or deflated) of `.npy` files named after the arrays.
fn read_npz(path: &Path) -> Result<HashMap<String, Tensor>> {
    let file = std::fs::File::open(path).context("cannot open")?;
    let mut archive = zip::ZipArchive::new(file).context("not a valid .npz (zip) file")?;
    let mut out = HashMap::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).context("cannot read the archive")?;
        let entry_name = entry.name().context("an entry has an unreadable name")?;
        let Some(name) = entry_name.strip_suffix(".npy").map(str::to_string) else {
            continue;
        };
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .with_context(|| format!("cannot read array '{name}'"))?;
        let tensor = npy::parse(&bytes, &name)?;
        if let Data::F32(v) = &tensor.data
            && let Some(bad) = v.iter().find(|x| !x.is_finite())
        {
            bail!("array '{name}' holds a non-finite value ({bad})");
        }
        out.insert(name, tensor);
    }
    Ok(out)
}

/// The calibrated range of every float tensor read or written by a node.
pub fn collect(
    model: &ValidModel,
    samples: &[Sample],
    method: CalibrateMethod,
) -> Result<HashMap<String, (f32, f32)>> {
    let plan = plan_with_every_tensor(model)?;
    let mut minmax: BTreeMap<String, MinMax> = BTreeMap::new();
    let passes = if method == CalibrateMethod::Minmax {
        1
    } else {
        2
    };
    for_each_output(&plan, samples, (1, passes), |name, v| {
        minmax
            .entry(name.to_string())
            .or_insert_with(MinMax::new)
            .add(v)
    })?;
    if method == CalibrateMethod::Minmax {
        return Ok(minmax.into_iter().map(|(k, m)| (k, m.range())).collect());
    }
    // The histogram's span is the magnitude seen in the first pass.
    let mut hists: HashMap<String, Histogram> = minmax
        .iter()
        .map(|(k, m)| {
            let (lo, hi) = m.range();
            (k.clone(), Histogram::new(lo.abs().max(hi.abs())))
        })
        .collect();
    for_each_output(&plan, samples, (2, passes), |name, v| {
        if let Some(h) = hists.get_mut(name) {
            h.add(v)
        }
    })?;
    Ok(minmax
        .into_iter()
        .map(|(k, m)| {
            let r = hists.get(&k).map_or(m.range(), |h| percentile_range(&m, h));
            (k, r)
        })
        .collect())
}

/// Compiles the model with every node input and output made a graph output, so that
/// one run yields every intermediate tensor (calibration, and the error report).
pub(super) fn plan_with_every_tensor(model: &ValidModel) -> Result<Plan> {
    let mut proto = model.proto.clone();
    let graph = proto.graph.as_mut().context("model has no graph")?;
    let initializers: HashSet<&str> = graph.initializer.iter().map(|t| t.name.as_str()).collect();
    let mut present: HashSet<String> = graph.output.iter().map(|o| o.name.clone()).collect();
    present.extend(graph.input.iter().map(|i| i.name.clone()));
    let mut extra = Vec::new();
    for node in &graph.node {
        for name in node.input.iter().chain(&node.output) {
            if !name.is_empty()
                && !initializers.contains(name.as_str())
                && present.insert(name.clone())
            {
                extra.push(ValueInfoProto {
                    name: name.clone(),
                    ..Default::default()
                });
            }
        }
    }
    graph.output.extend(extra);
    let valid = validate::validate(proto, model.dir.clone())?;
    let context = new_context();
    let module = compile(&context, &valid, Emit::Backend, Options::default())
        .context("compiling the float model for calibration")?
        .module;
    Plan::new(&module).context("planning the float model for calibration")
}

/// Runs every sample and hands each float tensor (inputs included) to `f`; `pass` is
/// (this pass, passes), for the progress bar.
fn for_each_output(
    plan: &Plan,
    samples: &[Sample],
    pass: (usize, usize),
    mut f: impl FnMut(&str, &[f32]),
) -> Result<()> {
    let progress = progress::bar(samples.len() as u64, "calibration");
    if pass.1 > 1 {
        progress.set_message(format!("samples, pass {} of {}", pass.0, pass.1));
    } else {
        progress.set_message("samples");
    }
    for sample in samples {
        let label = || format!("calibration sample '{}'", sample.file.display());
        let inputs = sample_inputs(plan, sample)?;
        for (port, t) in plan.inputs.iter().zip(&inputs) {
            if let Data::F32(v) = &t.data {
                f(&port.name, v);
            }
        }
        let outputs = plan.run(inputs).with_context(label)?;
        for (port, t) in plan.outputs.iter().zip(&outputs) {
            if let Data::F32(v) = &t.data {
                if let Some(bad) = v.iter().find(|x| !x.is_finite()) {
                    bail!(
                        "{}: the float model computes a non-finite value ({bad}) in '{}'",
                        label(),
                        port.name
                    );
                }
                f(&port.name, v);
            }
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    Ok(())
}

/// The sample's arrays for `plan`'s inputs, in its order.
pub(super) fn sample_inputs(plan: &Plan, sample: &Sample) -> Result<Vec<Tensor>> {
    plan.inputs
        .iter()
        .map(|port| {
            sample.tensors.get(&port.name).cloned().with_context(|| {
                format!(
                    "calibration sample '{}': no array for input '{}'",
                    sample.file.display(),
                    port.name
                )
            })
        })
        .collect()
}
