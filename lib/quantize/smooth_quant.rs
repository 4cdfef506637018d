//! `--smooth-quant` (Xiao et al., "SmoothQuant", 2023): transformer activations have a
//! few input channels far larger than the rest, which per-tensor activation scales
//! then waste their levels on. Dividing activation channel j by s_j and multiplying
//! row j of the weights that read it by s_j leaves x·W unchanged in float, and moves
//! the outliers into the weights, which are quantized per output channel:
//! s_j = max|x_j|^α / max|w_j|^(1-α), the maxima over the calibration samples and over
//! every weight reading x.
//!
//! The division is folded into the producer's scale and bias when it is a
//! LayerNormalization (or SimplifiedLayerNormalization), or a Mul by a constant vector
//! (a written-out RMSNorm's weight), read by the smoothed nodes only; otherwise a Mul by the constant 1/s is inserted before them.
//!
//! α is `--smooth-quant-alpha`, or chosen per model: each α of `ALPHAS`, and no
//! smoothing at all, is quantized and run on the calibration samples, and the one of
//! highest output SQNR against the float model wins, so smoothing is never kept when
//! it would raise the calibration error.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::calibrate::{self, Sample};
use super::graph_edit::{self, Names};
use super::{BiasCorrection, Options, static_qdq};
use crate::ir::context::new_context;
use crate::kernels::tensor::Data;
use crate::onnx::proto::{GraphProto, ModelProto};
use crate::onnx::validate::{self, ValidModel};
use crate::pipeline::{Emit, compile};
use crate::runtime::plan::Plan;

/// The α tried when none is given.
pub const ALPHAS: [f32; 6] = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8];

/// What `--smooth-quant` was asked for (ORT's SmoothQuantAlpha, SmoothQuantFolding).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SmoothOptions {
    /// A fixed α in [0, 1]; `None` chooses it by calibration.
    pub alpha: Option<f32>,
    /// Always insert a Mul rather than folding the division into the producer.
    pub no_folding: bool,
    /// Where to write the smoothed float model (before quantization), to check it.
    pub save_smoothed: Option<PathBuf>,
}

impl SmoothOptions {
    pub fn check(&self) -> Result<()> {
        if let Some(a) = self.alpha
            && !(0.0..=1.0).contains(&a)
        {
            anyhow::bail!("--smooth-quant-alpha must be in [0, 1], not {a}");
        }
        Ok(())
    }
}

/// The activations smoothed and how, for the message.
#[derive(Debug, Default)]
struct Applied {
    folded: usize,
    multiplied: usize,
}

/// One activation read by smoothable nodes: the nodes, their weights (name, whether
/// stored [N, K]), and the per-channel maxima.
struct Group {
    activation: String,
    consumers: Vec<usize>,
    weights: Vec<(String, bool)>,
    x_max: Vec<f32>,
    w_max: Vec<f32>,
}

/// Smooths `model` for `options` (static mode), choosing α when it is not given, and
/// prints what it chose. Returns the model to quantize.
pub fn smooth(model: ValidModel, options: &Options, smooth: &SmoothOptions) -> Result<ValidModel> {
    let dir = options
        .calibration
        .as_deref()
        .context("--smooth-quant needs --calibration DIR")?;
    let samples = calibrate::read_samples(dir)?;
    let graph = model.proto.graph.as_ref().context("model has no graph")?;
    let mut groups = candidates(graph, &model, options)?;
    let (x_max, float_outputs) = activation_maxima(&model, &samples, &groups)?;
    groups.retain_mut(|g| match x_max.get(&g.activation) {
        Some(m) if m.len() == g.w_max.len() => {
            g.x_max = m.clone();
            true
        }
        _ => false,
    });
    if groups.is_empty() {
        eprintln!(
            "qlower quantize: --smooth-quant: no MatMul or Gemm with a constant weight to smooth"
        );
        return Ok(model);
    }
    let alpha = match smooth.alpha {
        Some(a) => Some(a),
        None => choose_alpha(&model, options, smooth, &groups, &samples, &float_outputs)?,
    };
    let Some(alpha) = alpha else {
        eprintln!(
            "qlower quantize: --smooth-quant: no α lowered the calibration error; the model is \
             left unsmoothed"
        );
        return Ok(model);
    };
    let (smoothed, applied) = apply(&model, &groups, alpha, !smooth.no_folding)?;
    eprintln!(
        "qlower quantize: --smooth-quant: α = {alpha:.2}, {} activations smoothed ({} folded \
         into a normalization, {} by an inserted Mul)",
        applied.folded + applied.multiplied,
        applied.folded,
        applied.multiplied
    );
    if let Some(path) = &smooth.save_smoothed {
        super::encode::write(&smoothed.proto, path)?;
    }
    Ok(smoothed)
}

