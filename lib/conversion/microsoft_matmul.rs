//! com.microsoft's quantized matmuls in explicit Q/DQ form: QGemm (quantized or FLOAT
//! output), DynamicQuantizeMatMul and MatMulIntegerToFloat (FLOAT output). B's
//! parameters may be per column; an int32 bias is dequantized with scale
//! a_scale·b_scale and zero point 0.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::microsoft::per_tensor;
use super::qlinear_conv::check_8bit;
use super::quant_params::{
    ParamSpec, QuantParams, check_storage, dequantize, quantize, read_params,
};
use super::quantization::{cast, dynamic_params};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_domain_op("com.microsoft", "QGemm", 1, qgemm);
    r.on_domain_op(
        "com.microsoft",
        "DynamicQuantizeMatMul",
        1,
        dynamic_quantize_matmul,
    );
    r.on_domain_op(
        "com.microsoft",
        "MatMulIntegerToFloat",
        1,
        matmul_integer_to_float,
    );
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// B's parameters at `scale_input`/`zp_input`: per tensor, or per column (along
/// `axis` of B).
fn b_params<'c, 'a>(
    b: &Binder<'c, 'a>,
    (scale_input, zp_input): (usize, usize),
    b_type: &TensorType,
    axis: i64,
) -> Result<QuantParams<'c, 'a>> {
    let storage = check_8bit(b_type, "B")?;
    let spec = ParamSpec {
        scale_input,
        zero_point_input: zp_input,
        scale_name: "b_scale",
        zero_point_name: "b_zero_point",
        data_name: "B",
        axis,
        default_storage: storage,
    };
    let p = read_params(b, &spec, b_type)?;
    check_storage(&p, b_type, "B", "b_zero_point")?;
    p.quantized_dtype()?;
    Ok(p)
}

fn transposed(ty: &TensorType) -> TensorType {
    TensorType {
        dtype: ty.dtype,
        shape: ty.shape.as_ref().map(|s| s.iter().rev().copied().collect()),
    }
}

fn rank2(ty: &TensorType, name: &str) -> Result<()> {
    match ty.rank() {
        Some(2) => Ok(()),
        Some(r) => bail!("{name} must be 2-D, but has rank {r}"),
        None => bail!("{name} has an unknown rank"),
    }
}

/// Y = alpha·(A'·B' + C) (each primed operand transposed when its attribute asks), with
/// A and B dequantized and C an int32 bias at scale a_scale·b_scale. The output is
/// quantized with y_scale/y_zero_point when given, else FLOAT.
fn qgemm<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let trans_a = b.int("transA", 0)? != 0;
    let trans_b = b.int("transB", 0)? != 0;
    let alpha = b.float("alpha", 1.0)?;
    let a = b.input(0, "A")?;
    let a_type = b.input_type(0, "A")?;
    let bm = b.input(3, "B")?;
    let b_type = b.input_type(3, "B")?;
    rank2(&a_type, "A")?;
    rank2(&b_type, "B")?;
    let a_storage = check_8bit(&a_type, "A")?;
    let ap = per_tensor(b, 1, ["a_scale", "a_zero_point", "A"], &a_type, a_storage)?;
    // B's columns are its axis 1, or axis 0 when it is stored transposed.
    let bp = b_params(b, (4, 5), &b_type, if trans_b { 0 } else { 1 })?;
    let result = b.result_type(0)?;
    let quantized_output = b.has_input(7);
    let yp = if quantized_output {
        Some(per_tensor(
            b,
            7,
            ["y_scale", "y_zero_point", "Y"],
            &result,
            result.dtype.unwrap_or(a_storage),
        )?)
    } else {
        if b.has_input(8) {
            bail!("y_zero_point is given without y_scale");
        }
        None
    };
    let float_type = result.with_dtype(DType::F32);

    let mut af = dequantize(t, a, &a_type, &ap)?;
    let mut bf = dequantize(t, bm, &b_type, &bp)?;
    let transpose = |v: Value<'c, 'a>, ty: &TensorType| -> Result<Value<'c, 'a>> {
        let zero = t.int(0)?;
        let one = t.int(1)?;
        t.aten_tensor("transpose.int", &[v, zero, one], &transposed(ty))
    };
    if trans_a {
        af = transpose(af, &a_type.with_dtype(DType::F32))?;
    }
    if trans_b {
        bf = transpose(bf, &b_type.with_dtype(DType::F32))?;
    }
    let mut y = t.aten_tensor("mm", &[af, bf], &float_type)?;
    if let Some(c) = b.optional_input(6) {
        let c_type = b.input_type(6, "C")?;
        if c_type.dtype != Some(DType::I32) {
            bail!("C must be INT32, but is {c_type}");
        }
        let c_float_type = c_type.with_dtype(DType::F32);
        let cf = cast(t, c, &c_float_type)?;
        let scale_type = bp.scale_type.with_dtype(DType::F32);
        let scale = t.aten_tensor("mul.Tensor", &[bp.scale, ap.scale], &scale_type)?;
        let bias = t.aten_tensor("mul.Tensor", &[cf, scale], &c_float_type)?;
        let one = t.int(1)?;
        y = t.aten_tensor("add.Tensor", &[y, bias, one], &float_type)?;
    }
    // ONNX Runtime scales the biased sum: C is at scale a_scale·b_scale like A·B.
    if alpha != 1.0 {
        let alpha = t.float(alpha)?;
        y = t.aten_tensor("mul.Scalar", &[y, alpha], &float_type)?;
    }
    Ok(vec![match yp {
        Some(yp) => quantize(t, y, &float_type, &yp)?,
        None => y,
    }])
}

