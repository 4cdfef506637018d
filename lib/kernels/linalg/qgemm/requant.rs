//! Requantization of int32 accumulators into 8-bit outputs, run on each tile as it
//! leaves the integer loop. An accumulator first takes its corrections: the row's and
//! column's offsets (bias and zero-point terms known ahead) and the products of a zero
//! point with a sum of the other operand (`Σ (a - za)(b - zb)` expanded). Then it is
//! scaled by one float32 multiplier, rounded half to even, offset by the output zero
//! point and saturated — the same float operations, in the same order, as the
//! reference requantization, so results are identical.

use anyhow::Result;

use super::{MR, NR};
use crate::kernels::tensor::{Data, Quant, Tensor};

/// Terms that are the same along a row of the output.
#[derive(Clone, Copy, Debug, Default)]
pub struct RowTerms {
    pub offset: i32,
    /// Multiplies each column's sum (`ColTerms::sum`), subtracted.
    pub zero: i32,
    /// Multiplied by each column's zero point (`ColTerms::zero`), subtracted.
    pub sum: i32,
    /// Used when the columns have no multipliers of their own.
    pub multiplier: f32,
    /// `Rescale` only: the float added after the multiplier, when the columns have no
    /// bias of their own.
    pub bias: f32,
}

/// Terms that vary along a row: one value per column of the tile (columns past the
/// row's end are computed and dropped).
#[derive(Clone, Copy, Debug, Default)]
pub struct ColTerms<'a> {
    pub offset: Option<&'a [i32; NR]>,
    pub sum: Option<&'a [i32; NR]>,
    pub zero: Option<&'a [i32; NR]>,
    pub multiplier: Option<&'a [f32; NR]>,
    /// `Rescale` only: a float bias per column.
    pub bias: Option<&'a [f32; NR]>,
}

/// What a tile loop writes for each row of accumulators: requantized bytes (`Output`)
/// or rescaled floats (`Rescale`).
pub trait Epilogue: Copy + Send + Sync {
    type Out: Copy + Default + Send + Sync;
    fn row(self, acc: &[i32; NR], r: RowTerms, c: ColTerms, out: &mut [Self::Out]);

    /// `dest.copy_from_slice(&q[j..j + dest.len()])` for a row `row` just staged.
    /// `avx512`: the CPU has AVX-512 (F, BW, VL), whose masked stores write the lanes
    /// straight from the staged halves, read back exactly as they were stored; a
    /// copy's loads at other offsets than the stores' stall on forwarding.
    #[inline(always)]
    fn copy_lanes(q: &[Self::Out; NR], j: usize, dest: &mut [Self::Out], avx512: bool) {
        let _ = avx512;
        small_copy(dest, &q[j..j + dest.len()]);
    }

    /// `MR` staged rows of `NR` outputs into `NR` columns of `MR`: a tile whose rows
    /// are pixels, stored channel by channel.
    #[inline(always)]
    fn transpose(rows: &[[Self::Out; NR]; MR], columns: &mut [[Self::Out; MR]; NR]) {
        transpose_any(rows, columns);
    }

    /// `row` of accumulators still in AVX-512 registers (columns 0-15 and 16-31).
    ///
    /// # Safety
    /// The CPU has avx512f, and the caller is compiled with it (this is inlined).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn row_avx512(
        self,
        acc: [std::arch::x86_64::__m512i; 2],
        r: RowTerms,
        c: ColTerms,
        out: &mut [Self::Out],
    ) {
        let mut a = [0i32; NR];
        // SAFETY: `a` holds 32 i32s, two 64-byte stores; the caller has avx512f.
        unsafe {
            use std::arch::x86_64::_mm512_storeu_si512;
            _mm512_storeu_si512(a.as_mut_ptr() as *mut _, acc[0]);
            _mm512_storeu_si512(a.as_mut_ptr().add(16) as *mut _, acc[1]);
        }
        self.row(&a, r, c, out)
    }
}

impl Epilogue for Output {
    type Out = u8;
    #[inline(always)]
    fn row(self, acc: &[i32; NR], r: RowTerms, c: ColTerms, out: &mut [u8]) {
        row(acc, r, c, self, out)
    }

