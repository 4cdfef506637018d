//! One layer in torch ops: per direction its weights, bias, peepholes and initial
//! states, the order it reads X in, a `torch.prim.Loop` over the steps (`cells.rs`),
//! then the directions joined into Y and the final states.
//!
//! With sequence_lens, every batch entry runs its own number of steps: the loop runs T
//! steps and a step past an entry's length leaves its states as they are and writes
//! zeros into Y (ONNX's padding). A reverse direction then reads entry b's steps
//! `len_b-1 … 0`: X is gathered into that order first (rows past the length stay in
//! place), the loop walks it forwards, and Y is gathered back. An entry of length 0 ends
//! with zero states, as ONNX Runtime gives.

use anyhow::{Context as _, Result, anyhow};
use melior::ir::Value;
use melior::ir::ValueLike;
use melior::ir::operation::{OperationLike, OperationRef};

use super::activations::Activation;
use super::layer::{Kind, Layer, is_none};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::dtype::DType;

/// What one direction's loop body reads from outside it, and its types.
pub(super) struct Cell<'c, 'a, 'l> {
    pub kind: Kind,
    /// X `[T, B, I]` in the order this direction reads it.
    pub x: Value<'c, 'a>,
    /// Wᵀ `[I, gates·H]` and Rᵀ `[H, gates·H]`.
    pub w: Value<'c, 'a>,
    pub r: Value<'c, 'a>,
    /// LSTM: Wb + Rb; GRU: Wb (Rb's h part is applied inside the reset gate).
    pub bias: Option<Value<'c, 'a>>,
    /// GRU: Rb.
    pub r_bias: Option<Value<'c, 'a>>,
    /// LSTM's peepholes `[H]` each: input, output, forget.
    pub peepholes: Option<[Value<'c, 'a>; 3]>,
    /// sequence_lens as si64 `[B]`: steps at or past an entry's length are masked.
    pub lengths: Option<Value<'c, 'a>>,
    pub steps: Value<'c, 'a>,
    /// The loop reads X's row T-1-t at step t.
    pub reverse: bool,
    /// DynamicQuantizeLSTM: H is quantized from its range before it meets R.
    pub quantize_h: bool,
    /// f, g (and h).
    pub activations: &'l [Activation],
    pub clip: Option<f64>,
    pub hidden: i64,
    pub x_step: TensorType,
    pub gates: TensorType,
    pub state: TensorType,
    pub y: TensorType,
}

fn f32(d: Vec<Dim>) -> TensorType {
    TensorType::new(DType::F32, d)
}

fn operand_type(op: OperationRef, i: usize) -> Result<TensorType> {
    TensorType::parse(&op.operand(i)?.r#type().to_string())
        .ok_or_else(|| anyhow!("operand {i} is not a tensor"))
}

/// `[a, b, …] -> [b, a, …]`.
fn swap01(t: &TensorType) -> TensorType {
    let mut t = t.clone();
    if let Some(s) = t.shape.as_mut().filter(|s| s.len() >= 2) {
        s.swap(0, 1);
    }
    t
}

/// `transpose.int(v, 0, 1)`.
fn transpose01<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    v: Value<'c, 'a>,
    ty: &TensorType,
) -> Result<Value<'c, 'a>> {
    let (zero, one) = (b.int(0)?, b.int(1)?);
    b.aten_tensor("transpose.int", &[v, zero, one], ty)
}

