//! Builders for the torch-dialect operations qlower creates. The dialect is not
//! registered, so these are unregistered operations whose names, operands and attributes
//! follow torch-mlir's `torch` dialect exactly.

use anyhow::{Context as _, Result};
use melior::Context;
use melior::ir::attribute::{DenseElementsAttribute, IntegerAttribute, StringAttribute};
use melior::ir::operation::OperationBuilder;
use melior::ir::r#type::{IntegerType, RankedTensorType};
use melior::ir::{Attribute, Identifier, Location, Operation, Type, Value};

use super::types::TensorType;
use crate::onnx::dtype::DType;
use crate::onnx::tensor::{TensorData, extend_nibble};

/// The MLIR type for `t`, e.g. `!torch.vtensor<[1,3],f32>`.
pub fn tensor_type<'c>(context: &'c Context, t: &TensorType) -> Result<Type<'c>> {
    opaque_type(context, &t.to_string())
}

pub fn none_type(context: &Context) -> Result<Type<'_>> {
    opaque_type(context, "!torch.none")
}

/// A torch type by its text, e.g. `!torch.int`.
pub fn opaque_type<'c>(context: &'c Context, text: &str) -> Result<Type<'c>> {
    Type::parse(context, text).with_context(|| format!("MLIR refused the type {text}"))
}

/// The builtin element type that a dense literal of `dtype` is stored with.
pub fn builtin_element_type(context: &Context, dtype: DType) -> Type<'_> {
    match dtype {
        DType::F32 => Type::float32(context),
        DType::F64 => Type::float64(context),
        DType::F16 => Type::float16(context),
        DType::BF16 => Type::bfloat16(context),
        DType::Bool => IntegerType::new(context, 1).into(),
        DType::U8 => IntegerType::unsigned(context, 8).into(),
        DType::U16 => IntegerType::unsigned(context, 16).into(),
        DType::U32 => IntegerType::unsigned(context, 32).into(),
        DType::U64 => IntegerType::unsigned(context, 64).into(),
        DType::I8 => IntegerType::signed(context, 8).into(),
        DType::I16 => IntegerType::signed(context, 16).into(),
        DType::I32 => IntegerType::signed(context, 32).into(),
        DType::I64 => IntegerType::signed(context, 64).into(),
        DType::F8E4M3FN => Type::float8_e4m3fn(context),
        DType::F8E4M3FNUZ => Type::float8_e4m3fnuz(context),
        DType::F8E5M2 => Type::float8_e5m2(context),
        DType::F8E5M2FNUZ => Type::float8_e5m2fnuz(context),
        // MLIR stores a 4-bit element in one byte, as qlower decodes them.
        DType::I4 => IntegerType::signed(context, 4).into(),
        DType::U4 => IntegerType::unsigned(context, 4).into(),
        // A literal of a quantized type holds its integer representation.
        q @ (DType::QUInt8 | DType::QInt8 | DType::QInt32) => {
            builtin_element_type(context, q.storage())
        }
    }
}

/// A `dense<...> : tensor<...>` attribute holding `data`, built from its byte buffer in
/// one call: no per-element attribute objects, so large weights import quickly.
pub fn dense_attribute<'c>(context: &'c Context, data: &TensorData) -> Result<Attribute<'c>> {
    let dims = data
        .dims
        .iter()
        .map(|&d| u64::try_from(d).context("negative dimension"))
        .collect::<Result<Vec<u64>>>()?;
    let ty: Type =
        RankedTensorType::new(&dims, builtin_element_type(context, data.dtype), None).into();
    let attr = if data.dtype == DType::Bool {
        // MLIR packs i1 elements into bits; its bool constructor does the packing.
        let values: Vec<i32> = data.bytes.iter().map(|&b| (b != 0) as i32).collect();
        DenseElementsAttribute::bool_values(ty, &values)
    } else if data.dtype.four_bit_range().is_some() {
        // MLIR keeps a 4-bit element's four bits in the low half of its byte.
        let nibbles: Vec<u8> = data.bytes.iter().map(|&b| b & 0x0f).collect();
        DenseElementsAttribute::raw_buffer(ty, &nibbles)
    } else {
        DenseElementsAttribute::raw_buffer(ty, &data.bytes)
    };
    Ok(attr.into())
}