/// Quantizes the model smoothed with each α (and unsmoothed) and returns the α of the
/// best output SQNR on the samples, `None` when not smoothing is best.
fn choose_alpha(
    model: &ValidModel,
    options: &Options,
    smooth: &SmoothOptions,
    groups: &[Group],
    samples: &[Sample],
    float_outputs: &[Vec<Vec<f32>>],
) -> Result<Option<f32>> {
    let mut inner = options.clone();
    inner.smooth_quant = None;
    // α is scored without the automatic bias-correction choice, which would rerun its
    // own leave-one-out measurement for every candidate; the final quantization makes
    // that choice once, on the chosen α.
    if inner.range.bias_correction == BiasCorrection::Auto {
        inner.range.bias_correction = BiasCorrection::Off;
    }
    let score = |m: ValidModel| -> Result<f64> {
        let q = static_qdq::quantize(m, &inner)?;
        let q = validate::validate(q, model.dir.clone())?;
        output_sqnr(&q, samples, float_outputs)
    };
    let unsmoothed = validate::validate(model.proto.clone(), model.dir.clone())?;
    let mut best = (score(unsmoothed)?, None);
    let mut line = format!("none {:.2} dB", best.0);
    for alpha in ALPHAS {
        let (m, _) = apply(model, groups, alpha, !smooth.no_folding)?;
        let db = score(m).with_context(|| format!("--smooth-quant with α = {alpha}"))?;
        line.push_str(&format!(", {alpha:.1} {db:.2} dB"));
        if db > best.0 {
            best = (db, Some(alpha));
        }
    }
    eprintln!(
        "qlower quantize: --smooth-quant: output SQNR by α on the calibration samples: {line}"
    );
    Ok(best.1)
}

/// The SQNR of `quantized`'s outputs against the float ones, over every sample and
/// output together.
fn output_sqnr(
    quantized: &ValidModel,
    samples: &[Sample],
    float_outputs: &[Vec<Vec<f32>>],
) -> Result<f64> {
    let context = new_context();
    let module = compile(
        &context,
        quantized,
        Emit::Backend,
        crate::pipeline::Options::default(),
    )
    .context("compiling the smoothed, quantized model")?
    .module;
    let plan = Plan::new(&module).context("planning the smoothed, quantized model")?;
    let (mut signal, mut noise) = (0.0f64, 0.0f64);
    for (sample, reference) in samples.iter().zip(float_outputs) {
        let outputs = plan.run(calibrate::sample_inputs(&plan, sample)?)?;
        for (t, r) in outputs.iter().zip(reference) {
            if let Data::F32(v) = &t.data {
                for (&a, &b) in r.iter().zip(v) {
                    let (a, b) = (f64::from(a), f64::from(b));
                    signal += a * a;
                    noise += (a - b) * (a - b);
                }
            }
        }
    }
    Ok(if noise > 0.0 {
        10.0 * (signal / noise).log10()
    } else {
        f64::INFINITY
    })
}

