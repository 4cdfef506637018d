//! Quantized softmax as ONNX Runtime's QLinearSoftmax computes it (and QDQ
//! `DequantizeLinear → Softmax → QuantizeLinear`, which it rewrites into one). It never
//! dequantizes: a 256-entry float32 table holds `exp((i - 255 + shift)·x_scale)`, where
//! the shift keeps a row's sum of up to `size` entries far below the float32 maximum;
//! element `x` of a row whose maximum is `m` reads entry `255 - (m - x)`. The entries
//! are summed in float32 along the row, and each output is
//! `round_half_even(entry·floor(1 / y_scale) / sum) + y_zero_point`. Two details
//! differ from a float softmax quantized with `y_scale`: the multiplier is the whole
//! number `floor(1 / y_scale)` (254 for a y_scale of 1/255 rounded to float32), and a
//! product that overflows float32 converts to a wrapped integer, not a saturated one.

use anyhow::{Result, bail};
use rayon::prelude::*;

use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor};
use crate::kernels::{Call, ResultType};

/// The exponentials for rows of `size` elements.
fn table(x_scale: f32, size: usize) -> [f32; 256] {
    let quotient = f32::MAX / size as f32;
    let shift = ((quotient as f64).ln() - 5.0).max(0.0) / x_scale as f64;
    std::array::from_fn(|i| ((i as f64 - 255.0 + shift) * x_scale as f64).exp() as f32)
}

/// `q` rounded to the nearest integer, ties to even. For `0 < q <= 2^22` (softmax's
/// quotients are never negative), adding and subtracting 1.5·2^23 rounds in the float
/// addition itself (its unit in the last place is 1 there), which is far cheaper than
/// the library call `round_ties_even` becomes without SSE4.1; the result is the same.
/// Other values (where the trick would lose a zero's sign) take the library call.
fn round_half_even(q: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0;
    if q > 0.0 && q <= 4_194_304.0 {
        (q + MAGIC) - MAGIC
    } else {
        q.round_ties_even()
    }
}

/// A rounded float converted as the x86 conversions do: to int32 with `i32::MIN` for
/// anything out of range (or NaN), and to uint32 through int64, keeping the low 32 bits
/// (so infinity becomes 0).
fn to_i32(r: f32) -> i32 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&r) {
        r as i32
    } else {
        i32::MIN
    }
}

fn to_u32(r: f32) -> u32 {
    let wide = if (-9.223_372e18..9.223_372e18).contains(&r) {
        r as i64
    } else {
        i64::MIN
    };
    wide as u32
}

/// An 8-bit input element, read as its integer.
trait Int8: Copy + Send + Sync {
    fn int(self) -> i32;
}

impl Int8 for u8 {
    #[inline(always)]
    fn int(self) -> i32 {
        self.into()
    }
}

impl Int8 for i8 {
    #[inline(always)]
    fn int(self) -> i32 {
        self.into()
    }
}

/// Rows `last_axis` sums side by side: eight f32 chains fill an AVX2 vector.
const ROWS: usize = 8;

/// Row length from which a row's output bytes are computed once per possible entry
/// (256 divisions, in order along the table) and looked up, rather than divided per
/// element with each entry gathered: Whisper's 400-key rows 0.84 -> 0.80 ms a call.
const TABLE_ROW: usize = 256;

/// The requantization of a row whose quotients all lie in [0, 2^22] (see `run`).
#[derive(Clone, Copy)]
struct FastRow {
    multiplier: f32,
    zero_point: i32,
    lo: i32,
    hi: i32,
    /// XORed into each output byte: 0x80 where int8 results were computed as uint8.
    flip: u8,
}

