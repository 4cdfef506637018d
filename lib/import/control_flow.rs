//! ONNX `If` in the import form, as torch-mlir's importer writes it: one
//! `torch.operator "onnx.If"` reading the condition, with two regions, each one block
//! holding a branch's nodes and ending in `torch.operator_terminator` of the branch's
//! outputs. The regions come in the order of the attribute names, as torch-mlir's
//! importer sorts them: region 0 is `else_branch`, region 1 `then_branch`.
//!
//! A branch reads the enclosing graphs' values by name (ONNX's outer scope); in MLIR a
//! region sees the values of the blocks around it, so those reads are plain operands.
//! Shape inference runs inside each branch; the If's results get the types both
//! branches agree on.
//!
//! When the import already knows the condition (it depends on shapes alone, as the
//! `If(Equal(dim, 1), Squeeze, Identity)` that exporters write for `squeeze(dim)`
//! does), only the taken branch is imported, in place: the other may not even be valid
//! for these shapes (a squeeze of a dimension that is not 1), and ONNX Runtime never
//! runs it either.

use std::collections::HashMap;

use anyhow::{Context as _, Result, bail};
use melior::ir::attribute::StringAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationBuilder;
use melior::ir::{Block, Identifier, Location, Region, RegionLike, Value, ValueLike};

use super::graph::{Body, Known, declared_types, follow_declared};
use super::shape_inference::symbolic::SymValue;
use crate::dialect::ops;
use crate::dialect::types::TensorType;
use crate::kernels::tensor::dtype::DType;
use crate::onnx::attributes::kind;
use crate::onnx::node_label;
use crate::onnx::proto::attribute_proto::AttributeType;
use crate::onnx::proto::{GraphProto, NodeProto};
use crate::onnx::tensor;
use crate::onnx::validate::{ValidModel, subgraph_order};

/// The largest zeros a failing branch yields in place of a value it cannot compute
/// (`failing_branch`); a larger one keeps the import's error.
const MAX_PLACEHOLDER_BYTES: usize = 1 << 24;

/// The terminator of an import-form region, yielding the branch's outputs.
pub const TERMINATOR: &str = "torch.operator_terminator";

/// A branch imported into a block: its outputs, what is known of them, and the names
/// it defined (which leave scope with the branch).
struct Imported<'c, 'b, 'm> {
    outputs: Vec<Value<'c, 'b>>,
    known: Vec<Known>,
    defined: Vec<&'m str>,
}

