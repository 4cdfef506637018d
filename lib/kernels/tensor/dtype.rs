//! Element types: the ONNX ones qlower handles, how they map onto torch dtypes, and
//! torch's quantized types (`!torch.quint8`, ...), which only the lowered IR uses.

use std::fmt;

/// An ONNX `TensorProto.DataType` that qlower can carry through import.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F32,
    U8,
    I8,
    U16,
    I16,
    I32,
    I64,
    Bool,
    F16,
    F64,
    U32,
    U64,
    BF16,
    /// ONNX's 8-bit floats, stored as their raw bytes (`float8.rs`).
    F8E4M3FN,
    F8E4M3FNUZ,
    F8E5M2,
    F8E5M2FNUZ,
    /// 4-bit integers: packed two per byte in ONNX, one per byte (sign- or
    /// zero-extended) everywhere in qlower, with `I8`/`U8` storage.
    I4,
    U4,
    /// torch's quantized types: integers that carry a scale and zero point in the IR.
    QUInt8,
    QInt8,
    QInt32,
}

impl DType {
    /// Decodes an ONNX data type code; codes qlower cannot carry are refused by name.
    pub fn from_onnx(code: i32) -> Result<DType, String> {
        Ok(match code {
            1 => DType::F32,
            2 => DType::U8,
            3 => DType::I8,
            4 => DType::U16,
            5 => DType::I16,
            6 => DType::I32,
            7 => DType::I64,
            9 => DType::Bool,
            10 => DType::F16,
            11 => DType::F64,
            12 => DType::U32,
            13 => DType::U64,
            16 => DType::BF16,
            17 => DType::F8E4M3FN,
            18 => DType::F8E4M3FNUZ,
            19 => DType::F8E5M2,
            20 => DType::F8E5M2FNUZ,
            21 => DType::U4,
            22 => DType::I4,
            other => {
                return Err(match onnx_type_name(other) {
                    Some(name) => format!("data type {name} ({other}) is not supported"),
                    None => format!("data type {other} is not a valid ONNX data type"),
                });
            }
        })
    }

    pub fn to_onnx(self) -> i32 {
        match self {
            DType::F32 => 1,
            DType::U8 => 2,
            DType::I8 => 3,
            DType::U16 => 4,
            DType::I16 => 5,
            DType::I32 => 6,
            DType::I64 => 7,
            DType::Bool => 9,
            DType::F16 => 10,
            DType::F64 => 11,
            DType::U32 => 12,
            DType::U64 => 13,
            DType::BF16 => 16,
            DType::F8E4M3FN => 17,
            DType::F8E4M3FNUZ => 18,
            DType::F8E5M2 => 19,
            DType::F8E5M2FNUZ => 20,
            DType::U4 => 21,
            DType::I4 => 22,
            q @ (DType::QUInt8 | DType::QInt8 | DType::QInt32) => q.storage().to_onnx(),
        }
    }

    pub fn is_quantized(self) -> bool {
        matches!(self, DType::QUInt8 | DType::QInt8 | DType::QInt32)
    }

    /// The integer type a quantized or 4-bit type stores its values in; other types are
    /// their own.
    pub fn storage(self) -> DType {
        match self {
            DType::QUInt8 | DType::U4 => DType::U8,
            DType::QInt8 | DType::I4 => DType::I8,
            DType::QInt32 => DType::I32,
            d => d,
        }
    }

    /// The quantized type stored as `self`, if torch has one.
    pub fn quantized(self) -> Option<DType> {
        match self {
            DType::U8 => Some(DType::QUInt8),
            DType::I8 => Some(DType::QInt8),
            DType::I32 => Some(DType::QInt32),
            _ => None,
        }
    }