/// The activations read (as A) by MatMul or Gemm nodes to be quantized whose weight is
/// a 2-D float initializer read by those nodes only, grouped by activation.
fn candidates(graph: &GraphProto, model: &ValidModel, options: &Options) -> Result<Vec<Group>> {
    let initializers: HashSet<&str> = graph.initializer.iter().map(|t| t.name.as_str()).collect();
    let mut readers: HashMap<&str, usize> = HashMap::new();
    for n in &graph.node {
        for i in &n.input {
            *readers.entry(i.as_str()).or_default() += 1;
        }
    }
    let outputs: HashSet<&str> = graph.output.iter().map(|o| o.name.as_str()).collect();
    let wanted = |op: &str| {
        (options.op_types.is_empty() || options.op_types.iter().any(|o| o == op))
            && !options.exclude_op_types.iter().any(|o| o == op)
    };
    let mut groups: Vec<Group> = Vec::new();
    let mut refused: HashSet<String> = HashSet::new();
    for (i, n) in graph.node.iter().enumerate() {
        let trans_b = match n.op_type.as_str() {
            "MatMul" if n.domain.is_empty() => false,
            "Gemm" if graph_edit::get_int(n, "transA", 0) == 0 => {
                graph_edit::get_int(n, "transB", 0) != 0
            }
            _ => continue,
        };
        if n.input.len() < 2 || !wanted(&n.op_type) || options.exclude_nodes.contains(&n.name) {
            continue;
        }
        let (x, w) = (&n.input[0], &n.input[1]);
        if initializers.contains(x.as_str()) {
            continue;
        }
        let usable = readers.get(w.as_str()) == Some(&1) && !outputs.contains(w.as_str());
        let weight = match usable {
            true => graph_edit::float_initializer(graph, w, model.dir.as_deref())
                .with_context(|| format!("weight '{w}' of node '{}'", n.name))?,
            false => None,
        };
        let Some((values, dims)) = weight.filter(|(_, d)| d.len() == 2) else {
            refused.insert(x.clone());
            continue;
        };
        let w_max = row_maxima(&values, &dims, trans_b);
        match groups.iter_mut().find(|g| &g.activation == x) {
            Some(g) if g.w_max.len() == w_max.len() => {
                g.consumers.push(i);
                g.weights.push((w.clone(), trans_b));
                for (a, b) in g.w_max.iter_mut().zip(&w_max) {
                    *a = a.max(*b);
                }
            }
            Some(_) => {
                refused.insert(x.clone());
            }
            None => groups.push(Group {
                activation: x.clone(),
                consumers: vec![i],
                weights: vec![(w.clone(), trans_b)],
                x_max: Vec::new(),
                w_max,
            }),
        }
    }
    // An activation also read as A by a MatMul that cannot be smoothed would need both
    // forms; it is left alone.
    groups.retain(|g| !refused.contains(&g.activation));
    Ok(groups)
}

/// max_n |W[k, n]| for each input channel k, of a [K, N] weight (or [N, K] with transB).
fn row_maxima(values: &[f32], dims: &[usize], trans_b: bool) -> Vec<f32> {
    let (rows, cols) = (dims[0], dims[1]);
    let k = if trans_b { cols } else { rows };
    let mut out = vec![0.0f32; k];
    for (i, v) in values.iter().enumerate() {
        let channel = if trans_b {
            i % cols.max(1)
        } else {
            i / cols.max(1)
        };
        if let Some(m) = out.get_mut(channel) {
            *m = m.max(v.abs());
        }
    }
    out
}

