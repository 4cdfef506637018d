//! The byte kernel: the plane keeps the input's bytes, padded with the zero point, and
//! each output lane gathers the four inputs of four consecutive taps of a kernel row
//! with one byte permute (`vpermb`), so `vpdpbusd` multiplies them by the four taps,
//! as signed bytes, and adds them in one step. Exact: every product and the sum of
//! four fit in i32. The same permute serves every stride and dilation whose sixteen
//! lanes' taps lie within one 64-byte load, so strided convolutions read whole rows.

use std::arch::x86_64::*;

use super::super::Job;
use super::{ColTerms, Epilogue, NR, RowTerms, Scratch};

/// Taps per quad, and output lanes per vector.
const QUAD: usize = 4;
const LANES: usize = 16;
/// The bytes one load brings to the permute.
const LOAD: usize = 64;

/// Fills `scratch` for `depthwise` (the taps as byte quads, each quad's offset in
/// the plane, the plane's padding) and returns Σ taps; `None` when a tap does not fit
/// in a signed byte or the lanes' inputs span more than one load.
pub(super) fn prepare<E: Epilogue>(
    job: &Job<E>,
    taps: &[i32],
    scratch: &mut Scratch,
) -> Option<i32> {
    let s = job.s;
    let [kd, kh, kw] = s.kernel;
    let [_, ph, pw] = job.plane;
    let [sd, sh, sw] = s.stride;
    let [dd, dh, dw] = s.dilation;
    let span = (LANES - 1)
        .checked_mul(sw)?
        .checked_add((QUAD - 1).min(kw - 1).checked_mul(dw)?)?;
    if span >= LOAD || taps.len() != kd * kh * kw {
        return None;
    }
    let mut sum = 0i32;
    let (quads, reads) = (&mut scratch.quads, &mut scratch.reads);
    quads.clear();
    reads.clear();
    for (r, row) in taps.chunks_exact(kw).enumerate() {
        let (a, b) = (r / kh, r % kh);
        for (q, quad) in row.chunks(QUAD).enumerate() {
            let mut bytes = [0u8; QUAD];
            for (d, &t) in bytes.iter_mut().zip(quad) {
                *d = i8::try_from(t).ok()? as u8;
                sum = sum.wrapping_add(t);
            }
            quads.push(i32::from_le_bytes(bytes));
            reads.push((a * dd * ph + b * dh) * pw + q * QUAD * dw);
        }
    }
    // The last read: every term of a read's offset grows with the output's
    // position and the quad's offset, so the last of each bounds them all.
    let [od, oh, ow] = s.output;
    let last_row = ((od - 1) * sd * ph + (oh - 1) * sh) * pw;
    let last_x = (ow.saturating_sub(NR) + LANES) * sw;
    let end = last_row + last_x + reads.iter().max()? + LOAD;
    // The padding is the same for every channel of the call, so a plane already
    // of this size (this scratch's last channel's) keeps it and only the input's
    // rows are copied anew.
    let len = end.max(job.plane.iter().product());
    let plane = &mut scratch.bytes;
    if plane.len() != len {
        plane.clear();
        plane.resize(len, job.x_zero);
    }
    Some(sum)
}

/// Copies the input channel into the plane's interior, a row at a time in masked
/// 64-byte moves (a libc call per short row costs more than the copy).
///
/// # Safety
/// avx512f and avx512bw are available.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn fill<E: Epilogue>(job: &Job<E>, input: usize, plane: &mut [u8]) {
    let s = job.s;
    let [id, ih, iw] = s.input;
    let [_, ph, pw] = job.plane;
    let x = &job.x[input * id * ih * iw..][..id * ih * iw];
    for z in 0..id {
        for yy in 0..ih {
            let src = &x[(z * ih + yy) * iw..][..iw];
            let row = ((z + s.pad_before[0]) * ph + yy + s.pad_before[1]) * pw + s.pad_before[2];
            let dst = &mut plane[row..row + iw];
            for (d, s) in dst.chunks_mut(LOAD).zip(src.chunks(LOAD)) {
                let mask = u64::MAX >> (LOAD - d.len().min(s.len()));
                // SAFETY: the mask covers the first `min(d.len(), s.len())` bytes,
                // in bounds of both (masked-off lanes neither read, write nor fault).
                unsafe {
                    let v = _mm512_maskz_loadu_epi8(mask, s.as_ptr() as *const i8);
                    _mm512_mask_storeu_epi8(d.as_mut_ptr() as *mut i8, mask, v);
                }
            }
        }
    }
}

