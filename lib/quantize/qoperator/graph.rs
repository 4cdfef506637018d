//! The QDQ graph as the QOperator rules read it: who produces and who reads each
//! tensor, the DequantizeLinear feeding an input, the one QuantizeLinear reading an
//! output, and their constant parameters.

use std::collections::{HashMap, HashSet};

use crate::onnx::names::Names;
use crate::onnx::proto::{GraphProto, NodeProto, TensorProto, attribute_proto};
use crate::onnx::tensor;

/// ONNX element type codes of the 8-bit integers, the only ones the QOperator ops take.
pub const UINT8: i32 = 2;
pub const INT8: i32 = 3;
pub const INT32: i32 = 6;
pub const FLOAT: i32 = 1;

/// A value read through `DequantizeLinear(q, scale, zero_point)`.
#[derive(Clone, Debug)]
pub struct Dq {
    pub q: String,
    pub scale: String,
    pub zero_point: String,
    /// The DequantizeLinear's `axis` when its scale has more than one element.
    pub axis: Option<i64>,
    /// Element type of the zero point (so of `q`).
    pub qtype: i32,
    /// Elements of the scale: 1 per tensor.
    pub channels: usize,
}

/// The `QuantizeLinear` that alone reads an op's output.
#[derive(Clone, Debug)]
pub struct Q {
    pub node: usize,
    pub y: String,
    pub scale: String,
    pub zero_point: String,
    pub qtype: i32,
}

/// The graph being rewritten: nodes (`None` once removed), initializers by name, and
/// the readers of every tensor. Rules read it and return the nodes that replace one.
pub struct Rewrite {
    pub nodes: Vec<Option<NodeProto>>,
    pub initializers: HashMap<String, TensorProto>,
    pub added: Vec<TensorProto>,
    pub names: Names,
    producer: HashMap<String, usize>,
    readers: HashMap<String, usize>,
    outputs: HashSet<String>,
}

impl Rewrite {
    pub fn of(graph: &mut GraphProto) -> Rewrite {
        let names = Names::of(graph);
        let nodes: Vec<NodeProto> = std::mem::take(&mut graph.node);
        let mut producer = HashMap::new();
        let mut readers: HashMap<String, usize> = HashMap::new();
        for (i, n) in nodes.iter().enumerate() {
            for o in &n.output {
                producer.insert(o.clone(), i);
            }
            for x in n.input.iter().filter(|x| !x.is_empty()) {
                *readers.entry(x.clone()).or_default() += 1;
            }
            // A subgraph reading an outer value is one more reader the rules never see.
            for name in subgraph_inputs(n) {
                *readers.entry(name).or_default() += 1;
            }
        }
        let outputs = graph.output.iter().map(|o| o.name.clone()).collect();
        let initializers = std::mem::take(&mut graph.initializer)
            .into_iter()
            .map(|t| (t.name.clone(), t))
            .collect();
        Rewrite {
            nodes: nodes.into_iter().map(Some).collect(),
            initializers,
            added: Vec::new(),
            names,
            producer,
            readers,
            outputs,
        }
    }

    pub fn node(&self, i: usize) -> Option<&NodeProto> {
        self.nodes.get(i).and_then(Option::as_ref)
    }

    fn producer(&self, name: &str) -> Option<&NodeProto> {
        self.producer.get(name).and_then(|&i| self.node(i))
    }

    pub fn producer_op(&self, name: &str) -> Option<&str> {
        self.producer(name).map(|n| n.op_type.as_str())
    }

    /// A constant initializer's element type and element count.
    fn constant(&self, name: &str) -> Option<(i32, usize)> {
        let t = self.initializers.get(name)?;
        Some((t.data_type, t.dims.iter().product::<i64>().max(0) as usize))
    }

