//! `expand-recurrent`: a `qlower.lstm` or `qlower.gru` becomes, per direction, a
//! `torch.prim.Loop` over the time steps whose body is the cell in torch ops (`cells.rs`:
//! matmul, sigmoid, tanh, slices, and an `index_put` writing the step's H into Y), so
//! torch-mlir's backend pipeline and IREE, which know nothing of qlower's private ops,
//! compile the layer.
//!
//! Why only in the printed `torch` form: the CPU backend runs the loop too
//! (`runtime/loop_step.rs`), but its fused recurrent kernel is faster, so the forms
//! `qlower run` compiles itself keep the `qlower.` ops.
//!
//! A reverse direction walks `t = T-1 … 0`; directions are stacked on Y's axis 1 and the
//! states' axis 0. A DynamicQuantizeLSTM (the op's X is the quantized tensor the
//! conversion made, its W and R quantized `[D, I, 4H]` / `[D, H, 4H]`) multiplies the
//! dequantized X and weights, and quantizes H at each step from its range
//! (`dynamic_quant.rs`), as ONNX Runtime does. Layers this form does not express yet
//! stay `qlower.` ops (and so out of reach of the downstream compilers): sequence_lens,
//! LSTM peepholes and input_forget, clip, activations other than the defaults, and
//! batch-first layout.

mod cells;
mod dynamic_quant;

use anyhow::{Context as _, Result, anyhow};
use melior::ir::attribute::StringAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
use melior::ir::{Block, Location, Module, Region, RegionLike, Type, Value, ValueLike};
use melior::{Context, IrRewriter};

use super::walk::{module_blocks, operations};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::qlower;
use crate::dialect::types::TensorType;
use crate::ir::matchers::defining;
use crate::kernels::tensor::value::Value as Constant;
use crate::onnx::dtype::DType;
use crate::runtime::ir_values::constant_value;

/// Expands every recurrent op the loop form expresses; returns how many.
pub fn expand_recurrent(context: &Context, module: &mut Module) -> Result<usize> {
    let mut layers = Vec::new();
    for block in module_blocks(module) {
        for op in operations(block) {
            if recurrent_name(op).is_some() {
                layers.push(op);
            }
        }
    }
    let rewriter = IrRewriter::new(context);
    let mut expanded = 0;
    for op in layers {
        let Some(layer) = Layer::read(op)? else {
            continue;
        };
        rewriter.as_rewriter_base().set_insertion_point_before(op);
        let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), op.location());
        match expand(&b, op, &layer) {
            Ok(values) => {
                rewriter
                    .as_rewriter_base()
                    .replace_op_with_values(op, &values);
                expanded += 1;
            }
            Err(e) => {
                b.erase_inserted();
                return Err(e.context("expanding a recurrent layer into a loop"));
            }
        }
    }
    Ok(expanded)
}

/// `qlower.lstm` or `qlower.gru` for a `torch.operator` of that name.
fn recurrent_name(op: OperationRef) -> Option<&'static str> {
    if op.name().as_string_ref().as_str() != Ok("torch.operator") {
        return None;
    }
    let name = op
        .attribute("name")
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())?;
    [qlower::LSTM, qlower::GRU]
        .into_iter()
        .find(|n| name.value() == *n)
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Lstm,
    Gru { linear_before_reset: bool },
}

impl Kind {
    fn gates(self) -> i64 {
        match self {
            Kind::Lstm => 4,
            Kind::Gru { .. } => 3,
        }
    }

    /// How many states the layer carries (H and C, or H) and returns after Y.
    fn states(self) -> usize {
        match self {
            Kind::Lstm => 2,
            Kind::Gru { .. } => 1,
        }
    }
}

/// What the expansion needs of the op. Operands (conversion/recurrent.rs): the ONNX
/// inputs (LSTM: X, W, R, B, sequence_lens, initial_h, initial_c, P; GRU: the first six),
/// then direction, hidden_size, layout, clip, input_forget / linear_before_reset,
/// activations, alphas, betas.
struct Layer {
    kind: Kind,
    directions: Vec<bool>,
    hidden: i64,
    x: TensorType,
    /// DynamicQuantizeLSTM: X, W and R are quantized tensors.
    quantized: bool,
}

