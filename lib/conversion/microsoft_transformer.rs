//! ONNX Runtime's transformer contrib ops (com.microsoft) that are element-wise or
//! normalizations, as the torch ops they are made of, as ONNX Runtime's contrib
//! operator schemas define them:
//! - Gelu: `gelu(X)`; BiasGelu: `gelu(A + B)`; FastGelu: `gelu(X + bias, "tanh")`
//!   (its constants are the tanh form's); QuickGelu: `X · sigmoid(alpha · X)`;
//!   BiasAdd: `X + bias + skip`.
//! - SkipLayerNormalization: `s = input + skip (+ bias)`, then a layer norm of `s` over
//!   the last axis with gamma (and beta); outputs (output, mean, inv_std_var,
//!   input_skip_bias_sum).
//! - SimplifiedLayerNormalization (RMSNorm, in the default domain as ONNX Runtime
//!   registers it, and in com.microsoft): `X / sqrt(mean(X²) + epsilon) · scale` over
//!   the axes from `axis` on; outputs (Y, inv_std_var). ONNX's RMSNormalization
//!   (opset 23) is the same computation with the one output Y.
//! - SkipSimplifiedLayerNormalization: the same of `input + skip (+ bias)` over the
//!   last axis; outputs (output, mean, inv_std_var, input_skip_bias_sum), of which the
//!   mean is refused if something reads it (ONNX Runtime computes none).

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::layer_norm::trailing_sizes;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;

const DOMAIN: &str = "com.microsoft";

/// ONNX Runtime's default epsilon of the skip normalizations.
const SKIP_EPSILON: f64 = 1e-12;

pub fn register(r: &mut Lowerings) {
    r.on_domain_op(DOMAIN, "Gelu", 1, gelu);
    r.on_domain_op(DOMAIN, "BiasGelu", 1, bias_gelu);
    r.on_domain_op(DOMAIN, "FastGelu", 1, fast_gelu);
    r.on_domain_op(DOMAIN, "QuickGelu", 1, quick_gelu);
    r.on_domain_op(DOMAIN, "BiasAdd", 1, bias_add);
    r.on_domain_op(DOMAIN, "SkipLayerNormalization", 1, skip_layer_norm);
    r.on_domain_op(
        DOMAIN,
        "SimplifiedLayerNormalization",
        1,
        simplified_layer_norm,
    );
    r.on_op("SimplifiedLayerNormalization", 1, simplified_layer_norm);
    r.on_op("RMSNormalization", 23, simplified_layer_norm);
    r.on_domain_op(
        DOMAIN,
        "SkipSimplifiedLayerNormalization",
        1,
        skip_simplified_layer_norm,
    );
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// Input `i` (called `name`), which must be a float tensor.
fn float_input<'c, 'a>(
    b: &Binder<'c, 'a>,
    i: usize,
    name: &str,
) -> Result<(Value<'c, 'a>, TensorType)> {
    let x = b.input(i, name)?;
    let ty = b.input_type(i, name)?;
    if let Some(d) = ty.dtype
        && !d.is_float()
    {
        bail!("input {name} is {ty}, expected a float tensor");
    }
    Ok((x, ty))
}

/// `a + c`, typed `ty`.
fn add<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    a: Value<'c, 'a>,
    c: Value<'c, 'a>,
    ty: &TensorType,
) -> Result<Value<'c, 'a>> {
    t.aten_tensor("add.Tensor", &[a, c, t.int(1)?], ty)
}

fn gelu_of<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    mode: &str,
    ty: &TensorType,
) -> Result<Value<'c, 'a>> {
    t.aten_tensor("gelu", &[x, t.str(mode)?], ty)
}

fn gelu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, _) = float_input(b, 0, "X")?;
    Ok(vec![gelu_of(t, x, "none", &b.result_type(0)?)?])
}

fn bias_gelu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (a, _) = float_input(b, 0, "A")?;
    let (bias, _) = float_input(b, 1, "B")?;
    let ty = b.result_type(0)?;
    let sum = add(t, a, bias, &ty)?;
    Ok(vec![gelu_of(t, sum, "none", &ty)?])
}

