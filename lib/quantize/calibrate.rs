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
    pub means: ChannelMeans,
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
    let mut means = ChannelMeans::default();
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
            means.add(name, index, shape, v, axis);
        }
    })?;
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

/// Sums of some tensors' values per channel, kept sample by sample so that a mean can
/// leave one sample out (bias correction's automatic choice judges the correction on
/// a sample that did not contribute to it).
#[derive(Default)]
pub struct ChannelMeans {
    tensors: HashMap<String, ChannelSums>,
}

#[derive(Default)]
struct ChannelSums {
    /// Per sample: the sum and count of each channel's values.
    samples: Vec<(Vec<f64>, Vec<u64>)>,
    /// Set when two samples disagree on the channel count: no mean then.
    mismatch: bool,
}

impl ChannelMeans {
    fn add(&mut self, name: &str, sample: usize, shape: &[usize], v: &[f32], axis: ChannelAxis) {
        let t = self.tensors.entry(name.to_string()).or_default();
        let a = match axis {
            ChannelAxis::First => 0,
            ChannelAxis::Second => 1,
            ChannelAxis::Last => shape.len().saturating_sub(1),
        };
        let (Some(&channels), true) = (shape.get(a), shape.iter().product::<usize>() == v.len())
        else {
            t.mismatch = true;
            return;
        };
        if channels == 0 {
            return;
        }
        if t.samples
            .iter()
            .any(|(s, _)| !s.is_empty() && s.len() != channels)
        {
            t.mismatch = true;
            return;
        }
        if t.samples.len() <= sample {
            t.samples.resize_with(sample + 1, Default::default);
        }
        let (sums, counts) = &mut t.samples[sample];
        if sums.is_empty() {
            *sums = vec![0.0; channels];
            *counts = vec![0; channels];
        }
        let inner: usize = shape[a + 1..].iter().product::<usize>().max(1);
        for (i, &x) in v.iter().enumerate() {
            let c = (i / inner) % channels;
            sums[c] += x as f64;
            counts[c] += 1;
        }
    }

    /// Each tensor's mean per channel over every sample but `left_out`.
    pub fn means(&self, left_out: Option<usize>) -> HashMap<String, Vec<f64>> {
        self.tensors
            .iter()
            .filter_map(|(name, t)| t.mean(left_out).map(|m| (name.clone(), m)))
            .collect()
    }
}

impl ChannelSums {
    fn mean(&self, left_out: Option<usize>) -> Option<Vec<f64>> {
        if self.mismatch {
            return None;
        }
        let channels = self.samples.iter().map(|(s, _)| s.len()).max()?;
        if channels == 0 {
            return None;
        }
        let (mut sums, mut counts) = (vec![0.0f64; channels], vec![0u64; channels]);
        for (i, (s, n)) in self.samples.iter().enumerate() {
            if Some(i) == left_out || s.is_empty() {
                continue;
            }
            for ((sum, count), (&x, &k)) in sums.iter_mut().zip(&mut counts).zip(s.iter().zip(n)) {
                *sum += x;
                *count += k;
            }
        }
        Some(
            sums.iter()
                .zip(&counts)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_means_leave_one_sample_out() {
        let mut m = ChannelMeans::default();
        // [1, 2 channels, 2 positions] NCHW-like, three samples.
        let samples = [
            [1.0, 3.0, 10.0, 10.0],
            [5.0, 7.0, 20.0, 20.0],
            [0.0, 0.0, 30.0, 30.0],
        ];
        for (i, v) in samples.iter().enumerate() {
            m.add("x", i, &[1, 2, 2], v, ChannelAxis::Second);
        }
        assert_eq!(m.means(None)["x"], vec![16.0 / 6.0, 20.0]);
        assert_eq!(m.means(Some(1))["x"], vec![1.0, 20.0]);
        assert_eq!(m.means(Some(2))["x"], vec![4.0, 15.0]);
        // A sample with another channel count makes the mean unknown, not wrong.
        m.add("x", 3, &[1, 3, 1], &[1.0, 2.0, 3.0], ChannelAxis::Second);
        assert!(!m.means(None).contains_key("x"));
    }

    #[test]
    fn channel_means_take_the_last_axis() {
        let mut m = ChannelMeans::default();
        let v = [1.0, 2.0, 3.0, 3.0, 4.0, 5.0];
        m.add("a", 0, &[2, 3], &v, ChannelAxis::Last);
        assert_eq!(m.means(None)["a"], vec![2.0, 3.0, 4.0]);
        assert!(m.means(Some(0)).get("a").is_some_and(|v| v == &[0.0; 3]));
    }
}