    #[inline(always)]
    fn copy_lanes(q: &[u8; NR], j: usize, dest: &mut [u8], avx512: bool) {
        #[cfg(target_arch = "x86_64")]
        if avx512 && j + dest.len() <= NR {
            // SAFETY: `avx512` says the CPU has the features; the lanes stored are
            // `dest`'s (the mask holds `dest.len()` bits from bit `j`).
            unsafe { masked::bytes(q, j, dest) };
            return;
        }
        let _ = avx512;
        small_copy(dest, &q[j..j + dest.len()]);
    }

    #[inline(always)]
    fn transpose(rows: &[[u8; NR]; MR], columns: &mut [[u8; MR]; NR]) {
        #[cfg(target_arch = "x86_64")]
        transpose_bytes(rows, columns);
        #[cfg(not(target_arch = "x86_64"))]
        transpose_any(rows, columns);
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn row_avx512(
        self,
        acc: [std::arch::x86_64::__m512i; 2],
        r: RowTerms,
        c: ColTerms,
        out: &mut [u8],
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { registers::requantize(self, acc, r, c, out) }
    }
}

/// `Epilogue::transpose` element by element.
#[inline(always)]
fn transpose_any<T: Copy>(rows: &[[T; NR]; MR], columns: &mut [[T; MR]; NR]) {
    for (j, column) in columns.iter_mut().enumerate() {
        for (r, v) in column.iter_mut().enumerate() {
            *v = rows[r][j];
        }
    }
}

/// `Epilogue::transpose` for bytes as four 8×8 transposes of SSE2 interleaves (a
/// byte insert per output was most of the indirect convolution's epilogue).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn transpose_bytes(rows: &[[u8; NR]; MR], out: &mut [[u8; MR]; NR]) {
    use std::arch::x86_64::*;
    const _: () = assert!(MR == 8 && NR == 32);
    for block in 0..NR / 8 {
        // SAFETY: SSE2 is part of x86-64; every load reads 8 bytes of a row at
        // `8·block`, inside its 32, and every store 16 bytes, two of `out`'s columns.
        unsafe {
            let x: [__m128i; MR] = std::array::from_fn(|r| {
                _mm_loadl_epi64(rows[r].as_ptr().add(8 * block) as *const __m128i)
            });
            // Pairs of rows byte by byte, then pairs of pairs, then quads of rows:
            // each step doubles the rows a column's run holds.
            let a = [
                _mm_unpacklo_epi8(x[0], x[1]),
                _mm_unpacklo_epi8(x[2], x[3]),
                _mm_unpacklo_epi8(x[4], x[5]),
                _mm_unpacklo_epi8(x[6], x[7]),
            ];
            let b = [
                _mm_unpacklo_epi16(a[0], a[1]),
                _mm_unpackhi_epi16(a[0], a[1]),
                _mm_unpacklo_epi16(a[2], a[3]),
                _mm_unpackhi_epi16(a[2], a[3]),
            ];
            let c = [
                _mm_unpacklo_epi32(b[0], b[2]),
                _mm_unpackhi_epi32(b[0], b[2]),
                _mm_unpacklo_epi32(b[1], b[3]),
                _mm_unpackhi_epi32(b[1], b[3]),
            ];
            for (i, v) in c.iter().enumerate() {
                _mm_storeu_si128(out.as_mut_ptr().add(8 * block + 2 * i) as *mut __m128i, *v);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod registers;

#[cfg(target_arch = "x86_64")]
mod masked {
    use std::arch::x86_64::*;

    use super::NR;

    /// The bits of lanes `j..j + n` of a 32-lane row.
    fn lanes(j: usize, n: usize) -> u32 {
        let ones = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
        // No lanes from 32 on (an empty run there), rather than an overflowing shift.
        ones.checked_shl(j as u32).unwrap_or(0)
    }

    /// # Safety
    /// avx512f, avx512bw and avx512vl are available, and `j + dest.len() <= NR`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) unsafe fn bytes(q: &[u8; NR], j: usize, dest: &mut [u8]) {
        const _: () = assert!(NR == 32);
        let mask = lanes(j, dest.len());
        // The row's lane 0 would sit `j` bytes before `dest`; only the masked lanes,
        // all inside `dest`, are written (masked-off lanes neither write nor fault).
        let base = dest.as_mut_ptr().wrapping_sub(j);
        // SAFETY: `q` holds 32 bytes; the stores write `dest`'s bytes only.
        unsafe {
            let lo = _mm_loadu_si128(q.as_ptr() as *const __m128i);
            let hi = _mm_loadu_si128(q.as_ptr().add(16) as *const __m128i);
            _mm_mask_storeu_epi8(base as *mut i8, mask as __mmask16, lo);
            _mm_mask_storeu_epi8(
                base.wrapping_add(16) as *mut i8,
                (mask >> 16) as __mmask16,
                hi,
            );
        }
    }

    /// As `bytes`, for f32 lanes.
    ///
    /// # Safety
    /// avx512f is available, and `j + dest.len() <= NR`.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn floats(q: &[f32; NR], j: usize, dest: &mut [f32]) {
        let mask = lanes(j, dest.len());
        let base = dest.as_mut_ptr().wrapping_sub(j);
        // SAFETY: as in `bytes`.
        unsafe {
            let lo = _mm512_loadu_ps(q.as_ptr());
            let hi = _mm512_loadu_ps(q.as_ptr().add(16));
            _mm512_mask_storeu_ps(base, mask as __mmask16, lo);
            _mm512_mask_storeu_ps(base.wrapping_add(16), (mask >> 16) as __mmask16, hi);
        }
    }
}

/// Dynamic quantization's float result: each corrected accumulator converted to f32,
/// times its multiplier `x_scale·w_scale`, plus the bias when there is one — the
/// Cast, Mul and Add of the model, in that order, in float32. Without a bias nothing
/// is added (adding 0.0 would turn a -0.0 into +0.0).
#[derive(Clone, Copy, Debug)]
pub struct Rescale {
    pub bias: bool,
}

impl Epilogue for Rescale {
    type Out = f32;
    #[inline(always)]
    fn row(self, acc: &[i32; NR], r: RowTerms, c: ColTerms, out: &mut [f32]) {
        // The columns' terms together: a loop of the offsets alone vectorized badly
        // here (dynamic 128x256x1024 0.19 -> 0.22 ms).
        const COLUMNS: u8 = COLUMN_OFFSETS | COLUMN_ZEROS;
        match terms(r, &c) {
            0 => self.row_with::<0>(acc, r, c, out),
            ROW_ZERO => self.row_with::<ROW_ZERO>(acc, r, c, out),
            t if t & ROW_ZERO == 0 => self.row_with::<COLUMNS>(acc, r, c, out),
            _ => self.row_with::<ALL_TERMS>(acc, r, c, out),
        }
    }

    #[inline(always)]
    fn copy_lanes(q: &[f32; NR], j: usize, dest: &mut [f32], avx512: bool) {
        #[cfg(target_arch = "x86_64")]
        if avx512 && j + dest.len() <= NR {
            // SAFETY: as in `Output::copy_lanes`.
            unsafe { masked::floats(q, j, dest) };
            return;
        }
        let _ = avx512;
        small_copy(dest, &q[j..j + dest.len()]);
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn row_avx512(
        self,
        acc: [std::arch::x86_64::__m512i; 2],
        r: RowTerms,
        c: ColTerms,
        out: &mut [f32],
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { registers::rescale(self, acc, r, c, out) }
    }
}

impl Rescale {
    #[inline(always)]
    fn row_with<const TERMS: u8>(self, acc: &[i32; NR], r: RowTerms, c: ColTerms, out: &mut [f32]) {
        let splat = [r.multiplier; NR];
        let bias_splat = [r.bias; NR];
        let terms = Terms {
            columns: Columns::of(&c, &splat),
            bias: self.bias.then(|| c.bias.unwrap_or(&bias_splat)),
        };
        // In place when whole, as for bytes: a staged row would be read back by wider
        // loads than its stores, which the CPU cannot forward and stalls on.
        match out.first_chunk_mut::<NR>() {
            Some(whole) => rescaled::<TERMS>(whole, acc, r, &terms),
            None => {
                let mut f = [0f32; NR];
                rescaled::<TERMS>(&mut f, acc, r, &terms);
                small_copy(out, &f);
            }
        }
    }
}

/// The column terms of a row, absent ones as zeros (multipliers: the row's).
struct Columns<'a> {
    offset: &'a [i32; NR],
    sum: &'a [i32; NR],
    zero: &'a [i32; NR],
    m: &'a [f32; NR],
}

impl<'a> Columns<'a> {
    #[inline(always)]
    fn of(c: &ColTerms<'a>, splat: &'a [f32; NR]) -> Columns<'a> {
        const ZEROS: [i32; NR] = [0; NR];
        Columns {
            offset: c.offset.unwrap_or(&ZEROS),
            sum: c.sum.unwrap_or(&ZEROS),
            zero: c.zero.unwrap_or(&ZEROS),
            m: c.multiplier.unwrap_or(splat),
        }
    }

    /// Lane `j`'s accumulator with the row's and columns' corrections present in
    /// `TERMS` (see `terms`).
    #[inline(always)]
    fn corrected<const TERMS: u8>(&self, acc: i32, r: RowTerms, j: usize) -> i32 {
        let mut v = acc.wrapping_add(r.offset);
        if TERMS & ROW_ZERO != 0 {
            v = v.wrapping_sub(r.zero.wrapping_mul(self.sum[j]));
        }
        if TERMS & COLUMN_OFFSETS != 0 {
            v = v.wrapping_add(self.offset[j]);
        }
        if TERMS & COLUMN_ZEROS != 0 {
            v = v.wrapping_sub(self.zero[j].wrapping_mul(r.sum));
        }
        v
    }
}

/// `terms` bits: the row's zero point times each column's sum; the columns' offsets;
/// each column's zero point times the row's sum.
const ROW_ZERO: u8 = 1;
const COLUMN_OFFSETS: u8 = 2;
const COLUMN_ZEROS: u8 = 4;
/// Every term, absent ones read as zeros: the rare mixes share one loop.
const ALL_TERMS: u8 = ROW_ZERO | COLUMN_OFFSETS | COLUMN_ZEROS;

/// Which corrections a row takes. Loops are specialised for none, the row's zero
/// point alone, and the columns' offsets alone (symmetric weights: a multiply by a
/// column of zeros cost a `vpmulld` per vector there); more loops made the callers
/// slower (a 1x1 convolution 0.44 -> 0.58 ms with all eight inlined).
#[inline(always)]
fn terms(r: RowTerms, c: &ColTerms) -> u8 {
    let mut t = 0;
    if r.zero != 0 && c.sum.is_some() {
        t |= ROW_ZERO;
    }
    if c.offset.is_some() {
        t |= COLUMN_OFFSETS;
    }
    if r.sum != 0 && c.zero.is_some() {
        t |= COLUMN_ZEROS;
    }
    t
}

/// `Rescale`'s terms.
struct Terms<'a> {
    columns: Columns<'a>,
    bias: Option<&'a [f32; NR]>,
}

