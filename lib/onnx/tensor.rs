//! Decodes a `TensorProto` into little-endian element bytes, from whichever field holds them.

use std::path::Path;

use anyhow::{Context, Result, bail, ensure};
use bytes::Bytes;

use super::dtype::DType;
use super::external_data;
use super::proto::TensorProto;
use crate::budget::{max_tensor_bytes, show_bytes};
use crate::kernels::tensor::{Data, Tensor};

/// A decoded constant tensor: dtype, shape and the elements as little-endian bytes
/// (one byte per boolean), exactly `dims.product() * dtype.size()` long.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorData {
    pub dtype: DType,
    pub dims: Vec<i64>,
    pub bytes: Bytes,
}

impl TensorData {
    pub fn element_count(&self) -> usize {
        self.bytes.len() / self.dtype.size()
    }

    /// The elements widened to i64, for shape-like integer constants.
    pub fn to_i64_vec(&self) -> Option<Vec<i64>> {
        let b = &self.bytes;
        let n = self.element_count();
        let get = |i: usize, w: usize| &b[i * w..(i + 1) * w];
        Some(match self.dtype {
            DType::I64 => (0..n)
                .map(|i| i64::from_le_bytes(get(i, 8).try_into().unwrap_or_default()))
                .collect(),
            DType::I32 => (0..n)
                .map(|i| i32::from_le_bytes(get(i, 4).try_into().unwrap_or_default()) as i64)
                .collect(),
            DType::I8 | DType::I4 => b.iter().map(|&v| v as i8 as i64).collect(),
            DType::U8 | DType::U4 | DType::Bool => b.iter().map(|&v| v as i64).collect(),
            _ => return None,
        })
    }

    /// The elements as f64, for float scalars such as scales.
    pub fn to_f64_vec(&self) -> Option<Vec<f64>> {
        let b = &self.bytes;
        let n = self.element_count();
        Some(match self.dtype {
            DType::F32 => (0..n)
                .map(|i| {
                    f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]) as f64
                })
                .collect(),
            DType::F64 => (0..n)
                .map(|i| f64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap_or_default()))
                .collect(),
            d if d.is_float8() => {
                let f = crate::onnx::dtype::Float8::of(d)?;
                b.iter().map(|&bits| f.to_f64(bits)).collect()
            }
            _ => {
                return self
                    .to_i64_vec()
                    .map(|v| v.into_iter().map(|x| x as f64).collect());
            }
        })
    }
}

/// The converter between ONNX's constants and the kernels' tensors. It lives on the
/// ONNX side so that the kernel library does not depend on the model format; import,
/// constant folding and the backend's planning all go through it.
impl Tensor {
    pub fn from_tensor_data(t: &TensorData) -> Result<Tensor> {
        let shape = t
            .dims
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| anyhow::anyhow!("negative dimension {d}")))
            .collect::<Result<Vec<_>>>()?;
        Tensor::new(shape, Data::from_le_bytes(t.dtype, &t.bytes)?)
    }

    pub fn to_tensor_data(&self) -> TensorData {
        TensorData {
            dtype: self.data.dtype(),
            dims: self.shape.iter().map(|&d| d as i64).collect(),
            bytes: self.data.to_le_bytes().into(),
        }
    }
}

/// Number of elements of a shape, refusing negative dimensions and overflow.
pub fn element_count(dims: &[i64]) -> Result<usize> {
    let mut n: usize = 1;
    for &d in dims {
        ensure!(d >= 0, "dimension {d} is negative");
        n = usize::try_from(d)
            .ok()
            .and_then(|d| n.checked_mul(d))
            .with_context(|| format!("shape {dims:?} has more elements than can be addressed"))?;
    }
    Ok(n)
}

