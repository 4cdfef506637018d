//! Folding of elementwise integer arithmetic and comparisons on small constant
//! tensors, with numpy broadcasting. Anything doubtful (overflow, a division whose
//! rounding ONNX runtimes disagree on, UINT64 beyond i64) is left unfolded.

use super::fold;
use crate::onnx::dtype::DType;
use crate::onnx::tensor::TensorData;

/// For each element of `out` (row-major), the index of the element of `input` that
/// broadcasting reads. `input` must broadcast to `out`.
fn source_indices(input: &[i64], out: &[i64]) -> Option<Vec<usize>> {
    let lead = out.len().checked_sub(input.len())?;
    let mut strides = vec![0usize; out.len()];
    let mut stride = 1usize;
    for (k, &d) in input.iter().enumerate().rev() {
        let o = *out.get(lead + k)?;
        if d != o && d != 1 {
            return None;
        }
        if d != 1 {
            *strides.get_mut(lead + k)? = stride;
        }
        stride = stride.checked_mul(usize::try_from(d).ok()?)?;
    }
    let total = fold::count_of(out)?;
    let mut result = Vec::with_capacity(total);
    let mut idx = vec![0i64; out.len()];
    for _ in 0..total {
        let mut src = 0usize;
        for (&i, &s) in idx.iter().zip(&strides) {
            src = src.checked_add(usize::try_from(i).ok()?.checked_mul(s)?)?;
        }
        result.push(src);
        // Advance the multi-index like an odometer.
        for k in (0..out.len()).rev() {
            let slot = idx.get_mut(k)?;
            *slot += 1;
            if *slot < *out.get(k)? {
                break;
            }
            *slot = 0;
        }
    }
    Some(result)
}

fn broadcast_dims(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let rank = a.len().max(b.len());
    let at = |s: &[i64], i: usize| {
        let lead = rank - s.len();
        if i < lead {
            Some(1)
        } else {
            s.get(i - lead).copied()
        }
    };
    (0..rank)
        .map(|i| match (at(a, i)?, at(b, i)?) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// Whether `v` is exactly representable in `dtype`, so no folded value wraps.
pub(super) fn fits(dtype: DType, v: i64) -> bool {
    let (lo, hi) = match dtype {
        DType::I64 => (i64::MIN, i64::MAX),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        DType::I16 => (i16::MIN.into(), i16::MAX.into()),
        DType::I8 => (i8::MIN.into(), i8::MAX.into()),
        DType::U32 => (0, u32::MAX.into()),
        DType::U16 => (0, u16::MAX.into()),
        DType::U8 => (0, u8::MAX.into()),
        DType::Bool => (0, 1),
        _ => return false,
    };
    (lo..=hi).contains(&v)
}

pub(super) fn binary_fn(op: &str) -> Option<fn(i64, i64) -> Option<i64>> {
    Some(match op {
        "Add" => i64::checked_add,
        "Sub" => i64::checked_sub,
        "Mul" => i64::checked_mul,
        "Div" => |a, b| {
            // Truncating and flooring division agree only when exact or non-negative.
            let q = a.checked_div(b)?;
            (a.checked_rem(b)? == 0 || (a >= 0 && b > 0)).then_some(q)
        },
        "Max" => |a, b| Some(a.max(b)),
        "Min" => |a, b| Some(a.min(b)),
        "Equal" => |a, b| Some(i64::from(a == b)),
        "Less" => |a, b| Some(i64::from(a < b)),
        "LessOrEqual" => |a, b| Some(i64::from(a <= b)),
        "Greater" => |a, b| Some(i64::from(a > b)),
        "GreaterOrEqual" => |a, b| Some(i64::from(a >= b)),
        _ => return None,
    })
}

/// The value of a binary integer op on constant inputs; comparisons give BOOL.
pub(super) fn binary(op: &str, a: &TensorData, b: &TensorData) -> Option<TensorData> {
    let f = binary_fn(op)?;
    let (a, b) = (fold::small(a)?, fold::small(b)?);
    if a.dtype != b.dtype || a.dtype == DType::U64 {
        return None;
    }
    let out_dtype = match op {
        "Equal" | "Less" | "LessOrEqual" | "Greater" | "GreaterOrEqual" => DType::Bool,
        _ => a.dtype,
    };
    let dims = broadcast_dims(&a.dims, &b.dims)?;
    if fold::count_of(&dims)? > fold::LIMIT {
        return None;
    }
    let (av, bv) = (fold::decode_ints(a)?, fold::decode_ints(b)?);
    let ai = source_indices(&a.dims, &dims)?;
    let bi = source_indices(&b.dims, &dims)?;
    let mut vals = Vec::with_capacity(ai.len());
    for (i, j) in ai.into_iter().zip(bi) {
        let v = f(*av.get(i)?, *bv.get(j)?)?;
        if !fits(out_dtype, v) {
            return None;
        }
        vals.push(v);
    }
    fold::encode_ints(out_dtype, dims, &vals)
}

/// The value of `Where(cond, x, y)` on constant inputs.
pub(super) fn select(cond: &TensorData, x: &TensorData, y: &TensorData) -> Option<TensorData> {
    let (c, x, y) = (fold::small(cond)?, fold::small(x)?, fold::small(y)?);
    if x.dtype != y.dtype {
        return None;
    }
    let dims = broadcast_dims(&broadcast_dims(&c.dims, &x.dims)?, &y.dims)?;
    if fold::count_of(&dims)? > fold::LIMIT {
        return None;
    }
    let cv = fold::decode_ints(c)?;
    let ci = source_indices(&c.dims, &dims)?;
    let xi = source_indices(&x.dims, &dims)?;
    let yi = source_indices(&y.dims, &dims)?;
    let mut picks = Vec::with_capacity(ci.len());
    for ((c, xs), ys) in ci.into_iter().zip(xi).zip(yi) {
        picks.push(if *cv.get(c)? != 0 { (0, xs) } else { (1, ys) });
    }
    fold::pick(dims, &[x, y], picks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(dims: &[i64], v: &[i64]) -> TensorData {
        fold::encode_ints(DType::I64, dims.to_vec(), v).unwrap()
    }

    #[test]
    fn broadcasts_scalars_and_rows() {
        let r = binary("Mul", &t(&[2, 2], &[1, 2, 3, 4]), &t(&[2], &[10, 100])).unwrap();
        assert_eq!(r.dims, vec![2, 2]);
        assert_eq!(fold::decode_ints(&r).unwrap(), vec![10, 200, 30, 400]);
        let s = binary("Sub", &t(&[], &[7]), &t(&[3], &[1, 2, 3])).unwrap();
        assert_eq!(fold::decode_ints(&s).unwrap(), vec![6, 5, 4]);
    }

    #[test]
    fn doubtful_results_are_not_folded() {
        assert!(binary("Div", &t(&[1], &[1]), &t(&[1], &[0])).is_none());
        assert!(binary("Div", &t(&[1], &[-7]), &t(&[1], &[2])).is_none());
        assert!(binary("Add", &t(&[1], &[i64::MAX]), &t(&[1], &[1])).is_none());
        assert!(binary("Add", &t(&[2], &[1, 2]), &t(&[3], &[1, 2, 3])).is_none());
    }

    #[test]
    fn where_selects_by_condition() {
        let c = fold::encode_ints(DType::Bool, vec![3], &[1, 0, 1]).unwrap();
        let r = select(&c, &t(&[3], &[1, 2, 3]), &t(&[], &[-1])).unwrap();
        assert_eq!(fold::decode_ints(&r).unwrap(), vec![1, -1, 3]);
    }
}
