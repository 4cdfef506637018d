//! Emits torch-dialect ops through a rewriter, at its insertion point. Handlers of the
//! lowering build their replacement sequences with it, so every op is spelled (name,
//! operand order, attribute names and types) the way torch-mlir's `torch` dialect does.

use std::cell::RefCell;

use anyhow::{Context as _, Result};
use melior::Context;
use melior::RewriterBase;
use melior::ir::attribute::{BoolAttribute, FloatAttribute, IntegerAttribute, StringAttribute};
use melior::ir::operation::{Operation, OperationBuilder, OperationRef};
use melior::ir::r#type::IntegerType;
use melior::ir::{Attribute, Identifier, Location, Type, Value};

use super::ops::{dense_attribute, tensor_type};
use super::types::TensorType;
use crate::onnx::dtype::DType;
use crate::onnx::tensor::TensorData;

/// `'a` is the lifetime of the block being rewritten: the values this builder returns
/// are results of ops inserted into it.
pub struct TorchBuilder<'c: 'a, 'a> {
    context: &'c Context,
    rewriter: RewriterBase<'c, 'a>,
    location: Location<'c>,
    /// Every op inserted so far, so a failed rewrite can take them out again.
    inserted: RefCell<Vec<OperationRef<'c, 'a>>>,
}

