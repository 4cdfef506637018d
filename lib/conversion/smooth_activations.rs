//! The activations beyond the ReLU family: Mish, Softplus, Softsign, Elu, Selu, Celu,
//! ThresholdedRelu, PRelu, Shrink and Swish. Each is the torch op with ONNX's formula where torch has
//! one (`mish`, `softplus`, `elu`, `celu`, `threshold`, `silu`), else that formula spelled out
//! with torch's element-wise ops.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("Mish", 18, mish);
    r.on_op("Softplus", 1, softplus);
    r.on_op("Softsign", 1, softsign);
    r.on_op("Elu", 1, elu);
    r.on_op("Selu", 1, selu);
    r.on_op("Celu", 12, celu);
    r.on_op("ThresholdedRelu", 10, thresholded_relu);
    r.on_op("PRelu", 7, prelu);
    r.on_op("Shrink", 9, shrink);
    r.on_op("Swish", 24, swish);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// Input 0 and the result type, after checking that the input is a float tensor (the
/// only types these ONNX ops accept).
fn float_input<'c, 'a>(b: &Binder<'c, 'a>, name: &str) -> Result<(Value<'c, 'a>, TensorType)> {
    let x = b.input(0, name)?;
    let ty = b.input_type(0, name)?;
    if let Some(d) = ty.dtype
        && !d.is_float()
    {
        bail!("input {name} is {ty}, expected a float tensor");
    }
    Ok((x, b.result_type(0)?))
}

/// `x * tanh(softplus(x))`: torch's `mish`.
fn mish<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, result) = float_input(b, "X")?;
    Ok(vec![t.aten_tensor("mish", &[x], &result)?])
}

/// `ln(exp(x) + 1)`: torch's `softplus` with beta 1. Its threshold (x itself above
/// 20) changes nothing in f32 or narrower: there ln(1 + e^-x) < 3e-9 is below half an
/// ulp of x.
fn softplus<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, result) = float_input(b, "X")?;
    if result.dtype == Some(DType::F64) {
        // In f64 the threshold would show, so it is put out of reach.
        let threshold = t.float(f64::MAX)?;
        return Ok(vec![t.aten_tensor(
            "softplus",
            &[x, t.int(1)?, threshold],
            &result,
        )?]);
    }
    let (beta, threshold) = (t.int(1)?, t.int(20)?);
    Ok(vec![t.aten_tensor(
        "softplus",
        &[x, beta, threshold],
        &result,
    )?])
}

/// `x / (1 + |x|)`, spelled out: torch has no softsign op.
fn softsign<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, result) = float_input(b, "input")?;
    let magnitude = t.aten_tensor("abs", &[x], &result)?;
    let one = t.int(1)?;
    let denominator = t.aten_tensor("add.Scalar", &[magnitude, one, one], &result)?;
    Ok(vec![t.aten_tensor(
        "div.Tensor",
        &[x, denominator],
        &result,
    )?])
}

/// `elu(x, alpha, scale, input_scale)`: x where positive, else alpha·(exp(x) - 1),
/// times `scale`.
fn elu_op<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    alpha: f64,
    scale: f64,
    result: &TensorType,
) -> Lowered<'c, 'a> {
    let operands = [x, t.float(alpha)?, t.float(scale)?, t.int(1)?];
    Ok(vec![t.aten_tensor("elu", &operands, result)?])
}

fn elu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, result) = float_input(b, "X")?;
    let alpha = b.float("alpha", 1.0)?;
    elu_op(t, x, alpha, 1.0, &result)
}

/// Selu is Elu scaled by gamma. The defaults are the spec's f32 constants.
fn selu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, result) = float_input(b, "X")?;
    let alpha = b.float("alpha", f64::from(1.673_263_2_f32))?;
    let gamma = b.float("gamma", f64::from(1.050_701_f32))?;
    elu_op(t, x, alpha, gamma, &result)
}

/// `max(0, x) + min(0, alpha·(exp(x/alpha) - 1))`: torch's `celu`.
fn celu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, result) = float_input(b, "X")?;
    let alpha = b.float("alpha", 1.0)?;
    if alpha == 0.0 {
        bail!("attribute 'alpha' is 0, but Celu divides by it");
    }
    Ok(vec![t.aten_tensor(
        "celu",
        &[x, t.float(alpha)?],
        &result,
    )?])
}

