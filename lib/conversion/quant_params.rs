//! Scale and zero-point operands of the ONNX quantization ops: reading and checking
//! them, and emitting the torch sequences that make quantization explicit.
//!
//! A scale with one element is per-tensor; a 1-D scale with more is per-axis along
//! `axis`. Per-axis parameters stay tensors (`quantize_per_channel`,
//! `_make_per_channel_quantized_tensor`): they are never reduced to per-tensor, and the
//! axis is kept.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::{Binder, tensor_type_of};
use super::quantization::cast;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::quantize_arithmetic::{ArithmeticQuant, quantize_by_arithmetic};
use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;
use crate::onnx::tensor::TensorData;

/// One tensor's quantization parameters, as operands of the op being lowered.
pub struct QuantParams<'c, 'a> {
    pub scale: Value<'c, 'a>,
    pub scale_type: TensorType,
    /// `None` when ONNX left the zero point out: it is then 0.
    pub zero_point: Option<Value<'c, 'a>>,
    /// The quantized integer type (the zero point's, or the given default).
    pub storage: DType,
    /// `Some(axis)` (non-negative) for per-axis parameters.
    pub axis: Option<i64>,
    /// Number of per-axis parameters.
    pub length: usize,
}

impl QuantParams<'_, '_> {
    pub fn quantized_dtype(&self) -> Result<DType> {
        self.storage.quantized().ok_or_else(|| {
            anyhow::anyhow!(
                "quantization to {} is not supported: torch has no quantized type for it",
                self.storage
            )
        })
    }

    /// Whether QuantizeLinear and DequantizeLinear can take this integer type: torch's
    /// quantized types (8 and 32 bits), and the 16-bit ones, which have none (see
    /// `widened`).
    pub fn check_supported(&self) -> Result<()> {
        if is_16_bit(self.storage) || self.storage.four_bit_range().is_some() {
            return Ok(());
        }
        self.quantized_dtype().map(|_| ())
    }
}

/// INT16 and UINT16: torch has no quantized type for UINT16, and torch-mlir's
/// `!torch.qint16` has no ScalarType code PyTorch shares, so both dequantize through
/// `!torch.qint32` (every 16-bit value and zero point is exact in it) and quantize with
/// the arithmetic ONNX defines.
fn is_16_bit(d: DType) -> bool {
    matches!(d, DType::I16 | DType::U16)
}

/// INT4 and UINT4: torch has no 4-bit quantized type, so they dequantize through the
/// 8-bit ones (`!torch.qint8` / `!torch.quint8`, widened with `to.dtype`; every 4-bit
/// value and zero point is exact there) and quantize with the arithmetic ONNX defines,
/// saturating to the 4-bit range. The 4-bit values themselves are `si4` / `ui4`
/// tensors, converted with PyTorch's dtype codes for `torch.int4` / `torch.uint4`.
fn widened_8_bit(d: DType) -> Option<DType> {
    d.four_bit_range().map(|_| d.storage())
}

/// Where an op keeps one tensor's parameters, and what messages call them.
pub struct ParamSpec<'n> {
    pub scale_input: usize,
    pub zero_point_input: usize,
    /// ONNX names, e.g. `x_scale`, `x_zero_point`, `x`.
    pub scale_name: &'n str,
    pub zero_point_name: &'n str,
    pub data_name: &'n str,
    /// The op's axis attribute, checked and normalized only for per-axis parameters.
    pub axis: i64,
    /// The integer type when the zero point is absent.
    pub default_storage: DType,
}

