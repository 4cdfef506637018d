//! What both modes share: choosing the nodes to quantize, and storing their float
//! weights quantized behind a DequantizeLinear that keeps the weight's name.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use super::graph_edit::{self, Names};
use super::params::{Params, QType};
use super::{ACTIVATION_OPS, BiasCorrection, Mode, Options, WEIGHT_OPS, constant_weights, weights};
use crate::onnx::proto::{GraphProto, ModelProto};
use crate::onnx::validate::ValidModel;

/// A model being quantized: its graph's nodes in producer-before-consumer order.
#[derive(Clone)]
pub struct Prepared {
    pub proto: ModelProto,
    pub dir: Option<PathBuf>,
    pub names: Names,
    /// Indices into `graph.node` of the nodes to quantize.
    pub targets: Vec<usize>,
    /// The quantized weights, by their (kept) name.
    pub weights: HashMap<String, Vec<Params>>,
    /// DequantizeLinear nodes of the weights; they read initializers only, so they go
    /// first in the node list.
    pub front: Vec<crate::onnx::proto::NodeProto>,
    /// With `--bias-correction`: each quantized weight's `w - dequantize(quantize(w))`
    /// and its shape.
    pub weight_error: HashMap<String, (Vec<f32>, Vec<usize>)>,
}

impl Prepared {
    pub fn graph(&self) -> &GraphProto {
        self.proto
            .graph
            .as_ref()
            .expect("validated model has a graph")
    }

    pub fn graph_mut(&mut self) -> &mut GraphProto {
        self.proto
            .graph
            .as_mut()
            .expect("validated model has a graph")
    }
}

pub fn prepare(model: ValidModel, options: &Options) -> Result<Prepared> {
    let opset = model.default_opset();
    let needed = if options.per_channel { 13 } else { 11 };
    if opset < needed {
        bail!(
            "the model imports default opset {opset}; quantizing it{} needs opset {needed} or \
             newer (`qlower upgrade-opset` converts it)",
            if options.per_channel {
                " per channel"
            } else {
                ""
            }
        );
    }
    let ValidModel {
        mut proto,
        dir,
        order,
        ..
    } = model;
    let proto_ir_version = proto.ir_version;
    let graph = proto.graph.as_mut().context("model has no graph")?;
    let mut nodes = std::mem::take(&mut graph.node);
    graph.node = order
        .iter()
        .filter_map(|&i| nodes.get_mut(i).map(std::mem::take))
        .collect();
    // Before IR version 4 an initializer is also a graph input; such old models keep their
    // Constant nodes (and get the "nothing to quantize" error below if all weights are).
    if proto_ir_version >= 4 {
        constant_weights::lift(graph);
    }
    let names = Names::of(graph);
    let mut prepared = Prepared {
        proto,
        dir,
        names,
        targets: Vec::new(),
        weights: HashMap::new(),
        front: Vec::new(),
        weight_error: HashMap::new(),
    };
    let chosen = choose_nodes(prepared.graph(), options)?;
    let axes = weight_axes(prepared.graph(), &chosen, options)?;
    if axes.is_empty() {
        bail!(
            "nothing to quantize: no Conv, MatMul or Gemm node has a float initializer or Constant as its weight"
        );
    }
    let mut sorted: Vec<(&String, &Option<usize>)> = axes.iter().collect();
    sorted.sort();
    for (name, axis) in sorted {
        quantize_weight(&mut prepared, name, *axis, options)
            .with_context(|| format!("weight '{name}'"))?;
    }
    let graph = prepared.graph();
    prepared.targets = chosen
        .into_iter()
        .filter(|&i| {
            let n = &graph.node[i];
            !WEIGHT_OPS.contains(&n.op_type.as_str())
                || n.input.get(1).is_some_and(|w| {
                    // A weight kept float leaves its op quantized on its activations.
                    prepared.weights.contains_key(w) || options.keep_float.contains(w)
                })
        })
        .collect();
    Ok(prepared)
}