impl<'c, 'b, 'm, 'r> Body<'c, 'b, 'm, 'r> {
    pub(super) fn import_if(
        &mut self,
        model: &'m ValidModel,
        node: &'m NodeProto,
        declared: &HashMap<&str, TensorType>,
        known: &mut HashMap<&'m str, Known>,
    ) -> Result<Vec<String>> {
        let [condition] = node.input.as_slice() else {
            bail!(
                "expects one input, the condition; it has {}",
                node.input.len()
            );
        };
        if condition.is_empty() {
            bail!("the condition input is empty");
        }
        let then_graph = branch_graph(node, "then_branch")?;
        let else_graph = branch_graph(node, "else_branch")?;
        for (attr, graph) in [("then_branch", then_graph), ("else_branch", else_graph)] {
            if graph.output.len() != node.output.len() {
                bail!(
                    "attribute '{attr}': the branch has {} outputs for the node's {}",
                    graph.output.len(),
                    node.output.len()
                );
            }
        }
        let cond = known
            .get(condition.as_str())
            .with_context(|| format!("condition '{condition}' is never defined"))?;
        check_condition(condition, &cond.ty)?;
        let mut warnings = Vec::new();

        let folded = cond.value.as_ref().and_then(|v| v.to_i64_vec());
        if let Some(&taken) = folded.as_deref().and_then(|v| v.first()) {
            let (attr, graph) = if taken != 0 {
                ("then_branch", then_graph)
            } else {
                ("else_branch", else_graph)
            };
            let branch = self
                .import_branch(model, graph, known, &mut warnings)
                .with_context(|| format!("attribute '{attr}'"))?;
            for ((out, v), k) in node.output.iter().zip(branch.outputs).zip(branch.known) {
                if !out.is_empty() {
                    self.report_shape(node, out, &k);
                    self.values.insert(out, v);
                    known.insert(out, k);
                }
            }
            return Ok(warnings);
        }

        let mut else_block = Block::new(&[]);
        let else_known = self
            .branch_in_block(model, else_graph, &else_block, known, &mut warnings)
            .context("attribute 'else_branch'");
        let mut then_block = Block::new(&[]);
        let then_known = self
            .branch_in_block(model, then_graph, &then_block, known, &mut warnings)
            .context("attribute 'then_branch'");
        let cond_value = *self
            .values
            .get(condition.as_str())
            .with_context(|| format!("condition '{condition}' is never defined"))?;
        let (then_known, else_known) = match (then_known, else_known) {
            (Ok(t), Ok(e)) => (t, e),
            (Ok(t), Err(e)) if model.sized_for_run => {
                else_block = Block::new(&[]);
                let k = self.failing_branch(&else_block, cond_value, false, &t, &e)?;
                (t, k)
            }
            (Err(e), Ok(k)) if model.sized_for_run => {
                then_block = Block::new(&[]);
                let t = self.failing_branch(&then_block, cond_value, true, &k, &e)?;
                (t, k)
            }
            (Err(e), _) | (_, Err(e)) => return Err(e),
        };

        let mut result_types = Vec::with_capacity(node.output.len());
        let mut outputs = Vec::new();
        for (i, out) in node.output.iter().enumerate() {
            let joined = join(&then_known[i].ty, &else_known[i].ty)
                .with_context(|| format!("output {i} ('{out}')"))?;
            if out.is_empty() {
                result_types.push(ops::tensor_type(self.context, &joined)?);
                continue;
            }
            let ty = follow_declared(declared, out, joined, &mut warnings)?;
            result_types.push(ops::tensor_type(self.context, &ty)?);
            let sym = SymValue::declared(&ty, None, &mut self.fresh);
            let k = Known {
                ty,
                value: None,
                partial: None,
                sym,
            };
            self.report_shape(node, out, &k);
            outputs.push((out.as_str(), k));
        }

        let else_region = Region::new();
        else_region.append_block(else_block);
        let then_region = Region::new();
        then_region.append_block(then_block);
        let context = self.context;
        let op = OperationBuilder::new("torch.operator", self.node_location(node))
            .add_attributes(&[(
                Identifier::new(context, "name"),
                StringAttribute::new(context, "onnx.If").into(),
            )])
            .add_operands(&[cond_value])
            .add_results(&result_types)
            .add_regions([else_region, then_region])
            .build()
            .context("building torch.operator \"onnx.If\"")?;
        let op = self.block.append_operation(op);
        self.bind_outputs(node, op, outputs, known)?;
        Ok(warnings)
    }

