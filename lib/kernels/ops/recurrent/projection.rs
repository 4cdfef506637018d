//! The two matrix products of every recurrent step, `X·Wᵀ` and `H·Rᵀ`, for one
//! direction's weights: float, or int8/uint8 weights whose float operand is quantized
//! dynamically at each product (com.microsoft DynamicQuantizeLSTM).
//!
//! The quantized product follows ONNX Runtime's recurrent kernels: the operand's range,
//! widened to hold 0, gives a uint8 scale and zero point as DynamicQuantizeLinear does;
//! the integers are multiplied and summed exactly in i32, and the sum is scaled by
//! `a_scale · w_scale` (one f32 product) and added to what the output holds.

use anyhow::{Result, bail};

use crate::kernels::tensor::{Data, Quant, Tensor};

/// One direction's weight matrix, as `rows` outputs of `cols` inputs each.
pub enum Weights {
    /// Row-major `[rows, cols]`, as ONNX stores W and R.
    Float {
        w: Vec<f32>,
        rows: usize,
        cols: usize,
    },
    /// Column-major `[cols, rows]` (ONNX Runtime's quantized layout), zero point
    /// already subtracted, and one scale per output row.
    Quantized {
        w: Vec<i32>,
        rows: usize,
        cols: usize,
        scales: Vec<f32>,
    },
}

impl Weights {
    pub fn rows(&self) -> usize {
        match self {
            Weights::Float { rows, .. } | Weights::Quantized { rows, .. } => *rows,
        }
    }

    pub fn cols(&self) -> usize {
        match self {
            Weights::Float { cols, .. } | Weights::Quantized { cols, .. } => *cols,
        }
    }

    /// `out[m] (+)= a[m] · Wᵀ` for the `m` rows of `a` (each `cols` long); `add` keeps
    /// what `out` holds and adds to it.
    pub fn project(&self, a: &[f32], out: &mut [f32], add: bool) {
        let (rows, cols) = (self.rows(), self.cols());
        let m = a.len().checked_div(cols).unwrap_or(0);
        match self {
            Weights::Float { w, .. } => {
                for r in 0..m {
                    let x = &a[r * cols..(r + 1) * cols];
                    let o = &mut out[r * rows..(r + 1) * rows];
                    for (n, o) in o.iter_mut().enumerate() {
                        let wr = &w[n * cols..(n + 1) * cols];
                        let s: f32 = x.iter().zip(wr).map(|(x, w)| x * w).sum();
                        *o = if add { *o + s } else { s };
                    }
                }
            }
            Weights::Quantized { .. } => {
                let (scale, zero_point) = dynamic_params(a);
                let q: Vec<i32> = a
                    .iter()
                    .map(|&x| quantize(x, scale, zero_point) - zero_point)
                    .collect();
                self.project_quantized(&q, scale, out, add);
            }
        }
    }

    /// As `project`, for an operand already quantized: its integers less their zero
    /// point, and its scale. Float weights take the operand dequantized.
    pub fn project_quantized(&self, q: &[i32], scale: f32, out: &mut [f32], add: bool) {
        let (rows, cols) = (self.rows(), self.cols());
        let m = q.len().checked_div(cols).unwrap_or(0);
        match self {
            Weights::Float { .. } => {
                let a: Vec<f32> = q.iter().map(|&v| v as f32 * scale).collect();
                self.project(&a, out, add);
            }
            Weights::Quantized { w, scales, .. } => {
                let mut acc = vec![0i32; rows];
                for r in 0..m {
                    acc.iter_mut().for_each(|v| *v = 0);
                    for (k, &qa) in q[r * cols..(r + 1) * cols].iter().enumerate() {
                        if qa == 0 {
                            continue;
                        }
                        let wk = &w[k * rows..(k + 1) * rows];
                        for (acc, &wv) in acc.iter_mut().zip(wk) {
                            *acc = acc.wrapping_add(qa * wv);
                        }
                    }
                    let o = &mut out[r * rows..(r + 1) * rows];
                    for ((o, &acc), &ws) in o.iter_mut().zip(&acc).zip(scales) {
                        let v = acc as f32 * (scale * ws);
                        *o = if add { v + *o } else { v };
                    }
                }
            }
        }
    }
}

/// DynamicQuantizeLinear's uint8 parameters for `a`: the range widened to hold 0.
pub fn dynamic_params(a: &[f32]) -> (f32, i32) {
    let (lo, hi) = a
        .iter()
        .fold((0f32, 0f32), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let scale = if hi == lo { 1.0 } else { (hi - lo) / 255.0 };
    let zero_point = (0.0 - lo / scale).clamp(0.0, 255.0).round_ties_even() as i32;
    (scale, zero_point)
}

fn quantize(x: f32, scale: f32, zero_point: i32) -> i32 {
    ((x / scale).round_ties_even() as i32 + zero_point).clamp(0, 255)
}

/// Direction `d`'s slice of a `[D, rows, cols]` float weight tensor.
pub fn float_weights(t: &Tensor, d: usize, rows: usize, cols: usize) -> Result<Weights> {
    let n = rows * cols;
    let all = t.data.to_f64();
    let w = all
        .get(d * n..(d + 1) * n)
        .ok_or_else(|| anyhow::anyhow!("weights hold no direction {d}"))?
        .iter()
        .map(|&v| v as f32)
        .collect();
    Ok(Weights::Float { w, rows, cols })
}

/// Direction `d`'s slice of a quantized `[D, cols, rows]` weight tensor whose scales
/// and zero points are per tensor or per direction (axis 0).
pub fn quantized_weights(t: &Tensor, d: usize, rows: usize, cols: usize) -> Result<Weights> {
    let n = rows * cols;
    let ints: Vec<i64> = match &t.data {
        Data::I8(_) | Data::U8(_) => t.data.to_i64(),
        other => bail!("quantized weights stored as {:?}", other.dtype()),
    };
    let (scale, zero_point) = match &t.quant {
        Some(Quant::PerTensor { scale, zero_point }) => (*scale, *zero_point),
        Some(Quant::PerChannel {
            scales,
            zero_points,
            axis: 0,
        }) => match (scales.get(d), zero_points.get(d)) {
            (Some(s), Some(z)) => (*s, *z),
            _ => bail!("quantized weights have no parameters for direction {d}"),
        },
        Some(Quant::PerChannel { axis, .. }) => {
            bail!("quantized weights per channel along axis {axis}, expected 0")
        }
        None => bail!("weights are not quantized"),
    };
    let w = ints
        .get(d * n..(d + 1) * n)
        .ok_or_else(|| anyhow::anyhow!("weights hold no direction {d}"))?
        .iter()
        .map(|&v| (v - zero_point) as i32)
        .collect();
    Ok(Weights::Quantized {
        w,
        rows,
        cols,
        scales: vec![scale as f32; rows],
    })
}