/// Whether `prepare` would find a weight to quantize: a chosen Conv, MatMul or Gemm
/// whose weight is a float initializer (not a graph input, not kept float) or the
/// output of a float Constant node (which `prepare` lifts). Checked on the graph as
/// read, before anything is copied or calibrated.
pub fn has_weights(graph: &GraphProto, options: &Options) -> Result<bool> {
    let inputs: HashSet<&str> = graph.input.iter().map(|v| v.name.as_str()).collect();
    let float_initializers: HashSet<&str> = graph
        .initializer
        .iter()
        .filter(|t| t.data_type == graph_edit::FLOAT)
        .map(|t| t.name.as_str())
        .collect();
    let float_constants: HashSet<&str> = graph
        .node
        .iter()
        .filter(|n| n.op_type == "Constant" && n.output.len() == 1)
        .filter(|n| {
            n.attribute.iter().any(|a| {
                a.name == "value"
                    && a.t
                        .as_ref()
                        .is_some_and(|t| t.data_type == graph_edit::FLOAT)
            })
        })
        .map(|n| n.output[0].as_str())
        .collect();
    Ok(choose_nodes(graph, options)?.into_iter().any(|i| {
        let node = &graph.node[i];
        let Some(w) = node
            .input
            .get(1)
            .filter(|_| WEIGHT_OPS.contains(&node.op_type.as_str()))
        else {
            return false;
        };
        !inputs.contains(w.as_str())
            && !options.keep_float.contains(w)
            && (float_initializers.contains(w.as_str()) || float_constants.contains(w.as_str()))
    }))
}

/// The nodes of the requested op types, minus the excluded ones.
fn choose_nodes(graph: &GraphProto, options: &Options) -> Result<Vec<usize>> {
    let present: HashSet<&str> = graph.node.iter().map(|n| n.name.as_str()).collect();
    if let Some(missing) = options
        .exclude_nodes
        .iter()
        .find(|n| !present.contains(n.as_str()))
    {
        bail!("--exclude-nodes: the model has no node named '{missing}'");
    }
    let wanted = |op: &str| {
        if options.op_types.is_empty() {
            WEIGHT_OPS.contains(&op)
        } else {
            options.op_types.iter().any(|o| o == op)
        }
    };
    Ok(graph
        .node
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            (n.domain.is_empty() || n.domain == "ai.onnx")
                && wanted(&n.op_type)
                && !options.exclude_nodes.contains(&n.name)
                && !options.exclude_op_types.contains(&n.op_type)
                && (WEIGHT_OPS.contains(&n.op_type.as_str())
                    || ACTIVATION_OPS.contains(&n.op_type.as_str()))
        })
        .map(|(i, _)| i)
        .collect())
}

/// Each quantizable weight and the axis of its channels (`None`: per tensor). A weight
/// shared by ops that disagree on the axis is quantized per tensor.
fn weight_axes(
    graph: &GraphProto,
    chosen: &[usize],
    options: &Options,
) -> Result<HashMap<String, Option<usize>>> {
    let inputs: HashSet<&str> = graph.input.iter().map(|v| v.name.as_str()).collect();
    let mut axes: HashMap<String, Option<usize>> = HashMap::new();
    for &i in chosen {
        let node = &graph.node[i];
        if !WEIGHT_OPS.contains(&node.op_type.as_str()) || node.input.len() < 2 {
            continue;
        }
        let w = &node.input[1];
        // An initializer that is also a graph input may be replaced at run time.
        if inputs.contains(w.as_str()) || options.keep_float.contains(w) {
            continue;
        }
        let Some(init) = graph.initializer.iter().find(|t| &t.name == w) else {
            continue;
        };
        if init.data_type != graph_edit::FLOAT {
            continue;
        }
        let rank = init.dims.len();
        let axis = match node.op_type.as_str() {
            _ if !options.per_channel || rank < 2 => None,
            "Conv" => Some(0),
            // Gemm's B is [K, N], or [N, K] with transB: channels are the N outputs.
            "Gemm" if graph_edit::get_int(node, "transB", 0) != 0 => Some(0),
            "Gemm" => Some(1),
            // MatMul's weight is [..., K, N]: channels along the last axis.
            _ => Some(rank - 1),
        };
        axes.entry(w.clone())
            .and_modify(|a| {
                if *a != axis {
                    *a = None;
                }
            })
            .or_insert(axis);
    }
    Ok(axes)
}