    /// Imports `graph` into `block` (a new region's), ending it in the terminator;
    /// returns what is known of its outputs.
    fn branch_in_block<'x>(
        &mut self,
        model: &'m ValidModel,
        graph: &'m GraphProto,
        block: &'x Block<'c>,
        known: &mut HashMap<&'m str, Known>,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<Known>>
    where
        'b: 'x,
    {
        let values: HashMap<&'m str, Value<'c, 'x>> =
            self.values.iter().map(|(&k, &v)| (k, v)).collect();
        let mut inner = Body {
            context: self.context,
            shapes: self.shapes,
            block,
            values,
            none: self.none,
            fresh: std::mem::take(&mut self.fresh),
            report: self.report.as_deref_mut(),
        };
        let imported = inner.import_branch(model, graph, known, warnings);
        self.fresh = std::mem::take(&mut inner.fresh);
        let imported = imported?;
        for name in &imported.defined {
            known.remove(name);
        }
        let types: Vec<_> = imported.outputs.iter().map(|v| v.r#type()).collect();
        let terminator = OperationBuilder::new(TERMINATOR, Location::unknown(self.context))
            .add_operands(&imported.outputs)
            .build()
            .with_context(|| format!("building {TERMINATOR} of {} values", types.len()))?;
        block.append_operation(terminator);
        Ok(imported.known)
    }

    /// A branch that cannot be typed for the sizes the model was compiled for
    /// (`ValidModel::sized_for_run`): when it is taken, the run stops with `error`, as
    /// ONNX Runtime's would. It yields zeros of the other branch's types, which nothing
    /// reads, so those types must be static. `taken_when` is the condition that takes it.
    fn failing_branch<'x>(
        &mut self,
        block: &'x Block<'c>,
        condition: Value<'c, '_>,
        taken_when: bool,
        other: &[Known],
        error: &anyhow::Error,
    ) -> Result<Vec<Known>> {
        let context = self.context;
        let at = Location::unknown(context);
        let fail = || anyhow::anyhow!("{error:#}");
        let int = ops::opaque_type(context, "!torch.int")?;
        let boolean = ops::opaque_type(context, "!torch.bool")?;
        let build = |name: &str, operands: &[Value<'c, '_>], results: &[melior::ir::Type<'c>]| {
            OperationBuilder::new(name, at)
                .add_operands(operands)
                .add_results(results)
                .build()
                .with_context(|| format!("building {name}"))
        };
        let item = block.append_operation(build("torch.aten.item", &[condition], &[int])?);
        let item: Value = item.result(0)?.into();
        // The assertion holds exactly when the branch is not taken.
        let holds: Value = if taken_when {
            let zero = block.append_operation(ops::constant_int(context, 0, at)?);
            let zero: Value = zero.result(0)?.into();
            let eq = block.append_operation(build("torch.aten.eq.int", &[item, zero], &[boolean])?);
            eq.result(0)?.into()
        } else {
            let b = block.append_operation(build("torch.aten.Bool.int", &[item], &[boolean])?);
            b.result(0)?.into()
        };
        let message = format!(
            "the {} branch cannot run for inputs of these sizes: {error:#}",
            if taken_when { "then" } else { "else" }
        );
        block.append_operation(
            OperationBuilder::new("torch.runtime.assert", at)
                .add_operands(&[holds])
                .add_attributes(&[(
                    Identifier::new(context, "message"),
                    StringAttribute::new(context, &message).into(),
                )])
                .build()
                .context("building torch.runtime.assert")?,
        );
        let mut outputs: Vec<Value> = Vec::with_capacity(other.len());
        for k in other {
            let (Some(dtype), Some(dims)) = (k.ty.dtype, k.ty.static_dims()) else {
                return Err(fail());
            };
            let bytes = tensor::element_count(&dims)?
                .checked_mul(dtype.size())
                .filter(|&b| b <= MAX_PLACEHOLDER_BYTES)
                .ok_or_else(fail)?;
            let data = tensor::TensorData {
                dtype,
                dims,
                bytes: vec![0u8; bytes].into(),
            };
            let literal = block.append_operation(ops::vtensor_literal(context, &data, at)?);
            outputs.push(literal.result(0)?.into());
        }
        block.append_operation(
            OperationBuilder::new(TERMINATOR, at)
                .add_operands(&outputs)
                .build()
                .with_context(|| format!("building {TERMINATOR}"))?,
        );
        Ok(other.to_vec())
    }

