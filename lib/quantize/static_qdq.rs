//! Static mode: calibrated QuantizeLinear/DequantizeLinear pairs on the activations
//! of the quantized nodes, weights stored quantized (see `targets`), and Conv/Gemm
//! biases stored as int32 with scale x_scale·w_scale and zero point 0.

use std::collections::{BTreeSet, HashMap, HashSet};

use anyhow::{Context, Result, bail};

use super::graph_edit;
use super::params::{self, Params, QType};
use super::ranges::{MinMax, distribution_range};
use super::targets::{self, Prepared};
use super::{
    BiasCorrection, CalibrateMethod, Options, WEIGHT_OPS, bias_choice, bias_correction, calibrate,
    encode, range_choice, weights,
};
use crate::onnx::proto::{ModelProto, NodeProto};
use crate::onnx::validate::{self, ValidModel};

pub fn quantize(model: ValidModel, options: &Options) -> Result<ModelProto> {
    let dir = options
        .calibration
        .as_deref()
        .context("--mode static needs --calibration DIR")?;
    let samples = calibrate::read_samples(dir)?;
    let params_of = |lo, hi| activation_params(lo, hi, options.activation_type, options);
    let request = calibrate::Request {
        method: options.calibrate_method.unwrap_or(CalibrateMethod::Minmax),
        options: &options.range,
        params_of: &params_of,
        qtype: options.activation_type,
        means: match options.range.bias_correction {
            BiasCorrection::Off => HashMap::new(),
            _ => bias_correction::inputs_to_average(
                model.proto.graph.as_ref().context("model has no graph")?,
            ),
        },
    };
    let calibrated = calibrate::collect(&model, &samples, &request)?;
    let mut ranges = calibrated.ranges;
    // The weights are quantized once: every candidate the choices below build (and the
    // final model) starts from a copy of this.
    let copy = validate::validate(model.proto.clone(), model.dir.clone())?;
    let prepared = targets::prepare(copy, options)?;
    // The distribution rule is chosen with the correction as asked; in auto mode,
    // without it (the correction is then judged on the chosen ranges).
    let mut means = match options.range.bias_correction {
        BiasCorrection::On => calibrated.means.means(None),
        _ => HashMap::new(),
    };
    if request.method == CalibrateMethod::Distribution {
        let build =
            |r: HashMap<String, (f32, f32)>| with_ranges(prepared.clone(), options, r, &means);
        let balance = range_choice::balance(&model, &samples, &calibrated.per_sample, &build)?;
        for r in ranges.values_mut() {
            *r = distribution_range(&MinMax { min: r.0, max: r.1 }, balance);
        }
    }
    if options.range.bias_correction == BiasCorrection::Auto {
        let build = |means: &HashMap<String, Vec<f64>>| {
            with_ranges(prepared.clone(), options, ranges.clone(), means)
        };
        if bias_choice::corrects(&model, &samples, &calibrated.means, &build)? {
            means = calibrated.means.means(None);
        }
    }
    with_ranges(prepared, options, ranges, &means)
}

/// The quantized model, given the model with its weights quantized, every activation's
/// range and the input means that bias correction needs.
fn with_ranges(
    mut p: Prepared,
    options: &Options,
    mut ranges: HashMap<String, (f32, f32)>,
    means: &HashMap<String, Vec<f64>>,
) -> Result<ModelProto> {
    share_input_ranges(&p, &mut ranges);
    bias_correction::apply(&mut p, means)?;
    let mut tensors = activations(&p, &ranges);
    tensors.retain(|t| !options.keep_float.contains(t));
    check_overrides(&p, &tensors, options)?;
    let params: HashMap<String, (Params, QType)> = tensors
        .iter()
        .map(|t| {
            let (lo, hi) = ranges[t];
            let qtype = if options.keep_16bit.contains(t) {
                options.wide_activation_type()
            } else {
                options.activation_type
            };
            (
                t.clone(),
                (activation_params(lo, hi, qtype, options), qtype),
            )
        })
        .collect();
    quantize_biases(&mut p, &params)?;
    insert_qdq(&mut p, &tensors, &params);
    if options.activation_type.is_16_bit()
        || options.weight_type.is_16_bit()
        || !options.keep_16bit.is_empty()
    {
        graph_edit::wide_qdq_domain(&mut p.proto);
    }
    encode::finish(p.proto)
}

/// Ops that only move elements, whose output ORT quantizes with its input's
/// parameters: the output can then stay in the input's codes (`--format qoperator`
/// runs these ops on the integers), and its range holds every value anyway.
const SAME_RANGE_OPS: &[&str] = &["MaxPool", "Flatten", "Reshape", "Transpose"];

