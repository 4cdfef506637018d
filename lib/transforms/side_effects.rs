//! Which ops are free of side effects, so that an unused one may be removed. The torch
//! dialect is not registered, so MLIR knows nothing about these ops: this list is ours.
//! An op not on it is kept, whatever its uses.

use melior::ir::attribute::StringAttribute;
use melior::ir::operation::{OperationLike, OperationRef};

/// Torch-form op names (or prefixes ending in `.`) that only compute values.
const PURE_TORCH: &[&str] = &[
    "torch.constant.",
    "torch.vtensor.literal",
    "torch.prim.ListConstruct",
    "torch.prim.ListUnpack",
    "torch.prim.NumToTensor.Scalar",
    "torch.prim.TupleConstruct",
    "torch.aten.",
    // The fused ops of `fuse-for-cpu`: each computes its results from its operands.
    "qlower.",
];

/// `torch.aten.*` ops that write into an operand or have other effects; never removed.
const EFFECTFUL_ATEN: &[&str] = &[
    "torch.aten.copy_",
    "torch.aten.print",
    "torch.aten.warn",
    "torch.aten.manual_seed",
    "torch.aten.bernoulli",
    "torch.aten.dropout",
    "torch.aten.rand",
    "torch.aten.randn",
    "torch.aten.randint",
    "torch.aten.uniform",
    "torch.aten.normal",
];

/// ONNX ops in import form (`torch.operator "onnx.X"`) that are pure functions of their
/// inputs. Random generators and anything with subgraphs are left out.
const PURE_ONNX: &[&str] = &[
    "Abs",
    "Add",
    "And",
    "ArgMax",
    "ArgMin",
    "AveragePool",
    "BatchNormalization",
    "Cast",
    "CastLike",
    "Ceil",
    "Clip",
    "Concat",
    "Constant",
    "ConstantOfShape",
    "Conv",
    "ConvInteger",
    "DequantizeLinear",
    "Div",
    "DynamicQuantizeLinear",
    "Equal",
    "Erf",
    "Exp",
    "Expand",
    "Flatten",
    "Floor",
    "Gather",
    "GatherElements",
    "Gemm",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "Greater",
    "Identity",
    "LeakyRelu",
    "Less",
    "Log",
    "MatMul",
    "MatMulInteger",
    "Max",
    "MaxPool",
    "Min",
    "Mul",
    "Neg",
    "Not",
    "Or",
    "Pad",
    "Pow",
    "QLinearConv",
    "QLinearMatMul",
    "QuantizeLinear",
    "Range",
    "Reciprocal",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceSum",
    "Relu",
    "Reshape",
    "Resize",
    "Shape",
    "Sigmoid",
    "Sign",
    "Size",
    "Slice",
    "Softmax",
    "Split",
    "Sqrt",
    "Squeeze",
    "Sub",
    "Tanh",
    "Tile",
    "Transpose",
    "Unsqueeze",
    "Where",
];

/// Whether `op` only computes its results, so that it can go when nothing reads them.
pub fn is_pure(op: OperationRef<'_, '_>) -> bool {
    let name = super::constants::op_name(op);
    let name = name.as_str();
    if op.region_count() > 0 {
        return false;
    }
    if name == "torch.operator" {
        return onnx_name(op).is_some_and(|n| {
            n.strip_prefix("onnx.")
                .is_some_and(|t| PURE_ONNX.contains(&t))
        });
    }
    if is_in_place(name) || EFFECTFUL_ATEN.iter().any(|e| name.starts_with(e)) {
        return false;
    }
    PURE_TORCH.iter().any(|p| {
        if p.ends_with('.') {
            name.starts_with(p)
        } else {
            name == *p
        }
    })
}

/// In-place variants (`torch.aten.add_.Tensor`, `relu_`) write into their first
/// operand. Python's dunder ops (`__and__.Tensor`) are not in-place.
fn is_in_place(name: &str) -> bool {
    let base = name
        .strip_prefix("torch.aten.")
        .and_then(|r| r.split('.').next())
        .unwrap_or("");
    base.ends_with('_') && !base.starts_with("__")
}

/// The `name` attribute of a `torch.operator`: `onnx.Add`.
pub fn onnx_name(op: OperationRef<'_, '_>) -> Option<String> {
    let attr = op.attribute("name").ok()?;
    StringAttribute::try_from(attr)
        .ok()
        .map(|s| s.value().to_string())
}

/// The name the Q/DQ set is keyed on: the op's name, or for `torch.operator` its
/// `name` attribute.
pub fn qdq_key(op: OperationRef<'_, '_>) -> String {
    let name = super::constants::op_name(op);
    if name == "torch.operator" {
        onnx_name(op).unwrap_or(name)
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::is_in_place;

    #[test]
    fn in_place_variants_are_recognized_by_their_base_name() {
        assert!(is_in_place("torch.aten.add_.Tensor"));
        assert!(is_in_place("torch.aten.relu_"));
        assert!(!is_in_place("torch.aten.add.Tensor"));
        assert!(!is_in_place("torch.aten.__and__.Tensor"));
        assert!(!is_in_place("torch.aten._make_per_tensor_quantized_tensor"));
    }
}