fn quantize_weight(
    prepared: &mut Prepared,
    name: &str,
    axis: Option<usize>,
    options: &Options,
) -> Result<()> {
    let dir = prepared.dir.clone();
    let Some((values, dims)) =
        graph_edit::float_initializer(prepared.graph(), name, dir.as_deref())?
    else {
        return Ok(());
    };
    // int16 weights, like int8 ones, are symmetric (as ORT's).
    let (qtype, symmetric) = if options.keep_16bit.iter().any(|t| t == name) {
        (QType::I16, true)
    } else {
        (options.weight_type, options.weight_symmetric())
    };
    let codes = qtype.codes(symmetric, options.reduce_range);
    let q = weights::quantize(
        &values,
        &dims,
        axis,
        (qtype, codes),
        symmetric,
        options.range.weight_range,
    )?;
    if options.range.bias_correction != BiasCorrection::Off && options.mode == Mode::Static {
        let error = q.error(&values, qtype);
        prepared
            .weight_error
            .insert(name.to_string(), (error, dims.clone()));
    }
    let qname = prepared.names.fresh(&format!("{name}_quantized"));
    let sname = prepared.names.fresh(&format!("{name}_scale"));
    let zname = prepared.names.fresh(&format!("{name}_zero_point"));
    let dqname = prepared.names.fresh(&format!("{name}_DequantizeLinear"));
    let pdims: Vec<usize> = if axis.is_some() {
        vec![q.params.len()]
    } else {
        vec![]
    };
    let scales: Vec<f32> = q.params.iter().map(|p| p.scale).collect();
    let zps = qtype.bytes(q.params.iter().map(|p| p.zero_point));
    let graph = prepared.graph_mut();
    graph.initializer.retain(|t| t.name != name);
    graph.initializer.push(graph_edit::raw_tensor(
        &qname,
        &dims,
        qtype.onnx_code(),
        q.bytes,
    ));
    graph
        .initializer
        .push(graph_edit::f32_tensor(&sname, &pdims, &scales));
    graph.initializer.push(graph_edit::raw_tensor(
        &zname,
        &pdims,
        qtype.onnx_code(),
        zps,
    ));
    let mut dq = graph_edit::node(
        "DequantizeLinear",
        &dqname,
        &[&qname, &sname, &zname],
        &[name],
    );
    if let Some(a) = axis {
        dq.attribute
            .push(graph_edit::int_attribute("axis", a as i64));
    }
    prepared.front.push(dq);
    prepared.weights.insert(name.to_string(), q.params);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::proto::{AttributeProto, ValueInfoProto};

    fn matmul_reading(w: &str) -> GraphProto {
        GraphProto {
            node: vec![graph_edit::node("MatMul", "mm", &["x", w], &["y"])],
            input: vec![ValueInfoProto {
                name: "x".into(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn weights_are_float_initializers_or_constants_that_stay_constant() {
        let options = Options::with_defaults(Mode::Dynamic);
        let mut g = matmul_reading("w");
        assert!(!has_weights(&g, &options).unwrap());
        g.initializer
            .push(graph_edit::f32_tensor("w", &[2, 2], &[1.0; 4]));
        assert!(has_weights(&g, &options).unwrap());
        // An initializer that is also a graph input may be replaced at run time.
        g.input.push(ValueInfoProto {
            name: "w".into(),
            ..Default::default()
        });
        assert!(!has_weights(&g, &options).unwrap());
        let mut g = matmul_reading("c");
        let mut constant = graph_edit::node("Constant", "c", &[], &["c"]);
        constant.attribute.push(AttributeProto {
            name: "value".into(),
            t: Some(graph_edit::f32_tensor("", &[2, 2], &[1.0; 4])),
            ..Default::default()
        });
        g.node.insert(0, constant);
        assert!(has_weights(&g, &options).unwrap());
        let mut keep = Options::with_defaults(Mode::Dynamic);
        keep.keep_float = vec!["c".into()];
        assert!(!has_weights(&g, &keep).unwrap());
    }
}
