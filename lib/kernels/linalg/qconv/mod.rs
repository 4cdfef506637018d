//! The fast quantized convolution behind `qlinear_conv`: weights packed once (at plan
//! time when they are constants), blocked im2col of the activations panel by panel,
//! the integer tile of `qgemm` for the products, requantization fused into the tile
//! loop, and a direct kernel for depthwise convolutions. Work is split over (batch,
//! group, pixel panel) or, depthwise, over (batch, channel). Anything this path does
//! not take (ranks above 3-D, operands of other types) returns `None`, and the caller
//! runs the reference kernel, which also reports malformed operands.
//!
//! The files: `weights` (packing), `geometry` (sizes from the operands), `requantize`
//! (per-channel terms), `im2col` (packing the activations), `gemm` (the tile loop)
//! and `depthwise`; this one checks the operands and picks the kernel.

mod channels_last;
mod depthwise;
mod gemm;
mod geometry;
mod im2col;
mod indirect;
mod requantize;
mod weights;

use anyhow::Result;

use super::qdriver::shifted;
use super::qgemm::requant::{Epilogue, Output, Rescale};
use super::qparams::Params;
use crate::kernels::isa::Isa;
use crate::kernels::tensor::unfilled::written_by;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, ResultType};
use channels_last::ChannelsLast;
pub use geometry::Geometry;
use geometry::{Shape, shape, shape_of};
use im2col::Padded;
pub use indirect::usable as pixel_rows_usable;
pub use weights::ConvWeights;

/// Runs the convolution, or returns `None` for the reference kernel to run.
pub fn run(c: &Call, w: &ConvWeights) -> Result<Option<Vec<Value>>> {
    run_on(Isa::best(), c, w)
}

pub(crate) fn run_on(isa: Isa, c: &Call, w: &ConvWeights) -> Result<Option<Vec<Value>>> {
    run_with(isa, permutes(isa), c, w)
}

/// `run_on` without the byte-permute depthwise kernel, so that tests reach the
/// AVX-512 one a CPU without VBMI runs.
#[cfg(test)]
pub(crate) fn run_without_permutes(
    isa: Isa,
    c: &Call,
    w: &ConvWeights,
) -> Result<Option<Vec<Value>>> {
    run_with(isa, false, c, w)
}

/// Whether the depthwise kernel may use byte permutes at this level.
fn permutes(isa: Isa) -> bool {
    isa == Isa::Avx512Vnni && isa.available() && crate::kernels::isa::byte_permutes()
}

fn run_with(isa: Isa, permutes: bool, c: &Call, w: &ConvWeights) -> Result<Option<Vec<Value>>> {
    let x = c.arg(0)?.as_tensor()?;
    let Ok(xp) = Params::read(c.arg(1)?, c.arg(2)?) else {
        return Ok(None);
    };
    let Ok(yp) = Params::read(c.arg(13)?, c.arg(14)?) else {
        return Ok(None);
    };
    let ResultType::Tensor(ty) = c.result(0)? else {
        return Ok(None);
    };
    let Some((signed_out, quantized)) = super::qparams::output_kind(ty.dtype) else {
        return Ok(None);
    };
    if xp.len() != 1 || yp.len() != 1 || c.arg(11)?.as_int().ok() != Some(w.groups as i64) {
        return Ok(None);
    }
    let Some(s) = shape(c, x, w) else {
        return Ok(None);
    };
    let Some((xb, x_shift)) = shifted(&x.data, false) else {
        return Ok(None);
    };
    let Ok(x_zero) = u8::try_from(xp.zero_point(0) + x_shift) else {
        return Ok(None);
    };
    let Some(terms) = requantize::terms(c, w, &xp, &yp, x_zero, signed_out)? else {
        return Ok(None);
    };
    let job = Job {
        s: &s,
        w,
        x: &xb,
        x_zero,
        bias: &terms.bias,
        offsets: &terms.offsets,
        multipliers: &terms.multipliers,
        float_bias: &[],
        out: terms.out,
        isa,
        permutes,
        padded: None,
        plane: [0; 3],
        channels_last: None,
    };
    let Some((shape_out, y)) = job.run(x.rank())? else {
        return Ok(None);
    };
    let t = terms
        .out
        .tensor(shape_out, y, quantized.then(|| yp.scale(0)))?;
    Ok(Some(vec![Value::tensor(t)]))
}

