//! Long graphs must not overflow the stack anywhere between the bytes and the results:
//! a chain of 100,000 nodes goes through decode, validate, import, every pass, plan and
//! run on a test thread (whose stack, 2 MiB, is a quarter of the main thread's). The
//! model is built here rather than committed: it is 3 MB of repetition.

use bytes::Bytes;
use prost::Message;

use crate::ir::context::new_context;
use crate::kernels::tensor::{Data, Tensor};
use crate::onnx::load::decode_model;
use crate::onnx::proto::tensor_shape_proto::{Dimension, dimension};
use crate::onnx::proto::type_proto::{self, Value as TypeValue};
use crate::onnx::proto::{
    GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorShapeProto, TypeProto,
    ValueInfoProto,
};
use crate::onnx::validate::validate;
use crate::pipeline::{Emit, Options, compile};
use crate::runtime::plan::Plan;

fn float_info(name: &str, dims: &[i64]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|&d| Dimension {
            value: Some(dimension::Value::DimValue(d)),
            ..Default::default()
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            value: Some(TypeValue::TensorType(type_proto::Tensor {
                elem_type: 1,
                shape: Some(TensorShapeProto { dim }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// x -> Relu -> Sigmoid -> Relu -> ... -> y, `n` nodes long, in
/// reverse order so that validation has to sort it.
fn chain(n: usize) -> ModelProto {
    let name = |i: usize| {
        if i == 0 {
            "x".to_string()
        } else if i == n {
            "y".to_string()
        } else {
            format!("v{i}")
        }
    };
    let node = (0..n)
        .rev()
        .map(|i| NodeProto {
            name: format!("n{i}"),
            op_type: if i % 2 == 0 { "Relu" } else { "Sigmoid" }.into(),
            input: vec![name(i)],
            output: vec![name(i + 1)],
            ..Default::default()
        })
        .collect();
    ModelProto {
        ir_version: 9,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 19,
        }],
        graph: Some(GraphProto {
            name: "chain".into(),
            node,
            input: vec![float_info("x", &[2])],
            output: vec![float_info("y", &[2])],
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[test]
fn a_chain_of_100k_nodes_compiles_plans_and_runs() {
    let n = 100_000;
    let bytes = Bytes::from(chain(n).encode_to_vec());
    let model = validate(decode_model(bytes).unwrap(), None).unwrap();
    let context = new_context();
    let compiled = compile(&context, &model, Emit::Backend, Options::default()).unwrap();
    let plan = Plan::new(&compiled.module).unwrap();
    // fuse-elementwise-chains runs each 32 of the relus and sigmoids as one step.
    assert_eq!(plan.step_count(), n.div_ceil(32));
    drop(compiled);
    let x = Tensor::new(vec![2], Data::F32(vec![-1.0, 1.0])).unwrap();
    let y = plan.run(vec![x]).unwrap();
    // Relu first, then sigmoids and relus of positive values: both end in (0.5, 1).
    let Data::F32(v) = &y[0].data else {
        panic!("a float result")
    };
    assert!(v.iter().all(|&e| e > 0.5 && e < 1.0), "{v:?}");
}