/// The layer's results (Y and the final states) in torch ops.
pub(super) fn expand<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    op: OperationRef<'c, 'a>,
    layer: &Layer,
) -> Result<Vec<Value<'c, 'a>>> {
    let x_type = if layer.batch_first {
        swap01(&layer.x)
    } else {
        layer.x.clone()
    };
    let dims = x_type.shape.clone().context("X has an unknown shape")?;
    let (t_dim, b_dim, i_dim, h) = (dims[0], dims[1], dims[2], layer.hidden);
    let gh = layer.kind.gates() * h;
    let zero = b.int(0)?;
    let one = b.int(1)?;
    // DynamicQuantizeLSTM: X and the weights enter the products dequantized (their
    // integers times their scales, exactly representable); W and R are already
    // transposed, `[D, I, 4H]` and `[D, H, 4H]`.
    let dequantized = |operand: usize| -> Result<Value<'c, 'a>> {
        let ty = operand_type(op, operand)?.with_dtype(DType::F32);
        b.aten_tensor("dequantize.self", &[op.operand(operand)?], &ty)
    };
    let (mut x, quantized_weights) = if layer.quantized {
        let x = dequantized(0)?;
        (x, Some((dequantized(1)?, dequantized(2)?)))
    } else {
        (op.operand(0)?, None)
    };
    if layer.batch_first {
        x = transpose01(b, x, &f32(dims.clone()))?;
    }
    let int = b.torch_type("int")?;
    let steps = b.aten("size.int", &[x, zero], int)?;
    let batch = b.aten("size.int", &[x, one], int)?;
    let lengths = if layer.lengths {
        let ty = TensorType::new(DType::I64, vec![b_dim]);
        Some(b.cast(op.operand(4)?, &ty)?)
    } else {
        None
    };
    let state = f32(vec![b_dim, Some(h)]);
    // Per direction: H's last value, C's (LSTM), then Y.
    let mut outs: Vec<Vec<Value<'c, 'a>>> = Vec::new();
    for (di, &reverse) in layer.directions.iter().enumerate() {
        let d = b.int(di as i64)?;
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
        let slice = |v: Value<'c, 'a>, from: i64, len: i64| -> Result<Value<'c, 'a>> {
            let (s, e) = (b.int(from)?, b.int(from + len)?);
            b.aten_tensor("slice.Tensor", &[v, zero, s, e, one], &f32(vec![Some(len)]))
        };
        let (bias, r_bias) = if is_none(op, 3)? {
            (None, None)
        } else {
            let both = pick(3, f32(vec![Some(2 * gh)]))?;
            let (wb, rb) = (slice(both, 0, gh)?, slice(both, gh, gh)?);
            match layer.kind {
                Kind::Lstm { .. } => {
                    let sum = b.aten_tensor("add.Tensor", &[wb, rb, one], &f32(vec![Some(gh)]))?;
                    (Some(sum), None)
                }
                Kind::Gru { .. } => (Some(wb), Some(rb)),
            }
        };
        let peepholes = if layer.peepholes {
            let p = pick(7, f32(vec![Some(3 * h)]))?;
            Some([slice(p, 0, h)?, slice(p, h, h)?, slice(p, 2 * h, h)?])
        } else {
            None
        };
        let hid = b.int(h)?;
        // initial_h is operand 5, LSTM's initial_c operand 6; batch first, they are
        // `[B, D, H]`.
        let initial = |operand: usize| -> Result<Value<'c, 'a>> {
            if is_none(op, operand)? {
                zeros(b, &[batch, hid], &state)
            } else {
                let axis = b.int(i64::from(layer.batch_first))?;
                b.aten_tensor("select.int", &[op.operand(operand)?, axis, d], &state)
            }
        };
        let mut carried = (0..layer.kind.states())
            .map(|k| initial(5 + k))
            .collect::<Result<Vec<_>>>()?;
        let y_type = f32(vec![t_dim, b_dim, Some(h)]);
        carried.push(zeros(b, &[steps, batch, hid], &y_type)?);
        // A reverse direction over sequences of their own lengths reads X reordered.
        let order = match lengths {
            Some(len) if reverse => Some(reversed_order(b, len, steps, &dims)?),
            _ => None,
        };
        let x_dir = match order {
            Some(idx) => gather_rows(b, x, idx, i_dim, &f32(dims.clone()))?,
            None => x,
        };
        let cell = Cell {
            kind: layer.kind,
            x: x_dir,
            w,
            r,
            bias,
            r_bias,
            peepholes,
            lengths,
            steps,
            reverse: reverse && order.is_none(),
            quantize_h: layer.quantized,
            activations: layer.activations_of(di),
            clip: layer.clip,
            hidden: h,
            x_step: f32(vec![b_dim, i_dim]),
            gates: f32(vec![b_dim, Some(gh)]),
            state: state.clone(),
            y: y_type.clone(),
        };
        let mut out = super::time_loop(b, &cell, &carried)?;
        if let Some(idx) = order {
            let y = out.last_mut().context("the loop returns no Y")?;
            *y = gather_rows(b, *y, idx, Some(h), &y_type)?;
        }
        if let Some(len) = lengths {
            let bool_b = TensorType::new(DType::Bool, vec![b_dim]);
            let ran = b.aten_tensor("gt.Scalar", &[len, zero], &bool_b)?;
            let ran = b.aten_tensor(
                "unsqueeze",
                &[ran, one],
                &TensorType::new(DType::Bool, vec![b_dim, Some(1)]),
            )?;
            let nothing = b.float(0.0)?;
            for s in out.iter_mut().take(layer.kind.states()) {
                *s = b.aten_tensor("where.ScalarOther", &[ran, *s, nothing], &state)?;
            }
        }
        outs.push(out);
    }
    join(b, op, layer, &outs)
}

