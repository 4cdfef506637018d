//! ONNX LSTM (and com.microsoft DynamicQuantizeLSTM, whose W and R arrive as
//! quantized tensors). Operands: X, W, R, B, sequence_lens, initial_h, initial_c, P,
//! then direction (str), hidden_size, layout, clip (float or none), input_forget,
//! activations (names joined by commas, three per direction), their alphas and betas.
//! Results: Y, Y_h, Y_c. Gates are ordered i, o, f, c as in ONNX.

use anyhow::{Context as _, Result, bail};

use super::activation::{Activation, parse_list};
use super::projection::{Weights, float_weights, quantized_weights};
use super::{
    Dims, Outputs, clip, directions, gate_rows, read_lengths, read_rows, read_state, read_x,
    zero_empty_sequences,
};
use crate::kernels::Call;
use crate::kernels::args::{int, opt_float, opt_tensor, string, tensor};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Quant, Tensor};

pub fn lstm(c: &Call) -> Result<Vec<Value>> {
    let x = tensor(c, 0).context("X")?;
    let w = tensor(c, 1).context("W")?;
    let r = tensor(c, 2).context("R")?;
    let hidden = usize::try_from(int(c, 9)?).context("hidden_size")?;
    let batch_first = int(c, 10)? != 0;
    let dirs = directions(string(c, 8)?)?;
    let clip_to = opt_float(c, 11)?.map(|v| v as f32);
    let input_forget = int(c, 12)? != 0;
    let acts = parse_list(string(c, 13)?, floats(c, 14)?, floats(c, 15)?)?;
    if acts.len() != 3 * dirs.len() {
        bail!("LSTM takes 3 activations per direction, got {}", acts.len());
    }
    let (values, steps, batch, input) = read_x(x, batch_first)?;
    // DynamicQuantizeLSTM's lowering quantizes X in the IR (per tensor, uint8), as
    // ONNX Runtime quantizes it once for the input product of every step.
    let xs = match &x.quant {
        None => Input::Float(values),
        Some(Quant::PerTensor { scale, zero_point }) => Input::Quantized {
            q: values
                .iter()
                .map(|&v| v as i32 - *zero_point as i32)
                .collect(),
            scale: *scale as f32,
        },
        Some(_) => bail!("X is quantized per channel; only per tensor is supported"),
    };
    let dims = Dims {
        steps,
        batch,
        input,
        hidden,
        directions: dirs.len(),
        batch_first,
    };
    let g = gate_rows(hidden, 4)?;
    // Y's size is bounded before anything is sized by T and B, and R's (which holds
    // g·H values) before anything is sized by g.
    let mut out = Outputs::new(dims)?;
    weights(w, r, &dims, 0, g)?;
    let bias = read_rows(opt_tensor(c, 3)?, dims.directions, 2 * g, "B")?;
    let lengths = read_lengths(opt_tensor(c, 4)?, &dims)?;
    let mut h = read_state(opt_tensor(c, 5)?, &dims, "initial_h")?;
    let mut cell = read_state(opt_tensor(c, 6)?, &dims, "initial_c")?;
    let peep = read_rows(opt_tensor(c, 7)?, dims.directions, 3 * hidden, "P")?;
    for (d, &reverse) in dirs.iter().enumerate() {
        let (wd, rd) = weights(w, r, &dims, d, g)?;
        let b: Vec<f32> = (0..g)
            .map(|k| bias[d * 2 * g + k] + bias[d * 2 * g + g + k])
            .collect();
        let direction = Direction {
            dims,
            w: &wd,
            r: &rd,
            bias: &b,
            peep: &peep[d * 3 * hidden..(d + 1) * 3 * hidden],
            acts: &acts[3 * d..3 * d + 3],
            clip: clip_to,
            input_forget,
        };
        let hb = dims.batch * hidden;
        direction.run(
            &xs,
            &lengths,
            reverse,
            d,
            &mut h[d * hb..(d + 1) * hb],
            &mut cell[d * hb..(d + 1) * hb],
            &mut out,
        );
        zero_empty_sequences(&mut h[d * hb..(d + 1) * hb], &lengths, hidden);
        zero_empty_sequences(&mut cell[d * hb..(d + 1) * hb], &lengths, hidden);
    }
    Ok(vec![
        out.y_value()?,
        out.state_value(&h)?,
        out.state_value(&cell)?,
    ])
}

pub(super) fn floats<'c>(c: &'c Call, i: usize) -> Result<&'c [f64]> {
    match c.arg(i)? {
        Value::FloatList(v) => Ok(v),
        Value::IntList(v) if v.is_empty() => Ok(&[]),
        other => bail!("operand {i} is {}, expected list<float>", other.kind()),
    }
}

