//! Unit tests of the converter pieces on small hand-built graphs. That the converted
//! models compute what the old ones did is checked against ONNX Runtime by
//! `tools/quantize/opset_upgrade.py`.

use super::*;
use crate::onnx::proto::attribute_proto::AttributeType;
use crate::onnx::proto::tensor_shape_proto::{Dimension, dimension};
use crate::onnx::proto::{
    AttributeProto, GraphProto, ModelProto, OperatorSetIdProto, TensorProto, TensorShapeProto,
    TypeProto, ValueInfoProto, type_proto,
};
use crate::onnx::tensor;

/// The converter with the shape rules the pipeline builds.
fn upgrade(model: ValidModel, target: i64) -> Result<(ValidModel, Report)> {
    super::upgrade(model, target, &crate::op_tables::op_tables().shapes)
}

fn value(name: &str, shape: Option<&[i64]>) -> ValueInfoProto {
    let shape = shape.map(|dims| TensorShapeProto {
        dim: dims
            .iter()
            .map(|&d| Dimension {
                value: Some(dimension::Value::DimValue(d)),
                ..Default::default()
            })
            .collect(),
    });
    ValueInfoProto {
        name: name.to_string(),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: 1,
                shape,
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Ints as i32,
        ints: v.to_vec(),
        ..Default::default()
    }
}

fn float(name: &str, v: f32) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Float as i32,
        f: v,
        ..Default::default()
    }
}

fn node(op: &str, name: &str, attrs: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        op_type: op.into(),
        name: name.into(),
        input: vec!["x".into()],
        output: vec!["y".into()],
        attribute: attrs,
        ..Default::default()
    }
}

/// `x -> node -> y` at `opset`, x of shape `shape` (unranked with `None`).
fn one_node(n: NodeProto, opset: i64, shape: Option<&[i64]>) -> ValidModel {
    one_graph(vec![n], opset, shape, vec![])
}

fn one_graph(
    nodes: Vec<NodeProto>,
    opset: i64,
    shape: Option<&[i64]>,
    initializer: Vec<TensorProto>,
) -> ValidModel {
    let proto = ModelProto {
        ir_version: 6,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: opset,
        }],
        graph: Some(GraphProto {
            node: nodes,
            input: vec![value("x", shape)],
            output: vec![value("y", None)],
            initializer,
            ..Default::default()
        }),
        ..Default::default()
    };
    validate(proto, None).unwrap()
}

fn ops(model: &ValidModel) -> Vec<&str> {
    model
        .graph()
        .node
        .iter()
        .map(|n| n.op_type.as_str())
        .collect()
}

fn int_attr(n: &NodeProto, name: &str) -> Option<i64> {
    n.attribute.iter().find(|a| a.name == name).map(|a| a.i)
}

fn string_attr(n: &NodeProto, name: &str) -> Option<String> {
    n.attribute
        .iter()
        .find(|a| a.name == name)
        .map(|a| String::from_utf8_lossy(&a.s).into_owned())
}

fn initializer_ints(model: &ValidModel, name: &str) -> Vec<i64> {
    let t = model
        .graph()
        .initializer
        .iter()
        .find(|t| t.name == name)
        .unwrap();
    tensor::decode(t, None).unwrap().to_i64_vec().unwrap()
}

fn initializer_floats(model: &ValidModel, name: &str) -> Vec<f64> {
    let t = model
        .graph()
        .initializer
        .iter()
        .find(|t| t.name == name)
        .unwrap();
    tensor::decode(t, None).unwrap().to_f64_vec().unwrap()
}

fn axis(v: i64) -> AttributeProto {
    edit::int_attribute("axis", v)
}

#[test]
fn softmax_on_a_middle_axis_is_flattened_and_reshaped_back() {
    let m = one_node(node("Softmax", "sm", vec![axis(1)]), 11, Some(&[2, 3, 4]));
    let (m, report) = upgrade(m, 13).unwrap();
    assert_eq!(ops(&m), ["Flatten", "Softmax", "Shape", "Reshape"]);
    let g = m.graph();
    let flatten = g.node.iter().find(|n| n.op_type == "Flatten").unwrap();
    assert_eq!(int_attr(flatten, "axis"), Some(1));
    let softmax = g.node.iter().find(|n| n.op_type == "Softmax").unwrap();
    assert_eq!(int_attr(softmax, "axis"), Some(1));
    assert_eq!(softmax.name, "sm");
    let reshape = g.node.iter().find(|n| n.op_type == "Reshape").unwrap();
    assert_eq!(reshape.output, ["y"]);
    assert_eq!(m.default_opset(), 13);
    assert_eq!(m.proto.ir_version, 7);
    assert_eq!(report.to_string(), "11 → 13 (converted 1 Softmax)");
}

