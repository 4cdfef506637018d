//! The per-channel terms that requantize the convolution's int32 sums: the bias minus
//! its zero point, the zero-point corrections im2col's uncentred products need, and
//! the float multipliers `x_scale·w_scale / y_scale`.

use anyhow::Result;

use super::super::qgemm::requant::{self, Output};
use super::super::qparams::Params;
use super::weights::ConvWeights;
use crate::kernels::Call;
use crate::kernels::tensor::value::Value;

/// How one convolution's int32 sums become its output bytes.
pub(super) struct Terms {
    /// Per output channel: the bias, and the bias with the zero-point terms im2col's
    /// uncentred products need.
    pub(super) bias: Vec<i32>,
    pub(super) offsets: Vec<i32>,
    pub(super) multipliers: Vec<f32>,
    pub(super) out: Output,
}

/// The terms for input zero point `x_zero` (in the unsigned range), or `None` where
/// the reference kernel should decide: a bias of another length, a multiplier that is
/// not finite, an output zero point out of range.
pub(super) fn terms(
    c: &Call,
    w: &ConvWeights,
    xp: &Params,
    yp: &Params,
    x_zero: u8,
    signed_out: bool,
) -> Result<Option<Terms>> {
    let c_out = w.shape[0];
    let Some(bias) = bias(c, c_out)? else {
        return Ok(None);
    };
    let offsets = offsets(w, &bias, x_zero);
    let multipliers: Vec<f32> = w
        .scales
        .iter()
        .map(|&ws| xp.scale(0) * ws / yp.scale(0))
        .collect();
    if !requant::finite(&multipliers) {
        return Ok(None);
    }
    let y_zero = yp.zero_point(0);
    let Some(out) = Output::new(y_zero, signed_out) else {
        return Ok(None);
    };
    Ok(Some(Terms {
        bias,
        offsets,
        multipliers,
        out,
    }))
}

/// Per output channel, the bias with the zero-point terms im2col's uncentred products
/// need, for input zero point `x_zero` (in the unsigned range).
pub(super) fn offsets(w: &ConvWeights, bias: &[i32], x_zero: u8) -> Vec<i32> {
    let (k, x_zero) = (w.k as i32, x_zero as i32);
    // Σ (x' - xz)(w' - wz) = Σ x'w' - xz·Σw' - wz·Σx' + K·xz·wz; all but Σ x'w' and
    // the per-pixel Σx' are known per channel.
    (0..w.shape[0])
        .map(|m| {
            bias[m]
                .wrapping_sub(x_zero.wrapping_mul(w.sums[m]))
                .wrapping_add(k.wrapping_mul(x_zero).wrapping_mul(w.zeros[m]))
        })
        .collect()
}

/// The int32 bias minus its zero point, per output channel (zeros without a bias), as
/// the reference reads it; `None` if its length does not fit.
fn bias(c: &Call, c_out: usize) -> Result<Option<Vec<i32>>> {
    let Value::Tensor(b) = c.arg(6)? else {
        return Ok(Some(vec![0; c_out]));
    };
    let zero_points: Vec<i64> = match c.arg(7)? {
        Value::None => vec![0],
        Value::Tensor(z) => z.data.to_i64(),
        v => vec![v.as_int()?],
    };
    let values = b.data.to_i64();
    if values.len() != c_out {
        return Ok(None);
    }
    Ok(Some(
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let z = zero_points.get(i).or(zero_points.first()).copied();
                (v - z.unwrap_or(0)) as i32
            })
            .collect(),
    ))
}
