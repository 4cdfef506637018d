//! The kernels' tensors: typed element storage, a shape, and for quantized tensors the
//! scale and zero point(s) that give the integers their real values; with the other
//! plain data kernels compute on (values, dtypes, declared types) and the helpers that
//! read and lay out elements.

pub mod data;
pub mod dtype;
pub mod elem;
pub mod float8;
pub mod layout;
pub mod tensor_type;
pub mod transpose;
pub mod unfilled;
pub mod value;

use anyhow::{Result, bail};
use half::{bf16, f16};

use crate::budget::show_bytes;
pub use crate::budget::{DEFAULT_MAX_TENSOR_BYTES, max_tensor_bytes, set_max_tensor_bytes};
use dtype::DType;

/// Element storage. Quantized tensors store their integers here (U8, I8 or I32).
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    F32(Vec<f32>),
    F64(Vec<f64>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    I8(Vec<i8>),
    U8(Vec<u8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    Bool(Vec<bool>),
    /// The four float8 formats: one variant holding the raw bytes and which format they
    /// are, since no Rust type is a float8 and every kernel that moves elements by
    /// index can then move bytes (arithmetic goes through f64, `float8.rs`).
    F8(float8::Float8, Vec<u8>),
}

/// How a quantized tensor's integers map to reals: `real = (q - zero_point) * scale`.
#[derive(Clone, Debug, PartialEq)]
pub enum Quant {
    PerTensor {
        scale: f64,
        zero_point: i64,
    },
    PerChannel {
        scales: Vec<f64>,
        zero_points: Vec<i64>,
        axis: usize,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: Data,
    /// Set for torch's quantized types (quint8, qint8, qint32).
    pub quant: Option<Quant>,
}

macro_rules! for_each_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            Data::F32($v) => $body,
            Data::F64($v) => $body,
            Data::F16($v) => $body,
            Data::BF16($v) => $body,
            Data::I8($v) => $body,
            Data::U8($v) => $body,
            Data::I16($v) => $body,
            Data::U16($v) => $body,
            Data::I32($v) => $body,
            Data::U32($v) => $body,
            Data::I64($v) => $body,
            Data::U64($v) => $body,
            Data::Bool($v) => $body,
            Data::F8(_, $v) => $body,
        }
    };
}
#[allow(unused_imports)]
pub(crate) use for_each_data;

