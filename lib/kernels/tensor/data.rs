//! Element storage conversions that kernels share: building `Data` of any dtype from
//! f64 or i64 values, casting between dtypes, and moving elements by index.
//!
//! Arithmetic runs in two domains: f64 for float results and i64 for integer ones.
//! f64 holds every f32/f16/bf16 value exactly, and one +, -, ×, ÷ or sqrt done in f64
//! and then rounded to f32 gives the correctly rounded f32 result (f64 has more than
//! 2·24+2 bits), so single ops computed there match f32 arithmetic bit for bit. i64
//! arithmetic that wraps, truncated to a narrower type, wraps like that type does.

use half::{bf16, f16};

use crate::kernels::tensor::Data;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::float8::{self, Float8};
use crate::kernels::tensor::transpose;

/// Rebuilds `data` with the same variant from a body that maps its `Vec<T>` (bound to
/// `$v`) to a new `Vec<T>`.
macro_rules! map_same {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            Data::F32($v) => Data::F32($body),
            Data::F64($v) => Data::F64($body),
            Data::F16($v) => Data::F16($body),
            Data::BF16($v) => Data::BF16($body),
            Data::I8($v) => Data::I8($body),
            Data::U8($v) => Data::U8($body),
            Data::I16($v) => Data::I16($body),
            Data::U16($v) => Data::U16($body),
            Data::I32($v) => Data::I32($body),
            Data::U32($v) => Data::U32($body),
            Data::I64($v) => Data::I64($body),
            Data::U64($v) => Data::U64($body),
            Data::Bool($v) => Data::Bool($body),
            Data::F8(f, $v) => Data::F8(f.to_owned(), $body),
        }
    };
}

/// The elements of `data` at `indices`, in that order. The indices come from shapes
/// the caller checked against `data`, so they are in bounds.
pub fn gather(data: &Data, indices: &[usize]) -> Data {
    map_same!(data, v => indices.iter().map(|&i| v[i]).collect())
}

/// `data[s + c]` for each `c` of `cols` within each `s` of `row_starts`, rows one after
/// another: a gather that picks the same columns from every row.
pub fn gather_rows(data: &Data, row_starts: &[usize], cols: &[usize]) -> Data {
    map_same!(data, v => {
        let mut out = Vec::with_capacity(row_starts.len() * cols.len());
        for &s in row_starts {
            let row = &v[s..];
            out.extend(cols.iter().map(|&c| row[c]));
        }
        out
    })
}

/// The spans `data[start..start + len]`, one after another: a gather of contiguous
/// pieces of any lengths, copied a piece at a time.
pub fn gather_spans(data: &Data, spans: &[(usize, usize)]) -> Data {
    map_same!(data, v => {
        let mut out = Vec::with_capacity(spans.iter().map(|s| s.1).sum());
        for &(start, len) in spans {
            out.extend_from_slice(&v[start..start + len]);
        }
        out
    })
}

/// The runs `data[s..s + run]` for each `s` of `starts`, one after another: a gather
/// whose indices come in contiguous runs, copied a run at a time.
pub fn gather_runs(data: &Data, starts: &[usize], run: usize) -> Data {
    map_same!(data, v => {
        let mut out = Vec::with_capacity(starts.len() * run);
        for &s in starts {
            out.extend_from_slice(&v[s..s + run]);
        }
        out
    })
}

/// For each of `outer` blocks of `size × inner` elements, the `inner`-long runs at
/// the positions `picked` along the block, in order: a gather along one dimension
/// without an index per element.
pub fn pick_along(data: &Data, outer: usize, size: usize, inner: usize, picked: &[usize]) -> Data {
    map_same!(data, v => {
        let mut out = Vec::with_capacity(outer * picked.len() * inner);
        // An empty block (a zero-sized dimension) picks nothing.
        for block in v.chunks_exact((size * inner).max(1)).take(outer).filter(|_| size * inner > 0) {
            match inner {
                1 => out.extend(picked.iter().map(|&p| block[p])),
                2 => pick_rows::<_, 2>(block, picked, &mut out),
                4 => pick_rows::<_, 4>(block, picked, &mut out),
                8 => pick_rows::<_, 8>(block, picked, &mut out),
                _ => {
                    for &p in picked {
                        out.extend_from_slice(&block[p * inner..][..inner]);
                    }
                }
            }
        }
        out
    })
}

