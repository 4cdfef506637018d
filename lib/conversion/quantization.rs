//! QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::{Binder, tensor_type_of};
use super::blocked_quant::{dequantize_blocked, quantize_blocked};
use super::float8::{dequantize_float8, quantize_float8, zero_point_is_zero};
use super::quant_params::{ParamSpec, check_storage, dequantize, quantize, read_params};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("QuantizeLinear", 10, quantize_linear);
    r.on_op("DequantizeLinear", 10, dequantize_linear);
    r.on_op("DynamicQuantizeLinear", 11, dynamic_quantize_linear);
    r.on_domain_op("com.microsoft", "QuantizeLinear", 1, quantize_linear);
    r.on_domain_op("com.microsoft", "DequantizeLinear", 1, dequantize_linear);
}

/// Opset 21's `block_size`: 0 for per-tensor and per-axis parameters.
fn block_size(b: &Binder) -> Result<i64> {
    let block_size = b.int("block_size", 0)?;
    if block_size < 0 {
        bail!("attribute 'block_size' is {block_size}; expected 0 or a positive block size");
    }
    Ok(block_size)
}

/// ONNX's `output_dtype` (opset 21+) names the result type when there is no zero point.
fn output_storage(b: &Binder) -> Result<DType> {
    let code = b.int("output_dtype", 0)?;
    if code == 0 {
        return Ok(b.result_type(0)?.dtype.unwrap_or(DType::U8));
    }
    DType::from_onnx(code as i32).map_err(|e| anyhow::anyhow!("output_dtype: {e}"))
}

fn quantize_linear<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let x = b.input(0, "x")?;
    let x_type = b.input_type(0, "x")?;
    let storage = output_storage(b)?;
    if block_size(b)? > 0 {
        let storage = match b.optional_input(2) {
            Some(z) => tensor_type_of(z)?.dtype.unwrap_or(storage),
            None => storage,
        };
        let (x, x_type) = to_f32(t, x, &x_type)?;
        return Ok(vec![quantize_blocked(b, t, x, &x_type, storage)?]);
    }
    let spec = ParamSpec::at(
        1,
        ["y_scale", "y_zero_point", "x"],
        b.int("axis", 1)?,
        storage,
    );
    let p = read_params(b, &spec, &x_type)?;
    if b.optional_input(2).is_some() && b.int("output_dtype", 0)? != 0 && p.storage != storage {
        bail!(
            "y_zero_point is {} but output_dtype is {storage}",
            p.storage
        );
    }
    let result = b.result_type(0)?;
    if let Some(r) = result.dtype
        && r != p.storage
    {
        bail!("y is {r} but y_zero_point is {}", p.storage);
    }
    // torch quantizes f32 values; other float inputs are converted first.
    if p.storage.is_float8() {
        let saturate = b.int("saturate", 1)? != 0;
        let zero = zero_point_is_zero(b, 2);
        let (x, x_type) = to_f32(t, x, &x_type)?;
        return Ok(vec![quantize_float8(t, x, &x_type, &p, zero, saturate)?]);
    }
    p.check_supported()?;
    let (x, x_type) = to_f32(t, x, &x_type)?;
    Ok(vec![quantize(t, x, &x_type, &p)?])
}

fn dequantize_linear<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let x = b.input(0, "x")?;
    let x_type = b.input_type(0, "x")?;
    let Some(x_dtype) = x_type.dtype else {
        bail!("x has an unknown element type");
    };
    if block_size(b)? > 0 {
        if let Some(z) = b.optional_input(2)
            && let Some(zd) = tensor_type_of(z)?.dtype
            && zd != x_dtype
        {
            bail!("x_zero_point is {zd} but x is {x_dtype}");
        }
        let y = dequantize_blocked(b, t, x, &x_type, x_dtype)?;
        let result = b.result_type(0)?;
        return from_f32(t, y, &x_type, result.dtype.unwrap_or(DType::F32)).map(|v| vec![v]);
    }
    let spec = ParamSpec::at(
        1,
        ["x_scale", "x_zero_point", "x"],
        b.int("axis", 1)?,
        x_dtype,
    );
    let p = read_params(b, &spec, &x_type)?;
    check_storage(&p, &x_type, "x", "x_zero_point")?;
    let y = if x_dtype.is_float8() {
        dequantize_float8(t, x, &x_type, &p, zero_point_is_zero(b, 2))?
    } else {
        p.check_supported()?;
        dequantize(t, x, &x_type, &p)?
    };
    let result = b.result_type(0)?;
    from_f32(t, y, &x_type, result.dtype.unwrap_or(DType::F32)).map(|v| vec![v])
}

