//! Which tensor of the quantized model stands for which tensor of the float model.
//!
//! A quantized model reads each quantized tensor through a DequantizeLinear. Its output
//! is matched to a float tensor by the quantizers' naming conventions:
//! - qlower keeps a weight's or bias's name as its DequantizeLinear output, and an
//!   activation `t` stays the QuantizeLinear's input (its DequantizeLinear writes
//!   `t_dequantized`; a graph output `t` is computed as `t_QuantizeLinear_Input` and
//!   dequantized into `t`);
//! - ONNX Runtime's QDQ quantizer writes `t_QuantizeLinear_Output` and
//!   `t_DequantizeLinear_Output` for an activation `t` (or `t_QuantizeLinear_Input` and
//!   `t` for a graph output), and `w_quantized` → `w_DequantizeLinear_Output` (or `w`)
//!   for a weight.
//!
//! So the candidates are tried in turn, the first that names a tensor of the float
//! model wins. A DynamicQuantizeLinear's input counts as a QuantizeLinear's.

use std::collections::{HashMap, HashSet};

use crate::onnx::proto::{GraphProto, NodeProto};

/// What a quantized tensor is in the float model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A float initializer stored quantized (8 or 16 bits).
    Weight,
    /// A float initializer stored as int32 (a bias, scale x_scale·w_scale): listed,
    /// never suggested, since it is already 32 bits.
    Bias,
    /// A tensor computed at run time, quantized by a QuantizeLinear.
    Activation,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Weight => "weight",
            Kind::Bias => "bias",
            Kind::Activation => "activation",
        }
    }
}

/// One quantized tensor: its float name, and where the quantized model has its values.
#[derive(Clone, Debug)]
pub struct Pair {
    /// The float model's tensor.
    pub name: String,
    pub kind: Kind,
    /// The float model's op that writes it (activations; "input" for a graph input),
    /// or the first that reads it (weights).
    pub op: String,
    /// The quantized model's DequantizeLinear output.
    pub dequantized: String,
    /// The quantized model's QuantizeLinear input (activations): the value before its
    /// own quantization, to measure the error that quantization alone adds.
    pub before: Option<String>,
    /// The QuantizeLinear's scale and zero point inputs (activations).
    pub quantizer: Option<(String, Option<String>)>,
}

const INT32: i32 = 6;

fn is_op(node: &NodeProto, op: &str) -> bool {
    node.op_type == op
        && (node.domain.is_empty() || node.domain == "ai.onnx" || node.domain == "com.microsoft")
}