/// The rows `picked` of `block`, rows of `K` elements, appended to `out`: a copy of a
/// length known when compiling is a few moves, where a slice of a few elements went
/// through `memcpy` (a relative position bias gathers 16K rows of 4 bytes, at 2.5 ns
/// a row).
fn pick_rows<T: Copy, const K: usize>(block: &[T], picked: &[usize], out: &mut Vec<T>) {
    for &p in picked {
        if let Some(row) = block[p * K..].first_chunk::<K>() {
            out.extend_from_slice(row);
        }
    }
}

/// `data` as `batch` matrices of `rows × cols`, each transposed. `None` when the sizes
/// do not cover `data` exactly.
pub fn transpose_matrices(data: &Data, batch: usize, rows: usize, cols: usize) -> Option<Data> {
    let n = batch.checked_mul(rows)?.checked_mul(cols)?;
    if data.len() != n {
        return None;
    }
    if let Data::F32(v) = data {
        return Some(Data::F32(transpose::f32_tiles(v, rows, cols)));
    }
    Some(map_same!(data, v => transpose::tiles(v, rows, cols)))
}

/// `n` elements of `fill` (a one-element storage of `data`'s type), with the runs
/// `data[src..src + len]` copied to `dst` for each `(src, dst)` of `runs`, which must
/// lie inside both: constant padding a row at a time.
pub fn place_runs(data: &Data, fill: &Data, n: usize, runs: &[(usize, usize)], len: usize) -> Data {
    macro_rules! arm {
        ($variant:ident, $v:ident) => {{
            let f = match fill {
                Data::$variant(f) => f.first().copied(),
                _ => None,
            }
            .unwrap_or_default();
            Data::$variant(placed($v, f, n, runs, len))
        }};
    }
    match data {
        Data::F32(v) => arm!(F32, v),
        Data::F64(v) => arm!(F64, v),
        Data::F16(v) => arm!(F16, v),
        Data::BF16(v) => arm!(BF16, v),
        Data::I8(v) => arm!(I8, v),
        Data::U8(v) => arm!(U8, v),
        Data::I16(v) => arm!(I16, v),
        Data::U16(v) => arm!(U16, v),
        Data::I32(v) => arm!(I32, v),
        Data::U32(v) => arm!(U32, v),
        Data::I64(v) => arm!(I64, v),
        Data::U64(v) => arm!(U64, v),
        Data::Bool(v) => arm!(Bool, v),
        Data::F8(format, v) => {
            let f = match fill {
                Data::F8(_, f) => f.first().copied(),
                _ => None,
            }
            .unwrap_or_default();
            Data::F8(*format, placed(v, f, n, runs, len))
        }
    }
}

/// `place_runs` of one element type. Runs in order of `dst` that do not overlap (padding
/// gives them so) are written once each, between stretches of `f`: filling the whole
/// output first and copying over it wrote most of it twice (PP-OCR det's pads). Other
/// runs take that way.
fn placed<T: Copy>(v: &[T], f: T, n: usize, runs: &[(usize, usize)], len: usize) -> Vec<T> {
    let in_order = runs.windows(2).all(|w| w[0].1 + len <= w[1].1);
    if !in_order {
        let mut out = vec![f; n];
        for &(src, dst) in runs {
            out[dst..dst + len].copy_from_slice(&v[src..src + len]);
        }
        return out;
    }
    let mut out = Vec::with_capacity(n);
    for &(src, dst) in runs {
        out.resize(dst, f);
        out.extend_from_slice(&v[src..src + len]);
    }
    out.resize(n, f);
    out
}

/// The elements of `data` at `indices`, with `fill` (an element of the same variant,
/// from `fill_of`) where an index is `None`.
pub fn gather_or_fill(data: &Data, indices: &[Option<usize>], fill: &Data) -> Data {
    macro_rules! arm {
        ($variant:ident, $v:ident) => {{
            let f = match fill {
                Data::$variant(f) => f.first().copied(),
                _ => None,
            }
            .unwrap_or_default();
            Data::$variant(indices.iter().map(|i| i.map_or(f, |i| $v[i])).collect())
        }};
    }
    match data {
        Data::F32(v) => arm!(F32, v),
        Data::F64(v) => arm!(F64, v),
        Data::F16(v) => arm!(F16, v),
        Data::BF16(v) => arm!(BF16, v),
        Data::I8(v) => arm!(I8, v),
        Data::U8(v) => arm!(U8, v),
        Data::I16(v) => arm!(I16, v),
        Data::U16(v) => arm!(U16, v),
        Data::I32(v) => arm!(I32, v),
        Data::U32(v) => arm!(U32, v),
        Data::I64(v) => arm!(I64, v),
        Data::U64(v) => arm!(U64, v),
        Data::Bool(v) => arm!(Bool, v),
        Data::F8(format, v) => {
            let f = match fill {
                Data::F8(_, f) => f.first().copied(),
                _ => None,
            }
            .unwrap_or_default();
            Data::F8(
                *format,
                indices.iter().map(|i| i.map_or(f, |i| v[i])).collect(),
            )
        }
    }
}

