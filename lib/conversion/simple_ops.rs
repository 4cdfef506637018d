//! Cast, Identity, Constant, and the ops that only pass on or count their input:
//! Dropout (at inference) and Size.

use anyhow::{Result, anyhow, bail};
use bytes::Bytes;
use melior::ir::Value;
use melior::ir::operation::OperationLike;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::{DType, onnx_type_name};
use crate::onnx::tensor::TensorData;

pub fn register(r: &mut Lowerings) {
    r.on_op("Cast", 1, cast_named);
    r.on_op("Cast", 6, cast);
    r.on_op("CastLike", 15, cast_like);
    r.on_op("Identity", 1, identity);
    r.on_op("Constant", 1, constant);
    r.on_op("Dropout", 7, dropout);
    r.on_op("Size", 1, size);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// `v` retyped from `from` to the more or less refined `to` it must replace. Types that
/// only differ in what is known about them meet in `torch.tensor_static_info_cast`,
/// which does nothing at run time.
pub fn refine<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    v: Value<'c, 'a>,
    from: &TensorType,
    to: &TensorType,
) -> Result<Value<'c, 'a>> {
    if from == to {
        return Ok(v);
    }
    from.merge(to)
        .map_err(|e| anyhow!("the value is {from} but the output is {to}: {e}"))?;
    let op = t.op(
        "torch.tensor_static_info_cast",
        &[v],
        &[t.tensor_type(to)?],
        &[],
    )?;
    Ok(op.result(0)?.into())
}

/// Cast from opset 6: `to` is a data type code.
fn cast<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let Some(code) = b.optional_int("to")? else {
        bail!("missing required attribute 'to'");
    };
    let to = i32::try_from(code)
        .map_err(|_| anyhow!("attribute 'to' is {code}, not a data type"))
        .and_then(|c| DType::from_onnx(c).map_err(|e| anyhow!("attribute 'to': {e}")))?;
    lower_cast(b, t, to)
}

/// CastLike: Cast to the element type of input 1 (whose values are not read).
fn cast_like<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let target = b.input_type(1, "target_type")?;
    let Some(to) = target.dtype else {
        bail!("input target_type has an unknown element type");
    };
    if let Some(r) = b.result_type(0)?.dtype
        && r != to
    {
        bail!("output is {r} but input target_type is {to}");
    }
    lower_cast(b, t, to)
}

/// Cast in opset 1 named the type: `to = "FLOAT"`.
fn cast_named<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let name = b.string("to", "")?;
    if name.is_empty() {
        bail!("missing required attribute 'to'");
    }
    let code = (0..=i32::from(u8::MAX))
        .find(|&c| onnx_type_name(c) == Some(name.as_str()))
        .ok_or_else(|| anyhow!("attribute 'to' is \"{name}\", not an ONNX data type"))?;
    let to = DType::from_onnx(code).map_err(|e| anyhow!("attribute 'to': {e}"))?;
    lower_cast(b, t, to)
}

/// `torch.aten.to.dtype`. Opset 19's `saturate` (default 1) only concerns float8
/// targets: they clamp to the format's finite range first (`float8.rs`).
fn lower_cast<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>, to: DType) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let x_type = b.input_type(0, "input")?;
    if let Some(from) = x_type.dtype
        && from.is_quantized()
    {
        bail!("input is {from}, a quantized type that Cast does not take");
    }
    let result = b.result_type(0)?;
    if let Some(r) = result.dtype
        && r != to
    {
        bail!("output is {r} but attribute 'to' says {to}");
    }
    if to.is_float8() {
        let saturate = b.int("saturate", 1)? != 0;
        let to = result.with_dtype(to);
        return Ok(vec![super::float8::cast_to_float8(
            t, x, &x_type, &to, saturate,
        )?]);
    }
    Ok(vec![super::quantization::cast(
        t,
        x,
        &result.with_dtype(to),
    )?])
}

fn identity<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let x_type = b.input_type(0, "input")?;
    let result = b.result_type(0)?;
    Ok(vec![refine(t, x, &x_type, &result)?])
}

/// Dropout at inference passes its input on, and its optional mask keeps every element
/// (all true; opsets before 10 typed it as the input, all ones). Opset 12's
/// `training_mode` input must be a constant false: qlower runs inference only.
fn dropout<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    if b.has_input(2) {
        let Some(mode) = b.constant_input(2) else {
            bail!("input 'training_mode' must be a constant known at compile time");
        };
        if mode.bytes.iter().any(|&byte| byte != 0) {
            bail!("input 'training_mode' is true, but qlower runs inference only");
        }
    }
    let mut outputs = vec![refine(t, x, &x_type, &b.result_type(0)?)?];
    if b.result_count() > 1 {
        let mask = b.result_type(1)?;
        let Some(dtype) = mask.dtype else {
            bail!("output 'mask' has an unknown element type");
        };
        let none = t.none()?;
        let code = t.int(dtype.torch_scalar_type())?;
        let operands = [x, code, none, none, none, none];
        outputs.push(t.aten_tensor("ones_like", &operands, &mask)?);
    }
    Ok(outputs)
}