/// Per-channel max |x| (last axis) of each group's activation over the samples, and the
/// float model's outputs on each sample (the reference for choosing α).
#[allow(clippy::type_complexity)]
fn activation_maxima(
    model: &ValidModel,
    samples: &[Sample],
    groups: &[Group],
) -> Result<(HashMap<String, Vec<f32>>, Vec<Vec<Vec<f32>>>)> {
    let plan = calibrate::plan_with_every_tensor(model)?;
    let graph = model.proto.graph.as_ref().context("model has no graph")?;
    let wanted: HashMap<&str, usize> = groups
        .iter()
        .map(|g| (g.activation.as_str(), g.w_max.len()))
        .collect();
    let mut maxima: HashMap<String, Vec<f32>> = HashMap::new();
    let mut refused: HashSet<String> = HashSet::new();
    let mut references = Vec::new();
    let mut observe = |name: &str, shape: &[usize], v: &[f32]| {
        let Some(&k) = wanted.get(name) else {
            return;
        };
        if shape.last() != Some(&k) || k == 0 {
            refused.insert(name.to_string());
            return;
        }
        let m = maxima
            .entry(name.to_string())
            .or_insert_with(|| vec![0.0; k]);
        for (i, x) in v.iter().enumerate() {
            let c = i % k;
            m[c] = m[c].max(x.abs());
        }
    };
    for sample in samples {
        let inputs = calibrate::sample_inputs(&plan, sample)?;
        for (port, t) in plan.inputs.iter().zip(&inputs) {
            if let Data::F32(v) = &t.data {
                observe(&port.name, &t.shape, v);
            }
        }
        let outputs = plan
            .run(inputs)
            .with_context(|| format!("calibration sample '{}'", sample.file.display()))?;
        let mut reference = Vec::new();
        for (port, t) in plan.outputs.iter().zip(&outputs) {
            if let Data::F32(v) = &t.data {
                observe(&port.name, &t.shape, v);
            }
        }
        for o in &graph.output {
            let found = plan.outputs.iter().position(|p| p.name == o.name);
            let values = match found.map(|i| &outputs[i].data) {
                Some(Data::F32(v)) => v.clone(),
                _ => Vec::new(),
            };
            reference.push(values);
        }
        references.push(reference);
    }
    maxima.retain(|k, _| !refused.contains(k));
    Ok((maxima, references))
}

/// The smoothing scales of one group at `alpha`; a channel never seen nonzero (in the
/// activation or the weights) keeps scale 1.
fn scales(g: &Group, alpha: f32) -> Vec<f32> {
    g.x_max
        .iter()
        .zip(&g.w_max)
        .map(|(&x, &w)| {
            if x <= 0.0 || w <= 0.0 {
                return 1.0;
            }
            let s = x.powf(alpha) / w.powf(1.0 - alpha);
            if s.is_finite() {
                s.clamp(1e-5, 1e5)
            } else {
                1.0
            }
        })
        .collect()
}

/// The model with every group smoothed at `alpha`.
fn apply(
    model: &ValidModel,
    groups: &[Group],
    alpha: f32,
    folding: bool,
) -> Result<(ValidModel, Applied)> {
    let mut proto: ModelProto = model.proto.clone();
    let dir = model.dir.clone();
    let graph = proto.graph.as_mut().context("model has no graph")?;
    let mut names = Names::of(graph);
    let mut applied = Applied::default();
    let mut inserted: Vec<(usize, crate::onnx::proto::NodeProto)> = Vec::new();
    for g in groups {
        let s = scales(g, alpha);
        for (w, trans_b) in &g.weights {
            let Some((mut values, dims)) = graph_edit::float_initializer(graph, w, dir.as_deref())?
            else {
                continue;
            };
            let cols = dims[1].max(1);
            for (i, v) in values.iter_mut().enumerate() {
                let channel = if *trans_b { i % cols } else { i / cols };
                *v *= s[channel];
            }
            replace_initializer(graph, w, &dims, &values);
        }
        let inverse: Vec<f32> = s.iter().map(|v| 1.0 / v).collect();
        if folding && fold_into_producer(graph, g, &inverse, dir.as_deref())? {
            applied.folded += 1;
            continue;
        }
        let scale = names.fresh(&format!("{}_smooth_scale", g.activation));
        let smoothed = names.fresh(&format!("{}_smoothed", g.activation));
        let node_name = names.fresh(&format!("{}_SmoothMul", g.activation));
        graph
            .initializer
            .push(graph_edit::f32_tensor(&scale, &[inverse.len()], &inverse));
        for &c in &g.consumers {
            graph.node[c].input[0] = smoothed.clone();
        }
        let first = g.consumers.iter().copied().min().unwrap_or(0);
        inserted.push((
            first,
            graph_edit::node("Mul", &node_name, &[&g.activation, &scale], &[&smoothed]),
        ));
        applied.multiplied += 1;
    }
    // Inserted last, from the back, so that the recorded positions stay valid; each Mul
    // goes before the first node that reads it.
    inserted.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
    for (i, node) in inserted {
        graph.node.insert(i, node);
    }
    let valid = validate::validate(proto, dir).context("the smoothed model")?;
    Ok((valid, applied))
}

