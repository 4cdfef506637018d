//! QLinearConv as explicit quantization: the input and the (per-tensor or per-channel)
//! weight become quantized tensors that are dequantized, the int32 bias is dequantized
//! with scale x_scale·w_scale[c] and zero point 0, the convolution runs on the float
//! values, and its result is quantized with the output parameters.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::conv_geometry::{emit_convolution, read_geometry};
use super::quant_params::{QuantParams, dequantize, quantize, read_qlinear_params};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("QLinearConv", 10, qlinear_conv);
}

pub fn check_8bit(t: &TensorType, name: &str) -> Result<DType> {
    match t.dtype {
        Some(d @ (DType::U8 | DType::I8)) => Ok(d),
        _ => bail!("{name} must be UINT8 or INT8, but is {t}"),
    }
}

pub fn require_per_tensor(p: &QuantParams, name: &str) -> Result<()> {
    if p.axis.is_some() {
        bail!(
            "{name} must be a scalar (per-tensor), but has {} elements",
            p.length
        );
    }
    Ok(())
}

fn qlinear_conv<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let x = b.input(0, "x")?;
    let x_type = b.input_type(0, "x")?;
    let w = b.input(3, "w")?;
    let w_type = b.input_type(3, "w")?;
    check_8bit(&x_type, "x")?;
    check_8bit(&w_type, "w")?;
    let result = b.result_type(0)?;
    // Per-channel weight parameters run along the output channels (axis 0).
    let [xp, wp, yp] = read_qlinear_params(b, [("x", &x_type, 0), ("w", &w_type, 0)], &result)?;
    require_per_tensor(&xp, "x_scale")?;
    let geometry = read_geometry(b, &x_type, &w_type, "x", "w")?;
    let c_out = w_type.shape.as_ref().and_then(|s| s[0]);
    let bias = b.optional_input(8);
    let bias_type = match bias {
        Some(_) => Some(b.input_type(8, "B")?),
        None => None,
    };
    if let Some(bt) = &bias_type {
        if bt.dtype != Some(DType::I32) {
            bail!("B must be INT32, but is {bt}");
        }
        match (bt.shape.as_deref(), c_out) {
            (Some([Some(n)]), Some(c)) if *n != c => {
                bail!("B has {n} elements, expected {c} (C_out)")
            }
            (Some([_]), _) => {}
            _ => bail!("B must be 1-D, but is {bt}"),
        }
    }

    let xf = dequantize(t, x, &x_type, &xp)?;
    let wf = dequantize(t, w, &w_type, &wp)?;
    let bias_f = match (bias, bias_type) {
        (Some(bv), Some(bt)) => Some(dequantize_bias(t, bv, &bt, &xp, &wp)?),
        _ => None,
    };
    let conv_type = result.with_dtype(DType::F32);
    let conv = emit_convolution(
        t,
        xf,
        &x_type.with_dtype(DType::F32),
        wf,
        bias_f,
        &geometry,
        &conv_type,
    )?;
    Ok(vec![quantize(t, conv, &conv_type, &yp)?])
}

/// The int32 bias as floats: its scale is x_scale·w_scale (per channel when the weight
/// is), its zero point 0, so it stays quantized in the IR like the other operands.
pub fn dequantize_bias<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    bias: Value<'c, 'a>,
    bias_type: &TensorType,
    xp: &QuantParams<'c, 'a>,
    wp: &QuantParams<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    let scale_type = wp.scale_type.with_dtype(DType::F32);
    let scale = t.aten_tensor("mul.Tensor", &[wp.scale, xp.scale], &scale_type)?;
    let params = QuantParams {
        scale,
        scale_type,
        zero_point: None,
        storage: DType::I32,
        axis: wp.axis.map(|_| 0),
        length: wp.length,
    };
    dequantize(t, bias, bias_type, &params)
}