/// Gives the output of each quantized data-movement op its input's range, in graph
/// order so that a chain of them shares one.
fn share_input_ranges(p: &Prepared, ranges: &mut HashMap<String, (f32, f32)>) {
    for &i in &p.targets {
        let node = &p.graph().node[i];
        if !SAME_RANGE_OPS.contains(&node.op_type.as_str()) {
            continue;
        }
        let (Some(x), Some(y)) = (node.input.first(), node.output.first()) else {
            continue;
        };
        if let (Some(&r), true) = (ranges.get(x), ranges.contains_key(y)) {
            ranges.insert(y.clone(), r);
        }
    }
}

/// ORT's formulas, or the 0-or-128 zero point of restricted asymmetric uint8.
fn activation_params(lo: f32, hi: f32, qtype: QType, options: &Options) -> Params {
    if options.activation_restricted_asymmetric && qtype == QType::U8 {
        params::restricted_u8(lo, hi)
    } else {
        params::compute(lo, hi, qtype, options.activation_symmetric)
    }
}

/// Every `--keep-float` name is a tensor of the model, and every `--keep-16bit` one a
/// tensor this quantization quantizes (else the flag would silently do nothing).
fn check_overrides(p: &Prepared, tensors: &BTreeSet<String>, options: &Options) -> Result<()> {
    let graph = p.graph();
    let known: HashSet<&str> = graph
        .node
        .iter()
        .flat_map(|n| n.input.iter().chain(&n.output))
        .chain(graph.input.iter().map(|i| &i.name))
        .chain(graph.initializer.iter().map(|t| &t.name))
        .map(String::as_str)
        .collect();
    if let Some(t) = options
        .keep_float
        .iter()
        .find(|t| !known.contains(t.as_str()))
    {
        bail!("--keep-float: the model has no tensor named '{t}'");
    }
    for t in &options.keep_16bit {
        if !known.contains(t.as_str()) {
            bail!("--keep-16bit: the model has no tensor named '{t}'");
        }
        if !tensors.contains(t) && !p.weights.contains_key(t) {
            bail!(
                "--keep-16bit: '{t}' is not quantized (no quantized node reads or writes it as \
                 an activation or a weight)"
            );
        }
    }
    Ok(())
}

/// The calibrated float tensors that the quantized nodes read or write, weights and
/// other initializers aside.
fn activations(p: &Prepared, ranges: &HashMap<String, (f32, f32)>) -> BTreeSet<String> {
    let graph = p.graph();
    let initializers: HashSet<&str> = graph.initializer.iter().map(|t| t.name.as_str()).collect();
    let mut out = BTreeSet::new();
    for &i in &p.targets {
        let node = &graph.node[i];
        let inputs: &[String] = if WEIGHT_OPS.contains(&node.op_type.as_str()) {
            // The data input, and MatMul's second operand when it is an activation.
            &node.input[..node.input.len().min(2)]
        } else {
            &node.input
        };
        for name in inputs.iter().chain(node.output.iter().take(1)) {
            if !initializers.contains(name.as_str())
                && !p.weights.contains_key(name)
                && ranges.contains_key(name)
            {
                out.insert(name.clone());
            }
        }
    }
    out
}

/// Replaces the float bias of each quantized Conv and Gemm (Gemm only with alpha =
/// beta = 1, where the bias adds to the accumulator) by int32 behind a DequantizeLinear.
fn quantize_biases(p: &mut Prepared, act: &HashMap<String, (Params, QType)>) -> Result<()> {
    let mut done: HashSet<String> = HashSet::new();
    for i in p.targets.clone() {
        let node = p.graph().node[i].clone();
        let op = node.op_type.as_str();
        let plain_gemm = op == "Gemm"
            && graph_edit::get_float(&node, "alpha", 1.0) == 1.0
            && graph_edit::get_float(&node, "beta", 1.0) == 1.0;
        if !(op == "Conv" || plain_gemm) || node.input.len() < 3 {
            continue;
        }
        let (x, w, b) = (&node.input[0], &node.input[1], &node.input[2]);
        let (Some((xp, _)), Some(wp)) = (act.get(x), p.weights.get(w).cloned()) else {
            continue;
        };
        if b.is_empty() || done.contains(b) || uses(p, b) > 1 {
            continue;
        }
        let dir = p.dir.clone();
        let Some((values, dims)) = graph_edit::float_initializer(p.graph(), b, dir.as_deref())?
        else {
            continue;
        };
        if dims.len() != 1 || (wp.len() > 1 && wp.len() != values.len()) {
            continue;
        }
        let (q, scales) = weights::quantize_bias(&values, xp.scale, &wp)
            .with_context(|| format!("bias '{b}'"))?;
        // A 16-bit input and weight (--keep-16bit) make x_scale·w_scale so small that
        // a bias of a few units no longer fits int32: saturated, it would be wrong, so
        // it stays float (ORT widens the weight's scale instead).
        if q.iter().any(|&v| v == i32::MAX || v == i32::MIN) {
            continue;
        }
        let qname = p.names.fresh(&format!("{b}_quantized"));
        let sname = p.names.fresh(&format!("{b}_scale"));
        let zname = p.names.fresh(&format!("{b}_zero_point"));
        let dqname = p.names.fresh(&format!("{b}_DequantizeLinear"));
        let per_channel = scales.len() > 1;
        let pdims: Vec<usize> = if per_channel {
            vec![scales.len()]
        } else {
            vec![]
        };
        let graph = p.graph_mut();
        graph.initializer.retain(|t| &t.name != b);
        graph
            .initializer
            .push(graph_edit::i32_tensor(&qname, &dims, &q));
        graph
            .initializer
            .push(graph_edit::f32_tensor(&sname, &pdims, &scales));
        graph.initializer.push(graph_edit::i32_tensor(
            &zname,
            &pdims,
            &vec![0; scales.len()],
        ));
        let mut dq = graph_edit::node("DequantizeLinear", &dqname, &[&qname, &sname, &zname], &[b]);
        if per_channel {
            dq.attribute.push(graph_edit::int_attribute("axis", 0));
        }
        p.front.push(dq);
        done.insert(b.clone());
    }
    Ok(())
}