    /// Imports `graph`'s initializers and nodes into this body's block.
    fn import_branch(
        &mut self,
        model: &'m ValidModel,
        graph: &'m GraphProto,
        known: &mut HashMap<&'m str, Known>,
        warnings: &mut Vec<String>,
    ) -> Result<Imported<'c, 'b, 'm>> {
        if let Some(sparse) = graph.sparse_initializer.first() {
            let name = sparse.values.as_ref().map(|v| v.name.as_str());
            bail!(
                "sparse initializer '{}' is not supported",
                name.unwrap_or("")
            );
        }
        let declared = declared_types(graph)?;
        let mut defined = Vec::new();
        for init in &graph.initializer {
            let data = tensor::decode(init, model.dir.as_deref())
                .with_context(|| format!("initializer '{}'", init.name))?;
            let loc = Location::name(self.context, &init.name, Location::unknown(self.context));
            let op = self.block.append_operation(
                ops::vtensor_literal(self.context, &data, loc)
                    .with_context(|| format!("initializer '{}'", init.name))?,
            );
            self.values.insert(&init.name, op.result(0)?.into());
            let ty = TensorType::known(data.dtype, &data.dims);
            let sym = SymValue::constant(&ty, &data);
            known.insert(
                &init.name,
                Known {
                    ty,
                    value: Some(data),
                    partial: None,
                    sym,
                },
            );
            defined.push(init.name.as_str());
        }
        // An If branch takes no inputs; older writers list initializers among them.
        if let Some(input) = graph
            .input
            .iter()
            .find(|i| !graph.initializer.iter().any(|t| t.name == i.name))
        {
            bail!("declares input '{}'; an If branch takes none", input.name);
        }
        let order = {
            let values = &self.values;
            subgraph_order(graph, &|name| values.contains_key(name))?
        };
        for i in order {
            let node = &graph.node[i];
            let label = node_label(node, i);
            let node_warnings = self
                .import_node(model, node, &declared, known)
                .with_context(|| label.clone())?;
            warnings.extend(node_warnings.into_iter().map(|w| format!("{label}: {w}")));
            defined.extend(
                node.output
                    .iter()
                    .filter(|o| !o.is_empty())
                    .map(String::as_str),
            );
        }
        let mut outputs = Vec::with_capacity(graph.output.len());
        let mut outputs_known = Vec::with_capacity(graph.output.len());
        for out in &graph.output {
            let name = out.name.as_str();
            let (Some(&v), Some(k)) = (self.values.get(name), known.get(name)) else {
                bail!("output '{name}' is never defined");
            };
            outputs.push(v);
            outputs_known.push(k.clone());
        }
        Ok(Imported {
            outputs,
            known: outputs_known,
            defined,
        })
    }
}

/// The If's `attr` subgraph, which must be there.
fn branch_graph<'m>(node: &'m NodeProto, attr: &str) -> Result<&'m GraphProto> {
    let a = node
        .attribute
        .iter()
        .find(|a| a.name == attr)
        .with_context(|| format!("has no attribute '{attr}'"))?;
    match (kind(a), a.g.as_ref()) {
        (AttributeType::Graph, Some(g)) => Ok(g),
        _ => bail!("attribute '{attr}' is not a graph"),
    }
}

/// The condition must be one boolean.
fn check_condition(name: &str, ty: &TensorType) -> Result<()> {
    if let Some(d) = ty.dtype
        && d != DType::Bool
    {
        bail!("condition '{name}' is {ty}; it must be a bool tensor of one element");
    }
    if let Some(dims) = ty.static_dims()
        && dims.iter().product::<i64>() != 1
    {
        bail!("condition '{name}' is {ty}; it must hold one element");
    }
    Ok(())
}

/// The type both branches' outputs have: a dimension equal in both stays, any other
/// is unknown, and different ranks leave the rank unknown. The element types must agree.
fn join(then_ty: &TensorType, else_ty: &TensorType) -> Result<TensorType> {
    let dtype = match (then_ty.dtype, else_ty.dtype) {
        (Some(a), Some(b)) if a != b => bail!(
            "then_branch gives {then_ty} and else_branch {else_ty}; the element types must agree"
        ),
        (a, b) => a.or(b),
    };
    let shape = match (&then_ty.shape, &else_ty.shape) {
        (Some(a), Some(b)) if a.len() == b.len() => Some(
            a.iter()
                .zip(b)
                .map(|(x, y)| if x == y { *x } else { None })
                .collect(),
        ),
        _ => None,
    };
    Ok(TensorType { dtype, shape })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_keeps_equal_dimensions_and_refuses_other_element_types() {
        let a = TensorType::new(DType::F32, vec![Some(2), Some(3)]);
        let b = TensorType::new(DType::F32, vec![Some(2), Some(4)]);
        assert_eq!(
            join(&a, &b).unwrap(),
            TensorType::new(DType::F32, vec![Some(2), None])
        );
        let c = TensorType::new(DType::F32, vec![Some(2)]);
        assert_eq!(join(&a, &c).unwrap().shape, None);
        let d = TensorType::new(DType::I64, vec![Some(2), Some(3)]);
        let e = join(&a, &d).unwrap_err().to_string();
        assert!(e.contains("element types must agree"), "{e}");
    }
}
