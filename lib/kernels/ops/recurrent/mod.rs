//! ONNX's recurrent layers, LSTM and GRU, each as one kernel that runs every time
//! step: the lowering cannot unroll a sequence whose length is known only at run time,
//! and the backend runs no loops of ops, so the step loop lives here. The operands
//! are the ONNX inputs in the spec's order, then the attributes (see `lstm` and `gru`).
//!
//! Shared here: reading X and the initial states in either `layout`, the per-batch
//! sequence lengths, and writing Y and the final states.

pub mod activation;
mod gru;
mod lstm;
pub mod projection;

use anyhow::{Result, bail};

use crate::kernels::Kernel;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor, bounded_count};

/// The op names the lowering writes (as `torch.operator` names, see `dialect::qlower`).
pub fn lookup(op: &str) -> Option<Kernel> {
    match op {
        "qlower.lstm" => Some(lstm::lstm),
        "qlower.gru" => Some(gru::gru),
        _ => None,
    }
}

/// The sizes every recurrent layer shares.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    pub steps: usize,
    pub batch: usize,
    pub input: usize,
    pub hidden: usize,
    pub directions: usize,
    /// `layout` 1: batch first in X, Y and the states.
    pub batch_first: bool,
}

pub fn directions(direction: &str) -> Result<Vec<bool>> {
    Ok(match direction {
        "forward" => vec![false],
        "reverse" => vec![true],
        "bidirectional" => vec![false, true],
        other => bail!("direction '{other}' is none of forward, reverse, bidirectional"),
    })
}

/// X as f32 in time-major order `[T, B, I]`, with its sizes.
pub fn read_x(x: &Tensor, batch_first: bool) -> Result<(Vec<f32>, usize, usize, usize)> {
    let [a, b, i] = x.shape[..] else {
        bail!("X has shape {:?}, expected rank 3", x.shape);
    };
    let v: Vec<f32> = x.data.to_f64().into_iter().map(|v| v as f32).collect();
    if !batch_first {
        return Ok((v, a, b, i));
    }
    let (batch, steps) = (a, b);
    let mut out = vec![0f32; v.len()];
    for n in 0..batch {
        for t in 0..steps {
            let from = (n * steps + t) * i;
            let to = (t * batch + n) * i;
            out[to..to + i].copy_from_slice(&v[from..from + i]);
        }
    }
    Ok((out, steps, batch, i))
}

/// An initial state as `[D, B, H]` f32 (zeros when absent).
pub fn read_state(t: Option<&Tensor>, dims: &Dims, name: &str) -> Result<Vec<f32>> {
    let (d, b, h) = (dims.directions, dims.batch, dims.hidden);
    let Some(t) = t else {
        return Ok(vec![0f32; d * b * h]);
    };
    let want = if dims.batch_first {
        [b, d, h]
    } else {
        [d, b, h]
    };
    if t.shape != want {
        bail!("{name} has shape {:?}, expected {want:?}", t.shape);
    }
    let v: Vec<f32> = t.data.to_f64().into_iter().map(|v| v as f32).collect();
    Ok(if dims.batch_first {
        swap_outer(&v, b, d, h)
    } else {
        v
    })
}

/// `[p, q, h]` → `[q, p, h]`.
fn swap_outer(v: &[f32], p: usize, q: usize, h: usize) -> Vec<f32> {
    let mut out = vec![0f32; v.len()];
    for i in 0..p {
        for j in 0..q {
            let from = (i * q + j) * h;
            let to = (j * p + i) * h;
            out[to..to + h].copy_from_slice(&v[from..from + h]);
        }
    }
    out
}

/// Each batch entry's sequence length (all `T` when absent).
pub fn read_lengths(t: Option<&Tensor>, dims: &Dims) -> Result<Vec<usize>> {
    let Some(t) = t else {
        return Ok(vec![dims.steps; dims.batch]);
    };
    if t.shape != [dims.batch] {
        bail!(
            "sequence_lens has shape {:?}, expected [{}]",
            t.shape,
            dims.batch
        );
    }
    t.data
        .to_i64()
        .into_iter()
        .map(|n| match usize::try_from(n) {
            Ok(n) if n <= dims.steps => Ok(n),
            _ => bail!("sequence_lens holds {n}, outside [0, {}]", dims.steps),
        })
        .collect()
}

