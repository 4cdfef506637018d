//! ONNX Runtime's QOperator ops of the `com.microsoft` domain, in explicit Q/DQ form:
//! each quantized input is dequantized, the float op applied, and the result quantized
//! with the output parameters. The matmul-like ops are in `microsoft_matmul.rs`.
//!
//! Input orders follow ONNX Runtime's contrib operator schemas: the unary ops take
//! (X, X_scale, X_zero_point, Y_scale, Y_zero_point), the binary ones
//! (A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point).

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::pooling::average_pool_of;
use super::qlinear_conv::check_8bit;
use super::quant_params::{
    ParamSpec, QuantParams, check_storage, dequantize, normalize_axis, quantize, read_params,
};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

const DOMAIN: &str = "com.microsoft";

pub fn register(r: &mut Lowerings) {
    r.on_domain_op(DOMAIN, "QLinearAdd", 1, qlinear_add);
    r.on_domain_op(DOMAIN, "QLinearMul", 1, qlinear_mul);
    r.on_domain_op(DOMAIN, "QLinearSigmoid", 1, qlinear_sigmoid);
    r.on_domain_op(DOMAIN, "QLinearLeakyRelu", 1, qlinear_leaky_relu);
    r.on_domain_op(DOMAIN, "QLinearSoftmax", 1, qlinear_softmax);
    r.on_domain_op(DOMAIN, "QLinearGlobalAveragePool", 1, qlinear_global_pool);
    r.on_domain_op(DOMAIN, "QLinearAveragePool", 1, qlinear_average_pool);
    r.on_domain_op(DOMAIN, "QLinearConcat", 1, qlinear_concat);
    super::microsoft_matmul::register(r);
    super::matmul_nbits::register(r);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// Per-tensor parameters at inputs `scale_input` and `scale_input + 1` of the tensor
/// `data`; `default` is the integer type when the zero point is left out.
pub(super) fn per_tensor<'c, 'a>(
    b: &Binder<'c, 'a>,
    scale_input: usize,
    names: [&str; 3],
    data: &TensorType,
    default: DType,
) -> Result<QuantParams<'c, 'a>> {
    let p = read_params(b, &ParamSpec::at(scale_input, names, 0, default), data)?;
    if p.axis.is_some() {
        bail!(
            "{} must be a scalar (per-tensor), but has {} elements",
            names[0],
            p.length
        );
    }
    check_storage(&p, data, names[2], names[1])?;
    p.quantized_dtype()?;
    Ok(p)
}

/// A quantized input `name` at `i` with its parameters right after it, dequantized.
fn float_input<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    i: usize,
    names: [&str; 3],
) -> Result<(Value<'c, 'a>, TensorType)> {
    let x = b.input(i, names[2])?;
    let x_type = b.input_type(i, names[2])?;
    let storage = check_8bit(&x_type, names[2])?;
    let p = per_tensor(b, i + 1, names, &x_type, storage)?;
    let f = dequantize(t, x, &x_type, &p)?;
    Ok((f, x_type.with_dtype(DType::F32)))
}

/// The output parameters at `scale_input`, for a result typed like `like` when the
/// result's own type is unknown.
fn output_params<'c, 'a>(
    b: &Binder<'c, 'a>,
    scale_input: usize,
    names: [&str; 3],
    like: DType,
) -> Result<(TensorType, QuantParams<'c, 'a>)> {
    let result = b.result_type(0)?;
    let p = per_tensor(b, scale_input, names, &result, result.dtype.unwrap_or(like))?;
    Ok((result, p))
}

fn qlinear_add<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    qlinear_binary(b, t, "add.Tensor")
}

fn qlinear_mul<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    qlinear_binary(b, t, "mul.Tensor")
}

/// A and B broadcast numpy-style, as the float op does.
fn qlinear_binary<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    aten: &str,
) -> Lowered<'c, 'a> {
    let a_storage = check_8bit(&b.input_type(0, "A")?, "A")?;
    let (a, _) = float_input(b, t, 0, ["A_scale", "A_zero_point", "A"])?;
    let (bf, _) = float_input(b, t, 3, ["B_scale", "B_zero_point", "B"])?;
    let (result, cp) = output_params(b, 6, ["C_scale", "C_zero_point", "C"], a_storage)?;
    let float_type = result.with_dtype(DType::F32);
    let y = if aten == "add.Tensor" {
        let one = t.int(1)?;
        t.aten_tensor(aten, &[a, bf, one], &float_type)?
    } else {
        t.aten_tensor(aten, &[a, bf], &float_type)?
    };
    Ok(vec![quantize(t, y, &float_type, &cp)?])
}