/// Y `[T, D, B, H]` and the states `[D, B, H]` from each direction's loop results,
/// batch first (`[B, T, D, H]`, `[B, D, H]`) when the layer is.
fn join<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    op: OperationRef<'c, 'a>,
    layer: &Layer,
    outs: &[Vec<Value<'c, 'a>>],
) -> Result<Vec<Value<'c, 'a>>> {
    let declared = |i: usize| -> Result<TensorType> {
        TensorType::parse(&op.result(i)?.r#type().to_string())
            .ok_or_else(|| anyhow!("result {i} is not a tensor"))
    };
    let stacked = |k: usize, dim: i64, ty: &TensorType| -> Result<Value<'c, 'a>> {
        let parts: Vec<Value<'c, 'a>> = outs.iter().map(|o| o[k]).collect();
        let dim = b.int(dim)?;
        if parts.len() == 1 {
            return b.aten_tensor("unsqueeze", &[parts[0], dim], ty);
        }
        let tensor_list = b.list(&parts, "vtensor")?;
        b.aten_tensor("stack", &[tensor_list, dim], ty)
    };
    let states = layer.kind.states();
    let y_type = declared(0)?;
    let mut results = Vec::with_capacity(states + 1);
    if layer.batch_first {
        // [B, T, D, H] is [T, D, B, H] permuted by (2, 0, 1, 3).
        let time_major = match y_type.shape.as_deref() {
            Some(&[bd, t, d, h]) => TensorType::new(DType::F32, vec![t, d, bd, h]),
            _ => TensorType::new(DType::F32, vec![None; 4]),
        };
        let y = stacked(states, 1, &time_major)?;
        let perm = b.int_list(&[2, 0, 1, 3])?;
        results.push(b.aten_tensor("permute", &[y, perm], &y_type)?);
        for k in 0..states {
            let ty = declared(k + 1)?;
            let v = stacked(k, 0, &swap01(&ty))?;
            results.push(transpose01(b, v, &ty)?);
        }
    } else {
        results.push(stacked(states, 1, &y_type)?);
        for k in 0..states {
            results.push(stacked(k, 0, &declared(k + 1)?)?);
        }
    }
    Ok(results)
}

/// `[T, B]` si64: for entry b, step s reads row `len_b-1-s` while `s < len_b`, else
/// row s (a padding step, masked in the loop). The map is its own inverse.
fn reversed_order<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    lengths: Value<'c, 'a>,
    steps: Value<'c, 'a>,
    dims: &[Dim],
) -> Result<Value<'c, 'a>> {
    let (t_dim, b_dim) = (dims[0], dims[1]);
    let i64s = |d: Vec<Dim>| TensorType::new(DType::I64, d);
    let (zero, one, none) = (b.int(0)?, b.int(1)?, b.none()?);
    let code = b.int(DType::I64.torch_scalar_type())?;
    let range = b.aten_tensor(
        "arange.start_step",
        &[zero, steps, one, code, none, none, none],
        &i64s(vec![t_dim]),
    )?;
    let column = b.aten_tensor("unsqueeze", &[range, one], &i64s(vec![t_dim, Some(1)]))?;
    let last = b.aten_tensor("sub.Scalar", &[lengths, one, one], &i64s(vec![b_dim]))?;
    let grid = i64s(vec![t_dim, b_dim]);
    let flipped = b.aten_tensor("sub.Tensor", &[last, column, one], &grid)?;
    let inside = b.aten_tensor(
        "lt.Tensor",
        &[column, lengths],
        &TensorType::new(DType::Bool, vec![t_dim, b_dim]),
    )?;
    b.aten_tensor("where.self", &[inside, flipped, column], &grid)
}

/// `v[order[t, b], b, :]` for `v` `[T, B, n]`.
fn gather_rows<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    v: Value<'c, 'a>,
    order: Value<'c, 'a>,
    n: Dim,
    ty: &TensorType,
) -> Result<Value<'c, 'a>> {
    let dims = ty.shape.clone().unwrap_or_default();
    let (zero, two) = (b.int(0)?, b.int(2)?);
    let column = TensorType::new(DType::I64, vec![dims[0], dims[1], Some(1)]);
    let index = b.aten_tensor("unsqueeze", &[order, two], &column)?;
    let keep = b.int(-1)?;
    let width = match n {
        Some(n) => b.int(n)?,
        None => b.aten("size.int", &[v, two], b.torch_type("int")?)?,
    };
    let sizes = b.list(&[keep, keep, width], "int")?;
    let no = b.bool(false)?;
    let full = TensorType::new(DType::I64, dims.clone());
    let index = b.aten_tensor("expand", &[index, sizes, no], &full)?;
    b.aten_tensor("gather", &[v, zero, index, no], ty)
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