/// How many node inputs read `name`.
pub fn uses(p: &Prepared, name: &str) -> usize {
    p.graph()
        .node
        .iter()
        .flat_map(|n| &n.input)
        .filter(|i| *i == name)
        .count()
}

/// Puts a QuantizeLinear/DequantizeLinear pair after each tensor of `tensors` (first
/// for graph inputs, else right after the producer) and makes every node read the
/// dequantized tensor; graph outputs keep the float one.
fn insert_qdq(
    p: &mut Prepared,
    tensors: &BTreeSet<String>,
    params: &HashMap<String, (Params, QType)>,
) {
    let mut pairs: HashMap<String, [NodeProto; 2]> = HashMap::new();
    let graph_inputs: HashSet<String> = p.graph().input.iter().map(|i| i.name.clone()).collect();
    let graph_outputs: HashSet<String> = p.graph().output.iter().map(|o| o.name.clone()).collect();
    for t in tensors {
        let q = p.names.fresh(&format!("{t}_quantized"));
        let s = p.names.fresh(&format!("{t}_scale"));
        let z = p.names.fresh(&format!("{t}_zero_point"));
        let qn = p.names.fresh(&format!("{t}_QuantizeLinear"));
        let dqn = p.names.fresh(&format!("{t}_DequantizeLinear"));
        let (pr, qtype) = params[t];
        // A graph output becomes the dequantized value, so that it is what the quantized
        // model computes (as ORT does): its producer writes a new name, read by the
        // QuantizeLinear, and every reader keeps the output's name.
        let (source, dq) = if graph_outputs.contains(t) && !graph_inputs.contains(t) {
            let source = p.names.fresh(&format!("{t}_QuantizeLinear_Input"));
            for n in p.graph_mut().node.iter_mut() {
                for o in n.output.iter_mut().filter(|o| *o == t) {
                    *o = source.clone();
                }
            }
            (source, t.clone())
        } else {
            let dq = p.names.fresh(&format!("{t}_dequantized"));
            graph_edit::rewire(p.graph_mut(), t, &dq, &[]);
            (t.clone(), dq)
        };
        let graph = p.graph_mut();
        graph
            .initializer
            .push(graph_edit::f32_tensor(&s, &[], &[pr.scale]));
        graph.initializer.push(graph_edit::raw_tensor(
            &z,
            &[],
            qtype.onnx_code(),
            qtype.bytes([pr.zero_point]),
        ));
        pairs.insert(
            source.clone(),
            [
                graph_edit::node("QuantizeLinear", &qn, &[&source, &s, &z], &[&q]),
                graph_edit::node("DequantizeLinear", &dqn, &[&q, &s, &z], &[&dq]),
            ],
        );
    }
    let old = std::mem::take(&mut p.graph_mut().node);
    let mut nodes: Vec<NodeProto> = std::mem::take(&mut p.front);
    let input_order: Vec<String> = p.graph().input.iter().map(|i| i.name.clone()).collect();
    for name in &input_order {
        if let Some(pair) = pairs.remove(name) {
            nodes.extend(pair);
        }
    }
    for node in old {
        let outputs = node.output.clone();
        nodes.push(node);
        for o in &outputs {
            if let Some(pair) = pairs.remove(o) {
                nodes.extend(pair);
            }
        }
    }
    p.graph_mut().node = nodes;
}
