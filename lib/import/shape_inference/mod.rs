//! qlower's own shape and type inference for the ops real quantized models carry,
//! used where a model leaves the types of intermediate values out.
//!
//! Each rule sees the node, its opset version, and for each input its type and, when
//! known at import time, its constant value. It answers one entry per node output.
//! Unknown stays unknown: a rule returns `Inferred::default()` rather than guessing.
//! An error is only for a definite inconsistency (shapes that cannot broadcast, a
//! Reshape target that does not fit), and names the input or attribute concerned;
//! the caller adds the node's name.
//!
//! Each family file registers its rules in `ShapeRules` (an `ops::OpTable`), keyed by
//! (domain, op, since) like the conversion's lowerings; `ShapeRules::infer` looks them
//! up there. The pipeline builds the table (`crate::op_tables`) and passes it down.

mod attention;
mod broadcast;
mod cast;
mod concat;
mod constant;
mod contrib;
mod control_flow;
mod conv_pool;
mod ctx;
mod detection;
mod dims;
mod einsum;
mod elementwise;
mod expand;
mod fold;
mod gather;
mod int_arith;
mod layout;
mod matmul;
mod normalization;
mod pad;
mod partial;
mod quantization;
mod range;
mod recurrent;
mod reductions;
mod reshape;
mod resize;
mod rules;
mod shape_of;
mod slice;
mod split;
mod squeeze;
pub mod symbolic;
#[cfg(test)]
mod test_util;
mod transformer_contrib;
mod transpose;
mod unary;
mod window;

use anyhow::Result;

use crate::dialect::types::{Dim, TensorType};
use crate::onnx::proto::NodeProto;
use crate::onnx::tensor::TensorData;

pub use ctx::{Ctx, Node, ShapeRule};
pub use rules::ShapeRules;

/// What is known about one input of a node. `None` in the input slice means the
/// optional input was left out (empty name).
#[derive(Clone, Copy, Debug)]
pub struct InferInput<'a> {
    pub ty: &'a TensorType,
    pub value: Option<&'a TensorData>,
    /// The elements of an integer tensor of rank 0 or 1 whose value is only partly
    /// known, each known or not (`Inferred::partial`).
    pub partial: Option<&'a [Dim]>,
}

/// What inference found for one output: its type, and its value when it can be computed
/// at import time (Constant, Shape of a static tensor, small integer shape arithmetic).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inferred {
    pub ty: TensorType,
    pub value: Option<TensorData>,
    /// When `value` is not known but some elements of a rank-0 or rank-1 integer result
    /// are: the shape vector `[?, 400, 6, 64]` that Shape of a tensor with a dynamic
    /// batch, Gather and Concat with constants make. Reshape, Expand and
    /// ConstantOfShape take their known dimensions from it.
    pub partial: Option<Vec<Dim>>,
}

