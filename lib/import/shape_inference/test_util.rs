//! Builders for the unit tests: nodes with attributes, and inputs with types and values.

use anyhow::Result;
use bytes::Bytes;

use super::{InferInput, Inferred, ShapeRules, fold};
use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;
use crate::onnx::proto::attribute_proto::AttributeType;
use crate::onnx::proto::{AttributeProto, NodeProto, TensorProto};
use crate::onnx::tensor::TensorData;

/// A type from dims where -1 stands for a dynamic dimension.
pub(super) fn ty(dtype: DType, dims: &[i64]) -> TensorType {
    TensorType::new(dtype, dims.iter().map(|&d| (d >= 0).then_some(d)).collect())
}

/// What a test knows about one input.
pub(super) struct In {
    pub ty: TensorType,
    pub value: Option<TensorData>,
    pub partial: Option<Vec<Option<i64>>>,
}

impl In {
    pub fn new(dtype: DType, dims: &[i64]) -> In {
        In {
            ty: ty(dtype, dims),
            value: None,
            partial: None,
        }
    }

    /// An INT64 vector of which only some elements are known (`None` where not).
    pub fn partial(elements: &[Option<i64>]) -> In {
        let len = i64::try_from(elements.len()).unwrap_or(i64::MAX);
        In {
            ty: TensorType::known(DType::I64, &[len]),
            value: None,
            partial: Some(elements.to_vec()),
        }
    }

    pub fn unknown() -> In {
        In {
            ty: TensorType::unknown(),
            value: None,
            partial: None,
        }
    }

    /// A constant INT64 tensor.
    pub fn ints(dims: &[i64], vals: &[i64]) -> In {
        In::int_typed(DType::I64, dims, vals)
    }

    pub fn int_typed(dtype: DType, dims: &[i64], vals: &[i64]) -> In {
        let value = fold::encode_ints(dtype, dims.to_vec(), vals);
        assert!(value.is_some(), "test value does not fill its dims");
        In {
            ty: TensorType::known(dtype, dims),
            value,
            partial: None,
        }
    }

    pub fn floats(dims: &[i64], vals: &[f32]) -> In {
        let value = f32_tensor(dims, vals);
        In {
            ty: TensorType::known(DType::F32, dims),
            value: Some(value),
            partial: None,
        }
    }
}

pub(super) fn f32_tensor(dims: &[i64], vals: &[f32]) -> TensorData {
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    TensorData {
        dtype: DType::F32,
        dims: dims.to_vec(),
        bytes: Bytes::from(bytes),
    }
}

/// A node under construction; input names are given, "" for a left-out input.
pub(super) struct N(pub NodeProto);

impl N {
    pub fn new(op: &str, inputs: &[&str], outputs: usize) -> N {
        N(NodeProto {
            op_type: op.to_string(),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: (0..outputs).map(|i| format!("out{i}")).collect(),
            ..Default::default()
        })
    }

    fn attr(mut self, name: &str, kind: AttributeType, f: impl FnOnce(&mut AttributeProto)) -> N {
        let mut a = AttributeProto {
            name: name.to_string(),
            r#type: kind as i32,
            ..Default::default()
        };
        f(&mut a);
        self.0.attribute.push(a);
        self
    }

    pub fn int(self, name: &str, v: i64) -> N {
        self.attr(name, AttributeType::Int, |a| a.i = v)
    }

    pub fn ints(self, name: &str, v: &[i64]) -> N {
        self.attr(name, AttributeType::Ints, |a| a.ints = v.to_vec())
    }

    pub fn float(self, name: &str, v: f32) -> N {
        self.attr(name, AttributeType::Float, |a| a.f = v)
    }

    pub fn floats(self, name: &str, v: &[f32]) -> N {
        self.attr(name, AttributeType::Floats, |a| a.floats = v.to_vec())
    }

    pub fn string(self, name: &str, v: &str) -> N {
        self.attr(name, AttributeType::String, |a| {
            a.s = Bytes::copy_from_slice(v.as_bytes())
        })
    }

    pub fn tensor(self, name: &str, t: TensorProto) -> N {
        self.attr(name, AttributeType::Tensor, |a| a.t = Some(t))
    }
}

/// The shape rules the pipeline builds.
pub(super) fn shape_rules() -> &'static ShapeRules {
    &crate::op_tables::op_tables().shapes
}

/// Runs inference for a default-domain node.
pub(super) fn run(node: &N, opset: i64, inputs: &[Option<In>]) -> Result<Vec<Inferred>> {
    run_in("", node, opset, inputs)
}

pub(super) fn run_in(
    domain: &str,
    node: &N,
    opset: i64,
    inputs: &[Option<In>],
) -> Result<Vec<Inferred>> {
    let refs: Vec<Option<InferInput>> = inputs
        .iter()
        .map(|i| {
            i.as_ref().map(|i| InferInput {
                ty: &i.ty,
                value: i.value.as_ref(),
                partial: i.partial.as_deref(),
            })
        })
        .collect();
    shape_rules().infer(&node.0, domain, opset, &refs)
}

/// The single output's type, for rules that cannot fail.
pub(super) fn out_ty(node: &N, opset: i64, inputs: &[Option<In>]) -> TensorType {
    match run(node, opset, inputs) {
        Ok(v) => v.into_iter().next().map(|i| i.ty).unwrap_or_default(),
        Err(e) => panic!("inference failed: {e}"),
    }
}

/// The error message inference gives.
pub(super) fn err(node: &N, opset: i64, inputs: &[Option<In>]) -> String {
    match run(node, opset, inputs) {
        Ok(v) => panic!("expected an error, inferred {v:?}"),
        Err(e) => e.to_string(),
    }
}

/// The integer elements of output `i`'s value.
pub(super) fn out_ints(outs: &[Inferred], i: usize) -> Option<Vec<i64>> {
    outs.get(i)?.value.as_ref().and_then(fold::decode_ints)
}
