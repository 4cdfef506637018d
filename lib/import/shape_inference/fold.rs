//! Import-time values of small integer tensors: the shape arithmetic exporters emit
//! (Shape → Gather → Unsqueeze → Concat → Reshape) is folded so later rules see
//! constant shapes. Only integer and boolean tensors of at most `LIMIT` elements are
//! folded, so folding never costs more than the shapes it serves.

use bytes::Bytes;

use crate::onnx::dtype::DType;
use crate::onnx::tensor::{TensorData, element_count};

pub(super) const LIMIT: usize = 4096;

pub(super) fn is_int(dtype: DType) -> bool {
    dtype.is_integer() || dtype == DType::Bool
}

/// Element count of a static shape, `None` for negative or overflowing dims.
pub(super) fn count_of(dims: &[i64]) -> Option<usize> {
    element_count(dims).ok()
}

/// Element count, when the bytes really hold `dims` of `dtype`.
fn count(v: &TensorData) -> Option<usize> {
    let n = count_of(&v.dims)?;
    (n.checked_mul(v.dtype.size())? == v.bytes.len()).then_some(n)
}

/// `v` when it is an integer tensor small enough to fold. Zero sizes are discounted,
/// so that no loop over a part of its dims (as `[10^12, 0]` would give) runs long.
pub(super) fn small(v: &TensorData) -> Option<&TensorData> {
    let nonzero = v
        .dims
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))?;
    (is_int(v.dtype) && count(v).is_some() && nonzero <= LIMIT).then_some(v)
}

/// The elements of an integer tensor of any size, widened to i64 (UINT64 wraps).
pub(super) fn decode_ints(v: &TensorData) -> Option<Vec<i64>> {
    count(v)?;
    let b = &v.bytes;
    let w = v.dtype.size();
    let conv: fn(&[u8]) -> i64 = match v.dtype {
        DType::I64 => |c| i64::from_le_bytes(c.try_into().unwrap_or_default()),
        DType::U64 => |c| u64::from_le_bytes(c.try_into().unwrap_or_default()) as i64,
        DType::I32 => |c| i32::from_le_bytes(c.try_into().unwrap_or_default()).into(),
        DType::U32 => |c| u32::from_le_bytes(c.try_into().unwrap_or_default()).into(),
        DType::I16 => |c| i16::from_le_bytes(c.try_into().unwrap_or_default()).into(),
        DType::U16 => |c| u16::from_le_bytes(c.try_into().unwrap_or_default()).into(),
        DType::I8 => |c| i8::from_le_bytes(c.try_into().unwrap_or_default()).into(),
        DType::U8 | DType::Bool => |c| c.first().copied().unwrap_or_default().into(),
        _ => return None,
    };
    Some(b.chunks_exact(w).map(conv).collect())
}

/// An integer tensor from i64 elements, narrowed (wrapping) to `dtype` as a C cast
/// would; `None` for non-integer types, or when `vals` does not fill `dims`.
pub(super) fn encode_ints(dtype: DType, dims: Vec<i64>, vals: &[i64]) -> Option<TensorData> {
    if !is_int(dtype) || element_count(&dims).ok()? != vals.len() {
        return None;
    }
    let mut out = Vec::with_capacity(vals.len().checked_mul(dtype.size())?);
    for &v in vals {
        match dtype {
            DType::I64 | DType::U64 => out.extend(v.to_le_bytes()),
            DType::I32 | DType::U32 => out.extend((v as i32).to_le_bytes()),
            DType::I16 | DType::U16 => out.extend((v as i16).to_le_bytes()),
            DType::I8 | DType::U8 => out.push(v as u8),
            DType::Bool => out.push(u8::from(v != 0)),
            _ => return None,
        }
    }
    Some(TensorData {
        dtype,
        dims,
        bytes: Bytes::from(out),
    })
}

/// The same elements under new dimensions, for Reshape, Squeeze and friends.
pub(super) fn reshaped(v: &TensorData, dims: Vec<i64>) -> Option<TensorData> {
    let v = small(v)?;
    (element_count(&dims).ok()? == count(v)?).then(|| TensorData {
        dtype: v.dtype,
        dims,
        bytes: v.bytes.clone(),
    })
}

/// A tensor of `dims` whose elements are taken, in order, from `sources` as
/// (source, element) pairs. All sources must be small integer tensors of one type.
pub(super) fn pick(
    dims: Vec<i64>,
    sources: &[&TensorData],
    picks: impl IntoIterator<Item = (usize, usize)>,
) -> Option<TensorData> {
    let first = sources.first()?;
    let dtype = first.dtype;
    let n = element_count(&dims).ok()?;
    if n > LIMIT {
        return None;
    }
    for s in sources {
        if s.dtype != dtype {
            return None;
        }
        small(s)?;
    }
    let w = dtype.size();
    let mut out = Vec::with_capacity(n.checked_mul(w)?);
    for (s, i) in picks {
        let start = i.checked_mul(w)?;
        out.extend_from_slice(sources.get(s)?.bytes.get(start..start.checked_add(w)?)?);
    }
    (out.len() == n.checked_mul(w)?).then(|| TensorData {
        dtype,
        dims,
        bytes: Bytes::from(out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_round_trip_through_narrow_types() {
        let t = encode_ints(DType::I8, vec![3], &[-1, 2, 300]).unwrap();
        assert_eq!(decode_ints(&t).unwrap(), vec![-1, 2, 44]);
        assert!(encode_ints(DType::F32, vec![1], &[1]).is_none());
        assert!(encode_ints(DType::I64, vec![2], &[1]).is_none());
    }

    #[test]
    fn inconsistent_tensors_are_not_read() {
        let bad = TensorData {
            dtype: DType::I64,
            dims: vec![2],
            bytes: Bytes::from(vec![0u8; 9]),
        };
        assert!(decode_ints(&bad).is_none());
        assert!(pick(vec![1], &[&bad], [(0, 1)]).is_none());
    }

    #[test]
    fn pick_gathers_elements_in_order() {
        let a = encode_ints(DType::I64, vec![3], &[10, 20, 30]).unwrap();
        let b = encode_ints(DType::I64, vec![1], &[40]).unwrap();
        let p = pick(vec![3], &[&a, &b], [(1, 0), (0, 2), (0, 0)]).unwrap();
        assert_eq!(decode_ints(&p).unwrap(), vec![40, 30, 10]);
        assert!(pick(vec![1], &[&a], [(0, 3)]).is_none());
    }
}