    /// torch's ScalarType code, as `dtype` operands of torch ops carry it.
    pub fn torch_scalar_type(self) -> i64 {
        match self {
            DType::U8 => 0,
            DType::I8 => 1,
            DType::I16 => 2,
            DType::I32 => 3,
            DType::I64 => 4,
            DType::F16 => 5,
            DType::F32 => 6,
            DType::F64 => 7,
            DType::Bool => 11,
            DType::QInt8 => 12,
            DType::QUInt8 => 13,
            DType::QInt32 => 14,
            DType::BF16 => 15,
            DType::U16 => 27,
            DType::U32 => 28,
            DType::U64 => 29,
            DType::F8E5M2 => 23,
            DType::F8E4M3FN => 24,
            DType::F8E5M2FNUZ => 25,
            DType::F8E4M3FNUZ => 26,
            // PyTorch's shell dtypes torch.uint4 and torch.int4: named, with no kernels.
            DType::U4 => 33,
            DType::I4 => 40,
        }
    }

    pub fn from_torch_scalar_type(code: i64) -> Option<DType> {
        ALL.iter()
            .chain(QUANTIZED.iter())
            .chain(FOUR_BIT.iter())
            .copied()
            .find(|d| d.torch_scalar_type() == code)
    }

    /// Bytes per element once decoded (`raw_data`'s, except that booleans take one byte
    /// each and 4-bit integers, packed two per byte there, one each).
    pub fn size(self) -> usize {
        match self {
            DType::U8 | DType::I8 | DType::Bool | DType::QUInt8 | DType::QInt8 => 1,
            DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ => 1,
            DType::U4 | DType::I4 => 1,
            DType::U16 | DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::F32 | DType::I32 | DType::U32 | DType::QInt32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    /// The element type as torch-mlir spells it inside `!torch.vtensor<..., T>`.
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::U8 => "ui8",
            DType::I8 => "si8",
            DType::U16 => "ui16",
            DType::I16 => "si16",
            DType::I32 => "si32",
            DType::I64 => "si64",
            DType::Bool => "i1",
            DType::F16 => "f16",
            DType::F64 => "f64",
            DType::U32 => "ui32",
            DType::U64 => "ui64",
            DType::BF16 => "bf16",
            DType::F8E4M3FN => "f8E4M3FN",
            DType::F8E4M3FNUZ => "f8E4M3FNUZ",
            DType::F8E5M2 => "f8E5M2",
            DType::F8E5M2FNUZ => "f8E5M2FNUZ",
            DType::U4 => "ui4",
            DType::I4 => "si4",
            DType::QUInt8 => "!torch.quint8",
            DType::QInt8 => "!torch.qint8",
            DType::QInt32 => "!torch.qint32",
        }
    }

    pub fn from_torch_name(name: &str) -> Option<DType> {
        ALL.iter()
            .chain(QUANTIZED.iter())
            .chain(FOUR_BIT.iter())
            .copied()
            .find(|d| d.torch_name() == name)
    }

    /// The ONNX spelling, for messages; quantized types by their torch name.
    pub fn onnx_name(self) -> &'static str {
        match self {
            DType::QUInt8 => "quint8",
            DType::QInt8 => "qint8",
            DType::QInt32 => "qint32",
            d => onnx_type_name(d.to_onnx()).unwrap_or("?"),
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64 | DType::F16 | DType::BF16) || self.is_float8()
    }

    pub fn is_float8(self) -> bool {
        matches!(
            self,
            DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ
        )
    }

    pub fn is_integer(self) -> bool {
        !self.is_float() && self != DType::Bool && !self.is_quantized()
    }

    /// The range of a 4-bit type, whose storage type is wider.
    pub fn four_bit_range(self) -> Option<(i64, i64)> {
        match self {
            DType::I4 => Some((-8, 7)),
            DType::U4 => Some((0, 15)),
            _ => None,
        }
    }

    /// Whether a kernel tensor whose storage reports `stored` is a value of the IR type
    /// `self`: the same type, or a 4-bit type held in its 8-bit storage.
    pub fn holds(self, stored: DType) -> bool {
        self == stored || self.four_bit_range().is_some() && self.storage() == stored
    }
}

