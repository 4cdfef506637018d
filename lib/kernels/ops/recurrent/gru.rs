//! ONNX GRU. Operands: X, W, R, B, sequence_lens, initial_h, then direction (str),
//! hidden_size, layout, clip (float or none), linear_before_reset, activations (names
//! joined by commas, two per direction), their alphas and betas. Results: Y, Y_h.
//! Gates are ordered z, r, h as in ONNX.

use anyhow::{Context as _, Result, bail};

use super::activation::{Activation, parse_list};
use super::lstm::{expect_shape, floats, time};
use super::projection::{Weights, float_weights};
use super::{
    Dims, Outputs, clip, directions, gate_rows, read_lengths, read_rows, read_state, read_x,
    zero_empty_sequences,
};
use crate::kernels::Call;
use crate::kernels::args::{int, opt_float, opt_tensor, string, tensor};
use crate::kernels::tensor::value::Value;

pub fn gru(c: &Call) -> Result<Vec<Value>> {
    let x = tensor(c, 0).context("X")?;
    let w = tensor(c, 1).context("W")?;
    let r = tensor(c, 2).context("R")?;
    let hidden = usize::try_from(int(c, 7)?).context("hidden_size")?;
    let batch_first = int(c, 8)? != 0;
    let dirs = directions(string(c, 6)?)?;
    let clip_to = opt_float(c, 9)?.map(|v| v as f32);
    let linear_before_reset = int(c, 10)? != 0;
    let acts = parse_list(string(c, 11)?, floats(c, 12)?, floats(c, 13)?)?;
    if acts.len() != 2 * dirs.len() {
        bail!("GRU takes 2 activations per direction, got {}", acts.len());
    }
    let (xs, steps, batch, input) = read_x(x, batch_first)?;
    let dims = Dims {
        steps,
        batch,
        input,
        hidden,
        directions: dirs.len(),
        batch_first,
    };
    let g = gate_rows(hidden, 3)?;
    let nd = dims.directions;
    // Y's size is bounded before anything is sized by T and B, and R's (which holds
    // g·H values) before anything is sized by g.
    let mut out = Outputs::new(dims)?;
    expect_shape(w, [nd, g, input], "W")?;
    expect_shape(r, [nd, g, hidden], "R")?;
    let bias = read_rows(opt_tensor(c, 3)?, nd, 2 * g, "B")?;
    let lengths = read_lengths(opt_tensor(c, 4)?, &dims)?;
    let mut h = read_state(opt_tensor(c, 5)?, &dims, "initial_h")?;
    for (d, &reverse) in dirs.iter().enumerate() {
        // R split in its z, r rows and its h rows: the h rows multiply r ⊙ H when
        // linear_before_reset is 0, so they are a product of their own.
        let rd = float_weights(r, d, g, hidden)?;
        let Weights::Float { w: rw, .. } = &rd else {
            bail!("GRU weights must be float");
        };
        let split = 2 * hidden * hidden;
        let direction = Direction {
            dims,
            w: float_weights(w, d, g, input)?,
            r_zr: Weights::Float {
                w: rw[..split].to_vec(),
                rows: 2 * hidden,
                cols: hidden,
            },
            r_h: Weights::Float {
                w: rw[split..].to_vec(),
                rows: hidden,
                cols: hidden,
            },
            wb: &bias[d * 2 * g..d * 2 * g + g],
            rb: &bias[d * 2 * g + g..(d + 1) * 2 * g],
            acts: &acts[2 * d..2 * d + 2],
            clip: clip_to,
            linear_before_reset,
        };
        let hb = batch * hidden;
        direction.run(
            &xs,
            &lengths,
            reverse,
            d,
            &mut h[d * hb..(d + 1) * hb],
            &mut out,
        );
        zero_empty_sequences(&mut h[d * hb..(d + 1) * hb], &lengths, hidden);
    }
    Ok(vec![out.y_value()?, out.state_value(&h)?])
}

struct Direction<'a> {
    dims: Dims,
    w: Weights,
    r_zr: Weights,
    r_h: Weights,
    wb: &'a [f32],
    rb: &'a [f32],
    /// f, g.
    acts: &'a [Activation],
    clip: Option<f32>,
    linear_before_reset: bool,
}

impl Direction<'_> {
    fn run(
        &self,
        xs: &[f32],
        lengths: &[usize],
        reverse: bool,
        d: usize,
        h: &mut [f32],
        out: &mut Outputs,
    ) {
        let Dims {
            steps,
            batch,
            hidden,
            ..
        } = self.dims;
        let g = 3 * hidden;
        let (wb, rb) = (self.wb, self.rb);
        let [f, act_g] = [self.acts[0], self.acts[1]];
        let mut xw = vec![0f32; steps * batch * g];
        self.w.project(xs, &mut xw, false);
        let mut hr = vec![0f32; batch * 2 * hidden];
        let mut hh = vec![0f32; batch * hidden];
        let mut gated = vec![0f32; batch * hidden];
        let mut z = vec![0f32; hidden];
        for s in 0..steps {
            self.r_zr.project(h, &mut hr, false);
            if self.linear_before_reset {
                self.r_h.project(h, &mut hh, false);
            }
            let rows: Vec<Option<usize>> =
                (0..batch).map(|b| time(s, lengths[b], reverse)).collect();
            // z and r first: with linear_before_reset 0, h's product needs r ⊙ H.
            for (b, t) in rows.iter().enumerate() {
                let Some(t) = *t else { continue };
                let x = &xw[(t * batch + b) * g..(t * batch + b + 1) * g];
                let hrb = &hr[b * 2 * hidden..(b + 1) * 2 * hidden];
                for k in 0..hidden {
                    let zp = x[k] + hrb[k] + wb[k] + rb[k];
                    z[k] = f.apply(clip(zp, self.clip));
                    let rk = hidden + k;
                    let r = f.apply(clip(x[rk] + hrb[rk] + wb[rk] + rb[rk], self.clip));
                    // kept for the h gate: r ⊙ H, or r alone with linear_before_reset
                    gated[b * hidden + k] = if self.linear_before_reset {
                        r
                    } else {
                        r * h[b * hidden + k]
                    };
                }
                // z is needed after h's product; keep it in the output row meanwhile.
                out.y_row(t, d, b).copy_from_slice(&z);
            }
            if !self.linear_before_reset {
                self.r_h.project(&gated, &mut hh, false);
            }
            for (b, t) in rows.iter().enumerate() {
                let Some(t) = *t else { continue };
                let x = &xw[(t * batch + b) * g..(t * batch + b + 1) * g];
                let row = out.y_row(t, d, b);
                for k in 0..hidden {
                    let hk = 2 * hidden + k;
                    let pre = if self.linear_before_reset {
                        x[hk] + gated[b * hidden + k] * (hh[b * hidden + k] + rb[hk]) + wb[hk]
                    } else {
                        x[hk] + hh[b * hidden + k] + rb[hk] + wb[hk]
                    };
                    let cand = act_g.apply(clip(pre, self.clip));
                    let zk = row[k];
                    let prev = h[b * hidden + k];
                    let next = (1.0 - zk) * cand + zk * prev;
                    h[b * hidden + k] = next;
                    row[k] = next;
                }
            }
        }
    }
}