/// The float convolution of dynamic quantization: `x` (uint8, zero point `x_zero`)
/// convolved with `w` (no integer bias), each channel's int32 sums converted to f32,
/// times `multipliers[channel]`, plus `bias[channel]` when given. `None` where the
/// reference kernel should decide.
pub fn run_rescaled(
    isa: Isa,
    x: &Tensor,
    x_zero: u8,
    geometry: &Geometry,
    w: &ConvWeights,
    multipliers: &[f32],
    bias: Option<&[f32]>,
) -> Result<Option<Tensor>> {
    let c_out = w.shape[0];
    let Some(s) = shape_of(geometry, x, w) else {
        return Ok(None);
    };
    let Some((xb, x_shift)) = shifted(&x.data, false) else {
        return Ok(None);
    };
    if x_shift != 0 || multipliers.len() != c_out || bias.is_some_and(|b| b.len() != c_out) {
        return Ok(None);
    }
    let zeros = vec![0; c_out];
    let offsets = requantize::offsets(w, &zeros, x_zero);
    let job = Job {
        s: &s,
        w,
        x: &xb,
        x_zero,
        bias: &zeros,
        offsets: &offsets,
        multipliers,
        float_bias: bias.unwrap_or(&[]),
        out: Rescale {
            bias: bias.is_some(),
        },
        isa,
        permutes: permutes(isa),
        padded: None,
        plane: [0; 3],
        channels_last: None,
    };
    let Some((shape_out, y)) = job.run(x.rank())? else {
        return Ok(None);
    };
    Ok(Some(Tensor::new(shape_out, Data::F32(y))?))
}

impl<E: Epilogue> Job<'_, E> {
    /// The output's shape and values: the depthwise kernel when it applies, else im2col
    /// and the GEMM; `None` where the channels-last copy cannot be made.
    fn run(self, rank: usize) -> Result<Option<Convolved<E>>> {
        let (s, w) = (self.s, self.w);
        let mut shape_out = vec![s.batch, w.shape[0]];
        shape_out.extend(&s.output[3 - (rank - 2)..]);
        let total = crate::kernels::tensor::bounded_count(&shape_out)?;
        let pixel_panels = || w.panels.as_ref().or_else(|| w.pointwise_panels(s.pixels()));
        if let Some(panels) = indirect::usable(self.isa).then(pixel_panels).flatten() {
            let Some(cl) = ChannelsLast::new(self.isa, s, w.groups, self.x, self.x_zero) else {
                return Ok(None);
            };
            // SAFETY: `indirect` writes every output (each channel of each pixel).
            let y = unsafe { written_by(total, |y| self.indirect(&cl, panels, y)) };
            return Ok(Some((shape_out, y)));
        }
        let mut y = vec![E::Out::default(); total];
        // A depthwise plane over the budget leaves the work to im2col, which needs none.
        match (&w.taps, s.depthwise_plane()) {
            (Some(taps), Some(plane)) => Job { plane, ..self }.depthwise(taps, &mut y),
            _ if w.channels_last => {
                // Weights packed tap-major read nothing but the channels-last copy.
                let Some(cl) = ChannelsLast::new(self.isa, s, w.groups, self.x, self.x_zero) else {
                    return Ok(None);
                };
                Job {
                    channels_last: Some(cl),
                    ..self
                }
                .gemm(&mut y)
            }
            _ => Job {
                padded: Padded::new(s, self.x, self.x_zero),
                ..self
            }
            .gemm(&mut y),
        }
        Ok(Some((shape_out, y)))
    }
}

/// A convolution's output: its shape and values.
type Convolved<E> = (Vec<usize>, Vec<<E as Epilogue>::Out>);

/// One call's operands as the kernels read them. `im2col`, `gemm` and `depthwise`
/// each add their methods in their own file.
struct Job<'a, E: Epilogue = Output> {
    s: &'a Shape,
    w: &'a ConvWeights,
    /// The input in the unsigned range, and its zero point there.
    x: &'a [u8],
    x_zero: u8,
    /// Per output channel: the bias, and the bias with the zero-point terms im2col's
    /// uncentred products need.
    bias: &'a [i32],
    offsets: &'a [i32],
    multipliers: &'a [f32],
    /// `Rescale` only: the float bias per output channel (empty without one).
    float_bias: &'a [f32],
    out: E,
    isa: Isa,
    /// Depthwise only: the CPU has AVX-512 VBMI's byte permutes and the kernel may use
    /// them (tests turn them off to reach the AVX-512 kernel without them).
    permutes: bool,
    /// For stride-1 2-D (and 1-D) convolutions: the input padded with its zero point.
    padded: Option<Padded<'a>>,
    /// Depthwise only: `Shape::depthwise_plane`.
    plane: [usize; 3],
    /// With weights packed tap-major: the input, channels last.
    channels_last: Option<ChannelsLast>,
}