    /// The DequantizeLinear producing `name`, with constant 8-bit (or int32, for
    /// biases) parameters. With `runtime_params` the scale and zero point may instead
    /// come from a DynamicQuantizeLinear.
    pub fn dq(&self, name: &str, runtime_params: bool) -> Option<Dq> {
        let n = self.producer(name)?;
        if n.op_type != "DequantizeLinear" || !n.domain.is_empty() || n.input.len() != 3 {
            return None;
        }
        if n.attribute.iter().any(|a| a.name == "block_size") {
            return None;
        }
        let (scale, zero_point) = (&n.input[1], &n.input[2]);
        let (qtype, channels) = match (self.constant(scale), self.constant(zero_point)) {
            (Some((FLOAT, c)), Some((z, c2))) if c == c2 => (z, c),
            _ if runtime_params => {
                let dynamic = self.producer(scale)?;
                if dynamic.op_type != "DynamicQuantizeLinear"
                    || dynamic.output.get(1) != Some(scale)
                    || dynamic.output.get(2) != Some(zero_point)
                {
                    return None;
                }
                (UINT8, 1)
            }
            _ => return None,
        };
        if !matches!(qtype, UINT8 | INT8 | INT32) {
            return None;
        }
        let axis = (channels > 1).then(|| get_int(n, "axis", 1));
        Some(Dq {
            q: n.input[0].clone(),
            scale: scale.clone(),
            zero_point: zero_point.clone(),
            axis,
            qtype,
            channels,
        })
    }

    /// An 8-bit per-tensor DequantizeLinear of an activation.
    pub fn activation_dq(&self, name: &str) -> Option<Dq> {
        self.dq(name, false)
            .filter(|d| d.channels == 1 && matches!(d.qtype, UINT8 | INT8))
    }

    /// The per-tensor 8-bit QuantizeLinear that is the only reader of `name`, which is
    /// no graph output.
    pub fn q_of(&self, name: &str) -> Option<Q> {
        if self.outputs.contains(name) || self.readers.get(name) != Some(&1) {
            return None;
        }
        let (i, n) = self.nodes.iter().enumerate().find_map(|(i, n)| {
            n.as_ref()
                .filter(|n| n.input.first().is_some_and(|x| x == name))
                .map(|n| (i, n))
        })?;
        if n.op_type != "QuantizeLinear" || !n.domain.is_empty() || n.input.len() != 3 {
            return None;
        }
        let (Some((FLOAT, 1)), Some((qtype @ (UINT8 | INT8), 1))) =
            (self.constant(&n.input[1]), self.constant(&n.input[2]))
        else {
            return None;
        };
        if n.attribute
            .iter()
            .any(|a| a.name == "saturate" || a.name == "block_size")
        {
            return None;
        }
        Some(Q {
            node: i,
            y: n.output.first()?.clone(),
            scale: n.input[1].clone(),
            zero_point: n.input[2].clone(),
            qtype,
        })
    }

    /// The raw little-endian bytes of a constant (small parameters: scales, zero
    /// points, biases, which the quantizer wrote).
    pub fn bytes(&self, name: &str) -> Option<Vec<u8>> {
        let t = self.initializers.get(name)?;
        tensor::decode(t, None).ok().map(|d| d.bytes.to_vec())
    }

    pub fn f32s(&self, name: &str) -> Option<Vec<f32>> {
        let b = self.bytes(name)?;
        Some(
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )
    }

    /// Two tensors hold the same parameters (scale and zero point, compared by value).
    pub fn same_params(&self, a: (&str, &str), b: (&str, &str)) -> bool {
        let ty = |n: &str| self.initializers.get(n).map(|t| t.data_type);
        ty(a.1) == ty(b.1)
            && self.bytes(a.0).is_some_and(|x| Some(x) == self.bytes(b.0))
            && self.bytes(a.1).is_some_and(|x| Some(x) == self.bytes(b.1))
    }