/// Each accumulator with the row's and columns' corrections, as f32, times its
/// multiplier, plus its bias.
#[inline(always)]
fn rescaled<const TERMS: u8>(f: &mut [f32; NR], acc: &[i32; NR], r: RowTerms, t: &Terms) {
    let c = &t.columns;
    for j in 0..NR {
        f[j] = c.corrected::<TERMS>(acc[j], r, j) as f32 * c.m[j];
    }
    if let Some(b) = t.bias {
        for j in 0..NR {
            f[j] += b[j];
        }
    }
}

/// The output's zero point and type.
#[derive(Clone, Copy, Debug)]
pub struct Output {
    pub zero_point: i32,
    pub signed: bool,
}

impl Output {
    /// `None` for a zero point outside the type's range, which `row`'s rounding does
    /// not cover (the reference kernel handles it).
    pub fn new(zero_point: i64, signed: bool) -> Option<Output> {
        let (lo, hi) = if signed { (-128, 127) } else { (0, 255) };
        (lo..=hi).contains(&zero_point).then_some(Output {
            zero_point: zero_point as i32,
            signed,
        })
    }

    /// The tensor of the bytes `row` wrote, of this output's type; quantized per
    /// tensor with `scale` and the zero point when given a scale.
    pub fn tensor(self, shape: Vec<usize>, bytes: Vec<u8>, scale: Option<f32>) -> Result<Tensor> {
        let data = if self.signed {
            Data::I8(bytes.into_iter().map(|b| b as i8).collect())
        } else {
            Data::U8(bytes)
        };
        let mut t = Tensor::new(shape, data)?;
        t.quant = scale.map(|scale| Quant::PerTensor {
            scale: scale as f64,
            zero_point: self.zero_point as i64,
        });
        Ok(t)
    }

