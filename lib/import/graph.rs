//! Builds the import form of a graph: one `func.func` whose arguments are the graph
//! inputs, whose body holds a `torch.vtensor.literal` per initializer and a
//! `torch.operator "onnx.X"` per node, and which returns the graph outputs.

use std::collections::HashMap;

use anyhow::{Context as _, Result, bail};
use melior::Context;
use melior::dialect::func;
use melior::ir::ValueLike;
use melior::ir::attribute::{ArrayAttribute, DictionaryAttribute, StringAttribute, TypeAttribute};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationRef;
use melior::ir::r#type::FunctionType;
use melior::ir::{
    Attribute, Block, Identifier, Location, Operation, Region, RegionLike, Type, Value,
};

use super::attributes::import_attribute;
use super::meta::function_attributes;
use super::shape_inference::symbolic::{self, Fresh, SymValue};
use super::shape_inference::{Ctx, InferInput, Node, ShapeRules};
use super::value_types::declared_type;
use crate::dialect::ops;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::node_label;
use crate::onnx::proto::{GraphProto, NodeProto};
use crate::onnx::tensor::{self, TensorData};
use crate::onnx::validate::{ValidModel, canonical_domain};

/// Whether both types name an element type, and not the same one.
fn element_types_differ(a: &TensorType, b: &TensorType) -> bool {
    matches!((a.dtype, b.dtype), (Some(x), Some(y)) if x != y)
}

/// What the importer knows of one ONNX value name.
#[derive(Clone)]
pub(super) struct Known {
    pub(super) ty: TensorType,
    pub(super) value: Option<TensorData>,
    /// Some elements of a small integer vector (`Inferred::partial`).
    pub(super) partial: Option<Vec<Dim>>,
    /// Its dimensions (and elements) by name (`shape_inference::symbolic`).
    pub(super) sym: SymValue,
}

/// One value's shape with its dimensions named, as `qlower shapes` prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedShape {
    /// The value's name.
    pub value: String,
    /// The node that computes it (`op_type` and name), or "input".
    pub producer: String,
    pub ty: TensorType,
    /// `[batch,seq,384]`.
    pub dims: String,
}

