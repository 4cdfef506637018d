//! im2col from a channels-last copy of the input, for convolutions whose weights are
//! packed tap-major (`ConvWeights::channels_last`: K ordered kernel tap, then input
//! channel, with channels per group a multiple of 4). A quad of K is then four
//! channels of one tap: one 32-bit word of the copy, so each panel quad is NR word
//! loads, one per pixel, wherever the tap lands (on AVX-512, 16×16 word transposes of
//! the pixels' words). The tap-row im2col instead builds a
//! row per tap out of runs along output rows and interleaves four rows a quad: short
//! output rows (YOLOv8n's 10x10 and 20x20 layers) made it most of the convolution.

use rayon::prelude::*;

use super::super::qgemm::requant::Epilogue;
use super::super::qgemm::{self, NR};
use super::Job;
use super::gemm::Target;
use super::geometry::Shape;
use crate::kernels::isa::Isa;
use crate::kernels::tensor::bounded_bytes;
use crate::kernels::tensor::dtype::DType;

/// The input as words of four channels: per (batch, group), per input position
/// (depth, row, column), the group's channels in order, `cq` words. Past the last
/// position, `cq` words of the zero point: where a tap falls in the padding, its
/// pixel reads them.
pub(super) struct ChannelsLast {
    words: Vec<u32>,
    /// Words per position: channels per group / 4.
    pub(super) cq: usize,
}

/// Positions one transposing task takes.
const TASK_POSITIONS: usize = 4096;

/// Input bytes from which a single (batch, group)'s copy is split over the threads.
const MIN_SPLIT_BYTES: usize = 64 << 10;

impl ChannelsLast {
    /// `None` when the copy would exceed the tensor budget, the channels per group
    /// are not whole words, or `x` does not hold the shape's bytes.
    pub(super) fn new(
        isa: Isa,
        s: &Shape,
        groups: usize,
        x: &[u8],
        zero: u8,
    ) -> Option<ChannelsLast> {
        let cg = s.c_in / groups.max(1);
        if cg == 0 || !cg.is_multiple_of(4) {
            return None;
        }
        let cq = cg / 4;
        let positions: usize = s.input.iter().product();
        if positions == 0 {
            return None;
        }
        let units = s.batch.checked_mul(groups)?;
        if units.checked_mul(cg)?.checked_mul(positions)? != x.len() {
            return None;
        }
        bounded_bytes(&[units * positions + 1, cg], DType::U8).ok()?;
        let mut words = vec![0u32; (units * positions + 1) * cq];
        let (body, pad) = words.split_at_mut(units * positions * cq);
        pad.fill(u32::from_le_bytes([zero; 4]));
        // At least a task per thread when the copy is large enough to be worth it:
        // ResNet-18's 56x56 layers (3136 positions of 64 channels, about 55 us) were
        // one task, which the second core waited out.
        let threads = rayon::current_num_threads();
        let split = if units == 1 && positions * cg >= MIN_SPLIT_BYTES {
            positions.div_ceil(threads)
        } else {
            positions
        };
        let task = TASK_POSITIONS.min(split).max(1);
        // Each task: positions `first..first + n` of one (batch, group) unit, all words.
        body.par_chunks_mut(positions * cq)
            .zip(x.par_chunks(cg * positions))
            .for_each(|(unit, planes)| {
                unit.par_chunks_mut(task * cq)
                    .enumerate()
                    .for_each(|(chunk, dst)| {
                        to_words(isa, planes, positions, chunk * task, cq, dst)
                    });
            });
        Some(ChannelsLast { words, cq })
    }

    /// Where the zero-point words start.
    pub(super) fn padding(&self) -> usize {
        self.words.len() - self.cq
    }

    /// The words as bytes, each word's channels in order.
    pub(super) fn bytes(&self) -> &[u8] {
        // SAFETY: any u32's memory is 4 initialized bytes; the length is in bytes.
        unsafe {
            std::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.words.len() * 4)
        }
    }
}