#[test]
fn softmax_on_the_last_axis_stays_one_op() {
    // Known rank: axis 2 of a rank-3 input is the last; the default axis 1 of a 2-D one too.
    for (attrs, shape) in [
        (vec![axis(2)], Some(&[2, 3, 4][..])),
        (vec![], Some(&[3, 5][..])),
        (vec![axis(-1)], None),
    ] {
        let m = one_node(node("LogSoftmax", "ls", attrs), 11, shape);
        let (m, _) = upgrade(m, 13).unwrap();
        assert_eq!(ops(&m), ["LogSoftmax"]);
        assert_eq!(int_attr(&m.graph().node[0], "axis"), Some(-1));
    }
    // Unknown rank, axis 1: maybe not the last, so the general form.
    let m = one_node(node("Hardmax", "hm", vec![]), 11, None);
    assert_eq!(ops(&upgrade(m, 13).unwrap().0).len(), 4);
}

#[test]
fn axes_attributes_become_int64_inputs() {
    let m = one_node(
        node("Unsqueeze", "u", vec![ints("axes", &[0, -1])]),
        11,
        Some(&[2, 3]),
    );
    let (m, report) = upgrade(m, 13).unwrap();
    let n = &m.graph().node[0];
    assert!(n.attribute.is_empty());
    assert_eq!(initializer_ints(&m, &n.input[1]), [0, -1]);
    assert_eq!(report.converted.get("Unsqueeze"), Some(&1));
    // Squeeze without axes needs no input and is left as it is.
    let m = one_node(node("Squeeze", "s", vec![]), 11, Some(&[1, 3]));
    let (m, report) = upgrade(m, 13).unwrap();
    assert_eq!(m.graph().node[0].input.len(), 1);
    assert!(report.converted.is_empty());
    assert_eq!(report.to_string(), "11 → 13 (no node needed a change)");
}

#[test]
fn reduce_mean_keeps_its_attribute_until_18() {
    let reduce = || {
        one_node(
            node("ReduceMean", "r", vec![ints("axes", &[1])]),
            11,
            Some(&[2, 3]),
        )
    };
    let (m, _) = upgrade(reduce(), 13).unwrap();
    assert_eq!(m.graph().node[0].attribute.len(), 1);
    let (m, _) = upgrade(reduce(), 18).unwrap();
    let n = &m.graph().node[0];
    assert_eq!(initializer_ints(&m, &n.input[1]), [1]);
    assert_eq!(m.proto.ir_version, 8);
}

#[test]
fn clip_bounds_become_inputs_of_the_data_type() {
    let m = one_node(node("Clip", "c", vec![float("max", 6.0)]), 9, Some(&[4]));
    let (m, _) = upgrade(m, 13).unwrap();
    let n = &m.graph().node[0];
    assert_eq!(n.input[1], "");
    assert_eq!(initializer_floats(&m, &n.input[2]), [6.0]);
}

#[test]
fn pad_needs_the_data_type_only_for_a_fill_value() {
    let pad = |attrs| one_node(node("Pad", "p", attrs), 9, None);
    let (m, _) = upgrade(pad(vec![ints("pads", &[1, 1])]), 13).unwrap();
    let n = &m.graph().node[0];
    assert_eq!(initializer_ints(&m, &n.input[1]), [1, 1]);
    assert_eq!(n.input.len(), 2);
    // x is FLOAT in these models, declared even when its shape is not.
    let (m, _) = upgrade(pad(vec![ints("pads", &[1, 1]), float("value", 2.5)]), 13).unwrap();
    let n = &m.graph().node[0];
    assert_eq!(initializer_floats(&m, &n.input[2]), [2.5]);
}

#[test]
fn resize_10_rounds_as_onnx_runtime_did() {
    let resize = |scales: &[f32]| {
        let raw: Vec<u8> = scales.iter().flat_map(|s| s.to_le_bytes()).collect();
        let s = TensorProto {
            name: "s".into(),
            dims: vec![scales.len() as i64],
            data_type: 1,
            raw_data: raw.into(),
            ..Default::default()
        };
        let mut n = node("Resize", "rs", vec![]);
        n.input.push("s".into());
        one_graph(vec![n], 10, Some(&[1, 1, 4, 4]), vec![s])
    };
    for (scales, mode) in [
        ([1.0, 1.0, 2.0, 2.0], "floor"),
        ([1.0, 1.0, 0.5, 0.5], "ceil"),
    ] {
        let (m, _) = upgrade(resize(&scales), 13).unwrap();
        let n = &m.graph().node[0];
        assert_eq!(n.input, ["x", "", "s"]);
        assert_eq!(string_attr(n, "nearest_mode").as_deref(), Some(mode));
        assert_eq!(
            string_attr(n, "coordinate_transformation_mode").as_deref(),
            Some("asymmetric")
        );
    }
    let err = upgrade(resize(&[1.0, 1.0, 2.0, 0.5]), 13)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("node 'rs' (Resize)"), "{err}");
}

#[test]
fn upsample_7_becomes_resize_with_its_scales() {
    let scales = AttributeProto {
        name: "scales".into(),
        r#type: AttributeType::Floats as i32,
        floats: vec![1.0, 1.0, 2.0, 2.0],
        ..Default::default()
    };
    let m = one_node(node("Upsample", "up", vec![scales]), 7, Some(&[1, 1, 2, 2]));
    let (m, report) = upgrade(m, 13).unwrap();
    let n = &m.graph().node[0];
    assert_eq!(n.op_type, "Resize");
    assert_eq!(initializer_floats(&m, &n.input[2]), [1.0, 1.0, 2.0, 2.0]);
    assert_eq!(string_attr(n, "nearest_mode").as_deref(), Some("floor"));
    assert_eq!(report.to_string(), "7 → 13 (converted 1 Upsample)");
}