/// Imports the model's graph as one `func.func`. A declared shape (value_info or graph
/// output) that contradicts what the ops compute is not followed, and `warnings` says so:
/// the ops' semantics settle it, as they do for ONNX Runtime, which runs such models after
/// a warning of its own. A declared element type that contradicts them is an error, as it
/// is for ONNX Runtime. `shapes` types the values the model leaves untyped.
pub fn import_graph<'c>(
    context: &'c Context,
    model: &ValidModel,
    shapes: &ShapeRules,
    warnings: &mut Vec<String>,
    mut report: Option<&mut Vec<NamedShape>>,
) -> Result<Operation<'c>> {
    let graph = model.graph();
    let mut fresh = Fresh::default();
    let declared = declared_types(graph)?;
    let initializers = decode_initializers(model)?;

    let mut known: HashMap<&str, Known> = HashMap::new();
    let mut arg_names = Vec::new();
    let mut arg_types = Vec::new();
    for input in &graph.input {
        if initializers.contains_key(input.name.as_str()) {
            continue;
        }
        let ty = declared[input.name.as_str()].clone();
        if ty.dtype.is_none() {
            bail!("graph input '{}' has no tensor type", input.name);
        }
        arg_types.push(ops::tensor_type(context, &ty)?);
        arg_names.push(input.name.as_str());
        let sym = SymValue::declared(&ty, dim_names(input).as_deref(), &mut fresh);
        if let Some(r) = report.as_deref_mut() {
            r.push(NamedShape {
                value: input.name.clone(),
                producer: "input".to_string(),
                ty: ty.clone(),
                dims: sym.display_dims(),
            });
        }
        known.insert(
            &input.name,
            Known {
                ty,
                value: None,
                partial: None,
                sym,
            },
        );
    }
    for (name, data) in &initializers {
        let mut ty = TensorType::known(data.dtype, &data.dims);
        if let Some(d) = declared.get(name) {
            match d.merge(&ty) {
                Ok(merged) => ty = merged,
                Err(e) if element_types_differ(d, &ty) => {
                    bail!("initializer '{name}' disagrees with its declared type: {e}")
                }
                Err(e) => warnings.push(format!(
                    "initializer '{name}' is declared as {d} but its data is {ty} ({e}); \
                     following the data"
                )),
            }
        }
        let sym = SymValue::constant(&ty, data);
        known.insert(
            name,
            Known {
                ty,
                value: Some(data.clone()),
                partial: None,
                sym,
            },
        );
    }

    let region = Region::new();
    let arg_locations: Vec<(Type, Location)> = arg_types
        .iter()
        .map(|&t| (t, Location::unknown(context)))
        .collect();
    let block = region.append_block(Block::new(&arg_locations));
    let result_types = {
        let mut body = Body {
            context,
            shapes,
            block: &block,
            values: HashMap::new(),
            none: None,
            fresh,
            report,
        };
        for (i, name) in arg_names.iter().enumerate() {
            body.values.insert(name, block.argument(i)?.into());
        }
        for init in &graph.initializer {
            let data = &initializers[init.name.as_str()];
            let loc = Location::name(context, &init.name, Location::unknown(context));
            let op = block.append_operation(
                ops::vtensor_literal(context, data, loc)
                    .with_context(|| format!("initializer '{}'", init.name))?,
            );
            body.values.insert(&init.name, op.result(0)?.into());
        }
        for &i in &model.order {
            let node = &graph.node[i];
            body.import_node(model, node, &declared, &mut known)
                .with_context(|| node_label(node, i))?
                .into_iter()
                .for_each(|w| warnings.push(format!("{}: {w}", node_label(node, i))));
        }
        let mut results = Vec::new();
        let mut result_types = Vec::new();
        for out in &graph.output {
            let v = body.values[out.name.as_str()];
            results.push(v);
            result_types.push(v.r#type());
        }
        block.append_operation(func::r#return(&results, Location::unknown(context)));
        result_types
    };

    let name_dicts = |names: &mut dyn Iterator<Item = &str>| -> Attribute<'c> {
        let dicts: Vec<Attribute> = names
            .map(|n| {
                DictionaryAttribute::new(
                    context,
                    &[(
                        Identifier::new(context, "onnx.name"),
                        StringAttribute::new(context, n).into(),
                    )],
                )
                .into()
            })
            .collect();
        ArrayAttribute::new(context, &dicts).into()
    };
    let mut attrs = function_attributes(context, model);
    attrs.push((
        Identifier::new(context, "arg_attrs"),
        name_dicts(&mut arg_names.iter().copied()),
    ));
    attrs.push((
        Identifier::new(context, "res_attrs"),
        name_dicts(&mut graph.output.iter().map(|o| o.name.as_str())),
    ));
    let fn_name = if graph.name.is_empty() {
        "main_graph"
    } else {
        &graph.name
    };
    let fn_type = FunctionType::new(context, &arg_types, &result_types);
    Ok(func::func(
        context,
        StringAttribute::new(context, fn_name),
        TypeAttribute::new(fn_type.into()),
        region,
        &attrs,
        Location::unknown(context),
    ))
}

/// `out`'s type: what the op computes, made more precise by what the model declares.
pub(super) fn follow_declared(
    declared: &HashMap<&str, TensorType>,
    out: &str,
    inferred: TensorType,
    warnings: &mut Vec<String>,
) -> Result<TensorType> {
    Ok(match declared.get(out).map(|d| (d, d.merge(&inferred))) {
        Some((_, Ok(merged))) => merged,
        // ONNX Runtime refuses these too: a consumer declared to read one element
        // type would be given another.
        Some((d, Err(e))) if element_types_differ(d, &inferred) => {
            bail!("output '{out}' is declared as {d} but inferred as {inferred}: {e}")
        }
        Some((d, Err(e))) => {
            warnings.push(format!(
                "output '{out}' is declared as {d} but the op computes {inferred} ({e}); \
                 following the op"
            ));
            inferred
        }
        None => inferred,
    })
}

