//! Folding in the import form: a `torch.operator "onnx.X"` whose inputs are all
//! literals is evaluated by qlower's shape inference, which computes the values of the
//! shape arithmetic exporters emit (Shape, Gather, Unsqueeze, Concat, Reshape, Add, Mul,
//! Sub, … on small integer tensors). Float arithmetic in the import form is folded after
//! conversion, by the runtime's kernels. Q/DQ ops are never folded.

use melior::ir::attribute::{ArrayAttribute, FloatAttribute, IntegerAttribute, StringAttribute};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Attribute, ValueLike};
use melior::{Context, RewriterBase};

use super::constants::{defining_op, op_name};
use super::fold_constants::replace_with_constants;
use super::limits::FoldLimits;
use super::side_effects::onnx_name;
use crate::conversion::binder::literal_value;
use crate::conversion::registry::split_op_name;
use crate::dialect::qdq::is_qdq;
use crate::dialect::types::TensorType;
use crate::import::shape_inference::{InferInput, infer};
use crate::kernels::ResultType;
use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::value::Value;
use crate::onnx::proto::attribute_proto::AttributeType;
use crate::onnx::proto::{AttributeProto, NodeProto};
use crate::rewrite::PatternResult;
use crate::runtime::plan::result_type;

pub(super) fn fold<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
    limits: FoldLimits,
) -> PatternResult {
    let Some(name) = onnx_name(op) else {
        crate::no_match!("torch.operator has no name");
    };
    if is_qdq(&name) {
        crate::no_match!("{name} is a quantization op; it is never folded");
    }
    let (domain, op_type) = split_op_name(&name);
    if !domain.is_empty() {
        crate::no_match!("only default-domain ops fold in the import form");
    }
    let mut types = Vec::new();
    let mut values = Vec::new();
    for (i, v) in op.operands().enumerate() {
        let Some(def) = defining_op(v) else {
            crate::no_match!("input {i} is not a constant");
        };
        if op_name(def) == "torch.constant.none" {
            types.push(None);
            values.push(None);
            continue;
        }
        let Some(data) = literal_value(v) else {
            crate::no_match!("input {i} is not a literal");
        };
        if data.element_count() > limits.max_input_elements {
            crate::no_match!("input {i} is larger than the folding limit");
        }
        types.push(TensorType::parse(&v.r#type().to_string()));
        values.push(Some(data));
    }
    let inputs: Vec<Option<InferInput>> = types
        .iter()
        .zip(&values)
        .map(|(t, v)| {
            Some(InferInput {
                ty: t.as_ref()?,
                value: v.as_ref(),
            })
        })
        .collect();
    let node = NodeProto {
        op_type: op_type.to_string(),
        input: (0..inputs.len()).map(|i| format!("in{i}")).collect(),
        output: (0..op.result_count()).map(|i| format!("out{i}")).collect(),
        attribute: attributes(op),
        ..Default::default()
    };
    let opset = opset_version(op);
    let Ok(inferred) = infer(&node, "", opset, &inputs) else {
        crate::no_match!("inference refused the constants");
    };
    let mut out = Vec::new();
    let mut declared = Vec::new();
    for (i, (inf, r)) in inferred.iter().zip(op.results()).enumerate() {
        let Some(data) = &inf.value else {
            crate::no_match!("output {i} has no value known at compile time");
        };
        let Ok(t) = Tensor::from_tensor_data(data) else {
            crate::no_match!("output {i} cannot be decoded");
        };
        out.push(Value::tensor(t));
        declared.push(result_type(r.into())?);
    }
    if out.len() != op.result_count() {
        crate::no_match!("inference gave too few outputs");
    }
    if declared.iter().any(|d| !matches!(d, ResultType::Tensor(_))) {
        crate::no_match!("a result is not a tensor");
    }
    replace_with_constants(context, op, rewriter, &out, &declared, limits)
}

/// The node's attributes back in ONNX form, from their `torch.onnx.<name>` spelling.
/// Attributes of kinds inference never reads for foldable ops are left out.
fn attributes(op: OperationRef<'_, '_>) -> Vec<AttributeProto> {
    op.attributes()
        .filter_map(|(id, attr)| {
            let id = id.as_string_ref().as_str().ok()?.to_string();
            let name = id.strip_prefix("torch.onnx.")?.to_string();
            let mut a = AttributeProto {
                name,
                ..Default::default()
            };
            fill(&mut a, attr)?;
            Some(a)
        })
        .collect()
}

fn fill(a: &mut AttributeProto, attr: Attribute<'_>) -> Option<()> {
    if let Ok(i) = IntegerAttribute::try_from(attr) {
        a.i = i.value();
        a.r#type = AttributeType::Int as i32;
    } else if let Ok(f) = FloatAttribute::try_from(attr) {
        a.f = f.value() as f32;
        a.r#type = AttributeType::Float as i32;
    } else if let Ok(s) = StringAttribute::try_from(attr) {
        a.s = s.value().as_bytes().to_vec().into();
        a.r#type = AttributeType::String as i32;
    } else if let Ok(array) = ArrayAttribute::try_from(attr) {
        let elements: Vec<Attribute> = (0..array.len())
            .map(|i| array.element(i).ok())
            .collect::<Option<_>>()?;
        if elements
            .iter()
            .all(|e| IntegerAttribute::try_from(*e).is_ok())
        {
            a.ints = elements
                .iter()
                .filter_map(|e| IntegerAttribute::try_from(*e).ok().map(|i| i.value()))
                .collect();
            a.r#type = AttributeType::Ints as i32;
        } else if elements
            .iter()
            .all(|e| FloatAttribute::try_from(*e).is_ok())
        {
            a.floats = elements
                .iter()
                .filter_map(|e| FloatAttribute::try_from(*e).ok().map(|f| f.value() as f32))
                .collect();
            a.r#type = AttributeType::Floats as i32;
        } else {
            return None;
        }
    } else {
        return None;
    }
    Some(())
}

/// The default-domain opset of the function holding `op`.
fn opset_version(op: OperationRef<'_, '_>) -> i64 {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        if op_name(parent) == "func.func" {
            return parent
                .attribute("torch.onnx_meta.opset_version")
                .ok()
                .and_then(|a| IntegerAttribute::try_from(a).ok())
                .map(|i| i.value())
                .unwrap_or(0);
        }
        current = parent.parent_operation();
    }
    0
}
