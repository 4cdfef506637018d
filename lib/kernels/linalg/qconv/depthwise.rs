//! The direct kernel for depthwise convolutions (one input channel per group): each
//! output channel a weighted sum of its taps over one zero-padded input plane, in
//! chunks of `NR` outputs, compiled for the instruction set. With AVX-512 VBMI and
//! taps that fit in a signed byte, the plane stays in bytes and `vpdpbusd` adds four
//! taps per lane at once (`bytes`); otherwise the plane is centred to i16, each row
//! split into its stride's phases, and the taps go two at a time (`vpdpwssd`,
//! `vpmaddwd`) or one at a time.

use rayon::prelude::*;

use super::super::qgemm::NR;
use super::super::qgemm::requant::{ColTerms, Epilogue, RowTerms};
use super::Job;
use crate::kernels::isa::Isa;

/// One thread's buffers, reused from channel to channel.
#[derive(Default)]
struct Scratch {
    plane: Vec<i16>,
    bytes: Vec<u8>,
    quads: Vec<i32>,
    reads: Vec<usize>,
}

impl<E: Epilogue> Job<'_, E> {
    /// One input channel per group: each output channel is a weighted sum of
    /// `kernel` taps over one zero-padded input plane.
    pub(super) fn depthwise(&self, taps: &[i32], y: &mut [E::Out]) {
        let (s, w) = (self.s, self.w);
        let pixels = s.pixels();
        let c_out = w.shape[0];
        let per_group = w.per_group;
        y.par_chunks_mut(pixels).enumerate().for_each_init(
            Scratch::default,
            |scratch, (item, dest)| {
                let (b, channel) = (item / c_out, item % c_out);
                let input = b * s.c_in + channel / per_group;
                let n: usize = s.kernel.iter().product();
                let terms = &taps[channel * n..(channel + 1) * n];
                depthwise_channel(self, input, channel, terms, scratch, dest);
            },
        );
    }
}

fn depthwise_channel<E: Epilogue>(
    job: &Job<E>,
    input: usize,
    channel: usize,
    taps: &[i32],
    scratch: &mut Scratch,
    dest: &mut [E::Out],
) {
    #[cfg(target_arch = "x86_64")]
    if job.permutes
        && let Some(sum) = bytes::prepare(job, taps, scratch)
    {
        let terms = RowTerms {
            // The byte plane is not centred: Σ (x - x_zero)·t = Σ x·t - x_zero·Σ t.
            offset: job.bias[channel].wrapping_sub((job.x_zero as i32).wrapping_mul(sum)),
            ..row_terms(job, channel)
        };
        // SAFETY: `permutes` says the CPU has the features; `prepare` sized the plane
        // for every read (`bytes::depthwise`'s contract).
        unsafe { bytes::depthwise(job, input, terms, scratch, dest) };
        return;
    }
    let plane = &mut scratch.plane;
    match job.isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the instruction set was detected on this CPU.
        Isa::Avx512Vnni if job.isa.available() => unsafe {
            depthwise_avx512(job, input, channel, taps, plane, dest)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Isa::Avx2 if job.isa.available() => unsafe {
            depthwise_avx2(job, input, channel, taps, plane, dest)
        },
        _ => depthwise_body(job, input, channel, taps, plane, dest),
    }
}

/// The requantization terms of one output channel, for accumulators of centred inputs.
fn row_terms<E: Epilogue>(job: &Job<E>, channel: usize) -> RowTerms {
    RowTerms {
        offset: job.bias[channel],
        zero: 0,
        sum: 0,
        multiplier: job.multipliers[channel],
        bias: job.float_bias.get(channel).copied().unwrap_or(0.0),
    }
}