    fn range(self) -> (i32, i32) {
        if self.signed { (-128, 127) } else { (0, 255) }
    }
}

/// Writes `out.len()` (at most `NR`) outputs, the bytes of u8 or i8 values, from the
/// accumulators `acc`. Multipliers must be finite (the callers check): then no NaN
/// arises, and min/max clamp exactly as `f32::clamp` would. Inlined into each
/// instruction set's caller, where the fixed-length loops vectorize.
#[inline(always)]
pub fn row(acc: &[i32; NR], r: RowTerms, c: ColTerms, y: Output, out: &mut [u8]) {
    match terms(r, &c) {
        0 => row_with::<0>(acc, r, c, y, out),
        ROW_ZERO => row_with::<ROW_ZERO>(acc, r, c, y, out),
        COLUMN_OFFSETS => row_with::<COLUMN_OFFSETS>(acc, r, c, y, out),
        _ => row_with::<ALL_TERMS>(acc, r, c, y, out),
    }
}

#[inline(always)]
fn row_with<const TERMS: u8>(acc: &[i32; NR], r: RowTerms, c: ColTerms, y: Output, out: &mut [u8]) {
    let splat = [r.multiplier; NR];
    let (lo, hi) = y.range();
    let zp = y.zero_point;
    let lanes = Lanes {
        columns: Columns::of(&c, &splat),
        flo: (lo - zp) as f32,
        fhi: (hi - zp) as f32,
        zp,
    };
    // A whole row is written in place: staged on the stack, its narrowing stores
    // would be read back by one wider load, which the CPU cannot forward from them and
    // stalls on. A short row is staged, then copied with fixed-size moves (a libc call
    // per short row costs more than the arithmetic).
    match out.first_chunk_mut::<NR>() {
        Some(whole) => requantized::<TERMS>(whole, acc, r, &lanes),
        None => {
            let mut q = [0u8; NR];
            requantized::<TERMS>(&mut q, acc, r, &lanes);
            small_copy(out, &q);
        }
    }
}