/// Decodes `t`. `model_dir` is where external data files are looked up.
pub fn decode(t: &TensorProto, model_dir: Option<&Path>) -> Result<TensorData> {
    let dtype = DType::from_onnx(t.data_type).map_err(anyhow::Error::msg)?;
    ensure!(t.segment.is_none(), "segmented tensors are not supported");
    let count = element_count(&t.dims)?;
    let expected = count
        .checked_mul(dtype.size())
        .context("tensor byte size overflows")?;
    if dtype.four_bit_range().is_some() {
        return decode_four_bit(t, dtype, count, model_dir);
    }
    // Before reading external data, whose size the model alone declares.
    ensure!(
        expected as u64 <= max_tensor_bytes(),
        "shape {:?} of {dtype} needs {}, over the {} budget (see --max-tensor-bytes)",
        t.dims,
        show_bytes(expected as u64),
        show_bytes(max_tensor_bytes())
    );

    let bytes = if t.data_location == 1 {
        let dir = model_dir.context("external data needs the model's directory")?;
        external_data::read(t, dir, expected)?
    } else if !t.raw_data.is_empty() {
        ensure!(
            t.raw_data.len() == expected,
            "raw_data has {} bytes, but shape {:?} of {} needs {expected}",
            t.raw_data.len(),
            t.dims,
            dtype
        );
        if dtype == DType::Bool {
            normalize_bools(&t.raw_data)
        } else {
            t.raw_data.clone()
        }
    } else {
        let bytes = typed_field_bytes(t, dtype)?;
        ensure!(
            bytes.len() == expected,
            "holds {} elements, but shape {:?} needs {count}",
            bytes.len() / dtype.size(),
            t.dims
        );
        bytes
    };
    Ok(TensorData {
        dtype,
        dims: t.dims.clone(),
        bytes,
    })
}

/// INT4 and UINT4 elements, packed two per byte (low nibble first, the last high
/// nibble unused when the count is odd) in `raw_data`, external data, or `int32_data`
/// (one packed byte per entry), decoded one per byte, INT4 sign-extended.
fn decode_four_bit(
    t: &TensorProto,
    dtype: DType,
    count: usize,
    model_dir: Option<&Path>,
) -> Result<TensorData> {
    // One byte per element once decoded.
    ensure!(
        count as u64 <= max_tensor_bytes(),
        "shape {:?} of {dtype} needs {}, over the {} budget (see --max-tensor-bytes)",
        t.dims,
        show_bytes(count as u64),
        show_bytes(max_tensor_bytes())
    );
    let packed_len = count.div_ceil(2);
    let packed: Bytes = if t.data_location == 1 {
        let dir = model_dir.context("external data needs the model's directory")?;
        external_data::read(t, dir, packed_len)?
    } else if !t.raw_data.is_empty() {
        t.raw_data.clone()
    } else {
        t.int32_data
            .iter()
            .map(|&v| v as u8)
            .collect::<Vec<_>>()
            .into()
    };
    ensure!(
        packed.len() == packed_len,
        "holds {} bytes of packed 4-bit values, but shape {:?} of {dtype} needs {packed_len}",
        packed.len(),
        t.dims
    );
    Ok(TensorData {
        dtype,
        dims: t.dims.clone(),
        bytes: unpack_nibbles(&packed, count, dtype == DType::I4).into(),
    })
}

/// `count` 4-bit values from `packed` (low nibble first), one per byte.
pub fn unpack_nibbles(packed: &[u8], count: usize, signed: bool) -> Vec<u8> {
    (0..count)
        .map(|i| extend_nibble(packed[i / 2] >> (4 * (i % 2)), signed))
        .collect()
}

/// The low four bits of `b` as one byte: sign-extended for INT4, zero-extended for UINT4.
pub fn extend_nibble(b: u8, signed: bool) -> u8 {
    if signed {
        (((b << 4) as i8) >> 4) as u8
    } else {
        b & 0x0f
    }
}

/// ONNX stores booleans as bytes, but any non-zero byte is true; MLIR wants 0 or 1.
fn normalize_bools(raw: &Bytes) -> Bytes {
    if raw.iter().all(|&b| b <= 1) {
        raw.clone()
    } else {
        raw.iter()
            .map(|&b| (b != 0) as u8)
            .collect::<Vec<_>>()
            .into()
    }
}

