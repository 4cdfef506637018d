//! Convolution attributes shared by Conv, ConvInteger and QLinearConv: kernel, strides,
//! dilations, group and padding (explicit, asymmetric, or auto_pad), and the emission
//! of `torch.aten.convolution` from them.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::Binder;
use super::window::{AutoPad, per_axis, same_pads_at_run_time, spatial_dims, window_pads};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

#[derive(Clone, Debug, PartialEq)]
pub struct ConvGeometry {
    pub kernel: Vec<i64>,
    pub strides: Vec<i64>,
    pub dilations: Vec<i64>,
    pub group: i64,
    pub pads_begin: Vec<i64>,
    pub pads_end: Vec<i64>,
    /// SAME auto_pad over spatial sizes known only at run time (`Some(upper)`): the
    /// pads are then computed from the input's sizes, and `pads_*` are zeros.
    pub same_at_run_time: Option<bool>,
}

impl ConvGeometry {
    pub fn is_symmetric(&self) -> bool {
        self.pads_begin == self.pads_end
    }
}

/// Reads and checks the geometry of a convolution of `x` (N, C, D1..Dn) by `w`
/// (C_out, C/group, K1..Kn). `x_name`/`w_name` are the ONNX input names.
pub fn read_geometry(
    b: &Binder,
    x: &TensorType,
    w: &TensorType,
    x_name: &str,
    w_name: &str,
) -> Result<ConvGeometry> {
    let Some(rank) = x.rank() else {
        bail!("{x_name} has an unknown rank");
    };
    if rank < 3 {
        bail!("{x_name} has rank {rank}; a convolution needs at least 3 (N, C, spatial)");
    }
    let n = rank - 2;
    if w.rank().is_some_and(|r| r != rank) {
        bail!(
            "{w_name} has rank {}, but {x_name} has rank {rank}",
            w.rank().unwrap_or(0)
        );
    }
    let w_dims = w.shape.clone().unwrap_or_else(|| vec![None; rank]);
    let kernel = match b.optional_ints("kernel_shape")? {
        Some(_) => per_axis(b, "kernel_shape", n, 1, 1)?,
        None => w_dims[2..]
            .iter()
            .map(|d| d.ok_or_else(|| anyhow::anyhow!("{w_name} has a dynamic kernel size")))
            .collect::<Result<Vec<_>>>()?,
    };
    let strides = per_axis(b, "strides", n, 1, 1)?;
    let dilations = per_axis(b, "dilations", n, 1, 1)?;
    let group = b.int("group", 1)?;
    if group < 1 {
        bail!("attribute 'group' must be positive, but is {group}");
    }
    if let (Some(Some(c)), Some(Some(wc))) = (x.shape.as_ref().map(|s| s[1]), w_dims.get(1))
        && c != wc * group
    {
        bail!("{x_name} has {c} channels, but {w_name} expects {wc} per group × {group} groups");
    }
    if let Some(Some(c_out)) = w_dims.first()
        && c_out % group != 0
    {
        bail!("{w_name} has {c_out} output channels, which {group} groups do not divide");
    }
    let mode = AutoPad::read(b)?;
    let same_at_run_time = (mode.is_same() && spatial_dims(x, n).iter().any(Option::is_none))
        .then_some(mode == AutoPad::SameUpper);
    let (pads_begin, pads_end) = match same_at_run_time {
        Some(_) => (vec![0; n], vec![0; n]),
        None => window_pads(b, mode, x, x_name, &kernel, &strides, &dilations)?,
    };
    Ok(ConvGeometry {
        kernel,
        strides,
        dilations,
        group,
        pads_begin,
        pads_end,
        same_at_run_time,
    })
}

/// `torch.aten.convolution` of `x` by `w` (both already of the element type the
/// convolution runs in), with an optional bias. Asymmetric padding is applied first
/// with `constant_pad_nd` (zeros), since torch's convolution pads symmetrically.
pub fn emit_convolution<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    w: Value<'c, 'a>,
    bias: Option<Value<'c, 'a>>,
    geometry: &ConvGeometry,
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    let n = geometry.kernel.len();
    let (input, padding) = if let Some(upper) = geometry.same_at_run_time {
        let (pads, padded_type) = same_pads_at_run_time(
            t,
            x,
            x_type,
            &geometry.kernel,
            &geometry.strides,
            &geometry.dilations,
            upper,
        )?;
        let zero = t.float(0.0)?;
        let p = t.aten_tensor("constant_pad_nd", &[x, pads, zero], &padded_type)?;
        (p, vec![0; n])
    } else if geometry.is_symmetric() {
        (x, geometry.pads_begin.clone())
    } else {
        // torch lists pads from the last dimension backwards: [last_begin, last_end, ...].
        let mut torch_pads = Vec::with_capacity(2 * n);
        for i in (0..n).rev() {
            torch_pads.push(geometry.pads_begin[i]);
            torch_pads.push(geometry.pads_end[i]);
        }
        let padded_type = padded(x_type, geometry);
        let pads = t.int_list(&torch_pads)?;
        let zero = t.float(0.0)?;
        let p = t.aten_tensor("constant_pad_nd", &[x, pads, zero], &padded_type)?;
        (p, vec![0; n])
    };
    let params = TorchConvolution {
        strides: &geometry.strides,
        padding: &padding,
        dilations: &geometry.dilations,
        transposed: false,
        output_padding: &vec![0; n],
        groups: geometry.group,
    };
    emit_torch_convolution(t, input, w, bias, &params, result)
}

/// The non-tensor operands of `torch.aten.convolution`.
pub struct TorchConvolution<'p> {
    pub strides: &'p [i64],
    pub padding: &'p [i64],
    pub dilations: &'p [i64],
    pub transposed: bool,
    pub output_padding: &'p [i64],
    pub groups: i64,
}

/// `torch.aten.convolution(input, weight, bias or none, stride, padding, dilation,
/// transposed, output_padding, groups)`.
pub fn emit_torch_convolution<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    input: Value<'c, 'a>,
    weight: Value<'c, 'a>,
    bias: Option<Value<'c, 'a>>,
    p: &TorchConvolution<'_>,
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    let bias = match bias {
        Some(v) => v,
        None => t.none()?,
    };
    let operands = [
        input,
        weight,
        bias,
        t.int_list(p.strides)?,
        t.int_list(p.padding)?,
        t.int_list(p.dilations)?,
        t.bool(p.transposed)?,
        t.int_list(p.output_padding)?,
        t.int(p.groups)?,
    ];
    t.aten_tensor("convolution", &operands, result)
}

fn padded(x: &TensorType, g: &ConvGeometry) -> TensorType {
    let shape = x.shape.as_ref().map(|dims| {
        dims.iter()
            .enumerate()
            .map(|(i, d)| {
                if i < 2 {
                    *d
                } else {
                    d.map(|d| d + g.pads_begin[i - 2] + g.pads_end[i - 2])
                }
            })
            .collect()
    });
    TensorType {
        dtype: x.dtype.or(Some(DType::F32)),
        shape,
    }
}
