//! What the converter knows about each value before it edits anything: its type (rank
//! and element type) and, for small constants, its value. Read from the declared types,
//! the initializers and Constant nodes, and carried through the graph by qlower's own
//! shape inference at the source opset. Unknown stays unknown: a converter that needs a
//! fact it lacks either takes a form that does not need it or refuses the node.

use std::collections::HashMap;
use std::path::Path;

use crate::import::shape_inference::{InferInput, ShapeRules};
use crate::import::value_types::declared_type;
use crate::kernels::tensor::tensor_type::TensorType;
use crate::onnx::proto::{GraphProto, NodeProto};
use crate::onnx::tensor::{self, TensorData};
use crate::onnx::validate::canonical_domain;

#[derive(Clone, Debug, Default)]
struct Fact {
    ty: TensorType,
    value: Option<TensorData>,
    partial: Option<Vec<Option<i64>>>,
}

/// Types and constant values by value name.
#[derive(Default)]
pub struct Facts(HashMap<String, Fact>);

impl Facts {
    /// Walks `nodes` (producers first) at the model's `opsets`, starting from what
    /// `graph` declares, inferring with `shapes`. A node inference cannot read just
    /// leaves its outputs unknown.
    pub fn of(
        graph: &GraphProto,
        nodes: &[NodeProto],
        opsets: &HashMap<String, i64>,
        dir: Option<&Path>,
        shapes: &ShapeRules,
    ) -> Facts {
        let mut facts = HashMap::<String, Fact>::new();
        for info in graph.input.iter().chain(&graph.value_info) {
            if let Ok(ty) = declared_type(info) {
                facts.entry(info.name.clone()).or_default().ty = ty;
            }
        }
        for init in &graph.initializer {
            // Only what a converter may read as a constant is decoded: small tensors
            // (scales, axes, shapes); a weight only needs its type.
            let ty = TensorType {
                dtype: crate::onnx::dtype::DType::from_onnx(init.data_type).ok(),
                shape: Some(init.dims.iter().map(|&d| Some(d)).collect()),
            };
            // Checked, as the dims are the file's word.
            let count = init
                .dims
                .iter()
                .try_fold(1i64, |n, &d| if d < 0 { None } else { n.checked_mul(d) });
            let small = count.is_some_and(|n| n <= 64);
            let value = small.then(|| tensor::decode(init, dir).ok()).flatten();
            facts.insert(
                init.name.clone(),
                Fact {
                    ty,
                    value,
                    partial: None,
                },
            );
        }
        for node in nodes {
            let domain = canonical_domain(&node.domain);
            let Some(&opset) = opsets.get(domain) else {
                continue;
            };
            let inputs: Vec<Option<InferInput>> = node
                .input
                .iter()
                .map(|name| {
                    facts.get(name).map(|f| InferInput {
                        ty: &f.ty,
                        value: f.value.as_ref(),
                        partial: f.partial.as_deref(),
                    })
                })
                .collect();
            let Ok(inferred) = shapes.infer(node, domain, opset, &inputs) else {
                continue;
            };
            for (out, inf) in node.output.iter().zip(inferred) {
                if out.is_empty() {
                    continue;
                }
                let fact = facts.entry(out.clone()).or_default();
                fact.ty = fact.ty.merge(&inf.ty).unwrap_or(inf.ty);
                fact.value = inf.value;
                fact.partial = inf.partial;
            }
        }
        Facts(facts)
    }

    pub fn ty(&self, name: &str) -> Option<&TensorType> {
        self.0.get(name).map(|f| &f.ty)
    }

    pub fn rank(&self, name: &str) -> Option<usize> {
        self.ty(name).and_then(TensorType::rank)
    }

    /// The value of a constant known before run time (an initializer, a Constant, or
    /// arithmetic on shapes that inference folded).
    pub fn value(&self, name: &str) -> Option<&TensorData> {
        self.0.get(name).and_then(|f| f.value.as_ref())
    }

    /// Records the type of a value a conversion made, so later nodes see it.
    pub fn declare(&mut self, name: &str, ty: TensorType) {
        self.0.entry(name.to_string()).or_default().ty = ty;
    }
}