/// Re-encodes the typed repeated field that holds `dtype` as little-endian bytes.
fn typed_field_bytes(t: &TensorProto, dtype: DType) -> Result<Bytes> {
    let mut out: Vec<u8> = Vec::new();
    match dtype {
        DType::F32 => t
            .float_data
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::F64 => t
            .double_data
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::I64 => t
            .int64_data
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::U32 => {
            for &v in &t.uint64_data {
                let v =
                    u32::try_from(v).with_context(|| format!("value {v} does not fit UINT32"))?;
                out.extend(v.to_le_bytes());
            }
        }
        DType::U64 => t
            .uint64_data
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        DType::I32 => t
            .int32_data
            .iter()
            .for_each(|v| out.extend(v.to_le_bytes())),
        // Narrow types are widened into int32_data; float16/bfloat16 keep their bits there.
        DType::I16 | DType::U16 | DType::F16 | DType::BF16 => {
            for &v in &t.int32_data {
                out.extend((v as u16).to_le_bytes());
            }
        }
        // Float8 elements keep their bits in int32_data, like the 8-bit integers.
        DType::I8
        | DType::U8
        | DType::F8E4M3FN
        | DType::F8E4M3FNUZ
        | DType::F8E5M2
        | DType::F8E5M2FNUZ => out.extend(t.int32_data.iter().map(|&v| v as u8)),
        DType::Bool => out.extend(t.int32_data.iter().map(|&v| (v != 0) as u8)),
        DType::QUInt8 | DType::QInt8 | DType::QInt32 => {
            bail!("quantized torch types have no ONNX encoding")
        }
        DType::I4 | DType::U4 => bail!("4-bit values are decoded by decode_four_bit"),
    }
    if out.is_empty() && !t.string_data.is_empty() {
        bail!("holds string_data, which does not match data type {dtype}");
    }
    Ok(out.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proto(data_type: i32, dims: Vec<i64>) -> TensorProto {
        TensorProto {
            data_type,
            dims,
            ..Default::default()
        }
    }

    #[test]
    fn typed_int32_data_narrows_to_int8_bytes() {
        let mut t = proto(3, vec![3]);
        t.int32_data = vec![-1, 2, -128];
        let d = decode(&t, None).unwrap();
        assert_eq!(&d.bytes[..], &[0xff, 2, 0x80]);
        assert_eq!(d.to_i64_vec().unwrap(), vec![-1, 2, -128]);
    }

    #[test]
    fn raw_data_shorter_than_shape_is_an_error() {
        let mut t = proto(1, vec![2, 2]);
        t.raw_data = Bytes::from(vec![0u8; 12]);
        let e = decode(&t, None).unwrap_err().to_string();
        assert_eq!(
            e,
            "raw_data has 12 bytes, but shape [2, 2] of FLOAT needs 16"
        );
    }

    #[test]
    fn undefined_dtype_is_refused() {
        let e = decode(&proto(0, vec![1]), None).unwrap_err().to_string();
        assert!(e.contains("UNDEFINED"), "{e}");
    }

    #[test]
    fn element_count_refuses_overflow_and_negative_dims() {
        assert!(element_count(&[i64::MAX, 4]).is_err());
        assert!(element_count(&[-1]).is_err());
        assert_eq!(element_count(&[]).unwrap(), 1);
        assert_eq!(element_count(&[2, 0, 5]).unwrap(), 0);
    }

    #[test]
    fn four_bit_values_unpack_low_nibble_first_from_every_field() {
        // -1, 7, -8 as ONNX packs them: 0x7f, then 0x08 with an unused high nibble.
        let mut t = proto(22, vec![3]);
        t.raw_data = Bytes::from(vec![0x7fu8, 0x08]);
        let d = decode(&t, None).unwrap();
        assert_eq!(d.to_i64_vec().unwrap(), vec![-1, 7, -8]);
        let mut t = proto(22, vec![3]);
        t.int32_data = vec![127, 8];
        assert_eq!(decode(&t, None).unwrap(), d);
        let mut t = proto(21, vec![3]);
        t.raw_data = Bytes::from(vec![0x7fu8, 0x08]);
        let u = decode(&t, None).unwrap();
        assert_eq!((u.dtype, &u.bytes[..]), (DType::U4, &[15u8, 7, 8][..]));
        t.dims = vec![5];
        let e = decode(&t, None).unwrap_err().to_string();
        assert_eq!(
            e,
            "holds 2 bytes of packed 4-bit values, but shape [5] of UINT4 needs 3"
        );
    }

    #[test]
    fn bool_raw_bytes_are_normalized() {
        let mut t = proto(9, vec![3]);
        t.raw_data = Bytes::from(vec![0u8, 7, 1]);
        assert_eq!(&decode(&t, None).unwrap().bytes[..], &[0, 1, 1]);
    }
}