/// Every type the model declares for a value: inputs, outputs and value_info.
pub(super) fn declared_types(graph: &GraphProto) -> Result<HashMap<&str, TensorType>> {
    let mut declared: HashMap<&str, TensorType> = HashMap::new();
    let lists = [
        ("graph input", &graph.input),
        ("graph output", &graph.output),
        ("value", &graph.value_info),
    ];
    for (what, infos) in lists {
        for info in infos {
            let ty = declared_type(info).with_context(|| format!("{what} '{}'", info.name))?;
            let merged = match declared.get(info.name.as_str()) {
                Some(prev) => prev.merge(&ty).map_err(|e| {
                    anyhow::anyhow!(
                        "{what} '{}' is declared twice with different types: {e}",
                        info.name
                    )
                })?,
                None => ty,
            };
            declared.insert(&info.name, merged);
        }
    }
    Ok(declared)
}

fn decode_initializers(model: &ValidModel) -> Result<HashMap<&str, TensorData>> {
    let mut out = HashMap::new();
    let dir = model.dir.as_deref();
    for init in &model.graph().initializer {
        let data =
            tensor::decode(init, dir).with_context(|| format!("initializer '{}'", init.name))?;
        out.insert(init.name.as_str(), data);
    }
    if let Some(sparse) = model.graph().sparse_initializer.first() {
        let name = sparse
            .values
            .as_ref()
            .map(|v| v.name.as_str())
            .unwrap_or("");
        bail!("sparse initializer '{name}' is not supported");
    }
    Ok(out)
}

pub(super) struct Body<'c, 'b, 'm, 'r> {
    pub(super) context: &'c Context,
    pub(super) shapes: &'m ShapeRules,
    pub(super) block: &'b Block<'c>,
    /// The values in scope by ONNX name: this block's and, in a branch, the enclosing
    /// blocks' (a region reads them directly).
    pub(super) values: HashMap<&'m str, Value<'c, 'b>>,
    pub(super) none: Option<Value<'c, 'b>>,
    /// Names for the dimensions no model or rule names.
    pub(super) fresh: Fresh,
    /// Where `qlower shapes` collects each value's named shape.
    pub(super) report: Option<&'r mut Vec<NamedShape>>,
}

impl<'c, 'b, 'm, 'r> Body<'c, 'b, 'm, 'r> {
    pub(super) fn none_value(&mut self) -> Result<Value<'c, 'b>> {
        if let Some(v) = self.none {
            return Ok(v);
        }
        let op = self.block.append_operation(ops::constant_none(
            self.context,
            Location::unknown(self.context),
        )?);
        let v: Value = op.result(0)?.into();
        self.none = Some(v);
        Ok(v)
    }