fn replace_initializer(graph: &mut GraphProto, name: &str, dims: &[usize], values: &[f32]) {
    if let Some(t) = graph.initializer.iter_mut().find(|t| t.name == name) {
        *t = graph_edit::f32_tensor(name, dims, values);
    }
}

/// Divides a LayerNormalization producer's scale and bias by s, when the activation is
/// its normalized output, over the last axis, read only by the group and not a graph
/// output, and its scale and bias are initializers it alone reads.
fn fold_into_producer(
    graph: &mut GraphProto,
    g: &Group,
    inverse: &[f32],
    dir: Option<&std::path::Path>,
) -> Result<bool> {
    let Some(p) = graph
        .node
        .iter()
        .position(|n| n.output.first() == Some(&g.activation))
    else {
        return Ok(false);
    };
    let producer = graph.node[p].clone();
    let is_initializer = |name: &String| graph.initializer.iter().any(|t| &t.name == name);
    // The constants to divide: a normalization's scale and bias, or the one constant
    // factor of a Mul (an RMSNorm written out ends with its weight as one).
    let params: Vec<&String> = match producer.op_type.as_str() {
        "LayerNormalization" | "SimplifiedLayerNormalization"
            if (producer.domain.is_empty() || producer.domain == "com.microsoft")
                && graph_edit::get_int(&producer, "axis", -1) == -1 =>
        {
            producer
                .input
                .iter()
                .skip(1)
                .filter(|i| !i.is_empty())
                .collect()
        }
        "Mul" if producer.domain.is_empty() && producer.input.len() == 2 => {
            let constants: Vec<&String> = producer
                .input
                .iter()
                .filter(|i| is_initializer(i))
                .collect();
            if constants.len() != 1 {
                return Ok(false);
            }
            constants
        }
        _ => return Ok(false),
    };
    let readers = |name: &str| {
        graph
            .node
            .iter()
            .map(|n| n.input.iter().filter(|i| *i == name).count())
            .sum::<usize>()
    };
    if readers(&g.activation) != g.consumers.len()
        || graph.output.iter().any(|o| o.name == g.activation)
    {
        return Ok(false);
    }
    let mut loaded = Vec::new();
    for name in &params {
        if readers(name) != 1 {
            return Ok(false);
        }
        match graph_edit::float_initializer(graph, name, dir)? {
            // Along the last axis only: [K], or [1, ..., K].
            Some((v, dims)) if v.len() == inverse.len() && dims.last() == Some(&inverse.len()) => {
                loaded.push((name.to_string(), v, dims))
            }
            _ => return Ok(false),
        }
    }
    if loaded.is_empty() {
        return Ok(false);
    }
    for (name, mut v, dims) in loaded {
        for (x, s) in v.iter_mut().zip(inverse) {
            *x *= s;
        }
        replace_initializer(graph, &name, &dims, &v);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_maxima_reads_the_weight_either_way() {
        // [K=2, N=3]
        let w = [1.0, -4.0, 2.0, 0.5, 3.0, -1.0];
        assert_eq!(row_maxima(&w, &[2, 3], false), vec![4.0, 3.0]);
        // As [N=2, K=3]: channel k is column k.
        assert_eq!(row_maxima(&w, &[2, 3], true), vec![1.0, 4.0, 2.0]);
    }

    #[test]
    fn scales_balance_activation_and_weight_maxima() {
        let g = Group {
            activation: "x".into(),
            consumers: vec![],
            weights: vec![],
            x_max: vec![16.0, 0.0, 4.0],
            w_max: vec![1.0, 2.0, 4.0],
        };
        let s = scales(&g, 0.5);
        assert_eq!(s[0], 4.0);
        assert_eq!(s[1], 1.0);
        assert!((s[2] - 1.0).abs() < 1e-6);
        // α = 1 moves the whole activation range into the weights.
        assert_eq!(scales(&g, 1.0)[0], 16.0);
    }
}