fn fast_gelu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (mut x, _) = float_input(b, 0, "X")?;
    let ty = b.result_type(0)?;
    if b.has_input(1) {
        let (bias, _) = float_input(b, 1, "bias")?;
        x = add(t, x, bias, &ty)?;
    }
    Ok(vec![gelu_of(t, x, "tanh", &ty)?])
}

fn quick_gelu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, _) = float_input(b, 0, "X")?;
    let alpha = b.float("alpha", 1.702)?;
    let ty = b.result_type(0)?;
    let scaled = t.aten_tensor("mul.Scalar", &[x, t.float(alpha)?], &ty)?;
    let gate = t.aten_tensor("sigmoid", &[scaled], &ty)?;
    Ok(vec![t.aten_tensor("mul.Tensor", &[x, gate], &ty)?])
}

fn bias_add<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, _) = float_input(b, 0, "X")?;
    let (bias, _) = float_input(b, 1, "bias")?;
    let (skip, _) = float_input(b, 2, "skip")?;
    let ty = b.result_type(0)?;
    let with_bias = add(t, x, bias, &ty)?;
    Ok(vec![add(t, with_bias, skip, &ty)?])
}

/// `input + skip (+ bias)` of the skip normalizations, typed as the input, and the
/// input's type.
fn skip_sum<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    bias_input: usize,
) -> Result<(Value<'c, 'a>, TensorType)> {
    let (x, ty) = float_input(b, 0, "input")?;
    let (skip, _) = float_input(b, 1, "skip")?;
    let mut sum = add(t, x, skip, &ty)?;
    if b.has_input(bias_input) {
        let (bias, _) = float_input(b, bias_input, "bias")?;
        sum = add(t, sum, bias, &ty)?;
    }
    Ok((sum, ty))
}

/// The rank of `ty`, and `axis` normalized against it.
fn rank_and_axis(ty: &TensorType, axis: i64, name: &str) -> Result<(usize, usize)> {
    let Some(rank) = ty.rank() else {
        bail!("input {name} has unknown rank, so the normalized axes cannot be resolved");
    };
    let r = rank as i64;
    if rank == 0 || axis < -r || axis >= r {
        bail!("attribute 'axis' is {axis}, outside the range of {name}'s rank {rank}");
    }
    Ok((rank, if axis < 0 { axis + r } else { axis } as usize))
}

/// The `Some(value)` of output `i` when the node lists it, else `None` (an output
/// ONNX leaves out).
fn outputs<'c, 'a>(b: &Binder<'c, 'a>, values: Vec<Option<Value<'c, 'a>>>) -> Lowered<'c, 'a> {
    values
        .into_iter()
        .take(b.result_count())
        .enumerate()
        .map(|(i, v)| match v {
            Some(v) => Ok(v),
            None => bail!("output {i} cannot be computed"),
        })
        .collect()
}

fn skip_layer_norm<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (sum, ty) = skip_sum(b, t, 4)?;
    let (_, axis) = rank_and_axis(&ty, -1, "input")?;
    let dims = ty.shape.clone().unwrap_or_default();
    let (gamma, _) = float_input(b, 2, "gamma")?;
    let beta = match b.optional_input(3) {
        Some(v) => v,
        None => t.none()?,
    };
    let eps = t.float(b.float("epsilon", SKIP_EPSILON)?)?;
    let shape = trailing_sizes(t, sum, &dims, axis)?;
    let y_type = b.result_type(0)?;
    let operands = [sum, shape, gamma, beta, eps];
    // The statistics only when something reads them: a model that lists output 3 (the
    // sum, the next block's residual) and not 1 or 2 gets the plain layer norm, which
    // the CPU backend fuses with the sum.
    let stats_read = (1..3).any(|i| i < b.result_count() && b.is_result_used(i));
    if !stats_read {
        let cudnn = t.bool(false)?;
        let y = t.aten_tensor(
            "layer_norm",
            &[sum, shape, gamma, beta, eps, cudnn],
            &y_type,
        )?;
        // Outputs 1 and 2 are listed but unread: they get the norm's value, so that the
        // op's results all exist.
        return outputs(b, vec![Some(y), Some(y), Some(y), Some(sum)]);
    }
    let stats = b.result_type(1)?;
    let types = [
        t.tensor_type(&y_type)?,
        t.tensor_type(&stats)?,
        t.tensor_type(&stats)?,
    ];
    let op = t.op("torch.aten.native_layer_norm", &operands, &types, &[])?;
    outputs(
        b,
        vec![
            Some(op.result(0)?.into()),
            Some(op.result(1)?.into()),
            Some(op.result(2)?.into()),
            Some(sum),
        ],
    )
}

