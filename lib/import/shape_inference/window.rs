//! The window attributes of convolutions and pools as shape inference reads them, and
//! the output sizes they give, through the geometry `onnx::window` shares with
//! conversion.

use anyhow::{Result, bail};

use super::ctx::Ctx;
use crate::dialect::types::Dim;
use crate::onnx::window::{self, AutoPad, AxisListError, to_size};

/// The window attributes of a node with `n` spatial dimensions.
#[derive(Clone, Debug)]
pub(super) struct Window {
    pub kernel: Vec<Dim>,
    pub strides: Vec<i64>,
    pub dilations: Vec<i64>,
    /// Begins of every axis, then ends.
    pub pads: Vec<i64>,
    pub auto_pad: AutoPad,
    pub ceil_mode: bool,
}

/// A per-axis attribute list: the default when absent, else exactly `want` values at
/// least `min`. `length` words a list of the wrong length.
fn axis_list(
    ctx: &Ctx,
    name: &str,
    want: usize,
    default: i64,
    min: i64,
    length: impl Fn(usize) -> String,
) -> Result<Vec<i64>> {
    match window::axis_list(ctx.attrs(), name, want, min)? {
        None => Ok(vec![default; want]),
        Some(Ok(v)) => Ok(v),
        Some(Err(AxisListError::Length { got, .. })) => bail!("{}", length(got)),
        Some(Err(AxisListError::Below { value, min })) => {
            bail!("attribute '{name}' holds {value}, but must be at least {min}")
        }
    }
}

fn per_axis(ctx: &Ctx, name: &str, n: usize, default: i64, min: i64) -> Result<Vec<i64>> {
    axis_list(ctx, name, n, default, min, |got| {
        format!("attribute '{name}' has {got} values, but the input has {n} spatial dimensions")
    })
}

fn pads(ctx: &Ctx, n: usize) -> Result<Vec<i64>> {
    let len = n.saturating_mul(2);
    axis_list(ctx, "pads", len, 0, 0, |got| {
        format!("attribute 'pads' has {got} values, but {n} spatial dimensions need {len}")
    })
}

impl Window {
    /// Reads the window attributes of a node with `n` spatial dimensions; without a
    /// `kernel_shape` attribute the kernel is `kernel` (a convolution's weight dims).
    pub fn read(ctx: &Ctx, n: usize, kernel: Option<Vec<Dim>>) -> Result<Window> {
        let kernel = match ctx.attrs().optional_ints("kernel_shape")? {
            Some(_) => per_axis(ctx, "kernel_shape", n, 1, 1)?
                .into_iter()
                .map(Some)
                .collect(),
            None => kernel.unwrap_or_else(|| vec![None; n]),
        };
        Ok(Window {
            kernel,
            strides: per_axis(ctx, "strides", n, 1, 1)?,
            dilations: per_axis(ctx, "dilations", n, 1, 1)?,
            pads: pads(ctx, n)?,
            auto_pad: AutoPad::read(ctx.attrs())?,
            ceil_mode: ctx.attrs().int("ceil_mode", 0)? != 0,
        })
    }

    fn pad_pair(&self, i: usize) -> (i128, i128) {
        let n = self.kernel.len();
        let at = |k: usize| self.pads.get(k).copied().unwrap_or(0).into();
        (at(i), at(n.saturating_add(i)))
    }

    /// The dilated kernel extent along axis `i`, when the kernel size is known.
    fn extent(&self, i: usize) -> Option<i128> {
        let k = self.kernel.get(i).copied().flatten()?;
        Some(window::extent(k, *self.dilations.get(i)?))
    }

    /// Output spatial sizes of a convolution or pool over input spatial sizes `input`.
    /// `what` names the input in messages.
    pub fn output(&self, input: &[Dim], what: &str) -> Result<Vec<Dim>> {
        let mut out = Vec::with_capacity(input.len());
        for (i, &d) in input.iter().enumerate() {
            out.push(self.output_dim(i, d, what)?);
        }
        Ok(out)
    }

    fn output_dim(&self, i: usize, d: Dim, what: &str) -> Result<Dim> {
        let (Some(d), Some(&s)) = (d, self.strides.get(i)) else {
            return Ok(None);
        };
        if self.auto_pad.is_same() {
            return Ok(to_size(window::same_output(d, s)));
        }
        let Some(extent) = self.extent(i) else {
            return Ok(None);
        };
        let (begin, end) = match self.auto_pad {
            AutoPad::Valid => (0, 0),
            _ => self.pad_pair(i),
        };
        // ceil_mode only rounds explicit padding; VALID and SAME sizes ignore it.
        let ceil = self.ceil_mode && self.auto_pad == AutoPad::NotSet;
        let Some(n) = window::windows(d, begin, end, extent, s, ceil) else {
            let padded = i128::from(d) + begin + end;
            bail!(
                "spatial dimension {i} of {what} has size {d} ({padded} padded), smaller than the kernel's extent {extent}"
            );
        };
        Ok(to_size(n))
    }

    /// Output spatial sizes of a ConvTranspose over `input`, before any `output_shape`.
    pub fn transposed(
        &self,
        input: &[Dim],
        output_padding: &[i64],
        what: &str,
    ) -> Result<Vec<Dim>> {
        let mut out = Vec::with_capacity(input.len());
        for (i, &d) in input.iter().enumerate() {
            let (Some(d), Some(&s)) = (d, self.strides.get(i)) else {
                out.push(None);
                continue;
            };
            if self.auto_pad.is_same() {
                out.push(to_size(i128::from(d) * i128::from(s)));
                continue;
            }
            let Some(extent) = self.extent(i) else {
                out.push(None);
                continue;
            };
            let (begin, end) = match self.auto_pad {
                AutoPad::Valid => (0, 0),
                _ => self.pad_pair(i),
            };
            let extra = output_padding.get(i).copied().unwrap_or(0);
            let n = window::transposed_full(d, s, extent, extra) - begin - end;
            if n <= 0 {
                bail!("spatial dimension {i} of {what} has size {d}, which gives an empty output");
            }
            out.push(to_size(n));
        }
        Ok(out)
    }
}
