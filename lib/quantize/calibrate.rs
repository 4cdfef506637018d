//! Static calibration: runs the float model on qlower's CPU backend over the samples
//! of a folder (`*.npz`, one per sample, keyed by input name) and collects the range
//! of every float tensor that nodes produce or read: min-max (or its moving average)
//! in a first pass, then, for the histogram methods, a histogram over that span in a
//! second pass from which `ranges`, `entropy` or `mse_range` choose. The first pass
//! also averages the inputs of the layers whose bias is to be corrected.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::params::{Params, QType};
use super::ranges::{Histogram, MinMax, MovingMinMax, percentile_range};
use super::{CalibrateMethod, RangeOptions, entropy, histogram, mse_range};
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

/// What a calibration run is asked for.
pub struct Request<'a> {
    pub method: CalibrateMethod,
    pub options: &'a RangeOptions,
    /// The scale and zero point a range becomes (the activation grid, which the MSE
    /// search measures its error on), and the type it is for.
    pub params_of: &'a dyn Fn(f32, f32) -> Params,
    pub qtype: QType,
    /// Tensors whose mean per channel is wanted (bias correction), with the channel axis.
    pub means: HashMap<String, ChannelAxis>,
}

/// The axis that holds a tensor's channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelAxis {
    /// Axis 0 (Gemm's A with transA).
    First,
    /// Axis 1 (a Conv's NCHW input).
    Second,
    /// The last axis (MatMul's and Gemm's A).
    Last,
}

/// What calibration found: each float tensor's range, and the requested means.
pub struct Calibrated {
    pub ranges: HashMap<String, (f32, f32)>,
    pub means: HashMap<String, Vec<f64>>,
    /// Each sample's own min-max of every tensor, sample by sample (the distribution
    /// method only: `range_choice` cross-validates its rule on them).
    pub per_sample: Vec<HashMap<String, MinMax>>,
}

/// The range of a tensor over the first pass: min-max, or its moving average.
enum Extremes {
    Global(MinMax),
    Moving(MovingMinMax),
}

impl Extremes {
    fn add(&mut self, v: &[f32]) {
        match self {
            Extremes::Global(m) => m.add(v),
            Extremes::Moving(m) => m.add(v),
        }
    }

    fn range(&self) -> (f32, f32) {
        match self {
            Extremes::Global(m) => m.range(),
            Extremes::Moving(m) => m.range(),
        }
    }
}

/// Histograms of the second pass: of magnitudes (percentile, as ORT's symmetric
/// default) or of values (entropy, mse).
enum Hist {
    Magnitudes(Histogram),
    Values(histogram::Histogram),
}