/// A float operand of `[D, n]` (bias, peepholes) as f32 rows, zeros when absent.
pub fn read_rows(t: Option<&Tensor>, d: usize, n: usize, name: &str) -> Result<Vec<f32>> {
    let Some(t) = t else {
        return Ok(vec![0f32; d * n]);
    };
    if t.shape != [d, n] {
        bail!("{name} has shape {:?}, expected [{d}, {n}]", t.shape);
    }
    Ok(t.data.to_f64().into_iter().map(|v| v as f32).collect())
}

/// The outputs being written: Y `[T, D, B, H]` and the final states `[D, B, H]`,
/// reordered for `layout` 1 when taken out.
pub struct Outputs {
    pub y: Vec<f32>,
    dims: Dims,
}

impl Outputs {
    pub fn new(dims: Dims) -> Result<Outputs> {
        let n = bounded_count(&[dims.steps, dims.directions, dims.batch, dims.hidden])?;
        Ok(Outputs {
            y: vec![0f32; n],
            dims,
        })
    }

    /// Y's row for time `t`, direction `d`, batch entry `b`.
    pub fn y_row(&mut self, t: usize, d: usize, b: usize) -> &mut [f32] {
        let Dims {
            directions,
            batch,
            hidden,
            ..
        } = self.dims;
        let at = ((t * directions + d) * batch + b) * hidden;
        &mut self.y[at..at + hidden]
    }

    /// Y in the op's layout.
    pub fn y_value(&self) -> Result<Value> {
        let Dims {
            steps,
            directions,
            batch,
            hidden,
            batch_first,
            ..
        } = self.dims;
        if !batch_first {
            return value(vec![steps, directions, batch, hidden], self.y.clone());
        }
        // [T, D, B, H] → [B, T, D, H]
        let mut out = vec![0f32; self.y.len()];
        for t in 0..steps {
            for d in 0..directions {
                for b in 0..batch {
                    let from = ((t * directions + d) * batch + b) * hidden;
                    let to = ((b * steps + t) * directions + d) * hidden;
                    out[to..to + hidden].copy_from_slice(&self.y[from..from + hidden]);
                }
            }
        }
        value(vec![batch, steps, directions, hidden], out)
    }

    /// A final state `[D, B, H]` in the op's layout.
    pub fn state_value(&self, state: &[f32]) -> Result<Value> {
        let Dims {
            directions,
            batch,
            hidden,
            batch_first,
            ..
        } = self.dims;
        if batch_first {
            let v = swap_outer(state, directions, batch, hidden);
            value(vec![batch, directions, hidden], v)
        } else {
            value(vec![directions, batch, hidden], state.to_vec())
        }
    }
}

/// A float32 result (the lowering accepts float32 layers only).
fn value(shape: Vec<usize>, v: Vec<f32>) -> Result<Value> {
    Ok(Value::tensor(Tensor::new(shape, Data::F32(v))?))
}

/// `gates · hidden`, the rows of W and R, for a positive hidden size.
pub fn gate_rows(hidden: usize, gates: usize) -> Result<usize> {
    if hidden == 0 {
        bail!("hidden_size is 0");
    }
    hidden
        .checked_mul(gates)
        .ok_or_else(|| anyhow::anyhow!("hidden_size {hidden} is too large"))
}

/// `x` clipped to `[-clip, clip]` when the op has a clip.
pub fn clip(x: f32, clip: Option<f32>) -> f32 {
    match clip {
        Some(c) => x.clamp(-c, c),
        None => x,
    }
}

/// ONNX Runtime gives zeros, not the initial state, as the final state of a batch
/// entry whose sequence is empty; `state` is one direction's `[B, H]`.
pub fn zero_empty_sequences(state: &mut [f32], lengths: &[usize], hidden: usize) {
    for (b, &len) in lengths.iter().enumerate() {
        if len == 0 {
            state[b * hidden..(b + 1) * hidden].fill(0.0);
        }
    }
}

#[cfg(test)]
mod tests;