/// (X, X_scale, X_zero_point, Y_scale, Y_zero_point) through the float op `op`.
fn qlinear_unary<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    op: impl FnOnce(Value<'c, 'a>, &TensorType) -> Result<Value<'c, 'a>>,
) -> Lowered<'c, 'a> {
    let storage = check_8bit(&b.input_type(0, "X")?, "X")?;
    let (x, _) = float_input(b, t, 0, ["X_scale", "X_zero_point", "X"])?;
    let (result, yp) = output_params(b, 3, ["Y_scale", "Y_zero_point", "Y"], storage)?;
    let float_type = result.with_dtype(DType::F32);
    let y = op(x, &float_type)?;
    Ok(vec![quantize(t, y, &float_type, &yp)?])
}

fn qlinear_sigmoid<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    qlinear_unary(b, t, |x, ty| t.aten_tensor("sigmoid", &[x], ty))
}

fn qlinear_leaky_relu<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let alpha = b.float("alpha", 0.01)?;
    qlinear_unary(b, t, |x, ty| {
        let alpha = t.float(alpha)?;
        t.aten_tensor("leaky_relu", &[x, alpha], ty)
    })
}

/// Softmax along `axis` (default -1). The `opset` attribute names the Softmax whose
/// semantics apply: before 13 the input is coerced to 2-D at `axis`, which normalizes
/// along one dimension only when `axis` is the last one.
fn qlinear_softmax<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let Some(opset) = b.optional_int("opset")? else {
        bail!("missing required attribute 'opset'");
    };
    let x_type = b.input_type(0, "X")?;
    let axis = normalize_axis(b.int("axis", -1)?, &x_type, "X")?;
    let rank = x_type.rank().unwrap_or(0) as i64;
    if opset < 13 && axis != rank - 1 {
        bail!(
            "attribute 'axis' is {axis} with opset {opset}: normalizing over several dimensions (Softmax before opset 13) is not supported, only over the last"
        );
    }
    qlinear_unary(b, t, |x, ty| {
        let dim = t.int(axis)?;
        let none = t.none()?;
        t.aten_tensor("softmax.int", &[x, dim, none], ty)
    })
}

/// The axis permutations between channels-last (N, spatial..., C) and channels-first
/// (N, C, spatial...) for rank `r`: (to channels-first, back).
fn channel_permutations(r: usize) -> (Vec<i64>, Vec<i64>) {
    let r = r as i64;
    let to_first = std::iter::once(0)
        .chain(std::iter::once(r - 1))
        .chain(1..r - 1)
        .collect();
    let back = std::iter::once(0)
        .chain(2..r)
        .chain(std::iter::once(1))
        .collect();
    (to_first, back)
}

/// `ty` with its dimensions permuted; unranked when `perm` does not fit its rank.
fn permuted(ty: &TensorType, perm: &[i64]) -> TensorType {
    let shape = ty.shape.as_ref().and_then(|s| {
        if s.len() != perm.len() {
            return None;
        }
        perm.iter().map(|&p| s.get(p as usize).copied()).collect()
    });
    TensorType {
        dtype: ty.dtype,
        shape,
    }
}

fn rank_of(ty: &TensorType) -> Result<usize> {
    match ty.rank() {
        Some(r) if r >= 3 => Ok(r),
        Some(r) => bail!("X has rank {r}; a pool needs at least 3 (N, C, spatial)"),
        None => bail!("X has an unknown rank"),
    }
}

