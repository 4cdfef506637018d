//! The rules on hand-made QDQ graphs: each fires on the group it converts and leaves a
//! group alone when a parameter does not fit its QOperator op.

use super::*;
use crate::onnx::proto::{GraphProto, TensorProto, ValueInfoProto};
use crate::quantize::graph_edit::{f32_tensor, i32_tensor, int_attribute, node, raw_tensor};

fn value(name: &str) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        ..Default::default()
    }
}

fn u8_scalar(name: &str, v: u8) -> TensorProto {
    raw_tensor(name, &[], 2, vec![v])
}

/// x → Q/DQ → Conv(w, b) → Q/DQ → `then` → Q(`then_params`)/DQ → y.
fn model(then: &str, then_scale: f32) -> ModelProto {
    let along_0 = |mut n: NodeProto| {
        n.attribute.push(int_attribute("axis", 0));
        n
    };
    let nodes = vec![
        node("QuantizeLinear", "qx", &["x", "xs", "xz"], &["xq"]),
        node("DequantizeLinear", "dqx", &["xq", "xs", "xz"], &["xd"]),
        along_0(node("DequantizeLinear", "dqw", &["wq", "ws", "wz"], &["w"])),
        along_0(node("DequantizeLinear", "dqb", &["bq", "bs", "bz"], &["b"])),
        node("Conv", "conv", &["xd", "w", "b"], &["c"]),
        node("QuantizeLinear", "qc", &["c", "cs", "cz"], &["cq"]),
        node("DequantizeLinear", "dqc", &["cq", "cs", "cz"], &["cd"]),
        node(then, "then", &["cd"], &["t"]),
        node("QuantizeLinear", "qt", &["t", "ts", "tz"], &["tq"]),
        node("DequantizeLinear", "dqt", &["tq", "ts", "tz"], &["y"]),
    ];
    let initializer = vec![
        f32_tensor("xs", &[], &[0.5]),
        u8_scalar("xz", 128),
        raw_tensor("wq", &[2, 1, 1, 1], 3, vec![3, 0xfd]),
        f32_tensor("ws", &[2], &[0.25, 0.125]),
        raw_tensor("wz", &[2], 3, vec![0, 0]),
        i32_tensor("bq", &[2], &[4, -4]),
        f32_tensor("bs", &[2], &[0.125, 0.0625]),
        i32_tensor("bz", &[2], &[0, 0]),
        f32_tensor("cs", &[], &[0.1]),
        u8_scalar("cz", 10),
        f32_tensor("ts", &[], &[then_scale]),
        u8_scalar("tz", 10),
    ];
    let graph = GraphProto {
        name: "g".into(),
        node: nodes,
        initializer,
        input: vec![value("x")],
        output: vec![value("y")],
        ..Default::default()
    };
    ModelProto {
        ir_version: 10,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 17,
        }],
        graph: Some(graph),
        ..Default::default()
    }
}

fn ops(m: &ModelProto) -> Vec<String> {
    m.graph
        .as_ref()
        .unwrap()
        .node
        .iter()
        .map(|n| n.op_type.clone())
        .collect()
}

#[test]
fn conv_with_int32_bias_becomes_qlinearconv_and_a_reshape_runs_on_codes() {
    let out = convert(model("Reshape", 0.1)).unwrap();
    assert_eq!(
        ops(&out),
        [
            "QuantizeLinear",
            "QLinearConv",
            "Reshape",
            "DequantizeLinear"
        ]
    );
    let g = out.graph.unwrap();
    let conv = &g.node[1];
    assert_eq!(
        conv.input,
        ["xq", "xs", "xz", "wq", "ws", "wz", "cs", "cz", "bq"]
    );
    assert_eq!(conv.output, ["cq"]);
    assert_eq!(g.node[2].input[0], "cq");
    assert_eq!(g.node[2].output, ["tq"]);
    // The weight's and bias's float initializers are gone with their DequantizeLinear.
    assert!(g.initializer.iter().all(|t| t.name != "bs"));
}

#[test]
fn a_reshape_requantizing_to_other_parameters_stays_float() {
    let out = convert(model("Reshape", 0.2)).unwrap();
    assert_eq!(
        ops(&out),
        [
            "QuantizeLinear",
            "QLinearConv",
            "DequantizeLinear",
            "Reshape",
            "QuantizeLinear",
            "DequantizeLinear"
        ]
    );
}

#[test]
fn sigmoid_becomes_the_contrib_op_and_imports_its_domain() {
    let out = convert(model("Sigmoid", 0.2)).unwrap();
    assert!(ops(&out).contains(&"QLinearSigmoid".to_string()));
    assert!(out.opset_import.iter().any(|o| o.domain == MICROSOFT));
}

#[test]
fn a_bias_on_another_scale_keeps_the_conv_float() {
    let mut m = model("Relu", 0.2);
    let g = m.graph.as_mut().unwrap();
    let bs = g.initializer.iter_mut().find(|t| t.name == "bs").unwrap();
    *bs = f32_tensor("bs", &[2], &[0.125, 0.5]);
    let out = convert(m).unwrap();
    assert!(ops(&out).contains(&"Conv".to_string()));
    assert!(!ops(&out).contains(&"QLinearConv".to_string()));
    // Relu has no QOperator form: it stays between its DequantizeLinear and QuantizeLinear.
    assert!(ops(&out).contains(&"Relu".to_string()));
}

#[test]
fn a_16_bit_activation_keeps_the_conv_float() {
    let mut m = model("Relu", 0.2);
    let g = m.graph.as_mut().unwrap();
    let xz = g.initializer.iter_mut().find(|t| t.name == "xz").unwrap();
    *xz = raw_tensor("xz", &[], 4, vec![0, 128]);
    let out = convert(m).unwrap();
    assert!(!ops(&out).contains(&"QLinearConv".to_string()));
}

#[test]
fn dynamic_matmul_becomes_matmulinteger_scaled_back() {
    let graph = GraphProto {
        name: "g".into(),
        node: vec![
            node("DynamicQuantizeLinear", "dq", &["x"], &["xq", "xs", "xz"]),
            node("DequantizeLinear", "dqx", &["xq", "xs", "xz"], &["xd"]),
            node("DequantizeLinear", "dqw", &["wq", "ws", "wz"], &["w"]),
            node("MatMul", "mm", &["xd", "w"], &["y"]),
        ],
        initializer: vec![
            raw_tensor("wq", &[2, 2], 3, vec![1, 2, 3, 4]),
            f32_tensor("ws", &[], &[0.5]),
            raw_tensor("wz", &[], 3, vec![0]),
        ],
        input: vec![value("x")],
        output: vec![value("y")],
        ..Default::default()
    };
    let m = ModelProto {
        ir_version: 10,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 17,
        }],
        graph: Some(graph),
        ..Default::default()
    };
    let out = convert(m).unwrap();
    assert_eq!(
        ops(&out),
        [
            "DynamicQuantizeLinear",
            "MatMulInteger",
            "Cast",
            "Mul",
            "Mul"
        ]
    );
    let g = out.graph.unwrap();
    assert_eq!(g.node[1].input, ["xq", "wq", "xz", "wz"]);
    assert_eq!(g.node.last().unwrap().output, ["y"]);
}
