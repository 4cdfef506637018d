//! Constant (from whichever `value*` attribute it carries) and ConstantOfShape.

use anyhow::{Context as _, Result, bail};
use bytes::Bytes;

use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::{self, fmt_shape};
use super::{Inferred, expand, fold};
use crate::onnx::dtype::DType;
use crate::onnx::proto::TensorProto;
use crate::onnx::tensor::{self, TensorData};

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Constant"], 1, constant);
    r.infer_ops(&["ConstantOfShape"], 1, constant_of_shape);
}

fn scalar_or_list(dtype: DType, bytes: Vec<u8>, dims: Vec<i64>) -> Inferred {
    let value = TensorData {
        dtype,
        dims: dims.clone(),
        bytes: Bytes::from(bytes),
    };
    Inferred::of(Some(dtype), Some(dims::static_dims(&dims))).with_value(Some(value))
}

/// A tensor attribute's type and value. Types qlower cannot carry, and data kept in
/// an external file (whose directory is not known here), give what can be known.
fn from_tensor(t: &TensorProto, attr: &str) -> Result<Inferred> {
    let shape = Some(t.dims.iter().map(|&d| (d >= 0).then_some(d)).collect());
    let Ok(dtype) = DType::from_onnx(t.data_type) else {
        return Ok(Inferred::of(None, shape));
    };
    if t.data_location == 1 {
        return Ok(Inferred::of(Some(dtype), shape));
    }
    let value = tensor::decode(t, None).with_context(|| format!("attribute '{attr}'"))?;
    let shape = Some(dims::static_dims(&value.dims));
    Ok(Inferred::of(Some(dtype), shape).with_value(Some(value)))
}

fn constant(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let attrs = ctx.attrs();
    // ONNX floats are f32, so narrowing the getters' f64 back is exact.
    let out = if let Some(t) = attrs.onnx_tensor("value")? {
        from_tensor(t, "value")?
    } else if let Some(f) = attrs.optional_float("value_float")? {
        scalar_or_list(DType::F32, (f as f32).to_le_bytes().to_vec(), vec![])
    } else if let Some(fs) = attrs.optional_floats("value_floats")? {
        let bytes = fs.iter().flat_map(|&f| (f as f32).to_le_bytes()).collect();
        scalar_or_list(DType::F32, bytes, vec![dims::rank_i64(fs.len())])
    } else if let Some(i) = attrs.optional_int("value_int")? {
        scalar_or_list(DType::I64, i.to_le_bytes().to_vec(), vec![])
    } else if let Some(is) = attrs.optional_ints("value_ints")? {
        let bytes = is.iter().flat_map(|i| i.to_le_bytes()).collect();
        scalar_or_list(DType::I64, bytes, vec![dims::rank_i64(is.len())])
    } else {
        // sparse_value and the string forms: nothing qlower can describe.
        Inferred::default()
    };
    Ok(vec![out])
}

fn constant_of_shape(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let fill = match ctx.attrs().onnx_tensor("value")? {
        Some(t) => {
            let fill = from_tensor(t, "value")?;
            if let Some(n) = fill.ty.shape.as_deref().and_then(dims::product)
                && n != 1
            {
                bail!(
                    "attribute 'value' has shape {}, but must hold exactly one element",
                    fmt_shape(fill.ty.shape.as_deref().unwrap_or_default())
                );
            }
            fill
        }
        None => scalar_or_list(DType::F32, 0f32.to_le_bytes().to_vec(), vec![]),
    };
    let dtype = fill.ty.dtype;
    let Some(target) = ctx.ints(0) else {
        // Known in part, or only its length: the sizes it knows.
        let shape = expand::shape_input(ctx, 0, "input 'input'")?;
        return Ok(vec![Inferred::of(dtype, shape)]);
    };
    if let Some(bad) = target.iter().find(|&&d| d < 0) {
        bail!("input 'input' holds {bad}, but sizes must be 0 or more");
    }
    let value = fill.value.as_ref().and_then(|v| filled(v, &target));
    Ok(vec![
        Inferred::of(dtype, Some(dims::static_dims(&target))).with_value(value),
    ])
}

