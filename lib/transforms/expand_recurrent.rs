//! `expand-recurrent`: a `qlower.lstm` becomes, per direction, a `torch.prim.Loop` over
//! the time steps whose body is the LSTM cell in torch ops (matmul, sigmoid, tanh,
//! slices, and an `index_put` writing the step's H into Y), so torch-mlir's backend
//! pipeline and IREE, which know nothing of qlower's private ops, compile the layer.
//!
//! Why only in the printed `torch` form: the CPU backend runs the loop too
//! (`runtime/loop_step.rs`), but its fused recurrent kernel is faster, so the forms
//! `qlower run` compiles itself keep `qlower.lstm`.
//!
//! The cell, per ONNX (gates in the order i, o, f, c): `g = X_t·Wᵀ + H·Rᵀ + Wb + Rb`,
//! `C' = σ(f)⊙C + σ(i)⊙tanh(c)`, `H' = σ(o)⊙tanh(C')`. A reverse direction walks
//! `t = T-1 … 0`. Layers this form does not express yet stay `qlower.lstm` (and so
//! stay out of reach of the downstream compilers): sequence_lens, peepholes, clip,
//! input_forget, activations other than the defaults, batch-first layout.

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

/// Expands every `qlower.lstm` the loop form expresses; returns how many.
pub fn expand_recurrent(context: &Context, module: &mut Module) -> Result<usize> {
    let mut layers = Vec::new();
    for block in module_blocks(module) {
        for op in operations(block) {
            if is_lstm(op) {
                layers.push(op);
            }
        }
    }
    let rewriter = IrRewriter::new(context);
    let mut expanded = 0;
    for op in layers {
        let Some(layer) = Lstm::read(op)? else {
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
                return Err(e.context("expanding qlower.lstm into a loop"));
            }
        }
    }
    Ok(expanded)
}

