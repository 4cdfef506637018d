//! Value types of the torch-like dialect, kept as plain data until they become MLIR
//! types. The data, with its torch spelling, lives in the kernel library, whose kernels
//! read declared types too; the dialect re-uses it rather than the other way round.

pub use crate::kernels::tensor::tensor_type::{Dim, TensorType};

/// The tensor type of an IR value; `None` for scalars, lists and unparsable types.
pub fn tensor_type_of_value(v: melior::ir::Value) -> Option<TensorType> {
    use melior::ir::ValueLike;
    TensorType::parse(&v.r#type().to_string())
}
