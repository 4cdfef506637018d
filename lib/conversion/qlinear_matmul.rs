//! QLinearMatMul as explicit quantization: `a` (per-tensor, or per-row) and `b`
//! (per-tensor, or per-column) are dequantized, multiplied in float, and the product
//! is quantized with the output parameters.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::qlinear_conv::check_8bit;
use super::quant_params::{dequantize, quantize, read_qlinear_params};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("QLinearMatMul", 10, qlinear_matmul);
}

fn qlinear_matmul<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let a = b.input(0, "a")?;
    let a_type = b.input_type(0, "a")?;
    let bm = b.input(3, "b")?;
    let b_type = b.input_type(3, "b")?;
    check_8bit(&a_type, "a")?;
    check_8bit(&b_type, "b")?;
    let (Some(a_rank), Some(b_rank)) = (a_type.rank(), b_type.rank()) else {
        bail!("a and b need known ranks");
    };
    if a_rank == 0 || b_rank == 0 {
        bail!("a and b must have rank 1 or more");
    }
    let result = b.result_type(0)?;
    // Per-row parameters of a run along its rows (axis -2), per-column ones of b along
    // its columns (axis -1).
    let row_axis = if a_rank >= 2 { -2 } else { -1 };
    let [ap, bp, yp] =
        read_qlinear_params(b, [("a", &a_type, row_axis), ("b", &b_type, -1)], &result)?;

    let af = dequantize(t, a, &a_type, &ap)?;
    let bf = dequantize(t, bm, &b_type, &bp)?;
    let product_type = result.with_dtype(DType::F32);
    let product = t.aten_tensor("matmul", &[af, bf], &product_type)?;
    Ok(vec![quantize(t, product, &product_type, &yp)?])
}

/// Casts an 8-bit tensor to int32 and subtracts its zero point (broadcast as given).
pub fn centered_int32<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    zero_point: Option<(Value<'c, 'a>, TensorType)>,
) -> Result<(Value<'c, 'a>, TensorType)> {
    let wide_type = x_type.with_dtype(DType::I32);
    let wide = super::quantization::cast(t, x, &wide_type)?;
    let Some((zp, zp_type)) = zero_point else {
        return Ok((wide, wide_type));
    };
    let zp_wide = super::quantization::cast(t, zp, &zp_type.with_dtype(DType::I32))?;
    let one = t.int(1)?;
    let centered = t.aten_tensor("sub.Tensor", &[wide, zp_wide, one], &wide_type)?;
    Ok((centered, wide_type))
}