pub const ALL: [DType; 17] = [
    DType::F32,
    DType::U8,
    DType::I8,
    DType::U16,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::Bool,
    DType::F16,
    DType::F64,
    DType::U32,
    DType::U64,
    DType::BF16,
    DType::F8E4M3FN,
    DType::F8E4M3FNUZ,
    DType::F8E5M2,
    DType::F8E5M2FNUZ,
];

pub const QUANTIZED: [DType; 3] = [DType::QUInt8, DType::QInt8, DType::QInt32];

/// Integers narrower than a byte, which kernels hold in their 8-bit storage.
pub const FOUR_BIT: [DType; 2] = [DType::I4, DType::U4];

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.onnx_name())
    }
}

/// Names of every ONNX data type code, including those qlower refuses.
pub fn onnx_type_name(code: i32) -> Option<&'static str> {
    Some(match code {
        0 => "UNDEFINED",
        1 => "FLOAT",
        2 => "UINT8",
        3 => "INT8",
        4 => "UINT16",
        5 => "INT16",
        6 => "INT32",
        7 => "INT64",
        8 => "STRING",
        9 => "BOOL",
        10 => "FLOAT16",
        11 => "DOUBLE",
        12 => "UINT32",
        13 => "UINT64",
        14 => "COMPLEX64",
        15 => "COMPLEX128",
        16 => "BFLOAT16",
        17 => "FLOAT8E4M3FN",
        18 => "FLOAT8E4M3FNUZ",
        19 => "FLOAT8E5M2",
        20 => "FLOAT8E5M2FNUZ",
        21 => "UINT4",
        22 => "INT4",
        23 => "FLOAT4E2M1",
        24 => "FLOAT8E8M0",
        25 => "UINT2",
        26 => "INT2",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_supported_dtype_round_trips_through_its_onnx_code() {
        for d in ALL {
            assert_eq!(DType::from_onnx(d.to_onnx()), Ok(d));
            assert_eq!(DType::from_torch_name(d.torch_name()), Some(d));
        }
    }

    #[test]
    fn quantized_types_map_to_their_storage_and_torch_codes() {
        for q in QUANTIZED {
            assert_eq!(q.storage().quantized(), Some(q));
            assert_eq!(
                DType::from_torch_scalar_type(q.torch_scalar_type()),
                Some(q)
            );
            assert_eq!(DType::from_torch_name(q.torch_name()), Some(q));
            assert_eq!(q.size(), q.storage().size());
        }
        assert_eq!(DType::QUInt8.torch_scalar_type(), 13);
        assert_eq!(DType::F32.torch_scalar_type(), 6);
    }

    #[test]
    fn four_bit_types_round_trip_and_live_in_bytes() {
        for d in FOUR_BIT {
            assert_eq!(DType::from_onnx(d.to_onnx()), Ok(d));
            assert_eq!(DType::from_torch_name(d.torch_name()), Some(d));
            assert_eq!(
                DType::from_torch_scalar_type(d.torch_scalar_type()),
                Some(d)
            );
            assert!(d.holds(d.storage()) && d.is_integer() && !d.is_quantized());
        }
        assert_eq!(DType::I4.onnx_name(), "INT4");
        assert_eq!(DType::U4.four_bit_range(), Some((0, 15)));
        assert!(!DType::I8.holds(DType::U8) && !DType::I4.holds(DType::U8));
    }

    #[test]
    fn unsupported_dtypes_are_refused_by_name() {
        assert_eq!(
            DType::from_onnx(8).unwrap_err(),
            "data type STRING (8) is not supported"
        );
        assert_eq!(
            DType::from_onnx(0).unwrap_err(),
            "data type UNDEFINED (0) is not supported"
        );
        assert_eq!(
            DType::from_onnx(99).unwrap_err(),
            "data type 99 is not a valid ONNX data type"
        );
    }
}