/// Every quantized tensor of `quantized` that `float` has, each once (the first
/// DequantizeLinear of it in node order).
pub fn find(float: &GraphProto, quantized: &GraphProto) -> Vec<Pair> {
    let float_weights: HashSet<&str> = float
        .initializer
        .iter()
        .filter(|t| t.data_type == 1)
        .map(|t| t.name.as_str())
        .collect();
    let mut float_ops: HashMap<&str, &str> = HashMap::new();
    for i in &float.input {
        float_ops.insert(i.name.as_str(), "input");
    }
    for n in &float.node {
        for o in &n.output {
            float_ops.insert(o.as_str(), n.op_type.as_str());
        }
    }
    let mut readers: HashMap<&str, &str> = HashMap::new();
    for n in &float.node {
        for i in &n.input {
            readers.entry(i.as_str()).or_insert(n.op_type.as_str());
        }
    }
    let q_inits: HashMap<&str, i32> = quantized
        .initializer
        .iter()
        .map(|t| (t.name.as_str(), t.data_type))
        .collect();
    let producers: HashMap<&str, &NodeProto> = quantized
        .node
        .iter()
        .flat_map(|n| n.output.iter().map(move |o| (o.as_str(), n)))
        .collect();

    let mut seen = HashSet::new();
    let mut pairs = Vec::new();
    for dq in quantized
        .node
        .iter()
        .filter(|n| is_op(n, "DequantizeLinear"))
    {
        let (Some(input), Some(output)) = (dq.input.first(), dq.output.first()) else {
            continue;
        };
        let pair = if let Some(&dtype) = q_inits.get(input.as_str()) {
            let candidates = [
                Some(output.as_str()),
                output.strip_suffix("_DequantizeLinear_Output"),
                input.strip_suffix("_quantized"),
            ];
            candidates
                .into_iter()
                .flatten()
                .find(|c| float_weights.contains(c))
                .map(|name| Pair {
                    name: name.to_string(),
                    kind: if dtype == INT32 {
                        Kind::Bias
                    } else {
                        Kind::Weight
                    },
                    op: readers.get(name).unwrap_or(&"").to_string(),
                    dequantized: output.clone(),
                    before: None,
                    quantizer: None,
                })
        } else {
            let Some(q) = producers
                .get(input.as_str())
                .copied()
                .filter(|p| is_op(p, "QuantizeLinear") || is_op(p, "DynamicQuantizeLinear"))
            else {
                continue;
            };
            let Some(x) = q.input.first() else {
                continue;
            };
            let candidates = [
                Some(x.as_str()),
                x.strip_suffix("_QuantizeLinear_Input"),
                Some(output.as_str()),
                output.strip_suffix("_DequantizeLinear_Output"),
            ];
            candidates
                .into_iter()
                .flatten()
                .find_map(|c| float_ops.get_key_value(c))
                .map(|(name, op)| Pair {
                    name: name.to_string(),
                    kind: Kind::Activation,
                    op: op.to_string(),
                    dequantized: output.clone(),
                    before: Some(x.clone()),
                    quantizer: is_op(q, "QuantizeLinear")
                        .then(|| q.input.get(1).map(|s| (s.clone(), q.input.get(2).cloned())))
                        .flatten(),
                })
        };
        if let Some(pair) = pair
            && seen.insert(pair.name.clone())
        {
            pairs.push(pair);
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::proto::{TensorProto, ValueInfoProto};

    fn node(op: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
        NodeProto {
            op_type: op.into(),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: outputs.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    fn init(name: &str, data_type: i32) -> TensorProto {
        TensorProto {
            name: name.into(),
            data_type,
            ..Default::default()
        }
    }

    fn float() -> GraphProto {
        GraphProto {
            input: vec![ValueInfoProto {
                name: "x".into(),
                ..Default::default()
            }],
            node: vec![
                node("Conv", &["x", "w", "b"], &["c"]),
                node("Relu", &["c"], &["y"]),
            ],
            initializer: vec![init("w", 1), init("b", 1)],
            ..Default::default()
        }
    }

    fn names(pairs: &[Pair]) -> Vec<(String, Kind, String, Option<String>)> {
        pairs
            .iter()
            .map(|p| {
                (
                    p.name.clone(),
                    p.kind,
                    p.dequantized.clone(),
                    p.before.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn qlower_names_match() {
        let q = GraphProto {
            node: vec![
                node("DequantizeLinear", &["w_quantized", "ws", "wz"], &["w"]),
                node("DequantizeLinear", &["b_quantized", "bs", "bz"], &["b"]),
                node("QuantizeLinear", &["x", "s", "z"], &["x_quantized"]),
                node(
                    "DequantizeLinear",
                    &["x_quantized", "s", "z"],
                    &["x_dequantized"],
                ),
                node("Conv", &["x_dequantized", "w", "b"], &["c"]),
                node("Relu", &["c"], &["y_QuantizeLinear_Input"]),
                node(
                    "QuantizeLinear",
                    &["y_QuantizeLinear_Input", "s", "z"],
                    &["yq"],
                ),
                node("DequantizeLinear", &["yq", "s", "z"], &["y"]),
            ],
            initializer: vec![init("w_quantized", 3), init("b_quantized", INT32)],
            ..Default::default()
        };
        let got = names(&find(&float(), &q));
        assert_eq!(
            got,
            vec![
                ("w".into(), Kind::Weight, "w".into(), None),
                ("b".into(), Kind::Bias, "b".into(), None),
                (
                    "x".into(),
                    Kind::Activation,
                    "x_dequantized".into(),
                    Some("x".into())
                ),
                (
                    "y".into(),
                    Kind::Activation,
                    "y".into(),
                    Some("y_QuantizeLinear_Input".into())
                ),
            ]
        );
    }

    #[test]
    fn onnx_runtime_names_match() {
        let q = GraphProto {
            node: vec![
                node(
                    "DequantizeLinear",
                    &["w_quantized", "ws", "wz"],
                    &["w_DequantizeLinear_Output"],
                ),
                node(
                    "QuantizeLinear",
                    &["c", "s", "z"],
                    &["c_QuantizeLinear_Output"],
                ),
                node(
                    "DequantizeLinear",
                    &["c_QuantizeLinear_Output", "s", "z"],
                    &["c_DequantizeLinear_Output"],
                ),
            ],
            initializer: vec![init("w_quantized", 3)],
            ..Default::default()
        };
        let got = names(&find(&float(), &q));
        assert_eq!(got[0].0, "w");
        assert_eq!(got[1].0, "c");
        assert_eq!(got[1].2, "c_DequantizeLinear_Output");
        assert_eq!(find(&float(), &q)[1].op, "Conv");
    }
}