impl<'n> ParamSpec<'n> {
    /// The common layout: scale at `scale_input`, zero point right after it; `names` are
    /// the scale's, the zero point's and the data's ONNX names.
    pub fn at(scale_input: usize, names: [&'n str; 3], axis: i64, default_storage: DType) -> Self {
        ParamSpec {
            scale_input,
            zero_point_input: scale_input + 1,
            scale_name: names[0],
            zero_point_name: names[1],
            data_name: names[2],
            axis,
            default_storage,
        }
    }
}

/// Reads and checks the parameters `spec` points at, for a tensor of type `data`.
pub fn read_params<'c, 'a>(
    binder: &Binder<'c, 'a>,
    spec: &ParamSpec<'_>,
    data: &TensorType,
) -> Result<QuantParams<'c, 'a>> {
    let names = ParamNames {
        scale: spec.scale_name,
        zero_point: spec.zero_point_name,
    };
    let (scale_i, zp_i, data_name) = (spec.scale_input, spec.zero_point_input, spec.data_name);
    let (axis, default_storage) = (spec.axis, spec.default_storage);
    let scale = binder.input(scale_i, names.scale)?;
    let scale_type = tensor_type_of(scale).map_err(|e| anyhow::anyhow!("{}: {e}", names.scale))?;
    let zero_point = binder.optional_input(zp_i);
    let zp_type = match zero_point {
        Some(z) => {
            Some(tensor_type_of(z).map_err(|e| anyhow::anyhow!("{}: {e}", names.zero_point))?)
        }
        None => None,
    };
    if !scale_type.dtype.is_some_and(DType::is_float) {
        bail!(
            "{} must be a float tensor, but is {scale_type}",
            names.scale
        );
    }
    let storage = match zp_type.as_ref().and_then(|t| t.dtype) {
        Some(d) => d,
        None => default_storage,
    };
    let length = per_axis_length(&scale_type, names.scale)?;
    if let Some(zt) = &zp_type {
        let zp_len = per_axis_length(zt, names.zero_point)?;
        if zp_len != length {
            bail!(
                "{} has {zp_len} elements but {} has {length}",
                names.zero_point,
                names.scale
            );
        }
    }
    let axis = if length > 1 || scale_type.rank() == Some(1) && length != 1 {
        Some(normalize_axis(axis, data, data_name)?)
    } else {
        None
    };
    if let (Some(a), Some(dims)) = (axis, data.shape.as_ref())
        && let Some(Some(d)) = dims.get(a as usize)
        && *d as usize != length
    {
        bail!(
            "{} has {length} elements, expected {d} (dimension {a} of {data_name})",
            names.scale
        );
    }
    if let Some(values) = binder.constant_input(scale_i).and_then(|d| d.to_f64_vec()) {
        check_positive(&values, names.scale)?;
    }
    if let (Some(zp), Some(zero_point)) = (binder.constant_input(zp_i), zero_point) {
        let _ = zero_point;
        check_zero_point_range(&zp, names.zero_point)?;
    }
    Ok(QuantParams {
        scale,
        scale_type,
        zero_point,
        storage,
        axis,
        length,
    })
}

/// 1 for a scalar or one-element tensor, else the length of a 1-D tensor.
fn per_axis_length(t: &TensorType, name: &str) -> Result<usize> {
    match t.shape.as_deref() {
        Some([]) => Ok(1),
        Some([Some(n)]) if *n >= 0 => Ok(*n as usize),
        Some([None]) => bail!("{name} has a dynamic length; per-axis parameters need a static one"),
        Some(dims) => bail!(
            "{name} has rank {}; blocked quantization is not supported, only per-tensor and per-axis",
            dims.len()
        ),
        None => bail!("{name} has an unknown rank"),
    }
}

pub fn normalize_axis(axis: i64, data: &TensorType, data_name: &str) -> Result<i64> {
    let Some(rank) = data.rank() else {
        bail!("axis {axis} needs the rank of {data_name}, which is unknown");
    };
    let rank = rank as i64;
    if axis < -rank || axis >= rank {
        bail!("axis {axis} is out of range for {data_name} of rank {rank}");
    }
    Ok(if axis < 0 { axis + rank } else { axis })
}

pub fn check_positive(values: &[f64], name: &str) -> Result<()> {
    for (i, v) in values.iter().enumerate() {
        if v.is_nan() || *v <= 0.0 {
            if values.len() == 1 {
                bail!("{name} must be positive, but is {v}");
            }
            bail!("{name} must be positive, but element {i} is {v}");
        }
    }
    Ok(())
}

fn check_zero_point_range(zp: &TensorData, name: &str) -> Result<()> {
    if zp.dtype == DType::I32
        && let Some(values) = zp.to_i64_vec()
        && values.iter().any(|&v| v != 0)
    {
        bail!("{name} of an INT32 tensor must be 0");
    }
    Ok(())
}

/// The parameters of a two-operand QLinear op (QLinearConv, QLinearMatMul): the
/// operands' at inputs 1-2 and 4-5, the output's at 6-7. All six are required. Returns
/// (first, second, output); the output's are per-tensor and typed like `result`.
pub fn read_qlinear_params<'c, 'a>(
    b: &Binder<'c, 'a>,
    operands: [(&str, &TensorType, i64); 2],
    result: &TensorType,
) -> Result<[QuantParams<'c, 'a>; 3]> {
    let [
        (first, first_type, first_axis),
        (second, second_type, second_axis),
    ] = operands;
    let names = |d: &str| [format!("{d}_scale"), format!("{d}_zero_point")];
    for (i, d) in [(1, first), (4, second), (6, "y")] {
        let [scale, zp] = names(d);
        b.input(i, &scale)?;
        b.input(i + 1, &zp)?;
    }
    let read = |i: usize, d: &str, data: &TensorType, axis: i64, storage: DType| {
        let [scale, zp] = names(d);
        let p = read_params(b, &ParamSpec::at(i, [&scale, &zp, d], axis, storage), data)?;
        check_storage(&p, data, d, &zp)?;
        Ok::<_, anyhow::Error>(p)
    };
    let storage_of = |t: &TensorType| t.dtype.unwrap_or(DType::U8);
    let fp = read(1, first, first_type, first_axis, storage_of(first_type))?;
    let sp = read(4, second, second_type, second_axis, storage_of(second_type))?;
    let yp = read(
        6,
        "y",
        result,
        0,
        result.dtype.unwrap_or(storage_of(first_type)),
    )?;
    if yp.axis.is_some() {
        bail!(
            "y_scale must be a scalar (per-tensor), but has {} elements",
            yp.length
        );
    }
    if let Some(r) = result.dtype
        && r != yp.storage
    {
        bail!("y is {r} but y_zero_point is {}", yp.storage);
    }
    yp.quantized_dtype()?;
    Ok([fp, sp, yp])
}

struct ParamNames<'n> {
    scale: &'n str,
    zero_point: &'n str,
}

