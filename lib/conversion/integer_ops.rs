//! MatMulInteger and ConvInteger: exact int32 results. The operands are widened to
//! int32 and their zero points subtracted, then the product or convolution runs on
//! int32 tensors, so no float rounding can creep into sums of many products.
//!
//! The weights (B, w) are centred by an explicit quantization: their 8-bit integers,
//! made a quantized tensor at scale 1 with their zero point, dequantized (exact in f32:
//! each |w - zero point| is at most 255) and converted to int32. Folding never folds a
//! quantization op, so the 8-bit constant stays in the IR, where `fuse-for-cpu` finds
//! it for the integer kernels rather than a folded int32 tensor.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::conv_geometry::{emit_convolution, read_geometry};
use super::qlinear_conv::check_8bit;
use super::qlinear_matmul::centered_int32;
use super::quant_params::{QuantParams, dequantize};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;
use crate::onnx::tensor::TensorData;

pub fn register(r: &mut Lowerings) {
    r.on_op("MatMulInteger", 10, matmul_integer);
    r.on_op("ConvInteger", 10, conv_integer);
}

/// The zero point at input `i` if given, checked to match `data`'s type and to have
/// one element or `expected` elements; reshaped to `broadcast_shape` when per-axis.
fn zero_point<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    i: usize,
    name: &str,
    data: &TensorType,
    expected: Option<i64>,
    broadcast_shape: impl Fn(i64) -> Vec<i64>,
) -> Result<Option<(Value<'c, 'a>, TensorType)>> {
    let Some(zp) = b.optional_input(i) else {
        return Ok(None);
    };
    let zt = b.input_type(i, name)?;
    if zt.dtype != data.dtype {
        bail!(
            "{name} is {} but its input is {}",
            zt.dtype.map(|d| d.to_string()).unwrap_or("unknown".into()),
            data.dtype
                .map(|d| d.to_string())
                .unwrap_or("unknown".into())
        );
    }
    let len = match zt.shape.as_deref() {
        Some([]) => 1,
        Some([Some(n)]) => *n,
        _ => bail!("{name} must be a scalar or 1-D, but is {zt}"),
    };
    if len == 1 {
        return Ok(Some((zp, zt)));
    }
    if let Some(e) = expected
        && e != len
    {
        bail!("{name} has {len} elements, expected 1 or {e}");
    }
    let shape = broadcast_shape(len);
    if shape == [len] {
        return Ok(Some((zp, zt)));
    }
    let shaped_type = TensorType::known(zt.dtype.unwrap_or(DType::U8), &shape);
    let list = t.int_list(&shape)?;
    let shaped = t.aten_tensor("reshape", &[zp, list], &shaped_type)?;
    Ok(Some((shaped, shaped_type)))
}

/// The weights `w` minus their zero point as int32, through an explicit quantization at
/// scale 1 (see the module comment); `zero_point` is per tensor, or 1-D along `axis`.
fn centred_weights<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    w: Value<'c, 'a>,
    w_type: &TensorType,
    zero_point: Option<(Value<'c, 'a>, TensorType)>,
    axis: usize,
) -> Result<Value<'c, 'a>> {
    let Some(storage) = w_type.dtype else {
        bail!("the weights have an unknown element type");
    };
    let length = match zero_point.as_ref().and_then(|(_, z)| z.shape.clone()) {
        Some(s) if s.len() == 1 => s[0].map(|n| n as usize),
        _ => Some(1),
    };
    let Some(length) = length else {
        bail!("the weight zero point has an unknown length");
    };
    // One zero point (even as a 1-element tensor) is per tensor.
    let per_axis = length != 1;
    let (scale, scale_type) = if per_axis {
        let ones: Vec<u8> = (0..length).flat_map(|_| 1f32.to_le_bytes()).collect();
        let data = TensorData {
            dtype: DType::F32,
            dims: vec![length as i64],
            bytes: ones.into(),
        };
        (
            t.literal(&data)?,
            TensorType::known(DType::F32, &[length as i64]),
        )
    } else {
        (
            t.scalar_literal(DType::F32, 1.0)?,
            TensorType::known(DType::F32, &[]),
        )
    };
    let p = QuantParams {
        scale,
        scale_type,
        zero_point: zero_point.map(|(z, _)| z),
        storage,
        axis: per_axis.then_some(axis as i64),
        length,
    };
    let centred = dequantize(t, w, w_type, &p)?;
    super::quantization::cast(t, centred, &w_type.with_dtype(DType::I32))
}

fn matmul_integer<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let a = b.input(0, "A")?;
    let a_type = b.input_type(0, "A")?;
    let bm = b.input(1, "B")?;
    let b_type = b.input_type(1, "B")?;
    check_8bit(&a_type, "A")?;
    check_8bit(&b_type, "B")?;
    let (Some(a_rank), Some(b_rank)) = (a_type.rank(), b_type.rank()) else {
        bail!("A and B need known ranks");
    };
    let rows = a_type
        .shape
        .as_ref()
        .and_then(|s| if a_rank >= 2 { s[a_rank - 2] } else { None });
    let cols = b_type
        .shape
        .as_ref()
        .and_then(|s| s.last().copied().flatten());
    // A per-row zero point broadcasts as a column [M, 1]; a per-column one of B as [N].
    let azp = zero_point(b, t, 2, "a_zero_point", &a_type, rows, |m| vec![m, 1])?;
    let bzp = zero_point(b, t, 3, "b_zero_point", &b_type, cols, |n| vec![n])?;
    if b_rank == 0 || a_rank == 0 {
        bail!("A and B must have rank 1 or more");
    }
    let (a32, _) = centered_int32(t, a, &a_type, azp)?;
    let b32 = centred_weights(t, bm, &b_type, bzp, b_rank - 1)?;
    let result = b.result_type(0)?.with_dtype(DType::I32);
    Ok(vec![t.aten_tensor("matmul", &[a32, b32], &result)?])
}

fn conv_integer<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let x = b.input(0, "x")?;
    let x_type = b.input_type(0, "x")?;
    let w = b.input(1, "w")?;
    let w_type = b.input_type(1, "w")?;
    check_8bit(&x_type, "x")?;
    check_8bit(&w_type, "w")?;
    let geometry = read_geometry(b, &x_type, &w_type, "x", "w")?;
    let c_out = w_type.shape.as_ref().and_then(|s| s[0]);
    let xzp = zero_point(b, t, 2, "x_zero_point", &x_type, Some(1), |n| vec![n])?;
    // A per-channel weight zero point runs along the output channels, axis 0.
    let wzp = zero_point(b, t, 3, "w_zero_point", &w_type, c_out, |c| vec![c])?;
    let (x32, x32_type) = centered_int32(t, x, &x_type, xzp)?;
    let w32 = centred_weights(t, w, &w_type, wzp, 0)?;
    let result = b.result_type(0)?.with_dtype(DType::I32);
    Ok(vec![emit_convolution(
        t, x32, &x32_type, w32, None, &geometry, &result,
    )?])
}