/// x where x > alpha, else 0: torch's `threshold(x, alpha, 0)`.
fn thresholded_relu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, result) = float_input(b, "X")?;
    let alpha = b.float("alpha", 1.0)?;
    let operands = [x, t.float(alpha)?, t.float(0.0)?];
    Ok(vec![t.aten_tensor("threshold", &operands, &result)?])
}

/// `where(x > 0, x, x·slope)`. torch's `prelu` takes one slope per channel of dim 1,
/// while ONNX's slope broadcasts onto X from the right (a [C,1,1] slope of an NCHW
/// input, a [W] slope of the last dimension), so the formula is spelled out with
/// torch's broadcasting ops, which have ONNX's rule.
fn prelu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let slope = b.input(1, "slope")?;
    let x_type = b.input_type(0, "X")?;
    let slope_type = b.input_type(1, "slope")?;
    check_slope(&x_type, &slope_type)?;
    let result = b.result_type(0)?;
    let scaled = t.aten_tensor("mul.Tensor", &[x, slope], &result)?;
    let positive = t.aten_tensor(
        "gt.Scalar",
        &[x, t.int(0)?],
        &result.with_dtype(DType::Bool),
    )?;
    Ok(vec![t.aten_tensor(
        "where.self",
        &[positive, x, scaled],
        &result,
    )?])
}

/// The slope has X's element type and broadcasts onto X without growing it.
fn check_slope(x: &TensorType, slope: &TensorType) -> Result<()> {
    if let (Some(p), Some(q)) = (x.dtype, slope.dtype)
        && p != q
    {
        bail!("input slope is {q} but input X is {p}");
    }
    let (Some(xs), Some(ss)) = (&x.shape, &slope.shape) else {
        return Ok(());
    };
    let fits = ss.len() <= xs.len()
        && ss
            .iter()
            .rev()
            .zip(xs.iter().rev())
            .all(|(s, d)| match (s, d) {
                (Some(s), Some(d)) => s == d || *s == 1,
                _ => true,
            });
    if !fits {
        bail!("input slope is {slope}, which does not broadcast onto input X {x}");
    }
    Ok(())
}

/// x + bias below -lambd, x - bias above lambd, else 0:
/// `where(x < -lambd, x + bias, where(x > lambd, x - bias, 0))`.
fn shrink<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, result) = float_input(b, "input")?;
    let bias = b.float("bias", 0.0)?;
    let lambd = b.float("lambd", 0.5)?;
    let mask_type = result.with_dtype(DType::Bool);
    let below = t.aten_tensor("lt.Scalar", &[x, t.float(-lambd)?], &mask_type)?;
    let above = t.aten_tensor("gt.Scalar", &[x, t.float(lambd)?], &mask_type)?;
    let one = t.int(1)?;
    let raised = t.aten_tensor("add.Scalar", &[x, t.float(bias)?, one], &result)?;
    let lowered = t.aten_tensor("sub.Scalar", &[x, t.float(bias)?, one], &result)?;
    let none = t.none()?;
    let zero = t.aten_tensor("zeros_like", &[x, none, none, none, none, none], &result)?;
    let upper = t.aten_tensor("where.self", &[above, lowered, zero], &result)?;
    Ok(vec![t.aten_tensor(
        "where.self",
        &[below, raised, upper],
        &result,
    )?])
}

/// `x · sigmoid(alpha · x)`: torch's `silu` when alpha is 1, else spelled out.
fn swish<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, result) = float_input(b, "X")?;
    let alpha = b.float("alpha", 1.0)?;
    if alpha == 1.0 {
        return Ok(vec![t.aten_tensor("silu", &[x], &result)?]);
    }
    let scaled = t.aten_tensor("mul.Scalar", &[x, t.float(alpha)?], &result)?;
    let gate = t.aten_tensor("sigmoid", &[scaled], &result)?;
    Ok(vec![t.aten_tensor("mul.Tensor", &[x, gate], &result)?])
}