/// Checks that the zero point's type is the quantized tensor's type.
pub fn check_storage(
    params: &QuantParams,
    data: &TensorType,
    data_name: &str,
    zp_name: &str,
) -> Result<()> {
    if let Some(d) = data.dtype
        && params.zero_point.is_some()
        && d != params.storage
    {
        bail!("{zp_name} is {} but {data_name} is {d}", params.storage);
    }
    Ok(())
}

/// The per-tensor zero point as a `!torch.int`.
fn zero_point_int<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    p: &QuantParams<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    match p.zero_point {
        Some(z) => b.item_int(z),
        None => b.int(0),
    }
}

/// The per-axis zero points as a tensor; zeros of the storage type when absent.
fn zero_point_tensor<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    p: &QuantParams<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    match p.zero_point {
        Some(z) => Ok(z),
        None => b.literal(&TensorData {
            dtype: p.storage,
            dims: vec![p.length as i64],
            bytes: vec![0u8; p.length * p.storage.size()].into(),
        }),
    }
}

/// `_make_per_{tensor,channel}_quantized_tensor` + `dequantize.self`: the float value of
/// the integer tensor `x` (of type `x_type`), typed like `x` with element type f32.
pub fn dequantize<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    p: &QuantParams<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    let q = make_quantized(b, x, x_type, p)?;
    b.aten_tensor("dequantize.self", &[q], &x_type.with_dtype(DType::F32))
}

