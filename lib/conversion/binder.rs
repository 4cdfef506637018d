//! Reads an imported op (`torch.operator "onnx.X"`) into plain values: operands,
//! their types, result types and `torch.onnx.<name>` attributes (through the
//! `Attributes` getters shared with shape inference). Each getter fails with a message
//! naming the input or attribute, and takes a default when an optional attribute is
//! missing, so a handler reads as a short chain of binds.

use anyhow::{Context as _, Result, anyhow, bail};
use melior::Context;
use melior::ir::attribute::AttributeLike;
use melior::ir::attribute::DenseElementsAttribute;
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use melior::ir::{Attribute, Value, ValueLike};

use crate::dialect::onnx_attributes::OperatorAttributes;
use crate::dialect::ops::dense_attribute_data;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::{AttributeValue, Attributes};
use crate::onnx::tensor::TensorData;

pub struct Binder<'c, 'a> {
    pub context: &'c Context,
    pub op: OperationRef<'c, 'a>,
    /// The ONNX op type, e.g. `QLinearConv`.
    pub op_type: String,
    /// The opset version of the op's domain in the enclosing function.
    pub opset: i64,
}

impl<'c, 'a> Binder<'c, 'a> {
    pub fn new(context: &'c Context, op: OperationRef<'c, 'a>, op_type: &str, opset: i64) -> Self {
        Binder {
            context,
            op,
            op_type: op_type.to_string(),
            opset,
        }
    }

    /// `node 'conv1' (QLinearConv)` when the node had a name, else `QLinearConv`.
    pub fn label(&self) -> String {
        op_label(self.op, &self.op_type)
    }

    pub fn input_count(&self) -> usize {
        self.op.operand_count()
    }

    /// Whether optional input `i` was given (present and not `torch.constant.none`).
    pub fn has_input(&self, i: usize) -> bool {
        self.op
            .operand(i)
            .map(|v| v.r#type().to_string() != "!torch.none")
            .unwrap_or(false)
    }

    /// Required input `i`, called `name` in the ONNX spec.
    pub fn input(&self, i: usize, name: &str) -> Result<Value<'c, 'a>> {
        if !self.has_input(i) {
            bail!("missing required input {name}");
        }
        Ok(self.op.operand(i)?)
    }

    pub fn optional_input(&self, i: usize) -> Option<Value<'c, 'a>> {
        if self.has_input(i) {
            self.op.operand(i).ok()
        } else {
            None
        }
    }

    /// The tensor type of input `i`.
    pub fn input_type(&self, i: usize, name: &str) -> Result<TensorType> {
        let v = self.input(i, name)?;
        tensor_type_of(v).with_context(|| format!("input {name}"))
    }

    pub fn result_count(&self) -> usize {
        self.op.result_count()
    }

    /// Whether result `i` has a use anywhere in the function holding the op; lowerings
    /// refuse outputs they cannot produce only when something reads them.
    pub fn is_result_used(&self, i: usize) -> bool {
        let Ok(result) = self.op.result(i) else {
            return false;
        };
        let target = result.to_raw().ptr;
        let Some(scope) = self.op.parent_operation() else {
            return false;
        };
        let mut used = false;
        scope.walk(WalkOrder::PreOrder, |o| {
            if o.operands().any(|v| v.to_raw().ptr == target) {
                used = true;
                WalkResult::Interrupt
            } else {
                WalkResult::Advance
            }
        });
        used
    }

    pub fn result_type(&self, i: usize) -> Result<TensorType> {
        let v: Value = self.op.result(i)?.into();
        tensor_type_of(v).with_context(|| format!("output {i}"))
    }

    /// Input `i`'s value when it is a `torch.vtensor.literal`.
    pub fn constant_input(&self, i: usize) -> Option<TensorData> {
        literal_value(self.optional_input(i)?)
    }

    fn attribute(&self, name: &str) -> Option<Attribute<'c>> {
        self.op.attribute(&format!("torch.onnx.{name}")).ok()
    }