/// The parts one after another; every part must have the first one's variant (cast
/// them first).
pub fn concat(parts: &[&Data]) -> Option<Data> {
    let first = parts.first()?;
    macro_rules! arm {
        ($variant:ident) => {{
            let mut out = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
            for p in parts {
                let Data::$variant(v) = p else { return None };
                out.extend_from_slice(v);
            }
            Data::$variant(out)
        }};
    }
    Some(match first {
        Data::F32(_) => arm!(F32),
        Data::F64(_) => arm!(F64),
        Data::F16(_) => arm!(F16),
        Data::BF16(_) => arm!(BF16),
        Data::I8(_) => arm!(I8),
        Data::U8(_) => arm!(U8),
        Data::I16(_) => arm!(I16),
        Data::U16(_) => arm!(U16),
        Data::I32(_) => arm!(I32),
        Data::U32(_) => arm!(U32),
        Data::I64(_) => arm!(I64),
        Data::U64(_) => arm!(U64),
        Data::Bool(_) => arm!(Bool),
        Data::F8(format, _) => {
            let mut out = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
            for p in parts {
                let Data::F8(f, v) = p else { return None };
                if f != format {
                    return None;
                }
                out.extend_from_slice(v);
            }
            Data::F8(*format, out)
        }
    })
}

/// Storage of `dtype` (its storage type when quantized) from f64 values. Floats round
/// to nearest; integers truncate toward zero and saturate, NaN giving 0 (Rust's `as`,
/// which is what C casts do wherever C defines them); booleans are "not zero".
pub fn from_f64(dtype: DType, v: &[f64]) -> Data {
    match dtype {
        DType::F32 => Data::F32(v.iter().map(|&x| x as f32).collect()),
        DType::F64 => Data::F64(v.to_vec()),
        DType::F16 => Data::F16(v.iter().map(|&x| f16::from_f64(x)).collect()),
        DType::BF16 => Data::BF16(v.iter().map(|&x| bf16::from_f64(x)).collect()),
        DType::I8 | DType::QInt8 => Data::I8(v.iter().map(|&x| x as i8).collect()),
        DType::U8 | DType::QUInt8 => Data::U8(v.iter().map(|&x| x as u8).collect()),
        DType::I16 => Data::I16(v.iter().map(|&x| x as i16).collect()),
        DType::U16 => Data::U16(v.iter().map(|&x| x as u16).collect()),
        DType::I32 | DType::QInt32 => Data::I32(v.iter().map(|&x| x as i32).collect()),
        DType::U32 => Data::U32(v.iter().map(|&x| x as u32).collect()),
        DType::I64 => Data::I64(v.iter().map(|&x| x as i64).collect()),
        DType::U64 => Data::U64(v.iter().map(|&x| x as u64).collect()),
        DType::Bool => Data::Bool(v.iter().map(|&x| x != 0.0).collect()),
        // Without saturation, as torch's float8 casts convert (`float8.rs`).
        f8 @ (DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ) => {
            let f = Float8::of(f8).unwrap_or(Float8::E4M3FN);
            Data::F8(f, float8::from_f64_slice(f, v, false))
        }
        // ONNX's Cast wraps floats into 4 bits (its tests give 7 for -9.0): truncated,
        // then the low four bits, as from integers.
        DType::I4 | DType::U4 => from_i64(dtype, &v.iter().map(|&x| x as i64).collect::<Vec<_>>()),
    }
}

