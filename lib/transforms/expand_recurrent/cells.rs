//! One time step of each layer in torch ops, per ONNX (gates in ONNX's order; f, g, h
//! are the layer's activations, each gate's input clipped to ±clip first when the layer
//! has a clip):
//!
//! - LSTM (i, o, f, c): `g = X_t·Wᵀ + H·Rᵀ + Wb + Rb`, `i = f(g_i + Pi⊙C)`,
//!   `f = f(g_f + Pf⊙C)` (or `1 - i` with input_forget), `C' = f⊙C + i⊙g(g_c)`,
//!   `o = f(g_o + Po⊙C')`, `H' = o⊙h(C')`.
//! - GRU (z, r, h): `z = f(X_t·Wzᵀ + H·Rzᵀ + Wbz + Rbz)`, `r` likewise,
//!   `n = g(X_t·Whᵀ + Wbh + (r⊙H)·Rhᵀ + Rbh)`, or with linear_before_reset
//!   `n = g(X_t·Whᵀ + Wbh + r⊙(H·Rhᵀ + Rbh))`; `H' = (1-z)⊙n + z⊙H`.
//!
//! Either way the step then writes H' into Y's row for this step. With sequence_lens,
//! an entry whose sequence has ended keeps its states and gets zeros in Y.

use anyhow::{Context as _, Result};
use melior::ir::Value;

use super::expand::Cell;
use super::layer::Kind;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;

/// `values`: the step index, the states, Y (the loop body's arguments); returns the
/// states and Y for the next step.
pub(super) fn step<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    cell: &Cell<'c, '_, '_>,
    values: &[Value<'c, 'a>],
) -> Result<Vec<Value<'c, 'a>>> {
    let (&t, rest) = values.split_first().context("the loop body has no index")?;
    let (&y, states) = rest.split_last().context("the loop body carries no Y")?;
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
    let mut next = match (cell.kind, states) {
        (Kind::Lstm { input_forget }, &[h, c]) => lstm(b, cell, xt, h, c, input_forget)?,
        (
            Kind::Gru {
                linear_before_reset,
            },
            &[h],
        ) => {
            vec![gru(b, cell, xt, h, linear_before_reset)?]
        }
        _ => anyhow::bail!("internal error: the loop carries the wrong states"),
    };
    let mut written = next[0];
    if let Some(lengths) = cell.lengths {
        let dims = cell.state.shape.clone().unwrap_or_default();
        let running = b.aten_tensor(
            "gt.Scalar",
            &[lengths, t],
            &TensorType::new(DType::Bool, vec![dims[0]]),
        )?;
        let running = b.aten_tensor(
            "unsqueeze",
            &[running, one],
            &TensorType::new(DType::Bool, vec![dims[0], Some(1)]),
        )?;
        for (new, &old) in next.iter_mut().zip(states) {
            *new = b.aten_tensor("where.self", &[running, *new, old], &cell.state)?;
        }
        let nothing = b.float(0.0)?;
        written = b.aten_tensor(
            "where.ScalarOther",
            &[running, written, nothing],
            &cell.state,
        )?;
    }
    next.push(write_row(b, cell, y, row, written)?);
    Ok(next)
}

/// The `k`th H-wide column block of `g`.
fn block<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    cell: &Cell<'c, '_, '_>,
    g: Value<'c, 'a>,
    k: i64,
) -> Result<Value<'c, 'a>> {
    let one = b.int(1)?;
    let (s, e) = (b.int(k * cell.hidden)?, b.int((k + 1) * cell.hidden)?);
    b.aten_tensor("slice.Tensor", &[g, one, s, e, one], &cell.state)
}

/// Activation `k` of the direction applied to `x` clipped to ±clip.
fn activate<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    cell: &Cell<'c, '_, '_>,
    k: usize,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    let act = cell
        .activations
        .get(k)
        .context("internal error: too few activations")?;
    act.apply(b, clipped(b, cell, x)?, &cell.state)
}

fn clipped<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    cell: &Cell<'c, '_, '_>,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    match cell.clip {
        Some(c) => {
            let (lo, hi) = (b.float(-c)?, b.float(c)?);
            b.aten_tensor("clamp", &[x, lo, hi], &cell.state)
        }
        None => Ok(x),
    }
}