/// One output channel, from the plane `prepare` padded and sized.
///
/// # Safety
/// avx512f, avx512bw, avx512vnni and avx512vbmi are available, and `prepare`
/// returned `Some` for this job and channel with this `scratch`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi")]
pub(super) unsafe fn depthwise<E: Epilogue>(
    job: &Job<E>,
    input: usize,
    terms: RowTerms,
    scratch: &mut Scratch,
    dest: &mut [E::Out],
) {
    // SAFETY: the caller's promise.
    unsafe { fill(job, input, &mut scratch.bytes) };
    let scratch = &*scratch;
    let (reads, quads) = (&scratch.reads[..], &scratch.quads[..]);
    let s = job.s;
    // Undilated stride-1 rows of a 5x5 or 7x7 kernel go several at a time, the
    // rest (and every other geometry) one at a time. (3x3 rows measured no faster
    // in blocks: their two permutes per row cost less than the requantization.)
    let blocks = s.output[0] == 1 && s.kernel[0] == 1 && s.stride[1] == 1;
    let done = match (blocks && s.dilation[1] == 1, s.kernel[1], s.kernel[2]) {
        // SAFETY: the caller's promise, and the geometry `block` needs (matched).
        (true, 5, 5) => unsafe { block::<E, 5, 2>(job, terms, quads, scratch, dest) },
        // SAFETY: as above.
        (true, 7, 7) => unsafe { block::<E, 7, 2>(job, terms, quads, scratch, dest) },
        _ => 0,
    };
    // Fixed counts for the common kernels (3x3: 3 quads, 5x5: 10, 7x7: 14), so
    // the tap loop unrolls with its offsets and taps in registers.
    // SAFETY: each call passes the caller's promise on.
    unsafe {
        if let Some((r, q)) = fixed::<3>(reads, quads) {
            channel(job, terms, r, q, scratch, dest, done)
        } else if let Some((r, q)) = fixed::<10>(reads, quads) {
            channel(job, terms, r, q, scratch, dest, done)
        } else if let Some((r, q)) = fixed::<14>(reads, quads) {
            channel(job, terms, r, q, scratch, dest, done)
        } else {
            channel(job, terms, reads, quads, scratch, dest, done)
        }
    }
}

/// Lane k's byte i: the input under tap i of its quad (past the row's taps, whose
/// weight is zero, any byte of the load will do).
fn index<E: Epilogue>(job: &Job<E>) -> [u8; LOAD] {
    let (sw, kw, dw) = (job.s.stride[2], job.s.kernel[2], job.s.dilation[2]);
    let mut index = [0u8; LOAD];
    for (j, v) in index.iter_mut().enumerate() {
        let (k, i) = (j / QUAD, j % QUAD);
        *v = (k * sw + i.min(kw - 1) * dw) as u8;
    }
    index
}