/// Storage of `dtype` from i64 values: narrower integers keep the low bits (two's
/// complement wrapping), floats round to nearest, booleans are "not zero".
pub fn from_i64(dtype: DType, v: &[i64]) -> Data {
    match dtype {
        DType::F32 => Data::F32(v.iter().map(|&x| x as f32).collect()),
        DType::F64 => Data::F64(v.iter().map(|&x| x as f64).collect()),
        DType::F16 => Data::F16(v.iter().map(|&x| f16::from_f32(x as f32)).collect()),
        DType::BF16 => Data::BF16(v.iter().map(|&x| bf16::from_f32(x as f32)).collect()),
        DType::I8 | DType::QInt8 => Data::I8(v.iter().map(|&x| x as i8).collect()),
        DType::U8 | DType::QUInt8 => Data::U8(v.iter().map(|&x| x as u8).collect()),
        DType::I16 => Data::I16(v.iter().map(|&x| x as i16).collect()),
        DType::U16 => Data::U16(v.iter().map(|&x| x as u16).collect()),
        DType::I32 | DType::QInt32 => Data::I32(v.iter().map(|&x| x as i32).collect()),
        DType::U32 => Data::U32(v.iter().map(|&x| x as u32).collect()),
        DType::I64 => Data::I64(v.to_vec()),
        DType::U64 => Data::U64(v.iter().map(|&x| x as u64).collect()),
        DType::Bool => Data::Bool(v.iter().map(|&x| x != 0).collect()),
        f8 @ (DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ) => {
            from_f64(f8, &v.iter().map(|&x| x as f64).collect::<Vec<_>>())
        }
        // The low four bits, sign-extended for INT4.
        DType::I4 => Data::I8(v.iter().map(|&x| ((x as i8) << 4) >> 4).collect()),
        DType::U4 => Data::U8(v.iter().map(|&x| x as u8 & 0x0f).collect()),
    }
}

/// `data` converted to `dtype`'s storage, element by element, as C casts convert.
/// Float sources go through f64 (exact for them); integer sources through i64, except
/// that u64 goes to floats directly so values above `i64::MAX` keep their magnitude.
pub fn cast(data: &Data, dtype: DType) -> Data {
    let dtype = match dtype {
        // Narrower than their storage: every element is converted.
        DType::I4 | DType::U4 => dtype,
        d => d.storage(),
    };
    if data.dtype() == dtype {
        return data.clone();
    }
    if let Some(direct) = cast_direct(data, dtype) {
        return direct;
    }
    match data {
        Data::F32(_) | Data::F64(_) | Data::F16(_) | Data::BF16(_) | Data::F8(..) => {
            from_f64(dtype, &data.to_f64())
        }
        Data::U64(v) if dtype.is_float() => {
            from_f64(dtype, &v.iter().map(|&x| x as f64).collect::<Vec<_>>())
        }
        _ => from_i64(dtype, &data.to_i64()),
    }
}

/// The casts between f32 and the 8- and 32-bit integers that quantized models spell
/// out (a QOperator model's Cast around its float islands), in one pass without the
/// f64 or i64 copy: each gives what the copy gives, since every f32 and every such
/// integer is exact in f64 and i64, and Rust's casts saturate (NaN to 0) or wrap alike
/// from either.
fn cast_direct(data: &Data, dtype: DType) -> Option<Data> {
    Some(match (data, dtype) {
        (Data::F32(v), DType::I32) => Data::I32(v.iter().map(|&x| x as i32).collect()),
        (Data::F32(v), DType::U8) => Data::U8(v.iter().map(|&x| x as u8).collect()),
        (Data::F32(v), DType::I8) => Data::I8(v.iter().map(|&x| x as i8).collect()),
        (Data::U8(v), DType::F32) => Data::F32(v.iter().map(|&x| f32::from(x)).collect()),
        (Data::I8(v), DType::F32) => Data::F32(v.iter().map(|&x| f32::from(x)).collect()),
        (Data::I32(v), DType::F32) => Data::F32(v.iter().map(|&x| x as f32).collect()),
        (Data::I32(v), DType::U8) => Data::U8(v.iter().map(|&x| x as u8).collect()),
        (Data::I32(v), DType::I8) => Data::I8(v.iter().map(|&x| x as i8).collect()),
        _ => return None,
    })
}

/// Whether arithmetic on `dtype` runs in the f64 domain.
pub fn is_float(dtype: DType) -> bool {
    dtype.storage().is_float()
}

/// Rounding to a float dtype's precision, so a chain of ops computed in f64 rounds
/// after every step the way arithmetic in that dtype would.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prec(pub DType);

impl Prec {
    /// Inlined for f32, which float kernels call on every element, so the check and
    /// the conversion join the caller's loop instead of a call per element.
    #[inline(always)]
    pub fn round(self, x: f64) -> f64 {
        if self.0 == DType::F32 {
            x as f32 as f64
        } else {
            self.round_narrow(x)
        }
    }

