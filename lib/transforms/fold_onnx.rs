//! Folding in the import form: a `torch.operator "onnx.X"` whose inputs are all
//! literals is evaluated by qlower's shape inference (reading the op's attributes in
//! place, through the same getters as at import), which computes the values of the
//! shape arithmetic exporters emit (Shape, Gather, Unsqueeze, Concat, Reshape, Add, Mul,
//! Sub, … on small integer tensors). Float arithmetic in the import form is folded after
//! conversion, by the runtime's kernels. Q/DQ ops are never folded.

use melior::ir::ValueLike;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::{Context, RewriterBase};

use super::constants::{defining_op, op_name};
use super::fold_constants::replace_with_constants;
use super::limits::FoldLimits;
use super::side_effects::onnx_name;
use crate::conversion::binder::literal_value;
use crate::dialect::onnx_attributes::OperatorAttributes;
use crate::dialect::qdq::is_qdq;
use crate::dialect::types::TensorType;
use crate::import::shape_inference::{InferInput, Node, ShapeRules};
use crate::kernels::ResultType;
use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::value::Value;
use crate::ops::opset::version_for;
use crate::ops::split_op_name;
use crate::rewrite::PatternResult;
use crate::runtime::ir_values::result_type;

pub(super) fn fold<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
    limits: FoldLimits,
    shapes: &ShapeRules,
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
    if op.region_count() > 0 {
        crate::no_match!("{name} has regions; a node's kernel cannot evaluate them");
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
                partial: None,
            })
        })
        .collect();
    // Every operand slot is named: a left-out input is a `torch.constant.none` operand.
    let attributes = OperatorAttributes(op);
    let node = Node {
        op_type,
        named_inputs: vec![true; inputs.len()],
        outputs: op.result_count(),
        attributes: &attributes,
    };
    let opset = version_for(op, "");
    let Ok(inferred) = shapes.infer_node(&node, "", opset, &inputs) else {
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