/// RMS normalization of `x` (typed `ty`) over the axes from `axis` on, scaled by
/// `scale`: (Y, inv_std_var), the statistic typed `stats`. In f32 as ONNX Runtime's
/// kernel: `x / sqrt(mean(x·x) + epsilon) · scale`.
#[allow(clippy::too_many_arguments)]
fn rms_norm<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    ty: &TensorType,
    axis: usize,
    scale: Value<'c, 'a>,
    epsilon: f64,
    y_type: &TensorType,
    stats: &TensorType,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>)> {
    let rank = ty.rank().unwrap_or(0);
    let squares = t.aten_tensor("mul.Tensor", &[x, x], ty)?;
    let axes: Vec<i64> = (axis as i64..rank as i64).collect();
    let keep = t.bool(true)?;
    let mean = t.aten_tensor(
        "mean.dim",
        &[squares, t.int_list(&axes)?, keep, t.none()?],
        stats,
    )?;
    let shifted = t.aten_tensor("add.Scalar", &[mean, t.float(epsilon)?, t.int(1)?], stats)?;
    let root = t.aten_tensor("sqrt", &[shifted], stats)?;
    let normalized = t.aten_tensor("div.Tensor", &[x, root], ty)?;
    let y = t.aten_tensor("mul.Tensor", &[normalized, scale], y_type)?;
    let inv = t.aten_tensor("reciprocal", &[root], stats)?;
    Ok((y, inv))
}

/// The type of the statistics over the axes from `axis` on: `ty`'s dimensions before
/// it, then 1s, in f32.
fn stats_type(ty: &TensorType, axis: usize) -> TensorType {
    let shape = ty.shape.as_ref().map(|dims| {
        let mut s = dims[..axis].to_vec();
        s.resize(dims.len(), Some(1));
        s
    });
    TensorType {
        dtype: Some(crate::onnx::dtype::DType::F32),
        shape,
    }
}

fn simplified_layer_norm<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, ty) = float_input(b, 0, "X")?;
    let (scale, _) = float_input(b, 1, "scale")?;
    let (_, axis) = rank_and_axis(&ty, b.int("axis", -1)?, "X")?;
    let epsilon = b.float("epsilon", 1e-5)?;
    let stats = stats_type(&ty, axis);
    let y_type = b.result_type(0)?;
    let (y, inv) = rms_norm(t, x, &ty, axis, scale, epsilon, &y_type, &stats)?;
    outputs(b, vec![Some(y), Some(inv)])
}

fn skip_simplified_layer_norm<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Lowered<'c, 'a> {
    let (sum, ty) = skip_sum(b, t, 3)?;
    let (_, axis) = rank_and_axis(&ty, -1, "input")?;
    let (gamma, _) = float_input(b, 2, "gamma")?;
    let epsilon = b.float("epsilon", SKIP_EPSILON)?;
    let stats = stats_type(&ty, axis);
    let y_type = b.result_type(0)?;
    let (y, inv) = rms_norm(t, sum, &ty, axis, gamma, epsilon, &y_type, &stats)?;
    if b.result_count() > 1 && b.is_result_used(1) {
        bail!("output 'mean' is not computed by RMS normalization");
    }
    // The unused mean output gets the statistic's value, so the op's results all exist.
    outputs(b, vec![Some(y), Some(inv), Some(inv), Some(sum)])
}