impl Data {
    pub fn len(&self) -> usize {
        for_each_data!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The storage dtype (never a quantized one).
    pub fn dtype(&self) -> DType {
        match self {
            Data::F32(_) => DType::F32,
            Data::F64(_) => DType::F64,
            Data::F16(_) => DType::F16,
            Data::BF16(_) => DType::BF16,
            Data::I8(_) => DType::I8,
            Data::U8(_) => DType::U8,
            Data::I16(_) => DType::I16,
            Data::U16(_) => DType::U16,
            Data::I32(_) => DType::I32,
            Data::U32(_) => DType::U32,
            Data::I64(_) => DType::I64,
            Data::U64(_) => DType::U64,
            Data::Bool(_) => DType::Bool,
            Data::F8(f, _) => f.dtype(),
        }
    }

    /// `n` zeros of `dtype` (its storage type for quantized dtypes).
    pub fn zeros(dtype: DType, n: usize) -> Data {
        match dtype.storage() {
            DType::F32 => Data::F32(vec![0.0; n]),
            DType::F64 => Data::F64(vec![0.0; n]),
            DType::F16 => Data::F16(vec![f16::ZERO; n]),
            DType::BF16 => Data::BF16(vec![bf16::ZERO; n]),
            DType::I8 => Data::I8(vec![0; n]),
            DType::U8 => Data::U8(vec![0; n]),
            DType::I16 => Data::I16(vec![0; n]),
            DType::U16 => Data::U16(vec![0; n]),
            DType::I32 => Data::I32(vec![0; n]),
            DType::U32 => Data::U32(vec![0; n]),
            DType::I64 => Data::I64(vec![0; n]),
            DType::U64 => Data::U64(vec![0; n]),
            DType::Bool => Data::Bool(vec![false; n]),
            f8 @ (DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ) => {
                Data::F8(float8_of(f8), vec![0; n])
            }
            DType::QUInt8 | DType::QInt8 | DType::QInt32 | DType::I4 | DType::U4 => {
                unreachable!("storage() is never quantized or 4-bit")
            }
        }
    }

    /// Every element as f64 (exact for all types but 64-bit integers beyond 2^53).
    pub fn to_f64(&self) -> Vec<f64> {
        match self {
            Data::F32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::F64(v) => v.clone(),
            Data::F16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Data::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Data::I8(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U8(v) => v.iter().map(|&x| x as f64).collect(),
            Data::I16(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U16(v) => v.iter().map(|&x| x as f64).collect(),
            Data::I32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::I64(v) => v.iter().map(|&x| x as f64).collect(),
            Data::U64(v) => v.iter().map(|&x| x as f64).collect(),
            Data::Bool(v) => v.iter().map(|&x| x as u8 as f64).collect(),
            Data::F8(f, v) => v.iter().map(|&b| f.to_f64(b)).collect(),
        }
    }

    /// Every element as i64 (floats truncated toward zero, as a C cast does).
    pub fn to_i64(&self) -> Vec<i64> {
        match self {
            Data::I8(v) => v.iter().map(|&x| x as i64).collect(),
            Data::U8(v) => v.iter().map(|&x| x as i64).collect(),
            Data::I16(v) => v.iter().map(|&x| x as i64).collect(),
            Data::U16(v) => v.iter().map(|&x| x as i64).collect(),
            Data::I32(v) => v.iter().map(|&x| x as i64).collect(),
            Data::U32(v) => v.iter().map(|&x| x as i64).collect(),
            Data::I64(v) => v.clone(),
            Data::U64(v) => v.iter().map(|&x| x as i64).collect(),
            Data::Bool(v) => v.iter().map(|&x| x as i64).collect(),
            other => other.to_f64().into_iter().map(|x| x as i64).collect(),
        }
    }

    /// Little-endian bytes of every element (booleans one byte each).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        fn flat<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
            v.iter().flat_map(|&x| f(x)).collect()
        }
        match self {
            Data::F32(v) => flat(v, f32::to_le_bytes),
            Data::F64(v) => flat(v, f64::to_le_bytes),
            Data::F16(v) => flat(v, f16::to_le_bytes),
            Data::BF16(v) => flat(v, bf16::to_le_bytes),
            Data::I8(v) => flat(v, i8::to_le_bytes),
            Data::U8(v) => v.clone(),
            Data::I16(v) => flat(v, i16::to_le_bytes),
            Data::U16(v) => flat(v, u16::to_le_bytes),
            Data::I32(v) => flat(v, i32::to_le_bytes),
            Data::U32(v) => flat(v, u32::to_le_bytes),
            Data::I64(v) => flat(v, i64::to_le_bytes),
            Data::U64(v) => flat(v, u64::to_le_bytes),
            Data::Bool(v) => v.iter().map(|&b| b as u8).collect(),
            Data::F8(_, v) => v.clone(),
        }
    }

    /// Reads `bytes` (little-endian) as elements of `dtype`.
    pub fn from_le_bytes(dtype: DType, bytes: &[u8]) -> Result<Data> {
        let size = dtype.size();
        if !bytes.len().is_multiple_of(size) {
            bail!(
                "{} bytes are not a whole number of {dtype} elements",
                bytes.len()
            );
        }
        fn chunks<T, const N: usize>(b: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
            b.chunks_exact(N)
                .map(|c| {
                    let mut a = [0u8; N];
                    a.copy_from_slice(c);
                    f(a)
                })
                .collect()
        }
        Ok(match dtype.storage() {
            DType::F32 => Data::F32(chunks(bytes, f32::from_le_bytes)),
            DType::F64 => Data::F64(chunks(bytes, f64::from_le_bytes)),
            DType::F16 => Data::F16(chunks(bytes, f16::from_le_bytes)),
            DType::BF16 => Data::BF16(chunks(bytes, bf16::from_le_bytes)),
            DType::I8 => Data::I8(bytes.iter().map(|&b| b as i8).collect()),
            DType::U8 => Data::U8(bytes.to_vec()),
            DType::I16 => Data::I16(chunks(bytes, i16::from_le_bytes)),
            DType::U16 => Data::U16(chunks(bytes, u16::from_le_bytes)),
            DType::I32 => Data::I32(chunks(bytes, i32::from_le_bytes)),
            DType::U32 => Data::U32(chunks(bytes, u32::from_le_bytes)),
            DType::I64 => Data::I64(chunks(bytes, i64::from_le_bytes)),
            DType::U64 => Data::U64(chunks(bytes, u64::from_le_bytes)),
            DType::Bool => Data::Bool(bytes.iter().map(|&b| b != 0).collect()),
            f8 @ (DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ) => {
                Data::F8(float8_of(f8), bytes.to_vec())
            }
            DType::QUInt8 | DType::QInt8 | DType::QInt32 | DType::I4 | DType::U4 => {
                unreachable!("storage() is never quantized or 4-bit")
            }
        })
    }
}

/// The float8 format of a float8 dtype; callers have matched one.
fn float8_of(dtype: DType) -> float8::Float8 {
    float8::Float8::of(dtype).unwrap_or(float8::Float8::E4M3FN)
}

impl Tensor {
    pub fn new(shape: Vec<usize>, data: Data) -> Result<Tensor> {
        let n: usize = checked_count(&shape)?;
        if n != data.len() {
            bail!(
                "shape {shape:?} needs {n} elements, but {} are given",
                data.len()
            );
        }
        Ok(Tensor {
            shape,
            data,
            quant: None,
        })
    }