/// `_make_per_{tensor,channel}_quantized_tensor`: the integer tensor `x` (of type
/// `x_type`) as a quantized tensor with the parameters `p`.
pub fn make_quantized<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    p: &QuantParams<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    if is_16_bit(p.storage) {
        let (x, x_type, p) = widened(b, x, x_type, p, DType::I32)?;
        return make_quantized(b, x, &x_type, &p);
    }
    if let Some(wide) = widened_8_bit(p.storage) {
        let (x, x_type, p) = widened(b, x, x_type, p, wide)?;
        return make_quantized(b, x, &x_type, &p);
    }
    let qtype = x_type.with_dtype(p.quantized_dtype()?);
    match p.axis {
        None => {
            let scale = b.item_float(p.scale)?;
            let zp = zero_point_int(b, p)?;
            b.aten_tensor("_make_per_tensor_quantized_tensor", &[x, scale, zp], &qtype)
        }
        Some(axis) => {
            let zp = zero_point_tensor(b, p)?;
            let axis = b.int(axis)?;
            b.aten_tensor(
                "_make_per_channel_quantized_tensor",
                &[x, p.scale, zp, axis],
                &qtype,
            )
        }
    }
}

/// A 16-bit (4-bit) tensor and its parameters as INT32 (8-bit) ones with the same
/// values, so that `!torch.qint32` (`!torch.qint8`, `!torch.quint8`) carries them.
fn widened<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    p: &QuantParams<'c, 'a>,
    wide: DType,
) -> Result<(Value<'c, 'a>, TensorType, QuantParams<'c, 'a>)> {
    let wide_type = x_type.with_dtype(wide);
    let x = cast(b, x, &wide_type)?;
    let zero_point = match p.zero_point {
        Some(z) => {
            let zt = tensor_type_of(z).map_err(|e| anyhow::anyhow!("zero point: {e}"))?;
            Some(cast(b, z, &zt.with_dtype(wide))?)
        }
        None => None,
    };
    let params = QuantParams {
        scale: p.scale,
        scale_type: p.scale_type.clone(),
        zero_point,
        storage: wide,
        axis: p.axis,
        length: p.length,
    };
    Ok((x, wide_type, params))
}

/// `quantize_per_{tensor,channel}` + `int_repr`: the float tensor `x` quantized with `p`,
/// as the integer tensor ONNX produces. Per axis this is the form torch-mlir's own ONNX
/// importer writes; `--target iree|torch-mlir` decomposes it into the arithmetic, which
/// those compilers lower (`transforms/decompose_quantize_per_channel.rs`).
pub fn quantize<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    p: &QuantParams<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    if is_16_bit(p.storage) || p.storage.four_bit_range().is_some() {
        return quantize_integers(b, x, x_type, p);
    }
    let qdtype = p.quantized_dtype()?;
    let qtype = x_type.with_dtype(qdtype);
    let dtype = b.int(qdtype.torch_scalar_type())?;
    let q = match p.axis {
        None => {
            let scale = b.item_float(p.scale)?;
            let zp = zero_point_int(b, p)?;
            b.aten_tensor("quantize_per_tensor", &[x, scale, zp, dtype], &qtype)?
        }
        Some(axis) => {
            let zp = zero_point_tensor(b, p)?;
            let axis = b.int(axis)?;
            b.aten_tensor(
                "quantize_per_channel",
                &[x, p.scale, zp, axis, dtype],
                &qtype,
            )?
        }
    };
    b.aten_tensor("int_repr", &[q], &x_type.with_dtype(p.storage))
}

/// Quantization to 16 or 4 bits, for which torch has no quantized type: the arithmetic
/// ONNX defines (`dialect::quantize_arithmetic`), whose integers then feed
/// `_make_per_{tensor,channel}_quantized_tensor` (widened, with the same scales, zero
/// points and axis) and `dequantize.self` wherever a DequantizeLinear reads them.
fn quantize_integers<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    p: &QuantParams<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    let params = ArithmeticQuant {
        scale: p.scale,
        scale_dtype: p.scale_type.dtype.unwrap_or(DType::F32),
        zero_point: zero_point_tensor(b, p)?,
        storage: p.storage,
        axis: p.axis,
        length: p.length,
    };
    quantize_by_arithmetic(b, x, x_type, &params)
}
