//! The view a rule has of its node: typed access to inputs and attributes, and the
//! small constructors rules build their answers with.

use anyhow::{Result, bail};

use super::{InferInput, Inferred, fold};
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::attributes::Attributes;
use crate::onnx::dtype::{DType, onnx_type_name};
use crate::onnx::proto::NodeProto;
use crate::onnx::tensor::TensorData;

/// What a rule knows of a node besides its inputs: its type, which input slots it
/// names, how many outputs it has, and its attributes. Built from an ONNX `NodeProto`
/// at import, and from a `torch.operator` when folding.
pub struct Node<'a> {
    pub op_type: &'a str,
    /// Per input slot, whether the node names it; an empty name leaves it out.
    pub named_inputs: Vec<bool>,
    pub outputs: usize,
    pub attributes: &'a dyn Attributes,
}

impl<'a> Node<'a> {
    pub fn of_proto(node: &'a NodeProto) -> Self {
        Node {
            op_type: &node.op_type,
            named_inputs: node.input.iter().map(|n| !n.is_empty()).collect(),
            outputs: node.output.len(),
            attributes: node,
        }
    }
}

/// One inference rule: the node in context, to one entry per output it can say
/// anything about (the caller pads the rest with unknowns).
pub type ShapeRule = fn(&Ctx<'_>) -> Result<Vec<Inferred>>;

pub struct Ctx<'a> {
    pub node: &'a Node<'a>,
    pub opset: i64,
    inputs: &'a [Option<InferInput<'a>>],
}

impl<'a> Ctx<'a> {
    pub fn new(node: &'a Node<'a>, opset: i64, inputs: &'a [Option<InferInput<'a>>]) -> Self {
        Ctx {
            node,
            opset,
            inputs,
        }
    }

    /// Whether the node names input `i`; the importer passes `None` both for left-out
    /// inputs and for values it knows nothing about, and only the names tell them apart.
    pub fn present(&self, i: usize) -> bool {
        self.node.named_inputs.get(i).copied().unwrap_or(false)
    }

    pub fn input(&self, i: usize) -> Option<InferInput<'a>> {
        if !self.present(i) {
            return None;
        }
        self.inputs.get(i).copied().flatten()
    }

    pub fn ty(&self, i: usize) -> Option<&'a TensorType> {
        self.input(i).map(|x| x.ty)
    }

    pub fn dtype(&self, i: usize) -> Option<DType> {
        self.ty(i).and_then(|t| t.dtype)
    }

    /// The input's shape; a negative size, which no real tensor has, counts as dynamic.
    pub fn shape(&self, i: usize) -> Option<Vec<Dim>> {
        let dims = self.ty(i)?.shape.as_ref()?;
        Some(dims.iter().map(|d| d.filter(|&n| n >= 0)).collect())
    }

    pub fn rank(&self, i: usize) -> Option<usize> {
        self.ty(i).and_then(TensorType::rank)
    }

    pub fn value(&self, i: usize) -> Option<&'a TensorData> {
        self.input(i).and_then(|x| x.value)
    }

    /// The elements of a constant integer input, such as a shape or a list of axes.
    pub fn ints(&self, i: usize) -> Option<Vec<i64>> {
        self.value(i).and_then(fold::decode_ints)
    }

    /// The element type that `inputs` (index, name for messages) must share, or an
    /// error naming the first that disagrees.
    pub fn shared_dtype(&self, inputs: &[(usize, String)]) -> Result<Option<DType>> {
        let mut first: Option<(&str, DType)> = None;
        for (i, name) in inputs {
            match (first, self.dtype(*i)) {
                (Some((f, d)), Some(e)) if d != e => {
                    bail!("{name} has element type {e}, but {f} has {d}")
                }
                (None, Some(e)) => first = Some((name, e)),
                _ => {}
            }
        }
        Ok(first.map(|(_, d)| d))
    }

    pub fn outputs(&self) -> usize {
        self.node.outputs
    }

    /// The number of input slots the node lists, named or left out.
    pub fn input_slots(&self) -> usize {
        self.node.named_inputs.len()
    }

    /// The node's attributes, through the getters conversion reads them with too.
    pub fn attrs(&self) -> &'a dyn Attributes {
        self.node.attributes
    }

    /// An element type named by an integer attribute such as `to`. Absent or 0
    /// (UNDEFINED) is `None`, and so is a real ONNX type qlower cannot carry: that is
    /// a limit of qlower, not an inconsistency. A code ONNX does not define is an error.
    pub fn dtype_attr(&self, name: &str) -> Result<Option<DType>> {
        let code = self.attrs().int(name, 0)?;
        if code == 0 {
            return Ok(None);
        }
        let Ok(code32) = i32::try_from(code) else {
            bail!("attribute '{name}' is {code}, which is not an ONNX data type");
        };
        if onnx_type_name(code32).is_none() {
            bail!("attribute '{name}' is {code}, which is not an ONNX data type");
        }
        Ok(DType::from_onnx(code32).ok())
    }
}

impl Inferred {
    pub(super) fn of(dtype: Option<DType>, shape: Option<Vec<Dim>>) -> Inferred {
        Inferred {
            ty: TensorType { dtype, shape },
            value: None,
            partial: None,
        }
    }

    pub(super) fn with_value(mut self, value: Option<TensorData>) -> Inferred {
        self.value = value;
        self
    }
}