    pub fn scalar_f32(v: f32) -> Tensor {
        Tensor {
            shape: vec![],
            data: Data::F32(vec![v]),
            quant: None,
        }
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The element type as the IR names it: quantized types for quantized tensors.
    pub fn dtype(&self) -> DType {
        let d = self.data.dtype();
        match self.quant {
            Some(_) => d.quantized().unwrap_or(d),
            None => d,
        }
    }
}

/// The largest element count a tensor may have: 2^34 (64 GiB of f32), whatever the
/// byte budget says, so that sizes computed from it never overflow.
pub const MAX_ELEMENTS: usize = if usize::BITS >= 64 {
    (1u64 << 34) as usize
} else {
    isize::MAX as usize / 16
};

/// The element count of a tensor of `shape` about to be allocated, refusing shapes
/// whose count (or whose product of non-zero sizes, which bounds every partial
/// product) exceeds `MAX_ELEMENTS` or the byte budget. Callers that do not know the
/// element type get the budget applied at one byte per element, a lower bound;
/// `bounded_bytes` applies it exactly.
pub fn bounded_count(shape: &[usize]) -> Result<usize> {
    count_within(shape, max_tensor_bytes())
}

fn count_within(shape: &[usize], budget: u64) -> Result<usize> {
    // The product of the non-zero sizes bounds every partial product the kernels
    // compute (strides, offsets), even when a zero makes the tensor empty.
    let nonzero = shape.iter().filter(|&&d| d != 0).try_fold(1usize, |n, &d| {
        n.checked_mul(d).filter(|&n| n <= MAX_ELEMENTS)
    });
    let count = checked_count(shape).ok();
    match (nonzero, count) {
        (Some(_), Some(n)) if n as u64 <= budget => Ok(n),
        _ => bail!(
            "a tensor of shape {shape:?} is too large (over the {} budget, see --max-tensor-bytes)",
            show_bytes(budget)
        ),
    }
}

/// The element count of a tensor of `shape` and `dtype` about to be allocated, refusing
/// it when its bytes exceed the budget (or the element count overflows).
pub fn bounded_bytes(shape: &[usize], dtype: DType) -> Result<usize> {
    bytes_within(shape, dtype, max_tensor_bytes())
}

fn bytes_within(shape: &[usize], dtype: DType, budget: u64) -> Result<usize> {
    let n = count_within(shape, budget)?;
    let bytes = n as u128 * dtype.storage().size() as u128;
    if bytes > budget as u128 {
        bail!(
            "a tensor of shape {shape:?} and type {} needs {}, over the {} budget (see --max-tensor-bytes)",
            dtype.onnx_name(),
            show_bytes(bytes as u64),
            show_bytes(budget)
        );
    }
    Ok(n)
}

/// The element count of `shape`, refusing overflow.
pub fn checked_count(shape: &[usize]) -> Result<usize> {
    shape.iter().try_fold(1usize, |n, &d| {
        n.checked_mul(d).ok_or_else(|| {
            anyhow::anyhow!("shape {shape:?} has more elements than can be addressed")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_budget_counts_element_sizes() {
        assert_eq!(bytes_within(&[1024], DType::F32, 4096).unwrap(), 1024);
        let e = bytes_within(&[1025], DType::F32, 4096).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a tensor of shape [1025] and type FLOAT needs 4.0 KiB, over the 4 KiB budget (see --max-tensor-bytes)"
        );
        assert!(bytes_within(&[4096], DType::U8, 4096).is_ok());
        assert!(count_within(&[4097], 4096).is_err());
        // An overflowing count is refused however large the budget.
        assert!(bytes_within(&[1 << 40, 1 << 40], DType::U8, u64::MAX).is_err());
        assert_eq!(bytes_within(&[0, 1 << 20], DType::F64, 1).unwrap(), 0);
    }

    #[test]
    fn bytes_round_trip_for_every_storage_type() {
        for d in dtype::ALL {
            let data = Data::zeros(d, 3);
            let back = Data::from_le_bytes(d, &data.to_le_bytes()).unwrap();
            assert_eq!(back, data, "{d}");
        }
    }

    #[test]
    fn quantized_tensors_report_quantized_dtypes() {
        let mut t = Tensor::new(vec![2], Data::U8(vec![1, 2])).unwrap();
        assert_eq!(t.dtype(), DType::U8);
        t.quant = Some(Quant::PerTensor {
            scale: 0.5,
            zero_point: 1,
        });
        assert_eq!(t.dtype(), DType::QUInt8);
    }

    #[test]
    fn shape_and_data_must_agree() {
        assert!(Tensor::new(vec![2, 2], Data::F32(vec![0.0; 3])).is_err());
        assert!(checked_count(&[usize::MAX, 2]).is_err());
    }
}