/// The column terms, output range less the zero point, and zero point `requantized`
/// reads.
struct Lanes<'a> {
    columns: Columns<'a>,
    flo: f32,
    fhi: f32,
    zp: i32,
}

#[inline(always)]
fn requantized<const TERMS: u8>(q: &mut [u8; NR], acc: &[i32; NR], r: RowTerms, l: &Lanes) {
    // Clamping before rounding to integer bounds equals clamping after it. Within
    // ±2^22, adding 1.5·2^23 rounds to an integer, half to even as `round_ties_even`,
    // and leaves it in the low mantissa bits.
    const MAGIC: f32 = 12_582_912.0;
    let c = &l.columns;
    for j in 0..NR {
        let v = c.corrected::<TERMS>(acc[j], r, j);
        // Compare-and-select rather than f32::max/min, whose NaN rules cost two more
        // instructions per vector: no NaN arises here (multipliers are finite).
        let f = v as f32 * c.m[j];
        let f = if f < l.flo { l.flo } else { f };
        let f = if f > l.fhi { l.fhi } else { f };
        let rounded = ((f + MAGIC).to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32);
        // f lies in [lo - zp, hi - zp], whose ends are integers, so its rounding does
        // too and `rounded + zp` is already in [lo, hi]: no second clamp.
        q[j] = (rounded + l.zp) as u8;
    }
}

/// `dst.copy_from_slice(src)` for short rows (a tile's last columns, im2col's runs),
/// as fixed-size moves overlapping at the end rather than a libc call each.
#[inline(always)]
pub fn small_copy<T: Copy>(dst: &mut [T], src: &[T]) {
    let n = dst.len().min(src.len());
    let (dst, src) = (&mut dst[..n], &src[..n]);
    if n >= 16 {
        let (whole, _) = dst.as_chunks_mut::<16>();
        for (d, s) in whole.iter_mut().zip(src.as_chunks::<16>().0) {
            *d = *s;
        }
        if let (Some(d), Some(s)) = (dst.last_chunk_mut::<16>(), src.last_chunk::<16>()) {
            *d = *s;
        }
    } else if n >= 8 {
        if let (Some(d), Some(s)) = (dst.first_chunk_mut::<8>(), src.first_chunk::<8>()) {
            *d = *s;
        }
        if let (Some(d), Some(s)) = (dst.last_chunk_mut::<8>(), src.last_chunk::<8>()) {
            *d = *s;
        }
    } else {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = *s;
        }
    }
}