impl FastRow {
    /// `out[k] = round_half_even(entry·multiplier / sum) + zero_point`, saturated: the
    /// same float operations as `requantize`, compiled for AVX2 where the CPU has it
    /// so the division and rounding run eight lanes at a time.
    fn row<T: Int8>(self, exps: &[f32; 256], max: i32, row: &[T], sum: f32, out: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        if crate::kernels::isa::Isa::best().includes(crate::kernels::isa::Isa::Avx2) {
            // SAFETY: the level's features were detected on this CPU.
            return unsafe { self.row_avx2(exps, max, row, sum, out) };
        }
        self.row_body(exps, max, row, sum, out)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn row_avx2<T: Int8>(self, exps: &[f32; 256], max: i32, row: &[T], sum: f32, out: &mut [u8]) {
        self.row_body(exps, max, row, sum, out)
    }

    /// Every output byte a row of this `sum` can have, by the index `entry` takes:
    /// `one` of each of the 256 entries, for rows long enough to look their bytes up.
    fn table(self, exps: &[f32; 256], sum: f32) -> [u8; 256] {
        #[cfg(target_arch = "x86_64")]
        if crate::kernels::isa::Isa::best().includes(crate::kernels::isa::Isa::Avx2) {
            // SAFETY: the level's features were detected on this CPU.
            return unsafe { self.table_avx2(exps, sum) };
        }
        self.table_body(exps, sum)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn table_avx2(self, exps: &[f32; 256], sum: f32) -> [u8; 256] {
        self.table_body(exps, sum)
    }

    #[inline(always)]
    fn table_body(self, exps: &[f32; 256], sum: f32) -> [u8; 256] {
        // Index i is `entry`'s for v = max - (255 - i), whatever the maximum.
        std::array::from_fn(|i| self.one(exps, 255, i as i32, sum))
    }

    /// As `row`, for a row of columns that each have their own maximum and sum (a
    /// softmax along an inner axis).
    fn columns<T: Int8>(
        self,
        exps: &[f32; 256],
        maxes: &[i32],
        row: &[T],
        sums: &[f32],
        out: &mut [u8],
    ) {
        #[cfg(target_arch = "x86_64")]
        if crate::kernels::isa::Isa::best().includes(crate::kernels::isa::Isa::Avx2) {
            // SAFETY: the level's features were detected on this CPU.
            return unsafe { self.columns_avx2(exps, maxes, row, sums, out) };
        }
        self.columns_body(exps, maxes, row, sums, out)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn columns_avx2<T: Int8>(
        self,
        exps: &[f32; 256],
        maxes: &[i32],
        row: &[T],
        sums: &[f32],
        out: &mut [u8],
    ) {
        self.columns_body(exps, maxes, row, sums, out)
    }

    #[inline(always)]
    fn columns_body<T: Int8>(
        self,
        exps: &[f32; 256],
        maxes: &[i32],
        row: &[T],
        sums: &[f32],
        out: &mut [u8],
    ) {
        for (((y, &v), &max), &sum) in out.iter_mut().zip(row).zip(maxes).zip(sums) {
            *y = self.one(exps, max, v.int(), sum);
        }
    }

    /// The output byte of `v`.
    #[inline(always)]
    fn one(self, exps: &[f32; 256], max: i32, v: i32, sum: f32) -> u8 {
        // 8-bit values: `max - v` is in 0..=255, so the index is too.
        let entry = exps[(255 - (max - v)) as u8 as usize];
        let q = (entry * self.multiplier / sum).round_ties_even();
        // SAFETY: `run` makes a fast row only where entry·multiplier is finite and the
        // sum (of this row's or column's entries, all ≥ 0, so at least `entry`) finite
        // and positive: q is a whole number in [0, 2^22 + 1], which i32 holds.
        let q: i32 = unsafe { q.to_int_unchecked() };
        ((q + self.zero_point).clamp(self.lo, self.hi) as u8) ^ self.flip
    }

    #[inline(always)]
    fn row_body<T: Int8>(self, exps: &[f32; 256], max: i32, row: &[T], sum: f32, out: &mut [u8]) {
        for (y, &v) in out.iter_mut().zip(row) {
            *y = self.one(exps, max, v.int(), sum);
        }
    }
}

pub fn softmax(c: &Call) -> Result<Vec<Value>> {
    run(c, false)
}

/// `softmax` of int8 values computed as uint8 (integers and zero point shifted by
/// 128), as ONNX Runtime on x86-64 runs int8 QDQ pairs; see `qlinear_binary`.
pub fn softmax_as_uint8(c: &Call) -> Result<Vec<Value>> {
    run(c, true)
}

/// Operands: x (8-bit integers), x_scale, dim, y_scale, y_zero_point (and the dtype
/// code, which the declared result type already says).
fn run(c: &Call, as_uint8: bool) -> Result<Vec<Value>> {
    let ResultType::Tensor(ty) = c.result(0)? else {
        bail!("the quantized result must be a tensor");
    };
    let signed = match ty.dtype {
        Some(DType::QUInt8) => false,
        Some(DType::QInt8) => true,
        other => bail!("a quantized softmax to {other:?} is not supported"),
    };
    let x = c.arg(0)?.as_tensor()?;
    let count = match (&x.data, signed) {
        (Data::U8(v), false) => v.len(),
        (Data::I8(v), true) => v.len(),
        (other, _) => bail!("x is {} for a {} result", other.dtype(), ty),
    };
    if count != crate::kernels::tensor::layout::result_count(&x.shape)? {
        bail!("x of shape {:?} holds {count} elements", x.shape);
    }
    let rank = x.shape.len();
    let axis = crate::kernels::args::dim(c.arg(2)?.as_int()?, rank)?;
    let size = x.shape.get(axis).copied().unwrap_or(1);
    let inner: usize = x.shape.get(axis + 1..).map_or(1, |s| s.iter().product());
    let y_scale = c.arg(3)?.as_float()?;
    let y_zero_point = c.arg(4)?.as_int()?;
    let (lo, hi) = if signed { (-128, 127) } else { (0, 255) };
    if y_zero_point < lo || y_zero_point > hi {
        bail!("zero point {y_zero_point} is outside {lo}..={hi}");
    }
    if as_uint8 && !signed {
        bail!("only int8 values are computed as uint8");
    }
    // The table and the row maximum see only differences, which the shift keeps.
    let (signed_math, zero_point) = if as_uint8 {
        (false, y_zero_point + 128)
    } else {
        (signed, y_zero_point)
    };
    let k = Kernel::new(
        table(c.arg(1)?.as_float()? as f32, size.max(1)),
        (1.0f32 / y_scale as f32).floor(),
        signed_math,
        zero_point as i32,
        if as_uint8 { 0x80 } else { 0 },
    );
    let out = match &x.data {
        Data::U8(v) => k.softmax(v, size, inner),
        Data::I8(v) => k.softmax(v, size, inner),
        other => bail!("x must hold 8-bit integers, but holds {}", other.dtype()),
    };
    let data = if signed {
        Data::I8(out.into_iter().map(|b| b as i8).collect())
    } else {
        Data::U8(out)
    };
    let mut t = Tensor::new(x.shape.clone(), data)?;
    t.quant = Some(Quant::PerTensor {
        scale: y_scale,
        zero_point: y_zero_point,
    });
    Ok(vec![Value::tensor(t)])
}

/// One QLinearSoftmax's constants: its table, multiplier and output parameters.
struct Kernel {
    exps: [f32; 256],
    multiplier: f32,
    signed: bool,
    zero_point: i32,
    flip: u8,
    /// Where the quotients are plain (see `new`).
    fast: Option<FastRow>,
}

impl Kernel {
    fn new(exps: [f32; 256], multiplier: f32, signed: bool, zero_point: i32, flip: u8) -> Self {
        // When no entry times the multiplier overflows and the multiplier is at most
        // 2^22, a finite positive sum puts every quotient in [0, 2^22]: then the
        // rounding and conversions are plain, and a row vectorizes.
        let fast = (multiplier.is_finite()
            && (0.0..=4_194_304.0).contains(&multiplier)
            && (exps[255] * multiplier).is_finite())
        .then_some(FastRow {
            multiplier,
            zero_point,
            lo: if signed { -128 } else { 0 },
            hi: if signed { 127 } else { 255 },
            flip,
        });
        Kernel {
            exps,
            multiplier,
            signed,
            zero_point,
            flip,
            fast,
        }
    }

    #[inline(always)]
    fn entry(&self, max: i32, v: i32) -> f32 {
        // 8-bit values: `max - v` is in 0..=255.
        self.exps[(255 - (max - v)) as u8 as usize]
    }

    /// The output byte of an entry: steps plus the zero point, in 32-bit arithmetic
    /// that wraps. An entry times the multiplier can overflow float32 (a row of one
    /// element does), and its infinity then converts as `to_i32`/`to_u32` say.
    fn requantize(&self, entry: f32, sum: f32) -> u8 {
        let r = round_half_even(entry * self.multiplier / sum);
        let y = if self.signed {
            to_i32(r).wrapping_add(self.zero_point).clamp(-128, 127)
        } else {
            to_u32(r).wrapping_add(self.zero_point as u32).min(255) as i32
        };
        (y as u8) ^ self.flip
    }

    /// The output bytes (int8 ones as their two's complement) of a softmax over `size`
    /// elements `inner` apart. An element of a row with an empty sum keeps `flip`, the
    /// byte of 0.
    fn softmax<T: Int8>(&self, values: &[T], size: usize, inner: usize) -> Vec<u8> {
        let mut out = vec![self.flip; values.len()];
        if size > 0 && inner == 1 {
            self.last_axis(values, size, &mut out);
        } else if size > 0 && inner > 0 {
            self.inner_axis(values, size, inner, &mut out);
        }
        out
    }

    /// Over the last axis (attention's scores): contiguous rows, in parallel, with the
    /// same sums in the same order as `inner_axis`. Rows go in groups of `ROWS` whose
    /// sums are separate chains: each row is still summed in order, but the chains'
    /// additions overlap instead of each waiting on the one before. Each group runs
    /// compiled for AVX2 where the CPU has it (eight sums are one vector there).
    fn last_axis<T: Int8>(&self, values: &[T], size: usize, out: &mut [u8]) {
        out.par_chunks_mut(size * ROWS)
            .zip(values.par_chunks(size * ROWS))
            .for_each(|(out, rows)| {
                crate::kernels::ops::with_avx2(
                    #[inline(always)]
                    || self.row_group(rows, size, out),
                )
            });
    }

    /// `last_axis` for up to `ROWS` rows of `size`.
    #[inline(always)]
    fn row_group<T: Int8>(&self, rows: &[T], size: usize, out: &mut [u8]) {
        let n = rows.len() / size;
        let mut maxes = [0i32; ROWS];
        for (r, max) in maxes.iter_mut().enumerate().take(n) {
            *max = rows[r * size..(r + 1) * size]
                .iter()
                .map(|v| v.int())
                .max()
                .unwrap_or(0);
        }
        let mut sums = [0.0f32; ROWS];
        if n == ROWS {
            let row: [&[T]; ROWS] = std::array::from_fn(|r| &rows[r * size..][..size]);
            // k walks the eight rows side by side.
            #[allow(clippy::needless_range_loop)]
            for k in 0..size {
                for r in 0..ROWS {
                    sums[r] += self.entry(maxes[r], row[r][k].int());
                }
            }
        } else {
            for r in 0..n {
                sums[r] = rows[r * size..(r + 1) * size]
                    .iter()
                    .fold(0.0f32, |s, &v| s + self.entry(maxes[r], v.int()));
            }
        }
        for r in 0..n {
            if sums[r] == 0.0 {
                continue;
            }
            let row = &rows[r * size..(r + 1) * size];
            let out = &mut out[r * size..(r + 1) * size];
            if let Some(fast) = self.fast.filter(|_| sums[r].is_finite()) {
                if size >= TABLE_ROW {
                    let table = fast.table(&self.exps, sums[r]);
                    for (y, &v) in out.iter_mut().zip(row) {
                        *y = table[(255 - (maxes[r] - v.int())) as u8 as usize];
                    }
                } else {
                    fast.row(&self.exps, maxes[r], row, sums[r], out);
                }
                continue;
            }
            for (y, &v) in out.iter_mut().zip(row) {
                *y = self.requantize(self.entry(maxes[r], v.int()), sums[r]);
            }
        }
    }

    /// Along an inner axis: the columns j of a block are independent, so each step
    /// over k runs across all of them at once (contiguous in j), while every column
    /// still takes its maximum and its sum over k in order, as alone. A block (often
    /// the only one, as in YOLOv8's DFL) is split over the pool twice: by column ranges
    /// for the maxima and sums, then by rows for the outputs.
    fn inner_axis<T: Int8>(&self, values: &[T], size: usize, inner: usize, out: &mut [u8]) {
        const COLUMNS: usize = 1024;
        for (out, block) in out
            .chunks_exact_mut(size * inner)
            .zip(values.chunks_exact(size * inner))
        {
            let starts: Vec<usize> = (0..inner).step_by(COLUMNS).collect();
            let stats: Vec<(Vec<i32>, Vec<f32>)> = starts
                .par_iter()
                .map(|&j0| {
                    let j1 = (j0 + COLUMNS).min(inner);
                    let mut maxes: Vec<i32> = block[j0..j1].iter().map(|v| v.int()).collect();
                    for row in block.chunks_exact(inner).skip(1) {
                        for (m, &v) in maxes.iter_mut().zip(&row[j0..j1]) {
                            *m = (*m).max(v.int());
                        }
                    }
                    let mut sums = vec![0.0f32; j1 - j0];
                    for row in block.chunks_exact(inner) {
                        for ((s, &m), &v) in sums.iter_mut().zip(&maxes).zip(&row[j0..j1]) {
                            *s += self.entry(m, v.int());
                        }
                    }
                    (maxes, sums)
                })
                .collect();
            let maxes: Vec<i32> = stats.iter().flat_map(|(m, _)| m.iter().copied()).collect();
            let sums: Vec<f32> = stats.iter().flat_map(|(_, s)| s.iter().copied()).collect();
            let fast = self
                .fast
                .filter(|_| sums.iter().all(|s| s.is_finite() && *s > 0.0));
            out.par_chunks_mut(inner)
                .zip(block.par_chunks(inner))
                .for_each(|(out, row)| {
                    if let Some(fast) = fast {
                        fast.columns(&self.exps, &maxes, row, &sums, out);
                        return;
                    }
                    for (j, (y, &v)) in out.iter_mut().zip(row).enumerate() {
                        // ONNX Runtime leaves a column with an (impossible) empty sum
                        // unwritten.
                        if sums[j] != 0.0 {
                            *y = self.requantize(self.entry(maxes[j], v.int()), sums[j]);
                        }
                    }
                });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::tensor::tensor_type::TensorType;

    fn run(x: Data, shape: Vec<usize>, x_scale: f64, y_scale: f64, zp: i64) -> Data {
        run_along(x, shape, -1, x_scale, y_scale, zp)
    }

    fn run_along(
        x: Data,
        shape: Vec<usize>,
        axis: i64,
        x_scale: f64,
        y_scale: f64,
        zp: i64,
    ) -> Data {
        let dtype = if matches!(x, Data::I8(_)) {
            DType::QInt8
        } else {
            DType::QUInt8
        };
        let declared = [ResultType::Tensor(TensorType::new(
            dtype,
            shape.iter().map(|&d| Some(d as i64)).collect(),
        ))];
        let args = [
            Value::tensor(Tensor::new(shape, x).unwrap()),
            Value::Float(x_scale),
            Value::Int(axis),
            Value::Float(y_scale),
            Value::Int(zp),
            Value::Int(13),
        ];
        let out = softmax(&Call {
            args: &args,
            results: &declared,
        })
        .unwrap();
        out[0].as_tensor().unwrap().data.clone()
    }

    #[test]
    fn int8_computed_as_uint8_keeps_the_int8_result() {
        // Rows of several elements (no entry overflows): the two paths agree on the
        // bytes and on the result's quantization parameters.
        let x: Vec<i8> = (0..24i32).map(|i| ((i * 71) % 256 - 128) as i8).collect();
        let args = [
            Value::tensor(Tensor::new(vec![4, 6], Data::I8(x)).unwrap()),
            Value::Float(0.05),
            Value::Int(-1),
            Value::Float(1.0 / 256.0),
            Value::Int(-20),
            Value::Int(12),
        ];
        let declared = [ResultType::Tensor(TensorType::new(
            DType::QInt8,
            vec![Some(4), Some(6)],
        ))];
        let call = Call {
            args: &args,
            results: &declared,
        };
        let (signed, shifted) = (softmax(&call).unwrap(), softmax_as_uint8(&call).unwrap());
        let (a, b) = (
            signed[0].as_tensor().unwrap(),
            shifted[0].as_tensor().unwrap(),
        );
        assert_eq!(a.data, b.data);
        assert_eq!(a.quant, b.quant);
    }

    #[test]
    fn the_fast_rounding_is_round_half_even() {
        let mut q = 0.0f32;
        while q < 5.0e6 {
            for v in [q, -q, q + 0.5, -(q + 0.5), q + 0.49999997, q + 0.50000006] {
                assert_eq!(
                    round_half_even(v).to_bits(),
                    v.round_ties_even().to_bits(),
                    "{v}"
                );
            }
            q = q * 1.37 + 0.731;
        }
        for v in [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            4_194_304.5,
            4_194_303.5,
        ] {
            assert_eq!(round_half_even(v), v.round_ties_even(), "{v}");
        }
        assert!(round_half_even(f32::NAN).is_nan());
    }

    #[test]
    fn rows_in_groups_equal_rows_alone() {
        // 9 rows: a group of eight and one alone, each as if computed by itself; rows
        // of 7 divided per element, rows of 300 looked up in their table.
        for size in [7usize, 300] {
            let values: Vec<u8> = (0..9 * size as u32).map(|i| (i * 89 % 253) as u8).collect();
            let all = run(
                Data::U8(values.clone()),
                vec![9, size],
                0.07,
                1.0 / 256.0,
                2,
            );
            let Data::U8(all) = all else { panic!("uint8") };
            for r in 0..9 {
                let row = r * size..(r + 1) * size;
                let one = run(
                    Data::U8(values[row.clone()].to_vec()),
                    vec![1, size],
                    0.07,
                    1.0 / 256.0,
                    2,
                );
                assert_eq!(one, Data::U8(all[row].to_vec()), "size {size} row {r}");
            }
        }
    }

    #[test]
    fn rows_along_the_last_axis_equal_columns_along_the_first() {
        // Rows of 5 divide per element, rows of 300 look their bytes up in a table;
        // columns always divide.
        for size in [5usize, 300] {
            let n = 3 * size;
            let rows: Vec<u8> = (0..n as u32).map(|i| (i * 37 % 251) as u8).collect();
            let columns: Vec<u8> = (0..n).map(|i| rows[(i % 3) * size + i / 3]).collect();
            let by_rows = run(Data::U8(rows), vec![3, size], 0.05, 1.0 / 256.0, 3);
            let by_columns = run_along(Data::U8(columns), vec![size, 3], 0, 0.05, 1.0 / 256.0, 3);
            let (Data::U8(r), Data::U8(c)) = (by_rows, by_columns) else {
                panic!("uint8 results");
            };
            let transposed: Vec<u8> = (0..n).map(|i| r[(i % 3) * size + i / 3]).collect();
            assert_eq!(transposed, c, "size {size}");
        }
    }

    #[test]
    fn softmax_matches_onnx_runtime() {
        // ONNX Runtime 1.31's outputs for these rows.
        let y = run(
            Data::U8(vec![200, 100, 150, 10, 200, 201]),
            vec![2, 3],
            0.02,
            1.0 / 256.0,
            0,
        );
        assert_eq!(y, Data::U8(vec![170, 23, 63, 3, 125, 128]));
        // y_scale 1/255 multiplies by 254.
        let y = run(Data::U8(vec![7, 7]), vec![1, 2], 0.02, 1.0 / 255.0, 0);
        assert_eq!(y, Data::U8(vec![127, 127]));
        // One element: its entry times 256 overflows float32. The infinity converts to
        // 0 for uint8 (leaving the zero point), to i32::MIN for int8, where adding a
        // negative zero point wraps to the top: 100, -128 and 127.
        let y = run(Data::U8(vec![5]), vec![1, 1], 0.02, 1.0 / 256.0, 100);
        assert_eq!(y, Data::U8(vec![100]));
        let y = run(Data::I8(vec![5]), vec![1, 1], 0.02, 1.0 / 256.0, 0);
        assert_eq!(y, Data::I8(vec![-128]));
        let y = run(Data::I8(vec![5]), vec![1, 1], 0.02, 1.0 / 256.0, -128);
        assert_eq!(y, Data::I8(vec![127]));
    }

    #[test]
    fn fast_rows_requantize_as_the_general_path() {
        // Row lengths around the lane count, both signednesses, multipliers 254 and
        // 256 and a large one, zero points at the ends of the range.
        let values: Vec<i8> = crate::kernels::testing::test_bytes(7, 203)
            .iter()
            .map(|&b| (b as i32 - 128) as i8)
            .collect();
        for size in [1usize, 7, 8, 9, 203] {
            let row = &values[..size];
            let max = row.iter().map(|&v| v as i32).max().unwrap_or(0);
            let exps = table(0.037, size);
            let sum = row
                .iter()
                .fold(0.0f32, |s, &v| s + exps[(255 - (max - v as i32)) as usize]);
            for (multiplier, signed, zp) in [
                (254.0f32, false, 0),
                (256.0, false, 255),
                (256.0, true, -128),
                (65535.0, true, 127),
            ] {
                let k = Kernel::new(exps, multiplier, signed, zp, 0);
                let Some(fast) = k.fast else {
                    // `run` takes the general path there (a row of one element).
                    continue;
                };
                let mut got = vec![0u8; size];
                fast.row(&exps, max, row, sum, &mut got);
                let want: Vec<u8> = row
                    .iter()
                    .map(|&v| k.requantize(k.entry(max, v as i32), sum))
                    .collect();
                assert_eq!(got, want, "size {size} multiplier {multiplier} zp {zp}");
                let table = fast.table(&exps, sum);
                let looked_up: Vec<u8> = row
                    .iter()
                    .map(|&v| table[(255 - (max - v as i32)) as u8 as usize])
                    .collect();
                assert_eq!(
                    looked_up, want,
                    "table, size {size} multiplier {multiplier}"
                );
            }
        }
    }

    #[test]
    fn inner_axes_equal_last_axes_block_by_block() {
        // [2, 5, 3] along axis 1: each of the two blocks, transposed, is a [3, 5]
        // softmax along its last axis.
        let x: Vec<u8> = (0..30u32).map(|i| (i * 53 % 241) as u8).collect();
        let Data::U8(along) =
            run_along(Data::U8(x.clone()), vec![2, 5, 3], 1, 0.05, 1.0 / 256.0, 3)
        else {
            panic!("uint8 result");
        };
        for b in 0..2 {
            let block = &x[b * 15..(b + 1) * 15];
            let rows: Vec<u8> = (0..15).map(|i| block[(i % 5) * 3 + i / 5]).collect();
            let Data::U8(last) = run(Data::U8(rows), vec![3, 5], 0.05, 1.0 / 256.0, 3) else {
                panic!("uint8 result");
            };
            let back: Vec<u8> = (0..15).map(|i| last[(i % 3) * 5 + i / 3]).collect();
            assert_eq!(back, &along[b * 15..(b + 1) * 15], "block {b}");
        }
    }
}