#[test]
fn an_op_without_a_conversion_is_refused_by_name() {
    let m = one_node(node("StringNormalizer", "norm", vec![]), 10, Some(&[2]));
    let err = upgrade(m, 13).err().unwrap().to_string();
    assert!(err.contains("node 'norm' (StringNormalizer)"), "{err}");
    assert!(err.contains("from opset 10 to 13"), "{err}");
}

#[test]
fn malformed_attributes_are_errors_naming_the_node() {
    let cases = [
        (
            node("Softmax", "sm", vec![float("axis", 1.0)]),
            "node 'sm' (Softmax)",
        ),
        (node("Softmax", "sm3", vec![axis(3)]), "out of range"),
        (node("Unsqueeze", "un", vec![]), "node 'un' (Unsqueeze)"),
        (
            node("Slice", "sl", vec![ints("starts", &[0])]),
            "node 'sl' (Slice)",
        ),
        (node("TopK", "tk", vec![]), "node 'tk' (TopK)"),
        (node("Pad", "pd", vec![]), "node 'pd' (Pad)"),
    ];
    for (n, want) in cases {
        let m = one_node(n, 9, Some(&[2, 3]));
        let err = upgrade(m, 13).err().unwrap().to_string();
        assert!(err.contains(want), "{err}");
    }
}

#[test]
fn opsets_out_of_range_are_refused_and_new_models_left_alone() {
    let m = || one_node(node("Relu", "r", vec![]), 11, Some(&[2]));
    assert!(upgrade(m(), 12).is_err());
    assert!(upgrade(m(), 19).is_err());
    let (_, report) = upgrade(m(), 13).unwrap();
    assert!(report.changed());
    let newer = one_node(node("Relu", "r", vec![]), 14, Some(&[2]));
    let (same, report) = upgrade(newer, 13).unwrap();
    assert!(!report.changed());
    assert_eq!(same.default_opset(), 14);
    let old = one_node(node("Relu", "r", vec![]), 6, Some(&[2]));
    assert!(upgrade(old, 13).is_err());
}

#[test]
fn a_read_dropout_mask_of_opset_7_is_refused() {
    let mut drop = node("Dropout", "d", vec![float("ratio", 0.2)]);
    drop.output.push("mask".into());
    let mut relu = node("Relu", "r", vec![]);
    relu.input = vec!["mask".into()];
    relu.output = vec!["z".into()];
    let mut m = one_graph(vec![drop.clone(), relu], 7, Some(&[2]), vec![]);
    m.proto
        .graph
        .as_mut()
        .unwrap()
        .output
        .push(value("z", None));
    let err = upgrade(m, 13).err().unwrap().to_string();
    assert!(err.contains("node 'd' (Dropout)"), "{err}");
    // Unread, the mask is dropped and the ratio becomes an input.
    let (m, _) = upgrade(one_graph(vec![drop], 7, Some(&[2]), vec![]), 13).unwrap();
    let n = &m.graph().node[0];
    assert_eq!(n.output, ["y"]);
    assert_eq!(initializer_floats(&m, &n.input[1]), [0.2f32 as f64]);
}

fn with_body(op: &str, name: &str, body: Vec<NodeProto>) -> NodeProto {
    let mut n = node(op, name, vec![]);
    n.attribute.push(AttributeProto {
        name: "body".into(),
        r#type: AttributeType::Graph as i32,
        g: Some(GraphProto {
            node: body,
            output: vec![value("b", None)],
            ..Default::default()
        }),
        ..Default::default()
    });
    n
}

#[test]
fn bodies_are_converted_and_their_refusals_name_both_nodes() {
    let mut squeeze = node("Squeeze", "inner", vec![ints("axes", &[0])]);
    squeeze.output = vec!["b".into()];
    let m = one_node(with_body("Loop", "loop", vec![squeeze]), 11, Some(&[1]));
    let (m, report) = upgrade(m, 13).unwrap();
    let body = m.graph().node[0].attribute[0].g.as_ref().unwrap();
    assert_eq!(initializer_ints(&m, &body.node[0].input[1]), [0]);
    assert_eq!(report.converted.get("Squeeze"), Some(&1));

    let mut strings = node("StringNormalizer", "inner", vec![]);
    strings.output = vec!["b".into()];
    let m = one_node(with_body("If", "branch", vec![strings]), 11, Some(&[1]));
    let err = upgrade(m, 13).err().unwrap().to_string();
    assert!(
        err.contains("node 'inner' (StringNormalizer) in a body of node 'branch' (If)"),
        "{err}"
    );

    let m = one_node(with_body("Scan", "scan", vec![]), 8, Some(&[1]));
    let err = upgrade(m, 13).err().unwrap().to_string();
    assert!(err.contains("node 'scan' (Scan)"), "{err}");
}