/// Direction `d`'s W and R: float `[D, 4H, I]` / `[D, 4H, H]`, or quantized
/// `[D, I, 4H]` / `[D, H, 4H]` (ONNX Runtime's DynamicQuantizeLSTM layout).
fn weights(w: &Tensor, r: &Tensor, dims: &Dims, d: usize, g: usize) -> Result<(Weights, Weights)> {
    let (input, hidden, nd) = (dims.input, dims.hidden, dims.directions);
    if w.quant.is_some() || r.quant.is_some() {
        expect_shape(w, [nd, input, g], "W")?;
        expect_shape(r, [nd, hidden, g], "R")?;
        Ok((
            quantized_weights(w, d, g, input).context("W")?,
            quantized_weights(r, d, g, hidden).context("R")?,
        ))
    } else {
        expect_shape(w, [nd, g, input], "W")?;
        expect_shape(r, [nd, g, hidden], "R")?;
        Ok((
            float_weights(w, d, g, input).context("W")?,
            float_weights(r, d, g, hidden).context("R")?,
        ))
    }
}

pub(super) fn expect_shape(t: &Tensor, want: [usize; 3], name: &str) -> Result<()> {
    if t.shape != want {
        bail!("{name} has shape {:?}, expected {want:?}", t.shape);
    }
    Ok(())
}

/// X in time-major order: float, or quantized integers less their zero point.
enum Input {
    Float(Vec<f32>),
    Quantized { q: Vec<i32>, scale: f32 },
}

struct Direction<'a> {
    dims: Dims,
    w: &'a Weights,
    r: &'a Weights,
    /// Wb + Rb.
    bias: &'a [f32],
    /// P: input, output, forget.
    peep: &'a [f32],
    /// f, g, h.
    acts: &'a [Activation],
    clip: Option<f32>,
    input_forget: bool,
}

impl Direction<'_> {
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        xs: &Input,
        lengths: &[usize],
        reverse: bool,
        d: usize,
        h: &mut [f32],
        cell: &mut [f32],
        out: &mut Outputs,
    ) {
        let Dims {
            steps,
            batch,
            hidden,
            ..
        } = self.dims;
        let g = 4 * hidden;
        // X·Wᵀ for every step at once, as ONNX Runtime does (one quantization of X).
        let mut xw = vec![0f32; steps * batch * g];
        match xs {
            Input::Float(x) => self.w.project(x, &mut xw, false),
            Input::Quantized { q, scale } => self.w.project_quantized(q, *scale, &mut xw, false),
        }
        let mut gates = vec![0f32; batch * g];
        for s in 0..steps {
            for b in 0..batch {
                let t = time(s, lengths[b], reverse);
                if let Some(t) = t {
                    let row = (t * batch + b) * g;
                    gates[b * g..(b + 1) * g].copy_from_slice(&xw[row..row + g]);
                }
            }
            self.r.project(h, &mut gates, true);
            for b in 0..batch {
                let Some(t) = time(s, lengths[b], reverse) else {
                    continue;
                };
                let hs = b * hidden..(b + 1) * hidden;
                self.cell(
                    &gates[b * g..(b + 1) * g],
                    &mut h[hs.clone()],
                    &mut cell[hs.clone()],
                );
                out.y_row(t, d, b).copy_from_slice(&h[hs]);
            }
        }
    }

    /// One batch entry's step: `pre` holds X·Wᵀ + H·Rᵀ for gates i, o, f, c.
    fn cell(&self, pre: &[f32], h: &mut [f32], c: &mut [f32]) {
        let n = h.len();
        let [f, g, hf] = [self.acts[0], self.acts[1], self.acts[2]];
        let (pi, po, pf) = (&self.peep[..n], &self.peep[n..2 * n], &self.peep[2 * n..]);
        for k in 0..n {
            let i_pre = pre[k] + pi[k] * c[k];
            let i = f.apply(clip(i_pre + self.bias[k], self.clip));
            let forget = if self.input_forget {
                1.0 - i
            } else {
                let f_pre = pre[2 * n + k] + pf[k] * c[k];
                f.apply(clip(f_pre + self.bias[2 * n + k], self.clip))
            };
            let z = g.apply(clip(pre[3 * n + k] + self.bias[3 * n + k], self.clip));
            c[k] = forget * c[k] + i * z;
            let o_pre = pre[n + k] + po[k] * c[k];
            let o = f.apply(clip(o_pre + self.bias[n + k], self.clip));
            h[k] = o * hf.apply(c[k]);
        }
    }
}

/// The time index of step `s` for a batch entry of `len` steps, if it is still running.
pub(super) fn time(s: usize, len: usize, reverse: bool) -> Option<usize> {
    if s >= len {
        None
    } else if reverse {
        Some(len - 1 - s)
    } else {
        Some(s)
    }
}