    /// A tensor-valued attribute, such as Constant's `value`.
    pub fn tensor_attribute(&self, name: &str) -> Result<Option<(Attribute<'c>, TensorData)>> {
        let Some(a) = self.attribute(name) else {
            return Ok(None);
        };
        let dense = DenseElementsAttribute::try_from(a)
            .map_err(|_| anyhow!("attribute '{name}' is not a tensor"))?;
        let ty = TensorType::parse(&tensor_type_text(&dense.r#type().to_string()))
            .ok_or_else(|| anyhow!("attribute '{name}' has an unsupported element type"))?;
        let data = dense_attribute_data(a, &ty)
            .ok_or_else(|| anyhow!("attribute '{name}' cannot be read"))?;
        Ok(Some((a, data)))
    }
}

/// The op's `torch.onnx.*` attributes, through the getters every ONNX reader shares.
impl Attributes for Binder<'_, '_> {
    fn value(&self, name: &str) -> Option<AttributeValue<'_>> {
        OperatorAttributes(self.op).read(name)
    }
}

/// How messages name an imported op: by its node name when it had one.
pub fn op_label(op: OperationRef<'_, '_>, op_type: &str) -> String {
    match node_name(&op.location().to_string()) {
        Some(name) => format!("node '{name}' ({op_type})"),
        None => op_type.to_string(),
    }
}

/// The torch tensor type of a value, or an error for non-tensor values.
pub fn tensor_type_of(v: Value<'_, '_>) -> Result<TensorType> {
    let text = v.r#type().to_string();
    TensorType::parse(&text).ok_or_else(|| anyhow!("is {text}, not a tensor"))
}

/// The data of a value defined by `torch.vtensor.literal`.
pub fn literal_value(v: Value<'_, '_>) -> Option<TensorData> {
    let ty = tensor_type_of(v).ok()?;
    let result = melior::ir::operation::OperationResult::try_from(v).ok()?;
    let owner = result.owner();
    if owner.name().as_string_ref().as_str().ok()? != "torch.vtensor.literal" {
        return None;
    }
    dense_attribute_data(owner.attribute("value").ok()?, &ty)
}

/// `tensor<2x3xf32>` spelled as the torch type with the same shape and element type.
fn tensor_type_text(builtin: &str) -> String {
    let Some(body) = builtin
        .strip_prefix("tensor<")
        .and_then(|b| b.strip_suffix('>'))
    else {
        return String::new();
    };
    let mut parts: Vec<&str> = body.split('x').collect();
    let elem = parts.pop().unwrap_or("");
    let elem = match elem {
        "i8" => "si8",
        "i16" => "si16",
        "i32" => "si32",
        "i64" => "si64",
        e => e,
    };
    format!("!torch.vtensor<[{}],{elem}>", parts.join(","))
}

/// The node name in a location printed as `loc("conv1")`.
fn node_name(location: &str) -> Option<String> {
    let inner = location.strip_prefix("loc(\"")?;
    let end = inner.find('"')?;
    let rest = &inner[end + 1..];
    // A name location prints as `loc("name")`; a file location has `":line:col`.
    if rest.starts_with(':') {
        return None;
    }
    Some(inner[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_tensor_types_read_as_torch_types() {
        assert_eq!(
            tensor_type_text("tensor<2x3xf32>"),
            "!torch.vtensor<[2,3],f32>"
        );
        assert_eq!(tensor_type_text("tensor<si64>"), "!torch.vtensor<[],si64>");
        assert_eq!(tensor_type_text("tensor<4xui8>"), "!torch.vtensor<[4],ui8>");
    }

    #[test]
    fn node_names_come_from_name_locations_only() {
        assert_eq!(node_name("loc(\"conv1\")").as_deref(), Some("conv1"));
        assert_eq!(node_name("loc(\"a.mlir\":3:4)"), None);
        assert_eq!(node_name("loc(unknown)"), None);
    }
}