/// Whether every multiplier is finite, which `row` needs.
pub fn finite(multipliers: &[f32]) -> bool {
    multipliers.iter().all(|m| m.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_tiles_transpose_as_element_by_element() {
        let rows: [[u8; NR]; MR] =
            std::array::from_fn(|r| std::array::from_fn(|j| (r * NR + j) as u8));
        let (mut fast, mut plain) = ([[0u8; MR]; NR], [[1u8; MR]; NR]);
        Output::transpose(&rows, &mut fast);
        transpose_any(&rows, &mut plain);
        assert_eq!(fast, plain);
        assert_eq!(plain[5][3], rows[3][5]);
    }

    #[test]
    fn copy_lanes_writes_exactly_the_lanes_asked_for() {
        let avx512 = crate::kernels::isa::Isa::Avx512Vnni.available();
        let q: [u8; NR] = std::array::from_fn(|k| k as u8 + 1);
        let f: [f32; NR] = std::array::from_fn(|k| k as f32 + 0.5);
        for j in 0..NR {
            for n in 0..=NR - j {
                for fast in [false, avx512] {
                    let mut out = [0u8; NR + 2];
                    Output::copy_lanes(&q, j, &mut out[1..1 + n], fast);
                    assert_eq!(&out[1..1 + n], &q[j..j + n], "j {j} n {n}");
                    assert!(out[..1].iter().chain(&out[1 + n..]).all(|&v| v == 0));
                    let mut out = [0f32; NR + 2];
                    Rescale::copy_lanes(&f, j, &mut out[1..1 + n], fast);
                    assert_eq!(&out[1..1 + n], &f[j..j + n], "j {j} n {n}");
                    assert!(out[..1].iter().chain(&out[1 + n..]).all(|&v| v == 0.0));
                }
            }
        }
    }

    /// The reference requantization (`kernels::qlinear`): round, add, then clamp.
    fn reference(acc: i32, m: f32, zp: i32, lo: i64, hi: i64) -> i64 {
        ((acc as f32 * m).round_ties_even() as i64)
            .saturating_add(zp as i64)
            .clamp(lo, hi)
    }

    #[test]
    fn matches_round_then_clamp_on_ties_extremes_and_nan() {
        let mut accs = [0i32; NR];
        let some = [
            0,
            1,
            -1,
            3,
            5,
            -5,
            255,
            256,
            -300,
            i32::MAX,
            i32::MIN,
            1 << 24,
        ];
        accs[..some.len()].copy_from_slice(&some);
        for m in [0.5f32, 1.0, 0.25, 1e-7, 3e9, f32::MAX] {
            for (signed, lo, hi) in [(false, 0, 255), (true, -128, 127)] {
                for zp in [0, 3, 100, -7] {
                    let mut out = vec![0u8; accs.len()];
                    let y = Output {
                        zero_point: zp,
                        signed,
                    };
                    let r = RowTerms {
                        multiplier: m,
                        ..Default::default()
                    };
                    row(&accs, r, ColTerms::default(), y, &mut out);
                    for (&a, &o) in accs.iter().zip(&out) {
                        let got = if signed { o as i8 as i64 } else { o as i64 };
                        assert_eq!(got, reference(a, m, zp, lo, hi), "acc {a} m {m} zp {zp}");
                    }
                }
            }
        }
    }

    #[test]
    fn corrections_expand_the_zero_point_product() {
        // Σ (a - 2)(b - 3) over a = [5, 1], b = [4, 7]: 3·1 + (-1)·4 = -1, from the raw
        // Σ ab = 27 with a-sum 6, b-sum 11 and K = 2: 27 - 2·11 - 3·6 + 2·2·3 = -1.
        let mut out = [0u8; 1];
        let r = RowTerms {
            offset: 2 * 2 * 3,
            zero: 2,
            sum: 6,
            multiplier: 1.0,
            bias: 0.0,
        };
        let c = ColTerms::default();
        let y = Output {
            zero_point: 10,
            signed: false,
        };
        let (mut acc, mut sum, mut zero) = ([0; NR], [0; NR], [0; NR]);
        (acc[0], sum[0], zero[0]) = (27, 11, 3);
        let c = ColTerms {
            sum: Some(&sum),
            zero: Some(&zero),
            ..c
        };
        row(&acc, r, c, y, &mut out);
        assert_eq!(out, [9]);
    }
}