fn lstm<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    cell: &Cell<'c, '_, '_>,
    xt: Value<'c, 'a>,
    h: Value<'c, 'a>,
    c: Value<'c, 'a>,
    input_forget: bool,
) -> Result<Vec<Value<'c, 'a>>> {
    let one = b.int(1)?;
    let st = &cell.state;
    let from_x = b.aten_tensor("matmul", &[xt, cell.w], &cell.gates)?;
    let h_in = if cell.quantize_h {
        super::dynamic_quant::round_trip(b, h, st)?
    } else {
        h
    };
    let from_h = b.aten_tensor("matmul", &[h_in, cell.r], &cell.gates)?;
    let mut g = b.aten_tensor("add.Tensor", &[from_x, from_h, one], &cell.gates)?;
    if let Some(bias) = cell.bias {
        g = b.aten_tensor("add.Tensor", &[g, bias, one], &cell.gates)?;
    }
    // Gate k's input, plus its peephole (0: input, 1: output, 2: forget) times `state`.
    let input = |k: i64, peephole: usize, state: Value<'c, 'a>| -> Result<Value<'c, 'a>> {
        let pre = block(b, cell, g, k)?;
        match cell.peepholes {
            Some(p) => {
                let seen = b.aten_tensor("mul.Tensor", &[p[peephole], state], st)?;
                sum(b, pre, seen, st)
            }
            None => Ok(pre),
        }
    };
    let i = activate(b, cell, 0, input(0, 0, c)?)?;
    let f = if input_forget {
        b.aten_tensor("rsub.Scalar", &[i, one, one], st)?
    } else {
        activate(b, cell, 0, input(2, 2, c)?)?
    };
    let candidate = activate(b, cell, 1, block(b, cell, g, 3)?)?;
    let kept = b.aten_tensor("mul.Tensor", &[f, c], st)?;
    let added = b.aten_tensor("mul.Tensor", &[i, candidate], st)?;
    let c2 = sum(b, kept, added, st)?;
    let o = activate(b, cell, 0, input(1, 1, c2)?)?;
    let act_h = cell
        .activations
        .get(2)
        .context("internal error: an LSTM takes three activations")?;
    let squashed = act_h.apply(b, c2, st)?;
    let h2 = b.aten_tensor("mul.Tensor", &[o, squashed], st)?;
    Ok(vec![h2, c2])
}

fn gru<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    cell: &Cell<'c, '_, '_>,
    xt: Value<'c, 'a>,
    h: Value<'c, 'a>,
    linear_before_reset: bool,
) -> Result<Value<'c, 'a>> {
    let one = b.int(1)?;
    let st = &cell.state;
    let add = |a: Value<'c, 'a>, c: Value<'c, '_>, ty: &TensorType| sum(b, a, c, ty);
    let mut gx = b.aten_tensor("matmul", &[xt, cell.w], &cell.gates)?;
    if let Some(wb) = cell.bias {
        gx = add(gx, wb, &cell.gates)?;
    }
    let mut gh = b.aten_tensor("matmul", &[h, cell.r], &cell.gates)?;
    if let Some(rb) = cell.r_bias {
        gh = add(gh, rb, &cell.gates)?;
    }
    let gate = |k: i64| -> Result<Value<'c, 'a>> {
        let sum = add(block(b, cell, gx, k)?, block(b, cell, gh, k)?, st)?;
        activate(b, cell, 0, sum)
    };
    let (z, r) = (gate(0)?, gate(1)?);
    let recurrent = if linear_before_reset {
        b.aten_tensor("mul.Tensor", &[r, block(b, cell, gh, 2)?], st)?
    } else {
        // (r⊙H)·Rhᵀ + Rbh: Rhᵀ is Rᵀ's last H columns, Rbh Rb's last H values.
        let reset = b.aten_tensor("mul.Tensor", &[r, h], st)?;
        let zero = b.int(0)?;
        let (s, e) = (b.int(2 * cell.hidden)?, b.int(3 * cell.hidden)?);
        let hh = Some(cell.hidden);
        let f32 = |d| TensorType::new(DType::F32, d);
        let rh = b.aten_tensor(
            "slice.Tensor",
            &[cell.r, one, s, e, one],
            &f32(vec![hh, hh]),
        )?;
        let mut v = b.aten_tensor("matmul", &[reset, rh], st)?;
        if let Some(rb) = cell.r_bias {
            let rbh = b.aten_tensor("slice.Tensor", &[rb, zero, s, e, one], &f32(vec![hh]))?;
            v = add(v, rbh, st)?;
        }
        v
    };
    let n_in = add(block(b, cell, gx, 2)?, recurrent, st)?;
    let n = activate(b, cell, 1, n_in)?;
    // H' = n + z⊙(H - n)
    let diff = b.aten_tensor("sub.Tensor", &[h, n, one], st)?;
    let kept = b.aten_tensor("mul.Tensor", &[z, diff], st)?;
    add(n, kept, st)
}

/// `a + c` (alpha 1) of type `ty`.
fn sum<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    a: Value<'c, '_>,
    c: Value<'c, '_>,
    ty: &TensorType,
) -> Result<Value<'c, 'a>> {
    let one = b.int(1)?;
    b.aten_tensor("add.Tensor", &[a, c, one], ty)
}

/// Y with `h` written at `row`: an `index_put` of the one-element index tensor [row].
fn write_row<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    cell: &Cell<'c, '_, '_>,
    y: Value<'c, 'a>,
    row: Value<'c, 'a>,
    h: Value<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    let zero = b.int(0)?;
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
        &[h, zero],
        &TensorType::new(DType::F32, row_shape),
    )?;
    let no = b.bool(false)?;
    b.aten_tensor("index_put", &[y, indices, values, no], &cell.y)
}