impl<E: Epilogue> Job<'_, E> {
    /// im2col of pixels `first..first+count` of batch `b`, group `g`, from `cl`: per
    /// panel, per tap, where each of the panel's pixels reads it (its words, or the
    /// zero point's), then a quad row of NR words per word of the tap. Columns past
    /// `count` read the zero point. With `need_sums`, also each column's sum.
    #[inline(always)]
    pub(super) fn pack_channels_last(
        &self,
        cl: &ChannelsLast,
        (b, g): (usize, usize),
        (first, count): (usize, usize),
        target: Target,
        need_sums: bool,
    ) {
        let s = self.s;
        let [id, ih, iw] = s.input;
        let [kd, kh, kw] = s.kernel;
        let cq = cl.cq;
        let kq = qgemm::quads(self.w.k);
        let base = (b * self.w.groups + g) * id * ih * iw * cq;
        let pad = cl.padding();
        let span = s.reach();
        // Whether input coordinate `v` of dimension `d` is inside the input, and the
        // words from the unit's first position to position `p`. Wrapping: a tap's
        // offset can lie far past the input (dilation up to 2^31), and its shift is
        // then read by no pixel.
        let within = |d: usize, v: isize| (0..s.input[d] as isize).contains(&v);
        let words_to = |p: [isize; 3]| {
            p[0].wrapping_mul(ih as isize)
                .wrapping_add(p[1])
                .wrapping_mul(iw as isize)
                .wrapping_add(p[2])
                .wrapping_mul(cq as isize)
        };
        let Target { panels, sums, .. } = target;
        let width = sums.len();
        // Panels wholly past `count` are never multiplied.
        for (p, panel) in panels
            .chunks_exact_mut(kq * NR * 4)
            .take((width / NR).min(count.div_ceil(NR)))
            .enumerate()
        {
            // Each column's input origin (depth, row, column, before the taps'
            // offsets). Columns whose every tap lands inside the input find a tap's
            // words at `home + tap offset`; the others (near the padding, and columns
            // past the block's pixels) are checked tap by tap.
            let mut origin = [[0isize; 3]; NR];
            let mut home = [0isize; NR];
            let mut inside = [false; NR];
            let mut border = [0usize; NR];
            let mut borders = 0;
            // The first column's output coordinates, then a step along the row per
            // column (a division per column cost more than the rest of the panel).
            let mut at = s.output_at(first + p * NR);
            for j in 0..NR.min(count.saturating_sub(p * NR)) {
                if j > 0 {
                    s.next_output(&mut at);
                }
                let o = s.window_origin(at);
                origin[j] = o;
                if (0..3).all(|d| within(d, o[d]) && within(d, o[d] + span[d])) {
                    inside[j] = true;
                    home[j] = base as isize + words_to(o);
                } else {
                    border[borders] = j;
                    borders += 1;
                }
            }
            let mut tap = 0;
            for a in 0..kd {
                for c in 0..kh {
                    for e in 0..kw {
                        let offset = [
                            (a * s.dilation[0]) as isize,
                            (c * s.dilation[1]) as isize,
                            (e * s.dilation[2]) as isize,
                        ];
                        let shift = words_to(offset);
                        let mut at = [pad; NR];
                        for j in 0..NR {
                            if inside[j] {
                                at[j] = (home[j] + shift) as usize;
                            }
                        }
                        for &j in &border[..borders] {
                            let t: [isize; 3] = std::array::from_fn(|d| origin[j][d] + offset[d]);
                            if (0..3).all(|d| within(d, t[d])) {
                                at[j] = (base as isize + words_to(t)) as usize;
                            }
                        }
                        let rows = &mut panel[tap * cq * NR * 4..][..cq * NR * 4];
                        tap_rows(self.isa, &cl.words, &at, cq, rows);
                        tap += 1;
                    }
                }
            }
            if need_sums {
                let sums = &mut sums[p * NR..][..NR];
                sums.fill(0);
                for row in panel.chunks_exact(NR * 4) {
                    for (sum, word) in sums.iter_mut().zip(row.chunks_exact(4)) {
                        *sum += word.iter().map(|&v| v as i32).sum::<i32>();
                    }
                }
            }
        }
    }
}

/// Positions `first..first + dst.len() / cq` of `planes` (4·cq planes of `positions`
/// bytes) as words: `dst[p·cq + j]` holds channels 4j..4j+4 of position first + p.
#[inline(always)]
fn to_words(isa: Isa, planes: &[u8], positions: usize, first: usize, cq: usize, dst: &mut [u32]) {
    let n = dst.len() / cq;
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx512Vnni
        && isa.available()
        && planes.len() == 4 * cq * positions
        && first + n <= positions
    {
        // SAFETY: the CPU has AVX-512; the planes hold positions first..first + n
        // (checked just above) and `dst` n·cq words.
        return unsafe { to_words_avx512(planes, positions, first, cq, dst) };
    }
    for j in 0..cq {
        let plane = |c: usize| &planes[(4 * j + c) * positions + first..][..n];
        let (r0, r1, r2, r3) = (plane(0), plane(1), plane(2), plane(3));
        for (p, w) in dst.iter_mut().skip(j).step_by(cq).enumerate() {
            *w = u32::from_le_bytes([r0[p], r1[p], r2[p], r3[p]]);
        }
    }
}