/// `dims` filled with the single element of `fill`, when small and integer.
fn filled(fill: &TensorData, dims: &[i64]) -> Option<TensorData> {
    let n = fold::count_of(dims)?;
    if n > fold::LIMIT || !fold::is_int(fill.dtype) || fill.bytes.len() != fill.dtype.size() {
        return None;
    }
    Some(TensorData {
        dtype: fill.dtype,
        dims: dims.to_vec(),
        bytes: Bytes::from(fill.bytes.repeat(n)),
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ints, run, ty};
    use crate::onnx::dtype::DType;
    use crate::onnx::proto::TensorProto;

    #[test]
    fn constant_values_from_each_attribute_form() {
        let t = TensorProto {
            data_type: 7,
            dims: vec![2],
            int64_data: vec![5, -1],
            ..Default::default()
        };
        let outs = run(&N::new("Constant", &[], 1).tensor("value", t), 13, &[]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[2]));
        assert_eq!(out_ints(&outs, 0), Some(vec![5, -1]));
        let outs = run(
            &N::new("Constant", &[], 1).ints("value_ints", &[1, 2, 3]),
            13,
            &[],
        );
        assert_eq!(out_ints(&outs.unwrap(), 0), Some(vec![1, 2, 3]));
        let outs = run(
            &N::new("Constant", &[], 1).float("value_float", 0.5),
            13,
            &[],
        )
        .unwrap();
        assert_eq!(outs[0].ty, ty(DType::F32, &[]));
        let v = outs[0].value.as_ref().and_then(|v| v.to_f64_vec());
        assert_eq!(v, Some(vec![0.5]));
    }

    #[test]
    fn constant_of_an_unsupported_type_has_only_a_shape() {
        let t = TensorProto {
            data_type: 8,
            dims: vec![3],
            ..Default::default()
        };
        let outs = run(&N::new("Constant", &[], 1).tensor("value", t), 13, &[]).unwrap();
        assert_eq!(outs[0].ty.dtype, None);
        assert_eq!(outs[0].ty.shape, Some(vec![Some(3)]));
    }

    #[test]
    fn malformed_constant_is_an_error() {
        let t = TensorProto {
            data_type: 1,
            dims: vec![4],
            float_data: vec![1.0],
            ..Default::default()
        };
        let e = err(&N::new("Constant", &[], 1).tensor("value", t), 13, &[]);
        assert!(e.starts_with("attribute 'value'"), "{e}");
    }

    #[test]
    fn constant_of_shape_fills_the_shape() {
        let fill = TensorProto {
            data_type: 7,
            dims: vec![1],
            int64_data: vec![1],
            ..Default::default()
        };
        let n = N::new("ConstantOfShape", &["input"], 1).tensor("value", fill);
        let outs = run(&n, 13, &[Some(In::ints(&[2], &[2, 2]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[2, 2]));
        assert_eq!(out_ints(&outs, 0), Some(vec![1; 4]));
        let plain = N::new("ConstantOfShape", &["input"], 1);
        let outs = run(&plain, 13, &[Some(In::new(DType::I64, &[3]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::F32, &[-1, -1, -1]));
        let e = err(&plain, 13, &[Some(In::ints(&[1], &[-2]))]);
        assert_eq!(e, "input 'input' holds -2, but sizes must be 0 or more");
        let outs = run(&plain, 13, &[Some(In::partial(&[None, Some(6)]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::F32, &[-1, 6]));
        let e = err(&plain, 13, &[Some(In::partial(&[None, Some(-2)]))]);
        assert_eq!(e, "input 'input' holds -2, but sizes must be 0 or more");
    }
}