impl<'c: 'a, 'a> TorchBuilder<'c, 'a> {
    pub fn new(
        context: &'c Context,
        rewriter: RewriterBase<'c, 'a>,
        location: Location<'c>,
    ) -> Self {
        TorchBuilder {
            context,
            rewriter,
            location,
            inserted: RefCell::new(Vec::new()),
        }
    }

    /// Erases every op this builder inserted, newest first. A pattern that fails must
    /// leave the IR as it found it.
    pub fn erase_inserted(&self) {
        let Ok(mut ops) = self.inserted.try_borrow_mut() else {
            return;
        };
        while let Some(op) = ops.pop() {
            self.rewriter.erase_op(op);
        }
    }

    pub fn context(&self) -> &'c Context {
        self.context
    }

    /// The rewriter, for lowerings that move regions' blocks (If's branches).
    pub fn rewriter(&self) -> &RewriterBase<'c, 'a> {
        &self.rewriter
    }

    /// Any op, inserted at the rewriter's insertion point.
    pub fn op(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<OperationRef<'c, 'a>> {
        let attributes: Vec<(Identifier, Attribute)> = attributes
            .iter()
            .map(|(n, a)| (Identifier::new(self.context, n), *a))
            .collect();
        let op = OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .add_results(results)
            .add_attributes(&attributes)
            .build()
            .with_context(|| format!("building {name}"))?;
        self.insert(op)
    }

    /// An op built elsewhere (one with regions, say), inserted at the rewriter's
    /// insertion point like `op`'s.
    pub fn insert(&self, op: Operation<'c>) -> Result<OperationRef<'c, 'a>> {
        let inserted = self.rewriter.insert(op);
        // SAFETY: the op now belongs to the rewriter's block, which outlives `'a`; the
        // handle's lifetime is only re-associated from the rewriter borrow to that block.
        let op = unsafe { OperationRef::from_raw(inserted.to_raw()) };
        if let Ok(mut ops) = self.inserted.try_borrow_mut() {
            ops.push(op);
        }
        Ok(op)
    }

    fn single(&self, op: OperationRef<'c, 'a>) -> Result<Value<'c, 'a>> {
        Ok(op.result(0)?.into())
    }

    /// `torch.aten.<name>` with one result.
    pub fn aten(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        result: Type<'c>,
    ) -> Result<Value<'c, 'a>> {
        self.single(self.op(&format!("torch.aten.{name}"), operands, &[result], &[])?)
    }

    /// `torch.aten.<name>` producing a tensor of type `result`.
    pub fn aten_tensor(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        result: &TensorType,
    ) -> Result<Value<'c, 'a>> {
        self.aten(name, operands, self.tensor_type(result)?)
    }

    pub fn tensor_type(&self, t: &TensorType) -> Result<Type<'c>> {
        tensor_type(self.context, t)
    }

    /// A torch scalar or list type by name: `int`, `float`, `bool`, `none`, `list<int>`.
    pub fn torch_type(&self, name: &str) -> Result<Type<'c>> {
        let text = format!("!torch.{name}");
        Type::parse(self.context, &text).with_context(|| format!("MLIR refused the type {text}"))
    }

    pub fn int(&self, v: i64) -> Result<Value<'c, 'a>> {
        let i64_type: Type = IntegerType::new(self.context, 64).into();
        let attr = IntegerAttribute::new(i64_type, v).into();
        let ty = self.torch_type("int")?;
        self.single(self.op("torch.constant.int", &[], &[ty], &[("value", attr)])?)
    }

    pub fn float(&self, v: f64) -> Result<Value<'c, 'a>> {
        let attr = FloatAttribute::new(self.context, Type::float64(self.context), v).into();
        let ty = self.torch_type("float")?;
        self.single(self.op("torch.constant.float", &[], &[ty], &[("value", attr)])?)
    }

    pub fn bool(&self, v: bool) -> Result<Value<'c, 'a>> {
        let attr = BoolAttribute::new(self.context, v).into();
        let ty = self.torch_type("bool")?;
        self.single(self.op("torch.constant.bool", &[], &[ty], &[("value", attr)])?)
    }

    pub fn str(&self, v: &str) -> Result<Value<'c, 'a>> {
        let attr = StringAttribute::new(self.context, v).into();
        let ty = self.torch_type("str")?;
        self.single(self.op("torch.constant.str", &[], &[ty], &[("value", attr)])?)
    }

    pub fn none(&self) -> Result<Value<'c, 'a>> {
        let ty = self.torch_type("none")?;
        self.single(self.op("torch.constant.none", &[], &[ty], &[])?)
    }

    /// `torch.prim.ListConstruct` of `elements`, typed `!torch.list<elem>`.
    pub fn list(&self, elements: &[Value<'c, '_>], elem: &str) -> Result<Value<'c, 'a>> {
        let ty = self.torch_type(&format!("list<{elem}>"))?;
        self.single(self.op("torch.prim.ListConstruct", elements, &[ty], &[])?)
    }

    /// A `!torch.list<int>` of constants.
    pub fn int_list(&self, values: &[i64]) -> Result<Value<'c, 'a>> {
        let elements = values
            .iter()
            .map(|&v| self.int(v))
            .collect::<Result<Vec<_>>>()?;
        self.list(&elements, "int")
    }

    pub fn literal(&self, data: &TensorData) -> Result<Value<'c, 'a>> {
        let ty = self.tensor_type(&TensorType::known(data.dtype, &data.dims))?;
        let attr = dense_attribute(self.context, data)?;
        self.single(self.op("torch.vtensor.literal", &[], &[ty], &[("value", attr)])?)
    }

    /// `torch.runtime.assert`: stops the run with `message` when `cond` is false. For
    /// checks that only values known at run time can make (an axis read from a tensor).
    pub fn runtime_assert(&self, cond: Value<'c, '_>, message: &str) -> Result<()> {
        let attr = StringAttribute::new(self.context, message).into();
        self.op("torch.runtime.assert", &[cond], &[], &[("message", attr)])?;
        Ok(())
    }

    /// `torch.aten.to.dtype` to `to`'s element type.
    pub fn cast(&self, v: Value<'c, '_>, to: &TensorType) -> Result<Value<'c, 'a>> {
        let dtype = to.dtype.context("cast to an unknown element type")?;
        let code = self.int(dtype.torch_scalar_type())?;
        let no = self.bool(false)?;
        let none = self.none()?;
        self.aten_tensor("to.dtype", &[v, code, no, no, none], to)
    }

    /// `torch.aten.item` of a one-element tensor as `!torch.float`.
    pub fn item_float(&self, v: Value<'c, '_>) -> Result<Value<'c, 'a>> {
        self.aten("item", &[v], self.torch_type("float")?)
    }

    /// `torch.aten.item` of a one-element tensor as `!torch.int`.
    pub fn item_int(&self, v: Value<'c, '_>) -> Result<Value<'c, 'a>> {
        self.aten("item", &[v], self.torch_type("int")?)
    }

    /// A scalar literal of `dtype` holding `v`, e.g. a zero point that ONNX left out.
    pub fn scalar_literal(&self, dtype: DType, v: f64) -> Result<Value<'c, 'a>> {
        let bytes: Vec<u8> = match dtype {
            DType::F32 => (v as f32).to_le_bytes().to_vec(),
            DType::F64 => v.to_le_bytes().to_vec(),
            DType::U8 => vec![v as u8],
            DType::I8 => vec![v as i8 as u8],
            DType::I32 => (v as i32).to_le_bytes().to_vec(),
            DType::I64 => (v as i64).to_le_bytes().to_vec(),
            other => anyhow::bail!("no scalar literal of {other}"),
        };
        self.literal(&TensorData {
            dtype,
            dims: vec![],
            bytes: bytes.into(),
        })
    }
}