fn constant(op: OperationRef, i: usize) -> Result<Option<Constant>> {
    match defining(op.operand(i)?) {
        Some(def) => constant_value(def),
        None => Ok(None),
    }
}

fn is_none(op: OperationRef, i: usize) -> Result<bool> {
    Ok(matches!(constant(op, i)?, Some(Constant::None)))
}

impl Layer {
    /// The layer, when the loop form expresses it; `None` to leave it as it is.
    fn read(op: OperationRef) -> Result<Option<Layer>> {
        let lstm = recurrent_name(op) == Some(qlower::LSTM);
        let (inputs, results) = if lstm { (8, 3) } else { (6, 2) };
        if op.operand_count() != inputs + 8 || op.result_count() != results {
            return Ok(None);
        }
        let text = |i| -> Result<Option<String>> {
            Ok(match constant(op, i)? {
                Some(Constant::Str(s)) => Some(s),
                _ => None,
            })
        };
        let int = |i| -> Result<Option<i64>> {
            Ok(match constant(op, i)? {
                Some(Constant::Int(n)) => Some(n),
                _ => None,
            })
        };
        let directions = match text(inputs)?.as_deref() {
            Some("forward") => vec![false],
            Some("reverse") => vec![true],
            Some("bidirectional") => vec![false, true],
            _ => return Ok(None),
        };
        let flag = int(inputs + 4)?;
        let (kind, defaults): (Kind, &[&str]) = match (lstm, flag) {
            (true, Some(0)) => (Kind::Lstm, &["Sigmoid", "Tanh", "Tanh"]),
            (false, Some(f @ (0 | 1))) => (
                Kind::Gru {
                    linear_before_reset: f == 1,
                },
                &["Sigmoid", "Tanh"],
            ),
            _ => return Ok(None),
        };
        let defaults = defaults.repeat(directions.len()).join(",");
        let plain = is_none(op, 4)?
            && (!lstm || is_none(op, 7)?)
            && int(inputs + 2)? == Some(0)
            && is_none(op, inputs + 3)?
            && text(inputs + 5)?.as_deref() == Some(defaults.as_str());
        let (Some(hidden), Some(x)) = (
            int(inputs + 1)?,
            TensorType::parse(&op.operand(0)?.r#type().to_string()),
        ) else {
            return Ok(None);
        };
        let quantized = lstm && x.dtype == Some(DType::QUInt8);
        let quantized_weight = |i: usize| {
            TensorType::parse(&op.operand(i)?.r#type().to_string())
                .map(|t| {
                    matches!(t.dtype, Some(DType::QInt8 | DType::QUInt8)) && t.rank() == Some(3)
                })
                .ok_or_else(|| anyhow!("operand {i} is not a tensor"))
        };
        let dtype_ok = x.dtype == Some(DType::F32)
            || (quantized && quantized_weight(1)? && quantized_weight(2)?);
        if !plain || !dtype_ok || x.rank() != Some(3) {
            return Ok(None);
        }
        Ok(Some(Layer {
            kind,
            directions,
            hidden,
            x,
            quantized,
        }))
    }
}

/// What one direction's loop body reads from outside it, and its types.
struct Cell<'c, 'a> {
    kind: Kind,
    x: Value<'c, 'a>,
    /// Wᵀ `[I, gates·H]` and Rᵀ `[H, gates·H]`.
    w: Value<'c, 'a>,
    r: Value<'c, 'a>,
    /// LSTM: Wb + Rb; GRU: Wb (Rb's h part is applied inside the reset gate).
    bias: Option<Value<'c, 'a>>,
    /// GRU: Rb.
    r_bias: Option<Value<'c, 'a>>,
    steps: Value<'c, 'a>,
    reverse: bool,
    /// DynamicQuantizeLSTM: H is quantized from its range before it meets R.
    quantize_h: bool,
    hidden: i64,
    x_step: TensorType,
    gates: TensorType,
    state: TensorType,
    y: TensorType,
}

fn expand<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    op: OperationRef<'c, 'a>,
    layer: &Layer,
) -> Result<Vec<Value<'c, 'a>>> {
    let dims = layer.x.shape.clone().context("X has an unknown shape")?;
    let (t_dim, b_dim, i_dim, h) = (dims[0], dims[1], dims[2], layer.hidden);
    let gh = layer.kind.gates() * h;
    let f32 = |d: Vec<Option<i64>>| TensorType::new(DType::F32, d);
    let zero = b.int(0)?;
    let one = b.int(1)?;
    // DynamicQuantizeLSTM: X and the weights enter the products dequantized (their
    // integers times their scales, exactly representable); W and R are already
    // transposed, `[D, I, 4H]` and `[D, H, 4H]`.
    let dequantized = |operand: usize| -> Result<Value<'c, 'a>> {
        let v = op.operand(operand)?;
        let ty = TensorType::parse(&v.r#type().to_string())
            .ok_or_else(|| anyhow!("operand {operand} is not a tensor"))?;
        b.aten_tensor("dequantize.self", &[v], &ty.with_dtype(DType::F32))
    };
    let (x, quantized_weights) = if layer.quantized {
        let x = dequantized(0)?;
        (x, Some((dequantized(1)?, dequantized(2)?)))
    } else {
        (op.operand(0)?, None)
    };
    let int = b.torch_type("int")?;
    let steps = b.aten("size.int", &[x, zero], int)?;
    let batch = b.aten("size.int", &[x, one], int)?;
    // Per direction: H's last value, C's (LSTM), then Y.
    let mut outs: Vec<Vec<Value<'c, 'a>>> = Vec::new();
    for (d, &reverse) in layer.directions.iter().enumerate() {
        let d = b.int(d as i64)?;
        let pick = |operand: usize, ty: TensorType| -> Result<Value<'c, 'a>> {
            b.aten_tensor("select.int", &[op.operand(operand)?, zero, d], &ty)
        };
        let transposed = |operand: usize, inner: Option<i64>| -> Result<Value<'c, 'a>> {
            let m = pick(operand, f32(vec![Some(gh), inner]))?;
            b.aten_tensor(
                "transpose.int",
                &[m, zero, one],
                &f32(vec![inner, Some(gh)]),
            )
        };
        let (w, r) = match quantized_weights {
            Some((w, r)) => {
                let select = |m: Value<'c, 'a>, inner: Option<i64>| {
                    b.aten_tensor("select.int", &[m, zero, d], &f32(vec![inner, Some(gh)]))
                };
                (select(w, i_dim)?, select(r, Some(h))?)
            }
            None => (transposed(1, i_dim)?, transposed(2, Some(h))?),
        };
        let (bias, r_bias) = if is_none(op, 3)? {
            (None, None)
        } else {
            let both = pick(3, f32(vec![Some(2 * gh)]))?;
            let half = |from: i64| -> Result<Value<'c, 'a>> {
                let (s, e) = (b.int(from)?, b.int(from + gh)?);
                b.aten_tensor(
                    "slice.Tensor",
                    &[both, zero, s, e, one],
                    &f32(vec![Some(gh)]),
                )
            };
            let (wb, rb) = (half(0)?, half(gh)?);
            match layer.kind {
                Kind::Lstm => {
                    let sum = b.aten_tensor("add.Tensor", &[wb, rb, one], &f32(vec![Some(gh)]))?;
                    (Some(sum), None)
                }
                Kind::Gru { .. } => (Some(wb), Some(rb)),
            }
        };
        let state = f32(vec![b_dim, Some(h)]);
        let hid = b.int(h)?;
        let initial = |operand: usize| -> Result<Value<'c, 'a>> {
            if is_none(op, operand)? {
                zeros(b, &[batch, hid], &state)
            } else {
                pick(operand, state.clone())
            }
        };
        // initial_h is operand 5, LSTM's initial_c operand 6.
        let mut carried = (0..layer.kind.states())
            .map(|k| initial(5 + k))
            .collect::<Result<Vec<_>>>()?;
        let y_type = f32(vec![t_dim, b_dim, Some(h)]);
        carried.push(zeros(b, &[steps, batch, hid], &y_type)?);
        let cell = Cell {
            kind: layer.kind,
            x,
            w,
            r,
            bias,
            r_bias,
            steps,
            reverse,
            quantize_h: layer.quantized,
            hidden: h,
            x_step: f32(vec![b_dim, i_dim]),
            gates: f32(vec![b_dim, Some(gh)]),
            state,
            y: y_type,
        };
        outs.push(time_loop(b, &cell, &carried)?);
    }
    let declared = |i: usize| -> Result<TensorType> {
        TensorType::parse(&op.result(i)?.r#type().to_string())
            .ok_or_else(|| anyhow!("result {i} is not a tensor"))
    };
    let join = |k: usize, dim: i64, ty: TensorType| -> Result<Value<'c, 'a>> {
        let parts: Vec<Value<'c, 'a>> = outs.iter().map(|o| o[k]).collect();
        let dim = b.int(dim)?;
        if parts.len() == 1 {
            return b.aten_tensor("unsqueeze", &[parts[0], dim], &ty);
        }
        let tensor_list = b.list(&parts, "vtensor")?;
        b.aten_tensor("stack", &[tensor_list, dim], &ty)
    };
    let states = layer.kind.states();
    let mut results = vec![join(states, 1, declared(0)?)?];
    for k in 0..states {
        results.push(join(k, 0, declared(k + 1)?)?);
    }
    Ok(results)
}

/// `torch.aten.zeros(sizes)` in f32.
fn zeros<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    sizes: &[Value<'c, 'a>],
    ty: &TensorType,
) -> Result<Value<'c, 'a>> {
    let sizes = b.list(sizes, "int")?;
    let f32_code = b.int(DType::F32.torch_scalar_type())?;
    let none = b.none()?;
    b.aten_tensor("zeros", &[sizes, f32_code, none, none, none], ty)
}

/// `torch.prim.Loop` over the T steps, carrying the states and Y (`initial`, in that
/// order); returns their values after the last step.
fn time_loop<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    cell: &Cell<'c, 'a>,
    initial: &[Value<'c, 'a>],
) -> Result<Vec<Value<'c, 'a>>> {
    let context = b.context();
    let location = Location::unknown(context);
    let types: Vec<Type> = initial.iter().map(|v| v.r#type()).collect();
    let mut arguments = vec![(b.torch_type("int")?, location)];
    arguments.extend(types.iter().map(|&t| (t, location)));
    let go = b.bool(true)?;
    let region = Region::new();
    let block = region.append_block(Block::new(&arguments));
    // The body is built by a builder inserting into the new block; the values it
    // returns live in that block, which the loop op owns once it is built.
    let rewriter = IrRewriter::new(context);
    rewriter
        .as_rewriter_base()
        .set_insertion_point_to_end(block);
    let body = TorchBuilder::new(context, rewriter.as_rewriter_base(), location);
    let values = (0..block.argument_count())
        .map(|i| Ok(block.argument(i)?.into()))
        .collect::<Result<Vec<Value>>>()?;
    let mut yields = vec![body.bool(true)?];
    yields.extend(cells::step(&body, cell, &values)?);
    body.op("torch.prim.Loop.condition", &yields, &[], &[])?;
    let mut operands = vec![cell.steps, go];
    operands.extend_from_slice(initial);
    let op = OperationBuilder::new("torch.prim.Loop", location)
        .add_operands(&operands)
        .add_results(&types)
        .add_regions([region])
        .build()
        .context("building torch.prim.Loop")?;
    let op = b.insert(op)?;
    (0..initial.len())
        .map(|i| Ok(op.result(i)?.into()))
        .collect()
}