    /// All zero points of `name` are 0.
    pub fn all_zero(&self, name: &str) -> bool {
        self.bytes(name).is_some_and(|b| b.iter().all(|&x| x == 0))
    }

    pub fn fresh(&mut self, base: &str) -> String {
        self.names.fresh(base)
    }

    pub fn add_initializer(&mut self, t: TensorProto) {
        self.added.push(t.clone());
        self.initializers.insert(t.name.clone(), t);
    }

    /// Replaces node `i` by `with` and drops the QuantizeLinear nodes it absorbed.
    pub fn replace(&mut self, i: usize, with: Vec<NodeProto>, absorbed: &[usize]) {
        for &q in absorbed {
            self.nodes[q] = None;
        }
        let old = self.nodes[i].take();
        if let Some(old) = old {
            for x in old.input.iter().filter(|x| !x.is_empty()) {
                if let Some(c) = self.readers.get_mut(x) {
                    *c = c.saturating_sub(1);
                }
            }
        }
        // The new nodes sit where the old one was, so producers stay before readers.
        let mut rest = self.nodes.split_off(i + 1);
        self.nodes.pop();
        for n in &with {
            for x in n.input.iter().filter(|x| !x.is_empty()) {
                *self.readers.entry(x.clone()).or_default() += 1;
            }
        }
        self.nodes.extend(with.into_iter().map(Some));
        self.nodes.append(&mut rest);
        self.producer.clear();
        for (k, n) in self.nodes.iter().enumerate() {
            if let Some(n) = n {
                for o in &n.output {
                    self.producer.insert(o.clone(), k);
                }
            }
        }
    }

    /// Writes the nodes and the initializers still read back into `graph`, dropping
    /// DequantizeLinear nodes no one reads any more.
    pub fn finish(mut self, graph: &mut GraphProto) {
        loop {
            let read: HashSet<String> = self
                .nodes
                .iter()
                .flatten()
                .flat_map(|n| n.input.iter().cloned().chain(subgraph_inputs(n)))
                .chain(self.outputs.iter().cloned())
                .collect();
            let mut removed = false;
            for slot in self.nodes.iter_mut() {
                let dead = slot.as_ref().is_some_and(|n| {
                    n.op_type == "DequantizeLinear" && n.output.iter().all(|o| !read.contains(o))
                });
                if dead {
                    *slot = None;
                    removed = true;
                }
            }
            if !removed {
                break;
            }
        }
        let read: HashSet<String> = self
            .nodes
            .iter()
            .flatten()
            .flat_map(|n| n.input.iter().cloned().chain(subgraph_inputs(n)))
            .chain(self.outputs.iter().cloned())
            .collect();
        let inputs: HashSet<&str> = graph.input.iter().map(|i| i.name.as_str()).collect();
        let mut kept: Vec<TensorProto> = self
            .initializers
            .into_values()
            .filter(|t| read.contains(&t.name) || inputs.contains(t.name.as_str()))
            .collect();
        kept.sort_by(|a, b| a.name.cmp(&b.name));
        graph.initializer = kept;
        graph.node = self.nodes.into_iter().flatten().collect();
    }
}

pub fn get_int(node: &NodeProto, name: &str, default: i64) -> i64 {
    node.attribute
        .iter()
        .find(|a| a.name == name)
        .map_or(default, |a| a.i)
}

/// The names the subgraphs of `node` (If, Loop, Scan bodies) read, at any depth.
fn subgraph_inputs(node: &NodeProto) -> Vec<String> {
    let mut out = Vec::new();
    for a in &node.attribute {
        let graphs = a.g.iter().chain(&a.graphs);
        if a.r#type != attribute_proto::AttributeType::Graph as i32
            && a.r#type != attribute_proto::AttributeType::Graphs as i32
        {
            continue;
        }
        for g in graphs {
            for n in &g.node {
                out.extend(n.input.iter().cloned());
                out.extend(subgraph_inputs(n));
            }
        }
    }
    out
}
