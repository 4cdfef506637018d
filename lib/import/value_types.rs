//! Declared ONNX value types (`ValueInfoProto`) as torch tensor types.

use anyhow::{Result, bail};

use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;
use crate::onnx::proto::ValueInfoProto;
use crate::onnx::proto::tensor_shape_proto::dimension::Value as DimValue;
use crate::onnx::proto::type_proto::Value as TypeValue;

/// The tensor type `info` declares; dims given by name (`dim_param`) or not at all are
/// dynamic, and a missing shape means unranked. Non-tensor types are refused by kind.
pub fn declared_type(info: &ValueInfoProto) -> Result<TensorType> {
    let Some(ty) = info.r#type.as_ref() else {
        return Ok(TensorType::unknown());
    };
    let tensor = match &ty.value {
        Some(TypeValue::TensorType(t)) => t,
        Some(TypeValue::SequenceType(_)) => bail!("is a sequence; only tensors are supported"),
        Some(TypeValue::MapType(_)) => bail!("is a map; only tensors are supported"),
        Some(TypeValue::OptionalType(_)) => bail!("is an optional; only tensors are supported"),
        Some(TypeValue::SparseTensorType(_)) => {
            bail!("is a sparse tensor; only dense tensors are supported")
        }
        Some(TypeValue::OpaqueType(_)) => bail!("is an opaque type; only tensors are supported"),
        None => return Ok(TensorType::unknown()),
    };
    let dtype = DType::from_onnx(tensor.elem_type).map_err(anyhow::Error::msg)?;
    let shape = tensor.shape.as_ref().map(|s| {
        s.dim
            .iter()
            .map(|d| match d.value {
                Some(DimValue::DimValue(v)) if v >= 0 => Some(v),
                _ => None,
            })
            .collect::<Vec<_>>()
    });
    if let Some(dims) = &shape {
        check_dims(dims)?;
    }
    Ok(TensorType {
        dtype: Some(dtype),
        shape,
    })
}

fn check_dims(dims: &[Option<i64>]) -> Result<()> {
    // MLIR's shaped types use i64 sizes with a sentinel for dynamic; refuse what cannot be one.
    for d in dims.iter().flatten() {
        if *d > i64::MAX / 2 {
            bail!("dimension {d} is too large");
        }
    }
    Ok(())
}