/// The product of the dequantized A and B, plus the optional FLOAT bias at `bias_input`.
fn float_matmul<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    af: Value<'c, 'a>,
    bf: Value<'c, 'a>,
    bias_input: usize,
) -> Lowered<'c, 'a> {
    let result = b.result_type(0)?;
    if result.dtype.is_some_and(|d| d != DType::F32) {
        bail!("Y must be FLOAT, but is {result}");
    }
    let float_type = result.with_dtype(DType::F32);
    let mut y = t.aten_tensor("matmul", &[af, bf], &float_type)?;
    if let Some(bias) = b.optional_input(bias_input) {
        let bias_type = b.input_type(bias_input, "bias")?;
        if bias_type.dtype != Some(DType::F32) {
            bail!("bias must be FLOAT, but is {bias_type}");
        }
        let one = t.int(1)?;
        y = t.aten_tensor("add.Tensor", &[y, bias, one], &float_type)?;
    }
    Ok(vec![y])
}

fn check_b_rank(b_type: &TensorType) -> Result<()> {
    match b_type.rank() {
        Some(r) if r >= 1 => Ok(()),
        Some(_) => bail!("B must have rank 1 or more"),
        None => bail!("B has an unknown rank"),
    }
}

/// (A FLOAT, B, b_scale, b_zero_point?, bias?): A is quantized to UINT8 as
/// DynamicQuantizeLinear does, then both are dequantized and multiplied.
fn dynamic_quantize_matmul<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Lowered<'c, 'a> {
    let a = b.input(0, "A")?;
    let a_type = b.input_type(0, "A")?;
    if a_type.dtype != Some(DType::F32) {
        bail!("A must be FLOAT, but is {a_type}");
    }
    let bm = b.input(1, "B")?;
    let b_type = b.input_type(1, "B")?;
    check_b_rank(&b_type)?;
    let bp = b_params(b, (2, 3), &b_type, -1)?;
    let ap = dynamic_params(t, a)?;
    let aq = quantize(t, a, &a_type, &ap)?;
    let af = dequantize(t, aq, &a_type.with_dtype(DType::U8), &ap)?;
    let bf = dequantize(t, bm, &b_type, &bp)?;
    float_matmul(b, t, af, bf, 4)
}

/// (A, B, a_scale, b_scale, a_zero_point?, b_zero_point?, bias?).
fn matmul_integer_to_float<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Lowered<'c, 'a> {
    let a = b.input(0, "A")?;
    let a_type = b.input_type(0, "A")?;
    let bm = b.input(1, "B")?;
    let b_type = b.input_type(1, "B")?;
    check_b_rank(&b_type)?;
    let a_storage = check_8bit(&a_type, "A")?;
    let spec = ParamSpec {
        scale_input: 2,
        zero_point_input: 4,
        scale_name: "a_scale",
        zero_point_name: "a_zero_point",
        data_name: "A",
        axis: 0,
        default_storage: a_storage,
    };
    let ap = read_params(b, &spec, &a_type)?;
    if ap.axis.is_some() {
        bail!(
            "a_scale must be a scalar (per-tensor), but has {} elements",
            ap.length
        );
    }
    check_storage(&ap, &a_type, "A", "a_zero_point")?;
    let bp = b_params(b, (3, 5), &b_type, -1)?;
    let af = dequantize(t, a, &a_type, &ap)?;
    let bf = dequantize(t, bm, &b_type, &bp)?;
    float_matmul(b, t, af, bf, 6)
}