/// ONNX DynamicQuantizeLinear, decomposed as the spec defines it: the range is widened
/// to include 0, `y_scale = (max - min) / 255`, the zero point is `round(-min / scale)`
/// saturated to [0, 255] (round half to even, like torch's `round`), and `x` is then
/// quantized per tensor with them.
fn dynamic_quantize_linear<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let x = b.input(0, "x")?;
    let x_type = b.input_type(0, "x")?;
    if x_type.dtype != Some(DType::F32) {
        bail!("x must be FLOAT, but is {x_type}");
    }
    let p = dynamic_params(t, x)?;
    let y = quantize(t, x, &x_type, &p)?;
    let zp = p.zero_point.ok_or_else(|| {
        anyhow::anyhow!("internal error: dynamic parameters without a zero point")
    })?;
    Ok(vec![y, p.scale, zp])
}

/// DynamicQuantizeLinear's UINT8 per-tensor parameters for the FLOAT tensor `x`; also
/// how com.microsoft's DynamicQuantizeMatMul quantizes its float input.
pub(super) fn dynamic_params<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
) -> Result<super::quant_params::QuantParams<'c, 'a>> {
    let scalar_f32 = TensorType::known(DType::F32, &[]);
    let scalar_u8 = TensorType::known(DType::U8, &[]);
    let zero = t.float(0.0)?;
    let min = t.aten_tensor("min", &[x], &scalar_f32)?;
    let max = t.aten_tensor("max", &[x], &scalar_f32)?;
    let min = t.aten_tensor("clamp_max", &[min, zero], &scalar_f32)?;
    let max = t.aten_tensor("clamp_min", &[max, zero], &scalar_f32)?;
    let one = t.int(1)?;
    let range = t.aten_tensor("sub.Tensor", &[max, min, one], &scalar_f32)?;
    let qmax = t.float(255.0)?;
    let scale = t.aten_tensor("div.Scalar", &[range, qmax], &scalar_f32)?;
    let ratio = t.aten_tensor("div.Tensor", &[min, scale], &scalar_f32)?;
    let negated = t.aten_tensor("neg", &[ratio], &scalar_f32)?;
    let rounded = t.aten_tensor("round", &[negated], &scalar_f32)?;
    let clamped = t.aten_tensor("clamp", &[rounded, zero, qmax], &scalar_f32)?;
    let zp = cast(t, clamped, &scalar_u8)?;
    Ok(super::quant_params::QuantParams {
        scale,
        scale_type: scalar_f32,
        zero_point: Some(zp),
        storage: DType::U8,
        axis: None,
        length: 1,
    })
}

/// `torch.aten.to.dtype` to `to`'s element type.
pub fn cast<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    to: &TensorType,
) -> Result<Value<'c, 'a>> {
    t.cast(x, to)
}

fn to_f32<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
) -> Result<(Value<'c, 'a>, TensorType)> {
    match x_type.dtype {
        Some(DType::F32) => Ok((x, x_type.clone())),
        Some(d) if d.is_float() => {
            let f = x_type.with_dtype(DType::F32);
            Ok((cast(t, x, &f)?, f))
        }
        Some(DType::I32) => {
            let f = x_type.with_dtype(DType::F32);
            Ok((cast(t, x, &f)?, f))
        }
        _ => bail!("x must be a float tensor, but is {x_type}"),
    }
}

fn from_f32<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    y: Value<'c, 'a>,
    shape_of: &TensorType,
    dtype: DType,
) -> Result<Value<'c, 'a>> {
    if dtype == DType::F32 {
        Ok(y)
    } else {
        cast(t, y, &shape_of.with_dtype(dtype))
    }
}
