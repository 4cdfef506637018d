//! LRN and MeanVarianceNormalization, spelled out with torch's element-wise ops,
//! reductions and pooling (torch has no op for either):
//! - LRN divides each element by (bias + alpha/size · the sum of the squares of its
//!   `size` neighbouring channels)^beta. The channel window sum is an average pool over
//!   the channel axis of the squares, viewed as (N, 1, C, D...) and zero-padded by
//!   floor((size-1)/2) before and ceil((size-1)/2) after.
//! - MeanVarianceNormalization is its ONNX function body: (X - E[X]) /
//!   (sqrt(E[X²] - E[X]²) + 1e-9), the expectations over `axes`.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("LRN", 1, lrn);
    r.on_op("MeanVarianceNormalization", 9, mean_variance_normalization);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// X's dimensions, for a float X of known rank.
fn float_dims(b: &Binder, name: &str) -> Result<(TensorType, Vec<Dim>)> {
    let ty = b.input_type(0, name)?;
    if let Some(d) = ty.dtype
        && !d.is_float()
    {
        bail!("input {name} is {ty}, expected a float tensor");
    }
    let Some(dims) = ty.shape.clone() else {
        bail!("input {name} has unknown rank");
    };
    Ok((ty, dims))
}

fn typed(like: &TensorType, dims: Vec<Dim>) -> TensorType {
    TensorType {
        dtype: like.dtype,
        shape: Some(dims),
    }
}

fn lrn<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let (x_type, dims) = float_dims(b, "X")?;
    let rank = dims.len();
    if !(2..=4).contains(&rank) {
        bail!("input X is {x_type}: LRN is lowered for ranks 2 to 4 (N, C and up to 2 more)");
    }
    let Some(size) = b.optional_int("size")? else {
        bail!("missing required attribute 'size'");
    };
    if size < 1 {
        bail!("attribute 'size' is {size}, expected at least 1");
    }
    let alpha = b.float("alpha", 1e-4)?;
    let beta = b.float("beta", 0.75)?;
    let bias = b.float("bias", 1.0)?;
    let result = b.result_type(0)?;

    let squares = t.aten_tensor("mul.Tensor", &[x, x], &x_type)?;
    // (N, 1, C, D...): the channels become the first pooled axis.
    let mut lifted = dims.clone();
    lifted.insert(1, Some(1));
    let one = t.int(1)?;
    let lifted_value = t.aten_tensor(
        "unsqueeze",
        &[squares, one],
        &typed(&x_type, lifted.clone()),
    )?;
    let before = (size - 1) / 2;
    let after = size - 1 - before;
    // torch lists pads from the last dimension backwards: none for the spatial ones,
    // then the channel axis.
    let mut pads = vec![0; 2 * (rank - 2)];
    pads.extend([before, after]);
    let mut padded = lifted.clone();
    padded[2] = padded[2].map(|c| c + size - 1);
    let zero = t.float(0.0)?;
    let padded_value = t.aten_tensor(
        "constant_pad_nd",
        &[lifted_value, t.int_list(&pads)?, zero],
        &typed(&x_type, padded),
    )?;
    let n = rank - 1;
    let mut kernel = vec![1; n];
    kernel[0] = size;
    let mut operands = vec![
        padded_value,
        t.int_list(&kernel)?,
        t.int_list(&vec![1; n])?,
        t.int_list(&vec![0; n])?,
        t.bool(false)?,
        t.bool(true)?,
    ];
    // avg_pool2d and avg_pool3d also take a divisor_override.
    if n > 1 {
        operands.push(t.none()?);
    }
    let mean = t.aten_tensor(&format!("avg_pool{n}d"), &operands, &typed(&x_type, lifted))?;
    let window = t.aten_tensor("squeeze.dim", &[mean, t.int(1)?], &x_type)?;
    // alpha/size times the window sum is alpha times its mean.
    let scaled = t.aten_tensor("mul.Scalar", &[window, t.float(alpha)?], &x_type)?;
    let shifted = t.aten_tensor("add.Scalar", &[scaled, t.float(bias)?, t.int(1)?], &x_type)?;
    let denominator = t.aten_tensor("pow.Tensor_Scalar", &[shifted, t.float(beta)?], &x_type)?;
    Ok(vec![t.aten_tensor(
        "div.Tensor",
        &[x, denominator],
        &result,
    )?])
}

fn mean_variance_normalization<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let (x_type, dims) = float_dims(b, "X")?;
    let rank = dims.len() as i64;
    let axes = b.optional_ints("axes")?.unwrap_or_else(|| vec![0, 2, 3]);
    let mut resolved = Vec::with_capacity(axes.len());
    for &a in &axes {
        if a < -rank || a >= rank {
            bail!("attribute 'axes' holds {a}, outside the range of X's rank {rank}");
        }
        let a = if a < 0 { a + rank } else { a };
        if resolved.contains(&a) {
            bail!("attribute 'axes' names axis {a} twice");
        }
        resolved.push(a);
    }
    let mut reduced = dims.clone();
    for &a in &resolved {
        reduced[a as usize] = Some(1);
    }
    let stats_type = typed(&x_type, reduced);
    let result = b.result_type(0)?;

    let mean_of = |v: Value<'c, 'a>| -> Result<Value<'c, 'a>> {
        let operands = [v, t.int_list(&resolved)?, t.bool(true)?, t.none()?];
        t.aten_tensor("mean.dim", &operands, &stats_type)
    };
    let mean = mean_of(x)?;
    let mean_squared = t.aten_tensor("mul.Tensor", &[mean, mean], &stats_type)?;
    let squares = t.aten_tensor("mul.Tensor", &[x, x], &x_type)?;
    let mean_of_squares = mean_of(squares)?;
    let variance = t.aten_tensor(
        "sub.Tensor",
        &[mean_of_squares, mean_squared, t.int(1)?],
        &stats_type,
    )?;
    let deviation = t.aten_tensor("sqrt", &[variance], &stats_type)?;
    let denominator = t.aten_tensor(
        "add.Scalar",
        &[deviation, t.float(1e-9)?, t.int(1)?],
        &stats_type,
    )?;
    let centered = t.aten_tensor("sub.Tensor", &[x, mean, t.int(1)?], &x_type)?;
    Ok(vec![t.aten_tensor(
        "div.Tensor",
        &[centered, denominator],
        &result,
    )?])
}
