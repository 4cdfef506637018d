//! Sliding-window arithmetic shared by convolutions and pools: how kernel, strides,
//! dilations, pads, auto_pad and ceil_mode turn input sizes into output sizes.

use anyhow::{Result, bail};

use super::ctx::Ctx;
use crate::dialect::types::Dim;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum AutoPad {
    NotSet,
    SameUpper,
    SameLower,
    Valid,
}

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

/// A per-axis attribute list: the default when absent, else exactly `n` values at
/// least `min`.
fn per_axis(ctx: &Ctx, name: &str, n: usize, default: i64, min: i64) -> Result<Vec<i64>> {
    let Some(v) = ctx.attrs().optional_ints(name)? else {
        return Ok(vec![default; n]);
    };
    if v.len() != n {
        bail!(
            "attribute '{name}' has {} values, but the input has {n} spatial dimensions",
            v.len()
        );
    }
    if let Some(bad) = v.iter().find(|&&x| x < min) {
        bail!("attribute '{name}' holds {bad}, but must be at least {min}");
    }
    Ok(v)
}

fn pads(ctx: &Ctx, n: usize) -> Result<Vec<i64>> {
    let len = n.saturating_mul(2);
    let Some(v) = ctx.attrs().optional_ints("pads")? else {
        return Ok(vec![0; len]);
    };
    if v.len() != len {
        bail!(
            "attribute 'pads' has {} values, but {n} spatial dimensions need {len}",
            v.len()
        );
    }
    if let Some(bad) = v.iter().find(|&&x| x < 0) {
        bail!("attribute 'pads' holds {bad}, but must be at least 0");
    }
    Ok(v)
}

fn auto_pad(ctx: &Ctx) -> Result<AutoPad> {
    Ok(match ctx.attrs().string("auto_pad", "NOTSET")?.as_str() {
        "NOTSET" | "" => AutoPad::NotSet,
        "SAME_UPPER" => AutoPad::SameUpper,
        "SAME_LOWER" => AutoPad::SameLower,
        "VALID" => AutoPad::Valid,
        other => bail!(
            "attribute 'auto_pad' is '{other}', expected NOTSET, SAME_UPPER, SAME_LOWER or VALID"
        ),
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
            auto_pad: auto_pad(ctx)?,
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
        let k = i128::from(self.kernel.get(i).copied().flatten()?);
        let d = i128::from(*self.dilations.get(i)?);
        Some(d * (k - 1) + 1)
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
        let (d, s) = (i128::from(d), i128::from(s));
        if matches!(self.auto_pad, AutoPad::SameUpper | AutoPad::SameLower) {
            return Ok(to_dim((d + s - 1) / s));
        }
        let Some(extent) = self.extent(i) else {
            return Ok(None);
        };
        let (begin, end) = match self.auto_pad {
            AutoPad::Valid => (0, 0),
            _ => self.pad_pair(i),
        };
        let padded = d + begin + end;
        if padded < extent {
            bail!(
                "spatial dimension {i} of {what} has size {d} ({padded} padded), smaller than the kernel's extent {extent}"
            );
        }
        let span = padded - extent;
        // ceil_mode only rounds explicit padding; VALID and SAME sizes ignore it.
        let ceil = self.ceil_mode && self.auto_pad == AutoPad::NotSet;
        let mut n = if ceil { (span + s - 1) / s } else { span / s } + 1;
        // A window may not start in the right padding: ceil_mode's extra window is
        // dropped when it would.
        if ceil && (n - 1) * s >= d + begin {
            n -= 1;
        }
        Ok(to_dim(n))
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
            let (d, s) = (i128::from(d), i128::from(s));
            if matches!(self.auto_pad, AutoPad::SameUpper | AutoPad::SameLower) {
                out.push(to_dim(d * s));
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
            let extra = i128::from(output_padding.get(i).copied().unwrap_or(0));
            let n = s * (d - 1) + extra + extent - begin - end;
            if n <= 0 {
                bail!("spatial dimension {i} of {what} has size {d}, which gives an empty output");
            }
            out.push(to_dim(n));
        }
        Ok(out)
    }
}

fn to_dim(n: i128) -> Dim {
    i64::try_from(n).ok().filter(|&n| n >= 0)
}