/// The element count as a 0-D int64: the product of `_shape_as_tensor` (1 for a
/// scalar, whose shape is empty).
fn size<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let rank = b.input_type(0, "data")?.rank().map(|r| r as i64);
    let shape_type = TensorType {
        dtype: Some(DType::I64),
        shape: Some(vec![rank]),
    };
    let shape = t.aten_tensor("_shape_as_tensor", &[x], &shape_type)?;
    let result = b.result_type(0)?;
    if let Some(d) = result.dtype
        && d != DType::I64
    {
        bail!("output is {d}, but Size gives INT64");
    }
    let (dim, keep, none) = (t.int(0)?, t.bool(false)?, t.none()?);
    Ok(vec![t.aten_tensor(
        "prod.dim_int",
        &[shape, dim, keep, none],
        &result.with_dtype(DType::I64),
    )?])
}

/// The attributes a Constant may hold its value in; exactly one is set.
const VALUE_ATTRIBUTES: [&str; 8] = [
    "value",
    "value_float",
    "value_floats",
    "value_int",
    "value_ints",
    "value_string",
    "value_strings",
    "sparse_value",
];

fn constant<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let given: Vec<&str> = VALUE_ATTRIBUTES
        .into_iter()
        .filter(|name| b.op.has_attribute(&format!("torch.onnx.{name}")))
        .collect();
    let name = match given.as_slice() {
        [name] => *name,
        [] => bail!(
            "has no value attribute (one of {})",
            VALUE_ATTRIBUTES.join(", ")
        ),
        several => bail!(
            "has {} value attributes ({}), expected exactly one",
            several.len(),
            several.join(", ")
        ),
    };
    let result = b.result_type(0)?;
    match name {
        "value" => {
            let Some((attr, data)) = b.tensor_attribute("value")? else {
                bail!("attribute 'value' is missing");
            };
            let ty = TensorType::known(data.dtype, &data.dims);
            check_type(&ty, &result)?;
            let op = t.op(
                "torch.vtensor.literal",
                &[],
                &[t.tensor_type(&ty)?],
                &[("value", attr)],
            )?;
            Ok(vec![refine(t, op.result(0)?.into(), &ty, &result)?])
        }
        "value_float" => {
            let v = b.float("value_float", 0.0)? as f32;
            literal(t, f32_data(&[v], &[]), &result)
        }
        "value_floats" => {
            let v: Vec<f32> = b
                .optional_floats("value_floats")?
                .unwrap_or_default()
                .into_iter()
                .map(|v| v as f32)
                .collect();
            literal(t, f32_data(&v, &[v.len() as i64]), &result)
        }
        "value_int" => {
            let v = b.int("value_int", 0)?;
            literal(t, i64_data(&[v], &[]), &result)
        }
        "value_ints" => {
            let v = b.optional_ints("value_ints")?.unwrap_or_default();
            literal(t, i64_data(&v, &[v.len() as i64]), &result)
        }
        "sparse_value" => bail!("attribute 'sparse_value': sparse tensors are not supported"),
        other => bail!("attribute '{other}': string tensors are not supported"),
    }
}

fn literal<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    data: TensorData,
    result: &TensorType,
) -> Lowered<'c, 'a> {
    let ty = TensorType::known(data.dtype, &data.dims);
    check_type(&ty, result)?;
    let v = t.literal(&data)?;
    Ok(vec![refine(t, v, &ty, result)?])
}

fn check_type(value: &TensorType, result: &TensorType) -> Result<()> {
    value
        .merge(result)
        .map(|_| ())
        .map_err(|e| anyhow!("the value is {value} but the output is {result}: {e}"))
}

fn f32_data(values: &[f32], dims: &[i64]) -> TensorData {
    TensorData {
        dtype: DType::F32,
        dims: dims.to_vec(),
        bytes: Bytes::from(
            values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<_>>(),
        ),
    }
}

fn i64_data(values: &[i64], dims: &[i64]) -> TensorData {
    TensorData {
        dtype: DType::I64,
        dims: dims.to_vec(),
        bytes: Bytes::from(
            values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<_>>(),
        ),
    }
}
