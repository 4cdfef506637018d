//! Build a one- or two-node model from the fuzz bytes (op, attributes, shapes and
//! constant operands all chosen by the bytes), compile it to the backend form,
//! plan it and run it on inputs that are also taken from the bytes. Shapes stay small so
//! that each execution is quick; an error anywhere is fine, a panic or abort is a bug.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;

include!("driver.rs");
use qlower::ir::context::new_context;
use qlower::onnx::dtype::DType;
use qlower::onnx::proto::attribute_proto::AttributeType;
use qlower::onnx::proto::tensor_shape_proto::{Dimension, dimension};
use qlower::onnx::proto::type_proto::{self, Value as TypeValue};
use qlower::onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    TensorShapeProto, TypeProto, ValueInfoProto,
};
use qlower::onnx::validate::validate;
use qlower::pipeline::{Emit, Options, compile};
use qlower::runtime::plan::Plan;
use qlower::kernels::tensor::{Data, Tensor};

/// Reads choices off the fuzz input; once it runs dry every read is zero, so every
/// input, however short, still describes a model.
struct Bits<'a>(&'a [u8]);

impl Bits<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n.max(1)
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.byte() as i64).rem_euclid(hi - lo + 1)
    }
    fn ints(&mut self, n: usize, lo: i64, hi: i64) -> Vec<i64> {
        (0..n).map(|_| self.int(lo, hi)).collect()
    }
    fn f32(&mut self) -> f32 {
        // Mostly tame values, sometimes any bit pattern (NaN, infinities, subnormals).
        if self.byte() < 224 {
            (self.byte() as i8) as f32 / 16.0
        } else {
            f32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
        }
    }
    fn shape(&mut self, rank: usize) -> Vec<i64> {
        (0..rank).map(|_| self.int(1, 5)).collect()
    }
}

const FLOAT: i32 = 1;
const UINT8: i32 = 2;
const INT8: i32 = 3;
const INT32: i32 = 6;
const INT64: i32 = 7;

fn value_info(name: &str, elem_type: i32, dims: Option<&[i64]>) -> ValueInfoProto {
    let shape = dims.map(|d| TensorShapeProto {
        dim: d
            .iter()
            .map(|&v| Dimension {
                value: Some(dimension::Value::DimValue(v)),
                ..Default::default()
            })
            .collect(),
    });
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            value: Some(TypeValue::TensorType(type_proto::Tensor {
                elem_type,
                shape,
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn tensor(name: &str, dims: &[i64], data_type: i32, raw: Vec<u8>) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type,
        raw_data: Bytes::from(raw),
        ..Default::default()
    }
}

fn count(dims: &[i64]) -> usize {
    dims.iter().map(|&d| d.max(0) as usize).product()
}

fn f32s(b: &mut Bits, name: &str, dims: &[i64]) -> TensorProto {
    let raw = (0..count(dims))
        .flat_map(|_| b.f32().to_le_bytes())
        .collect();
    tensor(name, dims, FLOAT, raw)
}

fn bytes_of(b: &mut Bits, name: &str, dims: &[i64], data_type: i32) -> TensorProto {
    let raw = (0..count(dims)).map(|_| b.byte()).collect();
    tensor(name, dims, data_type, raw)
}

fn i32s(b: &mut Bits, name: &str, dims: &[i64]) -> TensorProto {
    let raw = (0..count(dims))
        .flat_map(|_| (b.byte() as i8 as i32 * 64).to_le_bytes())
        .collect();
    tensor(name, dims, INT32, raw)
}

fn i64s(name: &str, values: &[i64]) -> TensorProto {
    let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    tensor(name, &[values.len() as i64], INT64, raw)
}

fn scale(b: &mut Bits, name: &str, dims: &[i64]) -> TensorProto {
    let raw = (0..count(dims))
        .flat_map(|_| {
            // Usually a valid positive scale, sometimes zero, negative or NaN.
            let s = match b.byte() {
                0 => 0.0,
                1 => -0.5,
                2 => f32::NAN,
                v => v as f32 / 512.0,
            };
            s.to_le_bytes()
        })
        .collect();
    tensor(name, dims, FLOAT, raw)
}

fn attr_int(name: &str, i: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Int as i32,
        i,
        ..Default::default()
    }
}

fn attr_ints(name: &str, ints: Vec<i64>) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Ints as i32,
        ints,
        ..Default::default()
    }
}