/// `to_words` on blocks of 16 positions and 16 words: the four planes of each word
/// widened and merged into a register of its 16 positions, the 16 registers
/// transposed, and each result (one position's words) stored whole.
///
/// # Safety
/// The CPU has AVX-512 (F, BW and VL); `planes` holds 4·cq planes of `positions` bytes,
/// `first + dst.len() / cq <= positions`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn to_words_avx512(
    planes: &[u8],
    positions: usize,
    first: usize,
    cq: usize,
    dst: &mut [u32],
) {
    use std::arch::x86_64::*;
    let n = dst.len() / cq;
    let mut p0 = 0;
    while p0 < n {
        let np = (n - p0).min(16);
        let bytes: __mmask16 = (u32::MAX >> (32 - np)) as u16;
        let mut j0 = 0;
        while j0 < cq {
            let nj = (cq - j0).min(16);
            let mut r = [_mm512_setzero_si512(); 16];
            for (i, r) in r.iter_mut().take(nj).enumerate() {
                let mut v = _mm512_setzero_si512();
                for c in 0..4 {
                    // SAFETY: plane 4(j0 + i) + c, bytes first + p0 .. + np, is inside
                    // `planes`.
                    let b = unsafe {
                        let at = planes
                            .as_ptr()
                            .add((4 * (j0 + i) + c) * positions + first + p0);
                        _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(bytes, at as *const i8))
                    };
                    v = _mm512_or_si512(v, _mm512_sllv_epi32(b, _mm512_set1_epi32(8 * c as i32)));
                }
                *r = v;
            }
            let t = transpose(r);
            let words: __mmask16 = (u32::MAX >> (32 - nj)) as u16;
            for (p, v) in t.iter().take(np).enumerate() {
                // SAFETY: words j0 .. j0 + nj of position p0 + p < n, inside `dst`.
                unsafe {
                    let at = dst.as_mut_ptr().add((p0 + p) * cq + j0);
                    _mm512_mask_storeu_epi32(at as *mut i32, words, *v)
                };
            }
            j0 += nj;
        }
        p0 += np;
    }
}

/// The quad rows of one tap: row `j` holds word `j` of each pixel's `cq` words, which
/// start at `at[pixel]` in `words`.
#[inline(always)]
fn tap_rows(isa: Isa, words: &[u32], at: &[usize; NR], cq: usize, rows: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx512Vnni
        && isa.available()
        && cq >= 4
        && rows.len() == cq * NR * 4
        && at
            .iter()
            .all(|&a| a.checked_add(cq).is_some_and(|e| e <= words.len()))
    {
        // SAFETY: the CPU has AVX-512F; every pixel's words are in bounds and `rows`
        // holds `cq` rows of NR words (both checked just above).
        return unsafe { tap_rows_avx512(words, at, cq, rows) };
    }
    // Row by row: NR loads and one row each. (Pixel by pixel, the strided
    // stores became scatters.)
    for (j, row) in rows.chunks_exact_mut(NR * 4).enumerate() {
        for (dst, &at) in row.chunks_exact_mut(4).zip(at) {
            dst.copy_from_slice(&words[at + j].to_le_bytes());
        }
    }
}

/// `tap_rows` 16 words and 16 pixels at a time: each pixel's next 16 words (fewer,
/// masked, at the end) as one register, the 16 registers transposed, and each result
/// 16 words of a row.
///
/// # Safety
/// The CPU has AVX-512F; `words[at[p]..at[p] + cq]` is in bounds for every pixel p,
/// and `rows` is `cq` rows of `NR` words.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn tap_rows_avx512(words: &[u32], at: &[usize; NR], cq: usize, rows: &mut [u8]) {
    use std::arch::x86_64::*;
    let mut j = 0;
    while j < cq {
        let n = (cq - j).min(16);
        let mask: __mmask16 = (u32::MAX >> (32 - n)) as u16;
        for half in 0..NR / 16 {
            let mut r = [_mm512_setzero_si512(); 16];
            for (p, r) in r.iter_mut().enumerate() {
                let at = at[half * 16 + p] + j;
                // SAFETY: words at .. at + n lie inside the pixel's words.
                *r =
                    unsafe { _mm512_maskz_loadu_epi32(mask, words.as_ptr().add(at) as *const i32) };
            }
            let t = transpose(r);
            for (i, v) in t.iter().take(n).enumerate() {
                // SAFETY: row j + i < cq of `rows`, words 16·half.. 16·half + 16 of it.
                unsafe {
                    let dst = rows.as_mut_ptr().add((j + i) * NR * 4 + half * 64);
                    _mm512_storeu_si512(dst as *mut _, *v)
                };
            }
        }
        j += n;
    }
}