fn is_lstm(op: OperationRef) -> bool {
    op.name().as_string_ref().as_str() == Ok("torch.operator")
        && op
            .attribute("name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .is_some_and(|s| s.value() == qlower::LSTM)
}

/// What the expansion needs of a `qlower.lstm` (operands: X, W, R, B, sequence_lens,
/// initial_h, initial_c, P, then direction, hidden_size, layout, clip, input_forget,
/// activations, alphas, betas; see conversion/recurrent.rs).
struct Lstm {
    directions: Vec<bool>,
    hidden: i64,
    x: TensorType,
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

impl Lstm {
    /// The layer, when the loop form expresses it; `None` to leave it as it is.
    fn read(op: OperationRef) -> Result<Option<Lstm>> {
        if op.operand_count() != 16 || op.result_count() != 3 {
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
        let directions = match text(8)?.as_deref() {
            Some("forward") => vec![false],
            Some("reverse") => vec![true],
            Some("bidirectional") => vec![false, true],
            _ => return Ok(None),
        };
        let defaults = ["Sigmoid", "Tanh", "Tanh"]
            .repeat(directions.len())
            .join(",");
        let plain = is_none(op, 4)?
            && is_none(op, 7)?
            && int(10)? == Some(0)
            && is_none(op, 11)?
            && int(12)? == Some(0)
            && text(13)?.as_deref() == Some(defaults.as_str());
        let (Some(hidden), Some(x)) = (
            int(9)?,
            TensorType::parse(&op.operand(0)?.r#type().to_string()),
        ) else {
            return Ok(None);
        };
        if !plain || x.dtype != Some(DType::F32) || x.rank() != Some(3) {
            return Ok(None);
        }
        Ok(Some(Lstm {
            directions,
            hidden,
            x,
        }))
    }
}

/// One direction's results: Y `[T, B, H]`, the last H and C `[B, H]`.
struct Direction<'c, 'a> {
    y: Value<'c, 'a>,
    h: Value<'c, 'a>,
    c: Value<'c, 'a>,
}

fn expand<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    op: OperationRef<'c, 'a>,
    layer: &Lstm,
) -> Result<Vec<Value<'c, 'a>>> {
    let dims = layer.x.shape.clone().context("X has an unknown shape")?;
    let (t_dim, b_dim, i_dim, h) = (dims[0], dims[1], dims[2], layer.hidden);
    let f32 = |d: Vec<Option<i64>>| TensorType::new(DType::F32, d);
    let x: Value = op.operand(0)?;
    let zero = b.int(0)?;
    let one = b.int(1)?;
    let int = b.torch_type("int")?;
    let steps = b.aten("size.int", &[x, zero], int)?;
    let batch = b.aten("size.int", &[x, one], int)?;
    let mut outs = Vec::new();
    for (d, &reverse) in layer.directions.iter().enumerate() {
        let d = b.int(d as i64)?;
        let pick = |operand: usize, ty: TensorType| -> Result<Value<'c, 'a>> {
            b.aten_tensor("select.int", &[op.operand(operand)?, zero, d], &ty)
        };
        let transposed = |operand: usize, inner: Option<i64>| -> Result<Value<'c, 'a>> {
            let m = pick(operand, f32(vec![Some(4 * h), inner]))?;
            b.aten_tensor(
                "transpose.int",
                &[m, zero, one],
                &f32(vec![inner, Some(4 * h)]),
            )
        };
        let w = transposed(1, i_dim)?;
        let r = transposed(2, Some(h))?;
        let bias = if is_none(op, 3)? {
            None
        } else {
            let both = pick(3, f32(vec![Some(8 * h)]))?;
            let half = |from: i64| -> Result<Value<'c, 'a>> {
                let (s, e) = (b.int(from)?, b.int(from + 4 * h)?);
                b.aten_tensor(
                    "slice.Tensor",
                    &[both, zero, s, e, one],
                    &f32(vec![Some(4 * h)]),
                )
            };
            Some(b.aten_tensor(
                "add.Tensor",
                &[half(0)?, half(4 * h)?, one],
                &f32(vec![Some(4 * h)]),
            )?)
        };
        let state = f32(vec![b_dim, Some(h)]);
        let initial = |operand: usize| -> Result<Value<'c, 'a>> {
            if is_none(op, operand)? {
                let hid = b.int(h)?;
                zeros(b, &[batch, hid], &state)
            } else {
                pick(operand, state.clone())
            }
        };
        let h0 = initial(5)?;
        let c0 = initial(6)?;
        let hid = b.int(h)?;
        let y_type = f32(vec![t_dim, b_dim, Some(h)]);
        let y0 = zeros(b, &[steps, batch, hid], &y_type)?;
        let cell = Cell {
            x,
            w,
            r,
            bias,
            steps,
            reverse,
            hidden: h,
            x_step: f32(vec![b_dim, i_dim]),
            gates: f32(vec![b_dim, Some(4 * h)]),
            state: state.clone(),
            y: y_type,
        };
        outs.push(time_loop(b, &cell, h0, c0, y0)?);
    }
    let declared = |i: usize| -> Result<TensorType> {
        TensorType::parse(&op.result(i)?.r#type().to_string())
            .ok_or_else(|| anyhow!("result {i} is not a tensor"))
    };
    let join = |parts: Vec<Value<'c, 'a>>, dim: i64, ty: TensorType| -> Result<Value<'c, 'a>> {
        let dim = b.int(dim)?;
        if parts.len() == 1 {
            return b.aten_tensor("unsqueeze", &[parts[0], dim], &ty);
        }
        let tensor_list = b.list(&parts, "vtensor")?;
        b.aten_tensor("stack", &[tensor_list, dim], &ty)
    };
    Ok(vec![
        join(outs.iter().map(|o| o.y).collect(), 1, declared(0)?)?,
        join(outs.iter().map(|o| o.h).collect(), 0, declared(1)?)?,
        join(outs.iter().map(|o| o.c).collect(), 0, declared(2)?)?,
    ])
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

/// What one direction's loop body reads from outside it, and its types.
struct Cell<'c, 'a> {
    x: Value<'c, 'a>,
    w: Value<'c, 'a>,
    r: Value<'c, 'a>,
    bias: Option<Value<'c, 'a>>,
    steps: Value<'c, 'a>,
    reverse: bool,
    hidden: i64,
    x_step: TensorType,
    gates: TensorType,
    state: TensorType,
    y: TensorType,
}

/// `torch.prim.Loop` over the T steps, carrying H, C and Y.
fn time_loop<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    cell: &Cell<'c, 'a>,
    h0: Value<'c, 'a>,
    c0: Value<'c, 'a>,
    y0: Value<'c, 'a>,
) -> Result<Direction<'c, 'a>> {
    let context = b.context();
    let location = Location::unknown(context);
    let int = b.torch_type("int")?;
    let state = b.tensor_type(&cell.state)?;
    let y_type = b.tensor_type(&cell.y)?;
    let carried: [Type; 3] = [state, state, y_type];
    let go = b.bool(true)?;
    let region = Region::new();
    let block = region.append_block(Block::new(&[
        (int, location),
        (state, location),
        (state, location),
        (y_type, location),
    ]));
    // The body is built by a builder inserting into the new block; the values it
    // returns live in that block, which the loop op owns once it is built.
    let rewriter = IrRewriter::new(context);
    rewriter
        .as_rewriter_base()
        .set_insertion_point_to_end(block);
    let body = TorchBuilder::new(context, rewriter.as_rewriter_base(), location);
    let t: Value = block.argument(0)?.into();
    let h: Value = block.argument(1)?.into();
    let c: Value = block.argument(2)?.into();
    let y: Value = block.argument(3)?.into();
    let yields = step(&body, cell, t, h, c, y)?;
    let cont = body.bool(true)?;
    body.op(
        "torch.prim.Loop.condition",
        &[cont, yields[0], yields[1], yields[2]],
        &[],
        &[],
    )?;
    let op = OperationBuilder::new("torch.prim.Loop", location)
        .add_operands(&[cell.steps, go, h0, c0, y0])
        .add_results(&carried)
        .add_regions([region])
        .build()
        .context("building torch.prim.Loop")?;
    let op = b.insert(op)?;
    Ok(Direction {
        y: op.result(2)?.into(),
        h: op.result(0)?.into(),
        c: op.result(1)?.into(),
    })
}

/// One time step: returns H', C' and Y with H' written at the step's row.
fn step<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    cell: &Cell<'c, '_>,
    t: Value<'c, 'a>,
    h: Value<'c, 'a>,
    c: Value<'c, 'a>,
    y: Value<'c, 'a>,
) -> Result<[Value<'c, 'a>; 3]> {
    let int = b.torch_type("int")?;
    let zero = b.int(0)?;
    let one = b.int(1)?;
    let row = if cell.reverse {
        let last = b.aten("sub.int", &[cell.steps, one], int)?;
        b.aten("sub.int", &[last, t], int)?
    } else {
        t
    };
    let xt = b.aten_tensor("select.int", &[cell.x, zero, row], &cell.x_step)?;
    let from_x = b.aten_tensor("matmul", &[xt, cell.w], &cell.gates)?;
    let from_h = b.aten_tensor("matmul", &[h, cell.r], &cell.gates)?;
    let mut g = b.aten_tensor("add.Tensor", &[from_x, from_h, one], &cell.gates)?;
    if let Some(bias) = cell.bias {
        g = b.aten_tensor("add.Tensor", &[g, bias, one], &cell.gates)?;
    }
    let hidden = cell.hidden;
    let gate = |k: i64, f: &str| -> Result<Value<'c, 'a>> {
        let (s, e) = (b.int(k * hidden)?, b.int((k + 1) * hidden)?);
        let part = b.aten_tensor("slice.Tensor", &[g, one, s, e, one], &cell.state)?;
        b.aten_tensor(f, &[part], &cell.state)
    };
    let (i, o, f, cc) = (
        gate(0, "sigmoid")?,
        gate(1, "sigmoid")?,
        gate(2, "sigmoid")?,
        gate(3, "tanh")?,
    );
    let kept = b.aten_tensor("mul.Tensor", &[f, c], &cell.state)?;
    let added = b.aten_tensor("mul.Tensor", &[i, cc], &cell.state)?;
    let c2 = b.aten_tensor("add.Tensor", &[kept, added, one], &cell.state)?;
    let squashed = b.aten_tensor("tanh", &[c2], &cell.state)?;
    let h2 = b.aten_tensor("mul.Tensor", &[o, squashed], &cell.state)?;
    // Y[row] = H': an index_put of the one-row index tensor [row].
    let one_list = b.int_list(&[1])?;
    let i64_code = b.int(DType::I64.torch_scalar_type())?;
    let none = b.none()?;
    let index = b.aten_tensor(
        "full",
        &[one_list, row, i64_code, none, none, none],
        &TensorType::new(DType::I64, vec![Some(1)]),
    )?;
    let indices = b.list(&[index], "optional<vtensor>")?;
    let mut row_shape = cell.state.shape.clone().unwrap_or_default();
    row_shape.insert(0, Some(1));
    let values = b.aten_tensor(
        "unsqueeze",
        &[h2, zero],
        &TensorType::new(DType::F32, row_shape),
    )?;
    let no = b.bool(false)?;
    let y2 = b.aten_tensor("index_put", &[y, indices, values, no], &cell.y)?;
    Ok([h2, c2, y2])
}
