//! Range and ConstantOfShape: ops that make a tensor from scalars or a shape, which
//! real models compute from their input's sizes (YOLO's anchor grids). Constant
//! operands give constant-sized results that folding evaluates; operands known only
//! at run time are read with `item`, as torch-mlir does.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::runtime_ints::{int_entries, scalar};
use crate::dialect::builder::TorchBuilder;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("Range", 11, range);
    r.on_op("ConstantOfShape", 9, constant_of_shape);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// `aten.arange.start_step(start, limit, delta, dtype)`. ONNX's element count,
/// `max(ceil((limit - start) / delta), 0)`, is torch's too; a zero delta, which
/// ONNX Runtime refuses, is refused here when it is known and by the kernel when not.
fn range<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let names = ["start", "limit", "delta"];
    let mut dtype = None;
    for (i, name) in names.iter().enumerate() {
        let ty = b.input_type(i, name)?;
        match (dtype, ty.dtype) {
            (_, None) => bail!("input '{name}' has an unknown element type"),
            (None, Some(d)) => dtype = Some(d),
            (Some(d), Some(e)) if d != e => {
                bail!("inputs 'start' ({d}) and '{name}' ({e}) must have one element type")
            }
            _ => {}
        }
    }
    let Some(dtype) = dtype else {
        bail!("Range has no inputs");
    };
    if !matches!(
        dtype,
        DType::F16 | DType::BF16 | DType::F32 | DType::F64 | DType::I16 | DType::I32 | DType::I64
    ) {
        bail!(
            "element type {dtype} is not one Range takes (FLOAT16, BFLOAT16, FLOAT, DOUBLE, \
             INT16, INT32, INT64)"
        );
    }
    if let Some(delta) = b.constant_input(2).and_then(|d| d.to_f64_vec())
        && delta.first() == Some(&0.0)
    {
        bail!("input 'delta' is 0, so the range never reaches 'limit'");
    }
    let start = scalar(b, t, 0, "start")?;
    let limit = scalar(b, t, 1, "limit")?;
    let delta = scalar(b, t, 2, "delta")?;
    let code = t.int(dtype.torch_scalar_type())?;
    let none = t.none()?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor(
        "arange.start_step",
        &[start, limit, delta, code, none, none, none],
        &result,
    )?])
}

/// `aten.full(shape, value, dtype)`: the value attribute (one element; by default a
/// float 0) repeated over the shape input, whose entries may be known only at run time.
fn constant_of_shape<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (dtype, value) = match b.tensor_attribute("value")? {
        None => (DType::F32, 0.0),
        Some((_, data)) => {
            if data.element_count() != 1 {
                bail!(
                    "attribute 'value' must hold one element, but has {}",
                    data.element_count()
                );
            }
            let Some(v) = data.to_f64_vec() else {
                bail!("attribute 'value' of type {} cannot be read", data.dtype);
            };
            (data.dtype, v[0])
        }
    };
    if dtype.is_quantized() {
        bail!("attribute 'value' is {dtype}, which ConstantOfShape cannot fill with");
    }
    let result = b.result_type(0)?;
    let sizes = match result.static_dims() {
        Some(dims) => t.int_list(&dims)?,
        None => {
            // Sizes the result type knows (a shape known in part) are constants, as in
            // Reshape, so torch-mlir infers the same type; the rest are read.
            let mut entries = int_entries(b, t, 0, "input")?;
            for (e, d) in entries.iter_mut().zip(result.shape.iter().flatten()) {
                if let Some(n) = d {
                    *e = t.int(*n)?;
                }
            }
            t.list(&entries, "int")?
        }
    };
    let fill = if dtype.is_float() {
        t.float(value)?
    } else {
        t.int(value as i64)?
    };
    let code = t.int(dtype.torch_scalar_type())?;
    let none = t.none()?;
    Ok(vec![t.aten_tensor(
        "full",
        &[sizes, fill, code, none, none, none],
        &result,
    )?])
}