/// The 16×16 transpose of 32-bit elements: result i holds element i of every input.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn transpose(r: [std::arch::x86_64::__m512i; 16]) -> [std::arch::x86_64::__m512i; 16] {
    use std::arch::x86_64::*;
    // Pairs of rows interleaved by element, then by pairs of elements: in each
    // 128-bit lane L, u[4i + c] holds rows 4i..4i+4 at element 4L + c.
    let mut t = [_mm512_setzero_si512(); 16];
    for i in (0..16).step_by(2) {
        t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
    }
    let mut u = [_mm512_setzero_si512(); 16];
    for g in (0..16).step_by(4) {
        u[g] = _mm512_unpacklo_epi64(t[g], t[g + 2]);
        u[g + 1] = _mm512_unpackhi_epi64(t[g], t[g + 2]);
        u[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
        u[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
    }
    // Then the lanes: element 4L + c gathers lane L of u[c], u[4 + c], u[8 + c] and
    // u[12 + c].
    let mut out = [_mm512_setzero_si512(); 16];
    for c in 0..4 {
        let v1 = _mm512_shuffle_i32x4::<0x88>(u[c], u[4 + c]);
        let v2 = _mm512_shuffle_i32x4::<0xDD>(u[c], u[4 + c]);
        let w1 = _mm512_shuffle_i32x4::<0x88>(u[8 + c], u[12 + c]);
        let w2 = _mm512_shuffle_i32x4::<0xDD>(u[8 + c], u[12 + c]);
        out[c] = _mm512_shuffle_i32x4::<0x88>(v1, w1);
        out[8 + c] = _mm512_shuffle_i32x4::<0xDD>(v1, w1);
        out[4 + c] = _mm512_shuffle_i32x4::<0x88>(v2, w2);
        out[12 + c] = _mm512_shuffle_i32x4::<0xDD>(v2, w2);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_hold_four_channels_of_a_position_on_every_path() {
        // Word counts below, at and past 16; position runs below and past 16.
        for (cq, positions, first, n) in [
            (1usize, 5usize, 0usize, 5usize),
            (3, 40, 7, 33),
            (16, 20, 1, 18),
            (21, 50, 0, 50),
        ] {
            let planes = crate::kernels::testing::test_bytes(cq as u64, 4 * cq * positions);
            let want: Vec<u32> = (first..first + n)
                .flat_map(|p| {
                    let planes = &planes;
                    (0..cq).map(move |j| {
                        u32::from_le_bytes(std::array::from_fn(|c| {
                            planes[(4 * j + c) * positions + p]
                        }))
                    })
                })
                .collect();
            for isa in Isa::all_available() {
                let mut got = vec![0u32; n * cq];
                to_words(isa, &planes, positions, first, cq, &mut got);
                assert_eq!(got, want, "{isa:?} cq {cq}");
            }
        }
    }

    #[test]
    fn tap_rows_agree() {
        let words: Vec<u32> = (0..4000u32).map(|i| i.wrapping_mul(2654435761)).collect();
        for cq in [1usize, 3, 4, 5, 16, 17, 40] {
            let at: [usize; NR] = std::array::from_fn(|p| (p * 37 + 5) % (4000 - cq));
            let mut want = vec![0u8; cq * NR * 4];
            for (j, row) in want.chunks_exact_mut(NR * 4).enumerate() {
                for (dst, &a) in row.chunks_exact_mut(4).zip(&at) {
                    dst.copy_from_slice(&words[a + j].to_le_bytes());
                }
            }
            for isa in Isa::all_available() {
                let mut got = vec![0u8; cq * NR * 4];
                tap_rows(isa, &words, &at, cq, &mut got);
                assert_eq!(got, want, "{isa:?} cq {cq}");
            }
        }
    }
}