/// `torch.vtensor.literal` holding `data`.
pub fn vtensor_literal<'c>(
    context: &'c Context,
    data: &TensorData,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    let result = TensorType::known(data.dtype, &data.dims);
    OperationBuilder::new("torch.vtensor.literal", location)
        .add_attributes(&[(
            Identifier::new(context, "value"),
            dense_attribute(context, data)?,
        )])
        .add_results(&[tensor_type(context, &result)?])
        .build()
        .context("building torch.vtensor.literal")
}

/// `torch.constant.none`, which stands for an omitted optional operand.
pub fn constant_none<'c>(context: &'c Context, location: Location<'c>) -> Result<Operation<'c>> {
    OperationBuilder::new("torch.constant.none", location)
        .add_results(&[none_type(context)?])
        .build()
        .context("building torch.constant.none")
}

/// `torch.constant.int`.
pub fn constant_int<'c>(
    context: &'c Context,
    v: i64,
    location: Location<'c>,
) -> Result<Operation<'c>> {
    let attr = IntegerAttribute::new(IntegerType::new(context, 64).into(), v).into();
    OperationBuilder::new("torch.constant.int", location)
        .add_attributes(&[(Identifier::new(context, "value"), attr)])
        .add_results(&[opaque_type(context, "!torch.int")?])
        .build()
        .context("building torch.constant.int")
}

/// `torch.operator "<name>"`: an op kept in its imported form, with its attributes.
pub fn operator<'c>(
    context: &'c Context,
    name: &str,
    operands: &[Value<'c, '_>],
    results: &[Type<'c>],
    attributes: &[(Identifier<'c>, Attribute<'c>)],
    location: Location<'c>,
) -> Result<Operation<'c>> {
    OperationBuilder::new("torch.operator", location)
        .add_attributes(&[(
            Identifier::new(context, "name"),
            StringAttribute::new(context, name).into(),
        )])
        .add_attributes(attributes)
        .add_operands(operands)
        .add_results(results)
        .build()
        .with_context(|| format!("building torch.operator \"{name}\""))
}

/// The contents of a dense elements attribute typed `t`, or `None` if `attr` is not
/// dense elements of a known, static type. Splats are expanded.
pub fn dense_attribute_data(attr: Attribute<'_>, t: &TensorType) -> Option<TensorData> {
    let dtype = t.dtype?.storage();
    let dims = t.static_dims()?;
    let count = crate::onnx::tensor::element_count(&dims).ok()?;
    let dense = DenseElementsAttribute::try_from(attr).ok()?;
    if dense.len() != count {
        return None;
    }
    let size = dtype.size();
    let bytes: Vec<u8> = if dtype == DType::Bool {
        (0..count)
            .map(|i| dense.bool_element(i).map(u8::from))
            .collect::<Result<_, _>>()
            .ok()?
    } else if count == 0 {
        Vec::new()
    } else {
        let ptr = dense.raw_data() as *const u8;
        if ptr.is_null() {
            return None;
        }
        let stored = if dense.is_splat() { size } else { count * size };
        // SAFETY: MLIR stores a non-boolean dense attribute as `stored` contiguous bytes
        // (one element when splat, else every element), alive as long as the context.
        let raw = unsafe { std::slice::from_raw_parts(ptr, stored) };
        let mut bytes = if dense.is_splat() {
            raw.repeat(count)
        } else {
            raw.to_vec()
        };
        // Back from MLIR's low-half nibbles to qlower's sign- or zero-extended bytes.
        if let Some(d) = t.dtype.filter(|d| d.four_bit_range().is_some()) {
            let signed = d == DType::I4;
            bytes
                .iter_mut()
                .for_each(|b| *b = extend_nibble(*b, signed));
        }
        bytes
    };
    Some(TensorData {
        dtype,
        dims,
        bytes: bytes.into(),
    })
}