#[cfg(target_arch = "x86_64")]
// VNNI too, so that `chunk_vnni` inlines and the loop's constants stay in registers.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn depthwise_avx512<E: Epilogue>(
    job: &Job<E>,
    input: usize,
    channel: usize,
    taps: &[i32],
    plane: &mut Vec<i16>,
    dest: &mut [E::Out],
) {
    depthwise_body(job, input, channel, taps, plane, dest)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn depthwise_avx2<E: Epilogue>(
    job: &Job<E>,
    input: usize,
    channel: usize,
    taps: &[i32],
    plane: &mut Vec<i16>,
    dest: &mut [E::Out],
) {
    depthwise_body(job, input, channel, taps, plane, dest)
}

/// One output channel of a depthwise convolution. The input plane is copied once,
/// centred and padded with zeros (the zero point, centred), so the tap loops need no
/// bounds checks. Each row is stored as its `stride` phases one after the other
/// (columns 0, s, 2s, … then 1, s + 1, …), so that the inputs of consecutive outputs
/// under one tap are contiguous at every stride and every chunk is a run of loads.
#[inline(always)]
fn depthwise_body<E: Epilogue>(
    job: &Job<E>,
    input: usize,
    channel: usize,
    taps: &[i32],
    plane: &mut Vec<i16>,
    dest: &mut [E::Out],
) {
    let s = job.s;
    let [id, ih, iw] = s.input;
    let [od, oh, ow] = s.output;
    let [kd, kh, kw] = s.kernel;
    let [pd, ph, pw] = job.plane;
    let sw = s.stride[2];
    // A phase holds every column of the padded row it could read: `pw` has room for a
    // chunk past the last output, so each phase has room for a chunk past its last.
    let phase = pw.div_ceil(sw);
    let pitch = phase * sw;
    plane.clear();
    plane.resize(pd * ph * pitch, 0);
    let x = &job.x[input * id * ih * iw..][..id * ih * iw];
    let zero = job.x_zero as i16;
    for z in 0..id {
        for yy in 0..ih {
            let src = &x[(z * ih + yy) * iw..][..iw];
            let row = ((z + s.pad_before[0]) * ph + yy + s.pad_before[1]) * pitch;
            if sw == 1 {
                let start = row + s.pad_before[2];
                for (d, &v) in plane[start..start + iw].iter_mut().zip(src) {
                    *d = v as i16 - zero;
                }
            } else if sw == 2 {
                // Pairs of inputs to the two phases, a loop that vectorizes.
                let pad = s.pad_before[2];
                let (even, odd) = plane[row..row + pitch].split_at_mut(phase);
                // Input 2j sits in the phase of `pad`'s parity, 2j + 1 in the other.
                let (a, b) = if pad.is_multiple_of(2) {
                    (even, odd)
                } else {
                    (odd, even)
                };
                let (a, b) = (&mut a[pad / 2..], &mut b[pad.div_ceil(2)..]);
                let (pairs, rest) = src.as_chunks::<2>();
                for ((p, x), y) in pairs.iter().zip(a.iter_mut()).zip(b.iter_mut()) {
                    *x = p[0] as i16 - zero;
                    *y = p[1] as i16 - zero;
                }
                if let (Some(&v), Some(d)) = (rest.first(), a.get_mut(pairs.len())) {
                    *d = v as i16 - zero;
                }
            } else {
                // Phase by phase, so no element needs a division.
                let pad = s.pad_before[2];
                let row = &mut plane[row..row + pitch];
                for (p, dst) in row.chunks_exact_mut(phase).enumerate() {
                    // The phase's first column at or past the padding, and its input.
                    let first = pad + (p + sw - pad % sw) % sw;
                    let src = src.get(first - pad..).unwrap_or(&[]);
                    let dst = dst.get_mut(first / sw..).unwrap_or(&mut []);
                    for (d, &v) in dst.iter_mut().zip(src.iter().step_by(sw)) {
                        *d = v as i16 - zero;
                    }
                }
            }
        }
    }
    let terms = row_terms(job, channel);
    // Each tap's offset from the chunk's first input position: its row, its column's
    // phase, and its place in the phase.
    let mut offsets = Vec::with_capacity(taps.len());
    for a in 0..kd {
        for b in 0..kh {
            for c in 0..kw {
                let col = c * s.dilation[2];
                let row = (a * s.dilation[0] * ph + b * s.dilation[1]) * pitch;
                offsets.push(row + col % sw * phase + col / sw);
            }
        }
    }
    let products = Products::of(job.isa);
    let last = offsets.iter().copied().max().unwrap_or(0);
    // A row wider than a chunk ends with a chunk that overlaps the one before it, so
    // every chunk is whole (its values written twice are the same values).
    let last_start = ow.saturating_sub(NR);
    for z in 0..od {
        for yy in 0..oh {
            for x0 in (0..ow).step_by(NR).map(|x| x.min(last_start)) {
                let base = (z * s.stride[0] * ph + yy * s.stride[1]) * pitch + x0;
                let mut acc = [0i32; NR];
                chunk(products, plane, base, (&offsets, last), taps, &mut acc);
                let at = (z * oh + yy) * ow + x0;
                let out = &mut dest[at..at + NR.min(ow - x0)];
                job.out.row(&acc, terms, ColTerms::default(), out);
            }
        }
    }
}

/// How `chunk` multiplies: `vpdpwssd` (the CPU has AVX-512 VNNI), `vpmaddwd` (AVX2),
/// or in plain Rust; decided once per channel rather than per chunk.
#[derive(Clone, Copy, PartialEq)]
enum Products {
    Vnni,
    Avx2,
    Plain,
}

impl Products {
    fn of(isa: Isa) -> Products {
        match isa {
            Isa::Avx512Vnni if isa.available() => Products::Vnni,
            Isa::Avx2 if isa.available() => Products::Avx2,
            _ => Products::Plain,
        }
    }
}

/// Σ over taps of `plane[base + offset..][..NR] · tap`: the depthwise inner loop, with
/// the accumulators held in registers on AVX-512 and AVX2. `last` is the largest
/// offset.
#[inline(always)]
fn chunk(
    products: Products,
    plane: &[i16],
    base: usize,
    (offsets, last): (&[usize], usize),
    taps: &[i32],
    acc: &mut [i32; NR],
) {
    assert!(
        base + last + NR <= plane.len(),
        "depthwise chunk out of the plane"
    );
    match products {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Products::of` checked the CPU has the features; the assert bounds
        // every read (`last` is the largest offset).
        Products::Vnni if taps.len() == offsets.len() => unsafe {
            chunk_vnni(plane, base, offsets, taps, acc)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Products::Avx2 if taps.len() == offsets.len() => unsafe {
            chunk_avx2(plane, base, offsets, taps, acc)
        },
        _ => {
            *acc = [0; NR];
            for (&off, &tap) in offsets.iter().zip(taps) {
                if let Some(src) = plane[base + off..].first_chunk::<NR>() {
                    add_products(acc, src, tap);
                }
            }
        }
    }
}

/// `vpdpwssd`'s pairing of two taps, for a pair of i16 lanes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn pair(a: i32, b: i32) -> i32 {
    ((a as i16 as u16 as u32) | ((b as i16 as u16 as u32) << 16)) as i32
}

/// # Safety
/// avx2 is available; `plane[base + o..][..NR]` is in bounds for every offset `o`.
///
/// As `chunk_vnni`, with `vpmaddwd` and an add: two taps at a time, their inputs
/// interleaved into pairs, four vectors of eight sums (exact: each pair's sum is
/// within ±2·255²). The unpacks pair within 128-bit lanes, so each `lo` holds pixels
/// 0–3 and 8–11 of its sixteen and `hi` pixels 4–7 and 12–15; lane swaps restore the
/// order.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn chunk_avx2(
    plane: &[i16],
    base: usize,
    offsets: &[usize],
    taps: &[i32],
    acc: &mut [i32; NR],
) {
    use std::arch::x86_64::*;
    const _: () = assert!(NR == 32);
    let zero = _mm256_setzero_si256();
    let mut sums = [zero; 4];
    let load = |off: usize, half: usize| {
        // SAFETY: 32 i16s from base + off are in bounds (the caller's promise).
        unsafe { _mm256_loadu_si256(plane.as_ptr().add(base + off + 16 * half) as *const _) }
    };
    let mut add = |a: [__m256i; 2], b: [__m256i; 2], w: __m256i| {
        for h in 0..2 {
            let lo = _mm256_madd_epi16(_mm256_unpacklo_epi16(a[h], b[h]), w);
            let hi = _mm256_madd_epi16(_mm256_unpackhi_epi16(a[h], b[h]), w);
            sums[2 * h] = _mm256_add_epi32(sums[2 * h], lo);
            sums[2 * h + 1] = _mm256_add_epi32(sums[2 * h + 1], hi);
        }
    };
    let (pairs, last) = offsets.as_chunks::<2>();
    let (tap_pairs, _) = taps.as_chunks::<2>();
    for (o, t) in pairs.iter().zip(tap_pairs) {
        let w = _mm256_set1_epi32(pair(t[0], t[1]));
        add(
            [load(o[0], 0), load(o[0], 1)],
            [load(o[1], 0), load(o[1], 1)],
            w,
        );
    }
    if let (Some(&o), Some(&t)) = (last.first(), taps.get(pairs.len() * 2)) {
        let w = _mm256_set1_epi32(pair(t, 0));
        add([load(o, 0), load(o, 1)], [zero; 2], w);
    }
    // SAFETY: `acc` holds 32 i32s, four 32-byte stores.
    unsafe {
        let out = acc.as_mut_ptr() as *mut __m256i;
        for h in 0..2 {
            let (lo, hi) = (sums[2 * h], sums[2 * h + 1]);
            _mm256_storeu_si256(out.add(2 * h), _mm256_permute2x128_si256(lo, hi, 0x20));
            _mm256_storeu_si256(out.add(2 * h + 1), _mm256_permute2x128_si256(lo, hi, 0x31));
        }
    }
}

/// # Safety
/// avx512f, avx512bw and avx512vnni are available; `plane[base + o..][..NR]` is in
/// bounds for every offset `o`.
///
/// Two taps at a time: their 32 inputs each interleaved into pairs, so `vpdpwssd`
/// multiplies both by their taps and adds the pair to the pixel's sum in one step
/// (exact: centred inputs and taps lie in ±255). The unpacks pair within 128-bit lanes,
/// so `lo` holds pixels 0–3 of each group of eight and `hi` pixels 4–7; two permutes
/// restore the order.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn chunk_vnni(
    plane: &[i16],
    base: usize,
    offsets: &[usize],
    taps: &[i32],
    acc: &mut [i32; NR],
) {
    use std::arch::x86_64::*;
    const _: () = assert!(NR == 32);
    let mut lo = _mm512_setzero_si512();
    let mut hi = _mm512_setzero_si512();
    let load = |off: usize| {
        // SAFETY: 32 i16s from base + off are in bounds (the caller's promise).
        unsafe { _mm512_loadu_si512(plane.as_ptr().add(base + off) as *const _) }
    };
    let (pairs, last) = offsets.as_chunks::<2>();
    let (tap_pairs, _) = taps.as_chunks::<2>();
    for (o, t) in pairs.iter().zip(tap_pairs) {
        let (a, b) = (load(o[0]), load(o[1]));
        let w = _mm512_set1_epi32(pair(t[0], t[1]));
        lo = _mm512_dpwssd_epi32(lo, _mm512_unpacklo_epi16(a, b), w);
        hi = _mm512_dpwssd_epi32(hi, _mm512_unpackhi_epi16(a, b), w);
    }
    if let (Some(&o), Some(&t)) = (last.first(), taps.get(pairs.len() * 2)) {
        let (a, b) = (load(o), _mm512_setzero_si512());
        let w = _mm512_set1_epi32(pair(t, 0));
        lo = _mm512_dpwssd_epi32(lo, _mm512_unpacklo_epi16(a, b), w);
        hi = _mm512_dpwssd_epi32(hi, _mm512_unpackhi_epi16(a, b), w);
    }
    let first = _mm512_permutex2var_epi64(lo, _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), hi);
    let second = _mm512_permutex2var_epi64(lo, _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15), hi);
    // SAFETY: `acc` holds 32 i32s, two 64-byte stores.
    unsafe {
        _mm512_storeu_si512(acc.as_mut_ptr() as *mut _, first);
        _mm512_storeu_si512(acc.as_mut_ptr().add(16) as *mut _, second);
    }
}

/// `acc += src · tap`, lane by lane: a fixed-length loop that vectorizes.
#[inline(always)]
fn add_products(acc: &mut [i32; NR], src: &[i16; NR], tap: i32) {
    for j in 0..NR {
        acc[j] = acc[j].wrapping_add(src[j] as i32 * tap);
    }
}

#[cfg(target_arch = "x86_64")]
mod bytes;
