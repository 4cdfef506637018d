//! MatMulInteger and ConvInteger: exact int32 results. The operands are widened to
//! int32 and their zero points subtracted, then the product or convolution runs on
//! int32 tensors, so no float rounding can creep into sums of many products.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::Binder;
use super::conv_geometry::{emit_convolution, read_geometry};
use super::qlinear_conv::check_8bit;
use super::qlinear_matmul::centered_int32;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;
use crate::ops::Registry;

pub fn register(r: &mut Registry) {
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
    let shaped_type = TensorType::known(zt.dtype.unwrap_or(DType::U8), &shape);
    let list = t.int_list(&shape)?;
    let shaped = t.aten_tensor("reshape", &[zp, list], &shaped_type)?;
    Ok(Some((shaped, shaped_type)))
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
    let (b32, _) = centered_int32(t, bm, &b_type, bzp)?;
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
    let rank = x_type.rank().unwrap_or(0);
    let c_out = w_type.shape.as_ref().and_then(|s| s[0]);
    let xzp = zero_point(b, t, 2, "x_zero_point", &x_type, Some(1), |n| vec![n])?;
    // A per-channel weight zero point broadcasts as [C_out, 1, ..., 1].
    let wzp = zero_point(b, t, 3, "w_zero_point", &w_type, c_out, |c| {
        let mut s = vec![1; rank];
        s[0] = c;
        s
    })?;
    let (x32, x32_type) = centered_int32(t, x, &x_type, xzp)?;
    let (w32, _) = centered_int32(t, w, &w_type, wzp)?;
    let result = b.result_type(0)?.with_dtype(DType::I32);
    Ok(vec![emit_convolution(
        t, x32, &x32_type, w32, None, &geometry, &result,
    )?])
}