/// Output rows `ROWS` at a time, for a 2-D kernel of `KH` rows of `NQ` quads at
/// vertical stride and dilation 1: each input row's permuted quads are loaded
/// once for the `KH` output rows that read them, rather than once per output row.
/// Returns how many rows it did (a multiple of `ROWS`; `channel` does the rest).
///
/// # Safety
/// As `depthwise`; the output has one plane (`od` 1) and the kernel `KH` rows
/// (`kh`), each of `NQ` quads, all of stride and dilation 1 (`kd`, `sh`, `dh`).
#[inline(always)]
unsafe fn block<E: Epilogue, const KH: usize, const NQ: usize>(
    job: &Job<E>,
    terms: RowTerms,
    quads: &[i32],
    scratch: &Scratch,
    dest: &mut [E::Out],
) -> usize {
    const ROWS: usize = 4;
    let s = job.s;
    let [_, oh, ow] = s.output;
    let pw = job.plane[2];
    let (sw, dw) = (s.stride[2], s.dilation[2]);
    if quads.len() != KH * NQ || s.kernel[2].div_ceil(QUAD) != NQ {
        return 0;
    }
    let index = index(job);
    let plane = scratch.bytes.as_ptr();
    let mut acc = [0i32; NR];
    let blocks = oh / ROWS * ROWS;
    // SAFETY: every load below is in bounds: output rows y0..y0 + ROWS read input
    // rows y0..y0 + ROWS + KH - 1, of which the last block's last is the last
    // output row's last (`prepare`'s bound), at the same columns as `channel`.
    unsafe {
        let index = _mm512_loadu_si512(index.as_ptr() as *const _);
        let load = |at: usize| {
            _mm512_permutexvar_epi8(index, _mm512_loadu_si512(plane.add(at) as *const _))
        };
        let mut taps = [[_mm512_setzero_si512(); NQ]; KH];
        for (row, quads) in taps.iter_mut().zip(quads.chunks_exact(NQ)) {
            for (t, &q) in row.iter_mut().zip(quads) {
                *t = _mm512_set1_epi32(q);
            }
        }
        let last_start = ow.saturating_sub(NR);
        for y0 in (0..blocks).step_by(ROWS) {
            for x0 in (0..ow).step_by(NR).map(|x| x.min(last_start)) {
                let at = y0 * pw + x0 * sw;
                let mut sums = [[_mm512_setzero_si512(); 2]; ROWS];
                for i in 0..ROWS + KH - 1 {
                    for q in 0..NQ {
                        let p = at + i * pw + q * QUAD * dw;
                        let (lo, hi) = (load(p), load(p + LANES * sw));
                        // Input row i is kernel row i - m of output row m.
                        for (m, sum) in sums.iter_mut().enumerate() {
                            if let Some(t) = i.checked_sub(m).and_then(|b| taps.get(b)) {
                                sum[0] = _mm512_dpbusd_epi32(sum[0], lo, t[q]);
                                sum[1] = _mm512_dpbusd_epi32(sum[1], hi, t[q]);
                            }
                        }
                    }
                }
                for (m, sum) in sums.iter().enumerate() {
                    _mm512_storeu_si512(acc.as_mut_ptr() as *mut _, sum[0]);
                    _mm512_storeu_si512(acc.as_mut_ptr().add(LANES) as *mut _, sum[1]);
                    let at = (y0 + m) * ow + x0;
                    let out = &mut dest[at..at + NR.min(ow - x0)];
                    job.out.row(&acc, terms, ColTerms::default(), out);
                }
            }
        }
    }
    blocks
}

/// `reads` and `quads` as arrays when there are `N` of each.
fn fixed<'a, const N: usize>(
    reads: &'a [usize],
    quads: &'a [i32],
) -> Option<(&'a [usize; N], &'a [i32; N])> {
    (reads.len() == N).then_some(())?;
    Some((reads.first_chunk()?, quads.first_chunk()?))
}

/// Output rows from `first` on (in every plane), one at a time.
///
/// # Safety
/// As `depthwise`; `reads` and `quads` are `scratch`'s.
#[inline(always)]
unsafe fn channel<E: Epilogue>(
    job: &Job<E>,
    terms: RowTerms,
    reads: &[usize],
    quads: &[i32],
    scratch: &Scratch,
    dest: &mut [E::Out],
    first: usize,
) {
    let s = job.s;
    let [od, oh, ow] = s.output;
    let [_, ph, pw] = job.plane;
    let [sd, sh, sw] = s.stride;
    let index = index(job);
    let plane = scratch.bytes.as_ptr();
    let mut acc = [0i32; NR];
    const _: () = assert!(NR == 2 * LANES);
    // SAFETY: every load below is in bounds: `prepare` made the plane at least as
    // long as the last read's end, and each read starts at or before the last one.
    unsafe {
        let index = _mm512_loadu_si512(index.as_ptr() as *const _);
        let load = |at: usize| {
            _mm512_permutexvar_epi8(index, _mm512_loadu_si512(plane.add(at) as *const _))
        };
        let last_start = ow.saturating_sub(NR);
        for z in 0..od {
            for yy in first..oh {
                let base = (z * sd * ph + yy * sh) * pw;
                for x0 in (0..ow).step_by(NR).map(|x| x.min(last_start)) {
                    let mut lo = _mm512_setzero_si512();
                    let mut hi = _mm512_setzero_si512();
                    let at = base + x0 * sw;
                    for (&read, &t) in reads.iter().zip(quads) {
                        let t = _mm512_set1_epi32(t);
                        lo = _mm512_dpbusd_epi32(lo, load(at + read), t);
                        hi = _mm512_dpbusd_epi32(hi, load(at + read + LANES * sw), t);
                    }
                    _mm512_storeu_si512(acc.as_mut_ptr() as *mut _, lo);
                    _mm512_storeu_si512(acc.as_mut_ptr().add(LANES) as *mut _, hi);
                    let at = (z * oh + yy) * ow + x0;
                    let out = &mut dest[at..at + NR.min(ow - x0)];
                    job.out.row(&acc, terms, ColTerms::default(), out);
                }
            }
        }
    }
}