    pub(super) fn import_node(
        &mut self,
        model: &'m ValidModel,
        node: &'m NodeProto,
        declared: &HashMap<&str, TensorType>,
        known: &mut HashMap<&'m str, Known>,
    ) -> Result<Vec<String>> {
        let mut warnings = Vec::new();
        let context = self.context;
        let domain = canonical_domain(&node.domain);
        if domain.is_empty() && node.op_type == "If" {
            return self.import_if(model, node, declared, known);
        }
        let opset = model.opsets.get(domain).copied().unwrap_or(0);

        let inputs: Vec<Option<InferInput>> = node
            .input
            .iter()
            .map(|name| {
                known.get(name.as_str()).map(|k| InferInput {
                    ty: &k.ty,
                    value: k.value.as_ref(),
                    partial: k.partial.as_deref(),
                })
            })
            .collect();
        let mut inferred = self.shapes.infer(node, domain, opset, &inputs)?;
        let sym_inputs: Vec<Option<&SymValue>> = node
            .input
            .iter()
            .map(|name| known.get(name.as_str()).map(|k| &k.sym))
            .collect();
        let view = Node::of_proto(node);
        let syms = symbolic::infer(
            &Ctx::new(&view, opset, &inputs),
            domain,
            &sym_inputs,
            &inferred,
            &mut self.fresh,
        );
        for (inf, sym) in inferred.iter_mut().zip(&syms) {
            symbolic::sharpen(inf, sym);
        }

        let mut result_types = Vec::with_capacity(node.output.len());
        let mut outputs = Vec::new();
        for ((out, inf), mut sym) in node.output.iter().zip(inferred).zip(syms) {
            if out.is_empty() {
                result_types.push(ops::none_type(context)?);
                continue;
            }
            let ty = follow_declared(declared, out, inf.ty, &mut warnings)?;
            result_types.push(ops::tensor_type(context, &ty)?);
            sym.agree_with(&ty);
            let k = Known {
                ty,
                value: inf.value,
                partial: inf.partial,
                sym,
            };
            self.report_shape(node, out, &k);
            outputs.push((out.as_str(), k));
        }

        let mut operands = Vec::with_capacity(node.input.len());
        for name in &node.input {
            operands.push(if name.is_empty() {
                self.none_value()?
            } else {
                self.values[name.as_str()]
            });
        }
        let attributes = node
            .attribute
            .iter()
            .map(|a| import_attribute(context, a, model.dir.as_deref()))
            .collect::<Result<Vec<_>>>()?;
        let op_name = if domain.is_empty() {
            format!("onnx.{}", node.op_type)
        } else {
            format!("{domain}.{}", node.op_type)
        };
        let op = self.block.append_operation(ops::operator(
            context,
            &op_name,
            &operands,
            &result_types,
            &attributes,
            self.node_location(node),
        )?);
        self.bind_outputs(node, op, outputs, known)?;
        Ok(warnings)
    }

    /// The location ops imported for `node` carry: its name, when it has one.
    pub(super) fn node_location(&self, node: &NodeProto) -> Location<'c> {
        let context = self.context;
        if node.name.is_empty() {
            Location::unknown(context)
        } else {
            Location::name(context, &node.name, Location::unknown(context))
        }
    }

    /// Names `op`'s results after `node`'s outputs and records what is known of each
    /// (`outputs`, the named ones).
    pub(super) fn bind_outputs(
        &mut self,
        node: &'m NodeProto,
        op: OperationRef<'c, 'b>,
        outputs: Vec<(&'m str, Known)>,
        known: &mut HashMap<&'m str, Known>,
    ) -> Result<()> {
        for (i, out) in node.output.iter().enumerate() {
            if !out.is_empty() {
                self.values.insert(out, op.result(i)?.into());
            }
        }
        known.extend(outputs);
        Ok(())
    }

    /// Adds `out`, an output of `node`, to `qlower shapes`' report when one is kept.
    pub(super) fn report_shape(&mut self, node: &NodeProto, out: &str, k: &Known) {
        if let Some(r) = self.report.as_deref_mut() {
            r.push(NamedShape {
                value: out.to_string(),
                producer: if node.name.is_empty() {
                    node.op_type.clone()
                } else {
                    format!("{} '{}'", node.op_type, node.name)
                },
                ty: k.ty.clone(),
                dims: k.sym.display_dims(),
            });
        }
    }
}

/// The names the model gives `info`'s dimensions (`dim_param`), per dimension.
fn dim_names(info: &crate::onnx::proto::ValueInfoProto) -> Option<Vec<Option<String>>> {
    use crate::onnx::proto::tensor_shape_proto::dimension::Value as DimValue;
    use crate::onnx::proto::type_proto::Value as TypeValue;
    let Some(TypeValue::TensorType(t)) = info.r#type.as_ref()?.value.as_ref() else {
        return None;
    };
    Some(
        t.shape
            .as_ref()?
            .dim
            .iter()
            .map(|d| match &d.value {
                Some(DimValue::DimParam(p)) => Some(p.clone()),
                _ => None,
            })
            .collect(),
    )
}