    #[inline(never)]
    fn round_narrow(self, x: f64) -> f64 {
        match self.0 {
            DType::F32 => x as f32 as f64,
            DType::F16 => f16::from_f64(x).to_f64(),
            DType::BF16 => bf16::from_f64(x).to_f64(),
            d => match Float8::of(d) {
                Some(f) => f.to_f64(f.to_bits(x, false)),
                None => x,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_convert_like_c() {
        let f = Data::F32(vec![-1.5, 2.7, 300.0, f32::NAN]);
        assert_eq!(cast(&f, DType::I32), Data::I32(vec![-1, 2, 300, 0]));
        assert_eq!(cast(&f, DType::U8), Data::U8(vec![0, 2, 255, 0]));
        assert_eq!(
            cast(&f, DType::Bool),
            Data::Bool(vec![true, true, true, true])
        );
        let i = Data::I32(vec![257, -1]);
        assert_eq!(cast(&i, DType::U8), Data::U8(vec![1, 255]));
        assert_eq!(cast(&i, DType::F32), Data::F32(vec![257.0, -1.0]));
        let big = Data::I64(vec![16_777_217]);
        assert_eq!(cast(&big, DType::F32), Data::F32(vec![16_777_216.0]));
        let u = Data::U64(vec![u64::MAX]);
        assert_eq!(cast(&u, DType::F64), Data::F64(vec![u64::MAX as f64]));
    }

    #[test]
    fn direct_casts_give_what_the_wide_copies_give() {
        let floats = Data::F32(vec![
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -0.0,
            0.5,
            -0.5,
            -1.7,
            127.9,
            128.0,
            255.5,
            256.0,
            -129.0,
            2147483520.0,
            3e9,
            -3e9,
            f32::MAX,
            f32::MIN_POSITIVE,
        ]);
        let ints = Data::I32(vec![
            i32::MIN,
            -129,
            -128,
            -1,
            0,
            1,
            127,
            128,
            255,
            256,
            16777217,
            i32::MAX,
        ]);
        let bytes = Data::U8((0..=255).collect());
        let signed = Data::I8((-128..=127).collect());
        for (data, dtype) in [
            (&floats, DType::I32),
            (&floats, DType::U8),
            (&floats, DType::I8),
            (&bytes, DType::F32),
            (&signed, DType::F32),
            (&ints, DType::F32),
            (&ints, DType::U8),
            (&ints, DType::I8),
        ] {
            let wide = match data {
                Data::F32(_) => from_f64(dtype, &data.to_f64()),
                _ => from_i64(dtype, &data.to_i64()),
            };
            let direct = cast_direct(data, dtype).unwrap();
            // Compared as bits, so that NaN and -0.0 count.
            assert_eq!(
                format!(
                    "{:?}",
                    direct
                        .to_f64()
                        .iter()
                        .map(|v| v.to_bits())
                        .collect::<Vec<_>>()
                ),
                format!(
                    "{:?}",
                    wide.to_f64()
                        .iter()
                        .map(|v| v.to_bits())
                        .collect::<Vec<_>>()
                ),
                "{dtype}"
            );
            assert_eq!(direct.dtype(), wide.dtype());
        }
    }

    #[test]
    fn casts_to_four_bits_keep_the_low_bits() {
        let f = Data::F32(vec![-9.5, 7.9, 8.0, f32::NAN]);
        assert_eq!(cast(&f, DType::I4), Data::I8(vec![7, 7, -8, 0]));
        assert_eq!(cast(&f, DType::U4), Data::U8(vec![7, 7, 8, 0]));
        let i = Data::I32(vec![8, -9, 15, 17]);
        assert_eq!(cast(&i, DType::I4), Data::I8(vec![-8, 7, -1, 1]));
        assert_eq!(cast(&i, DType::U4), Data::U8(vec![8, 7, 15, 1]));
    }

    #[test]
    fn elements_move_by_index() {
        let d = Data::I8(vec![1, 2, 3]);
        assert_eq!(gather(&d, &[2, 0, 0]), Data::I8(vec![3, 1, 1]));
        let fill = Data::I8(vec![9]);
        assert_eq!(
            gather_or_fill(&d, &[None, Some(1)], &fill),
            Data::I8(vec![9, 2])
        );
        let joined = concat(&[&d, &Data::I8(vec![4])]).unwrap();
        assert_eq!(joined, Data::I8(vec![1, 2, 3, 4]));
        assert_eq!(concat(&[&d, &Data::U8(vec![4])]), None);
    }

    #[test]
    fn precision_rounds_to_the_dtype() {
        let third = 1.0 / 3.0;
        assert_eq!(Prec(DType::F32).round(third), (1.0f32 / 3.0) as f64);
        assert_eq!(Prec(DType::F64).round(third), third);
    }
}