fn node(op: &str, inputs: &[&str], attribute: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        name: format!("n_{op}"),
        op_type: op.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec!["y".into()],
        attribute,
        ..Default::default()
    }
}

/// Convolution-like attributes for `spatial` spatial dims, sometimes left out.
fn window_attrs(b: &mut Bits, spatial: usize, kernel: bool) -> Vec<AttributeProto> {
    let mut a = Vec::new();
    if kernel {
        a.push(attr_ints("kernel_shape", b.ints(spatial, 1, 3)));
    }
    if b.byte() & 1 == 1 {
        a.push(attr_ints("strides", b.ints(spatial, 1, 3)));
    }
    if b.byte() & 1 == 1 {
        a.push(attr_ints("pads", b.ints(2 * spatial, 0, 2)));
    }
    if b.byte() & 1 == 1 {
        a.push(attr_ints("dilations", b.ints(spatial, 1, 2)));
    }
    a
}

/// The graph's one input `x` (type and shape), its node and initializers.
fn build(b: &mut Bits) -> (i32, Vec<i64>, NodeProto, Vec<TensorProto>) {
    let rank = 1 + b.below(4);
    let xs = b.shape(rank);
    let mut inits = Vec::new();
    let (xt, n) = match b.below(14) {
        0 => (
            FLOAT,
            node(
                ["Relu", "Sigmoid", "Identity", "Softmax"][b.below(4)],
                &["x"],
                vec![attr_int("axis", b.int(-4, 4))],
            ),
        ),
        1 => {
            let ws = b.shape(rank);
            inits.push(f32s(b, "w", &ws));
            (
                FLOAT,
                node(
                    ["Add", "Mul", "Sub", "Div", "MatMul"][b.below(5)],
                    &["x", "w"],
                    vec![],
                ),
            )
        }
        2 => (
            FLOAT,
            node("Flatten", &["x"], vec![attr_int("axis", b.int(-5, 5))]),
        ),
        3 => {
            let perm = b.ints(rank, -1, rank as i64);
            (
                FLOAT,
                node("Transpose", &["x"], vec![attr_ints("perm", perm)]),
            )
        }
        4 => {
            let len = b.below(4) + 1;
            let target = b.ints(len, -1, 6);
            inits.push(i64s("s", &target));
            (FLOAT, node("Reshape", &["x", "s"], vec![]))
        }
        5 | 6 => {
            // Conv with x of rank 3 or 4 (whatever rank was drawn) and a weight that may not fit.
            let cin = xs.get(1).copied().unwrap_or(1);
            let group = if b.byte() & 3 == 0 { b.int(1, 3) } else { 1 };
            let mut ws = vec![b.int(1, 4), (cin / group.max(1)).max(1)];
            ws.extend(b.ints(rank.saturating_sub(2), 1, 3));
            inits.push(f32s(b, "w", &ws));
            let mut attrs = window_attrs(b, rank.saturating_sub(2), false);
            attrs.push(attr_int("group", group));
            (FLOAT, node("Conv", &["x", "w"], attrs))
        }
        7 => {
            let op = ["MaxPool", "AveragePool", "GlobalAveragePool"][b.below(3)];
            let attrs = if op == "GlobalAveragePool" {
                vec![]
            } else {
                window_attrs(b, rank.saturating_sub(2), true)
            };
            (FLOAT, node(op, &["x"], attrs))
        }
        8 | 9 => {
            // QuantizeLinear / DequantizeLinear, per tensor or along an axis.
            let axis = b.int(-4, 4);
            let per_axis = b.byte() & 1 == 1;
            let len = if per_axis { vec![b.int(1, 5)] } else { vec![] };
            let zt = [UINT8, INT8][b.below(2)];
            inits.push(scale(b, "s", &len));
            inits.push(bytes_of(b, "z", &len, zt));
            let quantize = b.byte() & 1 == 1;
            let (xt, op) = if quantize {
                (FLOAT, "QuantizeLinear")
            } else {
                (zt, "DequantizeLinear")
            };
            (xt, node(op, &["x", "s", "z"], vec![attr_int("axis", axis)]))
        }
        10 | 11 => {
            // QLinearConv on uint8 input, weights per tensor or per output channel.
            let cin = xs.get(1).copied().unwrap_or(1);
            let cout = b.int(1, 4);
            let mut ws = vec![cout, cin];
            ws.extend(b.ints(rank.saturating_sub(2), 1, 3));
            let wt = [UINT8, INT8][b.below(2)];
            inits.push(bytes_of(b, "w", &ws, wt));
            let per_channel = if b.byte() & 1 == 1 {
                vec![b.int(cout - 1, cout + 1)]
            } else {
                vec![]
            };
            inits.push(scale(b, "xs", &[]));
            inits.push(bytes_of(b, "xz", &[], UINT8));
            inits.push(scale(b, "ws", &per_channel));
            inits.push(bytes_of(b, "wz", &per_channel, wt));
            inits.push(scale(b, "ys", &[]));
            inits.push(bytes_of(b, "yz", &[], UINT8));
            let mut inputs = vec!["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"];
            if b.byte() & 1 == 1 {
                inits.push(i32s(b, "bias", &[cout]));
                inputs.push("bias");
            }
            (
                UINT8,
                node(
                    "QLinearConv",
                    &inputs,
                    window_attrs(b, rank.saturating_sub(2), false),
                ),
            )
        }
        12 => {
            // QLinearMatMul with b of a drawn shape.
            let bs = b.shape(rank);
            inits.push(bytes_of(b, "b", &bs, UINT8));
            for (s, z) in [("as", "az"), ("bs", "bz"), ("ys", "yz")] {
                inits.push(scale(b, s, &[]));
                inits.push(bytes_of(b, z, &[], UINT8));
            }
            (
                UINT8,
                node(
                    "QLinearMatMul",
                    &["x", "as", "az", "b", "bs", "bz", "ys", "yz"],
                    vec![],
                ),
            )
        }
        _ => {
            let ws = b.shape(rank);
            inits.push(bytes_of(b, "w", &ws, INT8));
            inits.push(bytes_of(b, "az", &[], UINT8));
            (UINT8, node("MatMulInteger", &["x", "w", "az"], vec![]))
        }
    };
    (xt, xs, n, inits)
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bits(data);
    let (xt, xs, node, initializer) = build(&mut b);
    let model = ModelProto {
        ir_version: 9,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: b.int(10, 21),
        }],
        graph: Some(GraphProto {
            name: "fuzz".into(),
            node: vec![node],
            initializer,
            input: vec![value_info("x", xt, Some(&xs))],
            output: vec![ValueInfoProto {
                name: "y".into(),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    let Ok(model) = validate(model, None) else {
        return;
    };
    let context = new_context();
    let Ok(compiled) = compile(&context, &model, Emit::Backend, Options::default()) else {
        return;
    };
    let Ok(plan) = Plan::new(&compiled.module) else {
        return;
    };
    drop(compiled);
    let inputs = plan
        .inputs
        .iter()
        .map(|port| {
            let shape: Vec<usize> = xs.iter().map(|&d| d as usize).collect();
            let n = shape.iter().product();
            let dtype = port.ty.dtype.unwrap_or(DType::F32);
            let data = match dtype.storage() {
                DType::F32 => Data::F32((0..n).map(|_| b.f32()).collect()),
                DType::U8 => Data::U8((0..n).map(|_| b.byte()).collect()),
                DType::I8 => Data::I8((0..n).map(|_| b.byte() as i8).collect()),
                other => Data::zeros(other, n),
            };
            Tensor::new(shape, data)
        })
        .collect::<Result<Vec<_>, _>>();
    if let Ok(inputs) = inputs {
        let _ = plan.run(inputs);
    }
});