/// The mean over the spatial dimensions, kept as size 1: dimensions 2.. or, with
/// `channels_last`, 1..rank-1.
fn qlinear_global_pool<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let channels_last = b.int("channels_last", 0)? != 0;
    let rank = rank_of(&b.input_type(0, "X")?)? as i64;
    let dims: Vec<i64> = if channels_last {
        (1..rank - 1).collect()
    } else {
        (2..rank).collect()
    };
    let names = ["x_scale", "x_zero_point", "X"];
    let storage = check_8bit(&b.input_type(0, "X")?, "X")?;
    let (x, _) = float_input(b, t, 0, names)?;
    let (result, yp) = output_params(b, 3, ["y_scale", "y_zero_point", "Y"], storage)?;
    let float_type = result.with_dtype(DType::F32);
    let dims = t.int_list(&dims)?;
    let keep = t.bool(true)?;
    let none = t.none()?;
    let y = t.aten_tensor("mean.dim", &[x, dims, keep, none], &float_type)?;
    Ok(vec![quantize(t, y, &float_type, &yp)?])
}

/// AveragePool's attributes and padding rules on the dequantized input; a
/// channels-last input is permuted to channels-first around the pool.
fn qlinear_average_pool<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let channels_last = b.int("channels_last", 0)? != 0;
    let storage = check_8bit(&b.input_type(0, "X")?, "X")?;
    let (x, x_type) = float_input(b, t, 0, ["x_scale", "x_zero_point", "X"])?;
    let (result, yp) = output_params(b, 3, ["y_scale", "y_zero_point", "Y"], storage)?;
    let float_type = result.with_dtype(DType::F32);
    let y = if channels_last {
        let (to_first, back) = channel_permutations(rank_of(&x_type)?);
        let first_type = permuted(&x_type, &to_first);
        let pooled_type = permuted(&float_type, &to_first);
        let perm = t.int_list(&to_first)?;
        let xf = t.aten_tensor("permute", &[x, perm], &first_type)?;
        let pooled = average_pool_of(b, t, xf, &first_type, &pooled_type)?;
        let perm = t.int_list(&back)?;
        t.aten_tensor("permute", &[pooled, perm], &float_type)?
    } else {
        average_pool_of(b, t, x, &x_type, &float_type)?
    };
    Ok(vec![quantize(t, y, &float_type, &yp)?])
}

/// (Y_scale, Y_zero_point, then X, X_scale, X_zero_point for each input), along the
/// required `axis`.
fn qlinear_concat<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let n = b.input_count();
    if n < 5 || !(n - 2).is_multiple_of(3) {
        bail!(
            "has {n} inputs; it takes Y_scale, Y_zero_point and then (X, X_scale, X_zero_point) for each input"
        );
    }
    let Some(axis) = b.optional_int("axis")? else {
        bail!("missing required attribute 'axis'");
    };
    let first = b.input_type(2, "inputs[0]")?;
    let axis = normalize_axis(axis, &first, "inputs[0]")?;
    let storage = check_8bit(&first, "inputs[0]")?;
    let mut values = Vec::with_capacity((n - 2) / 3);
    for k in 0..(n - 2) / 3 {
        let x = format!("inputs[{k}]");
        let scale = format!("{x} scale");
        let zp = format!("{x} zero point");
        let (f, _) = float_input(b, t, 2 + 3 * k, [&scale, &zp, &x])?;
        values.push(f);
    }
    let (result, yp) = output_params(b, 0, ["Y_scale", "Y_zero_point", "Y"], storage)?;
    let float_type = result.with_dtype(DType::F32);
    let list = t.list(&values, "vtensor")?;
    let dim = t.int(axis)?;
    let y = t.aten_tensor("cat", &[list, dim], &float_type)?;
    Ok(vec![quantize(t, y, &float_type, &yp)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_last_permutations_invert_each_other() {
        let (to_first, back) = channel_permutations(4);
        assert_eq!(to_first, vec![0, 3, 1, 2]);
        assert_eq!(back, vec![0, 2, 3, 1]);
        let (to_first, back) = channel_permutations(3);
        assert_eq!(to_first, vec![0, 2, 1]);
        assert_eq!(back, vec![0, 2, 1]);
    }

    #[test]
    fn a_permutation_of_another_rank_leaves_the_shape_unknown() {
        let ty = TensorType::known(DType::F32, &[1, 4, 5, 3]);
        assert_eq!(
            permuted(&ty, &[0, 3, 1, 2]).shape,
            Some(vec![Some(1), Some(3), Some(4), Some(5)])
        );
        assert_eq!(permuted(&ty, &[0, 2, 1]).shape, None);
    }
}