/// The calibrated range of every float tensor read or written by a node.
pub fn collect(model: &ValidModel, samples: &[Sample], request: &Request) -> Result<Calibrated> {
    let plan = plan_with_every_tensor(model)?;
    let method = request.method;
    let options = request.options;
    let mut extremes: BTreeMap<String, Extremes> = BTreeMap::new();
    let mut means: HashMap<String, ChannelMeans> = HashMap::new();
    // The smallest magnitude seen, where the percentile histogram starts.
    let mut smallest: HashMap<String, f32> = HashMap::new();
    // Distribution's range, for an integer grid, needs only the extremes: these are
    // returned as seen, and `static_qdq` applies the rule `range_choice` picks.
    let histogram_pass = matches!(
        method,
        CalibrateMethod::Percentile | CalibrateMethod::Entropy | CalibrateMethod::Mse
    );
    let passes = if histogram_pass { 2 } else { 1 };
    let keep_per_sample = method == CalibrateMethod::Distribution;
    let mut per_sample: Vec<HashMap<String, MinMax>> = Vec::new();
    for_each_output(&plan, samples, (1, passes), |index, name, shape, v| {
        if keep_per_sample {
            if per_sample.len() <= index {
                per_sample.resize_with(index + 1, HashMap::new);
            }
            per_sample[index]
                .entry(name.to_string())
                .or_insert_with(MinMax::new)
                .add(v);
        }
        let e = extremes
            .entry(name.to_string())
            .or_insert_with(|| match options.moving_average {
                true => Extremes::Moving(MovingMinMax::new(options.averaging_constant())),
                false => Extremes::Global(MinMax::new()),
            });
        e.add(v);
        if method == CalibrateMethod::Percentile {
            let s = smallest.entry(name.to_string()).or_insert(f32::INFINITY);
            *s = v.iter().fold(*s, |s, x| s.min(x.abs()));
        }
        if let Some(&axis) = request.means.get(name) {
            means
                .entry(name.to_string())
                .or_default()
                .add(shape, v, axis);
        }
    })?;
    let means = means
        .into_iter()
        .filter_map(|(k, m)| m.mean().map(|m| (k, m)))
        .collect();
    if !histogram_pass {
        let ranges = extremes.into_iter().map(|(k, m)| (k, m.range())).collect();
        return Ok(Calibrated {
            ranges,
            means,
            per_sample,
        });
    }
    let bins = options.num_bins(method);
    let mut hists: HashMap<String, Hist> = extremes
        .iter()
        .map(|(k, m)| {
            let (lo, hi) = m.range();
            let h = match method {
                CalibrateMethod::Percentile => {
                    let from = smallest.get(k).copied().unwrap_or(0.0);
                    Hist::Magnitudes(Histogram::new(from, lo.abs().max(hi.abs()), bins))
                }
                _ => Hist::Values(histogram::Histogram::new(lo, hi, bins)),
            };
            (k.clone(), h)
        })
        .collect();
    for_each_output(&plan, samples, (2, passes), |_, name, _, v| {
        match hists.get_mut(name) {
            Some(Hist::Magnitudes(h)) => h.add(v),
            Some(Hist::Values(h)) => h.add(v),
            None => {}
        }
    })?;
    let ranges = extremes
        .into_iter()
        .map(|(k, m)| {
            let (min, max) = m.range();
            let minmax = MinMax { min, max };
            let r = match hists.get(&k) {
                Some(Hist::Magnitudes(h)) => percentile_range(&minmax, h, options.percentile()),
                Some(Hist::Values(h)) if method == CalibrateMethod::Entropy => {
                    entropy::search(h, options.num_quantized_bins())
                }
                Some(Hist::Values(h)) => mse_range::search(h, request.params_of, request.qtype),
                None => minmax.range(),
            };
            (k, r)
        })
        .collect();
    Ok(Calibrated {
        ranges,
        means,
        per_sample,
    })
}

/// Sums of a tensor's values per channel over every sample.
#[derive(Default)]
struct ChannelMeans {
    sums: Vec<f64>,
    counts: Vec<u64>,
    /// Set when two samples disagree on the channel count: no mean then.
    mismatch: bool,
}

impl ChannelMeans {
    fn add(&mut self, shape: &[usize], v: &[f32], axis: ChannelAxis) {
        let a = match axis {
            ChannelAxis::First => 0,
            ChannelAxis::Second => 1,
            ChannelAxis::Last => shape.len().saturating_sub(1),
        };
        let (Some(&channels), true) = (shape.get(a), shape.iter().product::<usize>() == v.len())
        else {
            self.mismatch = true;
            return;
        };
        if channels == 0 {
            return;
        }
        if self.sums.is_empty() {
            self.sums = vec![0.0; channels];
            self.counts = vec![0; channels];
        } else if self.sums.len() != channels {
            self.mismatch = true;
            return;
        }
        let inner: usize = shape[a + 1..].iter().product::<usize>().max(1);
        for (i, &x) in v.iter().enumerate() {
            let c = (i / inner) % channels;
            self.sums[c] += x as f64;
            self.counts[c] += 1;
        }
    }

    fn mean(&self) -> Option<Vec<f64>> {
        if self.mismatch || self.sums.is_empty() {
            return None;
        }
        Some(
            self.sums
                .iter()
                .zip(&self.counts)
                .map(|(&s, &n)| if n == 0 { 0.0 } else { s / n as f64 })
                .collect(),
        )
    }
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

/// Runs every sample and hands each float tensor (inputs included) to `f`, with the
/// sample's index; `pass` is (this pass, passes), for the progress bar.
fn for_each_output(
    plan: &Plan,
    samples: &[Sample],
    pass: (usize, usize),
    mut f: impl FnMut(usize, &str, &[usize], &[f32]),
) -> Result<()> {
    let progress = progress::bar(samples.len() as u64, "calibration");
    if pass.1 > 1 {
        progress.set_message(format!("samples, pass {} of {}", pass.0, pass.1));
    } else {
        progress.set_message("samples");
    }
    for (index, sample) in samples.iter().enumerate() {
        let label = || format!("calibration sample '{}'", sample.file.display());
        let inputs = sample_inputs(plan, sample)?;
        for (port, t) in plan.inputs.iter().zip(&inputs) {
            if let Data::F32(v) = &t.data {
                f(index, &port.name, &t.shape, v);
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
                f(index, &port.name, &t.shape, v);
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