impl ShapeRules {
    /// Infers the outputs of the ONNX `node` (default domain `""` or another domain
    /// such as `com.microsoft`) at `opset`. Returns exactly `node.output.len()` entries.
    pub fn infer(
        &self,
        node: &NodeProto,
        domain: &str,
        opset: i64,
        inputs: &[Option<InferInput<'_>>],
    ) -> Result<Vec<Inferred>> {
        self.infer_node(&Node::of_proto(node), domain, opset, inputs)
    }

    /// `infer` for a node seen through `Node`, such as an import-form op being folded.
    /// Returns exactly `node.outputs` entries.
    pub fn infer_node(
        &self,
        node: &Node<'_>,
        domain: &str,
        opset: i64,
        inputs: &[Option<InferInput<'_>>],
    ) -> Result<Vec<Inferred>> {
        let domain = if domain == "ai.onnx" { "" } else { domain };
        let mut out = match self.rule(domain, node.op_type, opset) {
            Some((_, rule)) => rule(&Ctx::new(node, opset, inputs))?,
            None => Vec::new(),
        };
        // Rules answer for the outputs they know; optional trailing outputs stay unknown.
        out.resize(node.outputs, Inferred::default());
        Ok(out)
    }
}

/// Adds every shape rule to `r`, one family file at a time. Each rule reads
/// `ctx.opset` itself where versions differ, so all are registered from opset 1.
pub(crate) fn register(r: &mut ShapeRules) {
    unary::register(r);
    elementwise::register(r);
    quantization::register(r);
    conv_pool::register(r);
    matmul::register(r);
    reshape::register(r);
    squeeze::register(r);
    transpose::register(r);
    concat::register(r);
    split::register(r);
    slice::register(r);
    gather::register(r);
    shape_of::register(r);
    constant::register(r);
    cast::register(r);
    pad::register(r);
    resize::register(r);
    expand::register(r);
    range::register(r);
    layout::register(r);
    normalization::register(r);
    reductions::register(r);
    contrib::register(r);
    transformer_contrib::register(r);
    attention::register(r);
    recurrent::register(r);
    einsum::register(r);
    detection::register(r);
    control_flow::register(r);
}

#[cfg(test)]
mod tests {
    use super::InferInput;
    use super::test_util::{In, N, out_ints, run, run_in, shape_rules, ty};
    use crate::dialect::types::TensorType;
    use crate::onnx::dtype::DType;
    use crate::onnx::tensor::TensorData;

    #[test]
    fn unknown_ops_and_domains_answer_unknown_for_every_output() {
        let n = N::new("NoSuchOp", &["x"], 3);
        let outs = run(&n, 13, &[Some(In::new(DType::F32, &[2]))]).unwrap();
        assert_eq!(outs.len(), 3);
        assert!(outs.iter().all(|o| *o == super::Inferred::default()));
        let n = N::new("Relu", &["x"], 1);
        let outs = run_in("org.example", &n, 1, &[Some(In::new(DType::F32, &[2]))]).unwrap();
        assert_eq!(outs[0].ty, TensorType::unknown());
    }

    #[test]
    fn outputs_match_the_node_even_when_inputs_are_missing() {
        let n = N::new("DynamicQuantizeLinear", &["x"], 1);
        assert_eq!(run(&n, 11, &[]).unwrap().len(), 1);
        let n = N::new("Add", &["a", "b"], 1);
        assert_eq!(run(&n, 14, &[]).unwrap()[0].ty, TensorType::unknown());
    }

    /// The pattern exporters write for `x.view(x.size(0), -1)`: each step's value feeds
    /// the next, and Reshape finally sees a constant target.
    #[test]
    fn shape_arithmetic_chains_into_a_static_reshape() {
        let x = ty(DType::F32, &[8, 16, 4, 4]);
        let step = |node: &N, inputs: &[(&TensorType, Option<&TensorData>)]| {
            let refs: Vec<Option<InferInput>> = inputs
                .iter()
                .map(|&(ty, value)| {
                    Some(InferInput {
                        ty,
                        value,
                        partial: None,
                    })
                })
                .collect();
            shape_rules()
                .infer(&node.0, "", 13, &refs)
                .unwrap()
                .remove(0)
        };
        let shape = step(&N::new("Shape", &["x"], 1), &[(&x, None)]);
        let zero = In::ints(&[], &[0]);
        let batch = step(
            &N::new("Gather", &["shape", "zero"], 1),
            &[
                (&shape.ty, shape.value.as_ref()),
                (&zero.ty, zero.value.as_ref()),
            ],
        );
        let axes = In::ints(&[1], &[0]);
        let batch1 = step(
            &N::new("Unsqueeze", &["batch", "axes"], 1),
            &[
                (&batch.ty, batch.value.as_ref()),
                (&axes.ty, axes.value.as_ref()),
            ],
        );
        let minus_one = In::ints(&[1], &[-1]);
        let target = step(
            &N::new("Concat", &["batch1", "minus_one"], 1).int("axis", 0),
            &[
                (&batch1.ty, batch1.value.as_ref()),
                (&minus_one.ty, minus_one.value.as_ref()),
            ],
        );
        let outs = [target.clone()];
        assert_eq!(out_ints(&outs, 0), Some(vec![8, -1]));
        let y = step(
            &N::new("Reshape", &["x", "target"], 1),
            &[(&x, None), (&target.ty, target.value.as_ref())],
        );
        assert_eq!(y.ty, ty(DType::F32, &[8, 256]));
    }

    /// Malformed models must give errors or unknowns, never panics: huge and negative
    /// sizes, extreme attribute values, and values that disagree with their types.
    #[test]
    fn hostile_inputs_do_not_panic() {
        const OPS: &[&str] = &[
            "Add",
            "Where",
            "Conv",
            "QLinearConv",
            "ConvTranspose",
            "MaxPool",
            "MatMul",
            "QLinearMatMul",
            "Gemm",
            "Reshape",
            "Flatten",
            "Squeeze",
            "Unsqueeze",
            "Transpose",
            "Concat",
            "Split",
            "Slice",
            "Gather",
            "Shape",
            "ConstantOfShape",
            "Cast",
            "Pad",
            "Resize",
            "Expand",
            "Tile",
            "DepthToSpace",
            "ReduceMean",
            "QuantizeLinear",
        ];
        let huge = 1_000_000_000_000i64;
        // A value whose bytes fit neither its dims nor its declared type.
        let bad_value = || In {
            ty: ty(DType::I64, &[huge]),
            value: Some(TensorData {
                dtype: DType::I64,
                dims: vec![huge, 0],
                bytes: vec![0u8; 16].into(),
            }),
            partial: None,
        };
        for op in OPS {
            let node = N::new(op, &["a", "b", "c", "d", "e"], 2)
                .int("axis", i64::MIN)
                .ints("kernel_shape", &[i64::MAX, 1])
                .ints("strides", &[i64::MAX, 1])
                .ints("perm", &[i64::MAX, -1])
                .int("to", i64::MAX);
            let inputs = [
                Some(In::new(DType::U8, &[huge, huge, i64::MAX, huge])),
                Some(bad_value()),
                Some(In::ints(&[3], &[i64::MIN, -1, i64::MAX])),
                Some(In::new(DType::I8, &[0, huge])),
                None,
            ];
            for opset in [1, 7, 13, 21] {
                let outs = run(&node, opset, &inputs);
                assert!(outs.is_err() || outs.is_ok_and(|o| o.len() == 2), "{op}");
            }
            // Partly known vectors with extreme elements, and one whose elements do not
            // match its declared length.
            let mut short = In::partial(&[None, Some(i64::MAX)]);
            short.ty = ty(DType::I64, &[5]);
            let inputs = [
                Some(In::partial(&[
                    None,
                    Some(i64::MIN),
                    Some(-1),
                    Some(i64::MAX),
                ])),
                Some(In::partial(&[Some(i64::MAX), None, Some(0)])),
                Some(short),
                Some(In::partial(&[None, Some(-1)])),
                Some(In::partial(&[Some(-5), None])),
            ];
            for opset in [13, 21] {
                let outs = run(&node, opset, &inputs);
                assert!(outs.is_err() || outs.is_ok_and(|o| o.len() == 2), "{op}");
            }
        }
    }

    /// Smart-turn's attention reshape with a dynamic batch: the shape vector is
    /// `Concat(Shape(x)[0:1], [400, 6, 64])`, partly known, and Reshape takes its known
    /// sizes; Transpose then has them too.
    #[test]
    fn a_partly_known_shape_chains_into_a_partly_static_reshape() {
        let n = |op: &str, inputs: &[&str]| N::new(op, inputs, 1);
        let shape = run(
            &n("Shape", &["x"]).int("end", 1),
            18,
            &[Some(In::new(DType::F32, &[-1, 400, 384]))],
        )
        .unwrap()
        .remove(0);
        let batch = In {
            ty: shape.ty,
            value: shape.value,
            partial: shape.partial,
        };
        let target = run(
            &n("Concat", &["batch", "sizes"]).int("axis", 0),
            18,
            &[Some(batch), Some(In::ints(&[3], &[400, 6, 64]))],
        )
        .unwrap()
        .remove(0);
        assert_eq!(
            target.partial,
            Some(vec![None, Some(400), Some(6), Some(64)])
        );
        let target = In {
            ty: target.ty,
            value: target.value,
            partial: target.partial,
        };
        let y = run(
            &n("Reshape", &["x", "target"]),
            18,
            &[Some(In::new(DType::F32, &[-1, 400, 384])), Some(target)],
        )
        .unwrap();
        assert_eq!(y[0].ty, ty(DType::F32, &[-1, 400, 6, 64]));
    }
}
