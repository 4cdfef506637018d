//! Constants as the runtime sees them: reading `torch.constant.*`,
//! `torch.vtensor.literal` (through `runtime::ir_values`, the planner's converter) and
//! lists of constants into runtime values, and writing a runtime value back as constant
//! ops. Folding goes through these so that a folded value
//! is exactly what the kernel computed.

use anyhow::{Result, bail};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::{ResultType, lookup};
use crate::runtime::ir_values::{constant_value, result_type};

pub use crate::ir::matchers::{defining as defining_op, op_name};

/// Whether `op` is a constant: a literal, a `torch.constant.*`, or a list whose
/// elements are all constants.
pub fn is_constant(op: OperationRef<'_, '_>) -> bool {
    match op_name(op).as_str() {
        "torch.vtensor.literal" => true,
        n if n.starts_with("torch.constant.") => true,
        "torch.prim.ListConstruct" => op
            .operands()
            .all(|v| defining_op(v).is_some_and(is_constant)),
        _ => false,
    }
}

/// The value of `v` when a constant defines it. `max_elements` bounds the tensors read:
/// a larger literal gives `None`, so it is neither decoded nor folded. Constants are
/// decoded by `runtime::ir_values`, as the planner decodes them; a list of constants is
/// built by its own kernel.
pub fn constant_of(v: MlirValue<'_, '_>, max_elements: usize) -> Option<Value> {
    let op = defining_op(v)?;
    let name = op_name(op);
    match name.as_str() {
        "torch.vtensor.literal" => {
            let ty = TensorType::parse(&v.r#type().to_string())?;
            let count = ty
                .static_dims()?
                .iter()
                .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))?;
            if count > max_elements {
                return None;
            }
            constant_value(op).ok()?
        }
        "torch.prim.ListConstruct" => {
            let args = op
                .operands()
                .map(|e| constant_of(e, max_elements))
                .collect::<Option<Vec<_>>>()?;
            let results = [result_type(v).ok()?];
            let kernel = lookup(&name)?;
            kernel(&crate::kernels::Call {
                args: &args,
                results: &results,
            })
            .ok()?
            .pop()
        }
        _ => constant_value(op).ok()?,
    }
}

/// Whether `value` can stand for a result declared `declared` once written as constants:
/// same kind, and for tensors the exact static type (a literal's type is static, and
/// users must see the type they were built for).
pub fn fits(value: &Value, declared: &ResultType) -> bool {
    match (value, declared) {
        (Value::Tensor(t), ResultType::Tensor(ty)) => {
            // A 4-bit type's values are held in its 8-bit storage.
            let dtype = ty.dtype.filter(|d| d.holds(t.dtype())).unwrap_or(t.dtype());
            t.quant.is_none()
                && ty.static_dims().is_some()
                && *ty
                    == TensorType::known(
                        dtype,
                        &t.shape.iter().map(|&d| d as i64).collect::<Vec<_>>(),
                    )
        }
        (Value::Int(_), ResultType::Int)
        | (Value::Float(_), ResultType::Float)
        | (Value::Bool(_), ResultType::Bool)
        | (Value::None, ResultType::None) => true,
        (Value::IntList(_), ResultType::List(e)) => e == "int",
        (Value::FloatList(_), ResultType::List(e)) => e == "float",
        (Value::BoolList(_), ResultType::List(e)) => e == "bool",
        _ => false,
    }
}

/// Writes `value` as constant ops at the builder's insertion point. Callers check
/// `fits` first.
pub fn materialize<'c, 'a>(b: &TorchBuilder<'c, 'a>, value: &Value) -> Result<MlirValue<'c, 'a>> {
    match value {
        Value::Tensor(t) => b.literal(&t.to_tensor_data()),
        Value::Int(i) => b.int(*i),
        Value::Float(f) => b.float(*f),
        Value::Bool(v) => b.bool(*v),
        Value::None => b.none(),
        Value::Str(s) => b.str(s),
        Value::IntList(v) => b.int_list(v),
        Value::FloatList(v) => {
            let elements = v.iter().map(|&f| b.float(f)).collect::<Result<Vec<_>>>()?;
            b.list(&elements, "float")
        }
        Value::BoolList(v) => {
            let elements = v.iter().map(|&x| b.bool(x)).collect::<Result<Vec<_>>>()?;
            b.list(&elements, "bool")
        }
        other => bail!("a {} cannot be written as a constant", other.kind()),
    }
}

/// `materialize` for a result declared `declared` (which it `fits`): a 4-bit tensor,
/// held in its 8-bit storage, is written as a literal of its declared 4-bit type.
pub fn materialize_as<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    value: &Value,
    declared: &ResultType,
) -> Result<MlirValue<'c, 'a>> {
    match (value, declared) {
        (Value::Tensor(t), ResultType::Tensor(ty))
            if ty
                .dtype
                .is_some_and(|d| d != t.dtype() && d.holds(t.dtype())) =>
        {
            let mut data = t.to_tensor_data();
            data.dtype = ty.dtype.unwrap_or(data.dtype);
            b.literal(&data)
        }
        _ => materialize(b, value),
    }
}

/// Element count of a value's tensors, for the size limits.
pub fn elements(value: &Value) -> usize {
    match value {
        Value::Tensor(t) => t.len(),
        Value::TensorList(ts) => ts.iter().map(|t| t.len()).max().unwrap_or(0),
        Value::IntList(v) => v.len(),
        Value::FloatList(v) => v.len(),
        Value::BoolList(v) => v.len(),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::tensor::{Data, Tensor};
    use crate::onnx::dtype::DType;

    #[test]
    fn a_value_fits_only_its_exact_declared_type() {
        let t = Value::tensor(Tensor::new(vec![2], Data::F32(vec![1.0, 2.0])).unwrap());
        assert!(fits(
            &t,
            &ResultType::Tensor(TensorType::known(DType::F32, &[2]))
        ));
        // A dynamic or different declared type would change what users see.
        assert!(!fits(
            &t,
            &ResultType::Tensor(TensorType::known(DType::F32, &[1, 2]))
        ));
        assert!(!fits(
            &t,
            &ResultType::Tensor(TensorType::known(DType::F64, &[2]))
        ));
        assert!(!fits(
            &t,
            &ResultType::Tensor(TensorType::parse("!torch.vtensor<[?],f32>").unwrap())
        ));
        // 4-bit values are held in their 8-bit storage.
        let i4 = Value::tensor(Tensor::new(vec![2], Data::I8(vec![-8, 7])).unwrap());
        assert!(fits(
            &i4,
            &ResultType::Tensor(TensorType::known(DType::I4, &[2]))
        ));
        assert!(!fits(
            &i4,
            &ResultType::Tensor(TensorType::known(DType::U4, &[2]))
        ));
        assert!(fits(&Value::Int(3), &ResultType::Int));
        assert!(!fits(&Value::Int(3), &ResultType::Float));
        assert!(fits(
            &Value::IntList(vec![1]),
            &ResultType::List("int".into())
        ));
        assert!(!fits(&Value::Str("a".into()), &ResultType::Str));
    }
}
