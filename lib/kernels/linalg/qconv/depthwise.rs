//! The direct kernel for depthwise convolutions (one input channel per group): each
//! output channel a weighted sum of its taps over one centred, zero-padded input
//! plane, in chunks of `NR` outputs, compiled for the instruction set.

use rayon::prelude::*;

use super::super::qgemm::NR;
use super::super::qgemm::requant::{ColTerms, Epilogue, RowTerms};
use super::Job;
use crate::kernels::isa::Isa;

impl<E: Epilogue> Job<'_, E> {
    /// One input channel per group: each output channel is a weighted sum of
    /// `kernel` taps over one zero-padded input plane, centred on the zero points.
    pub(super) fn depthwise(&self, taps: &[i32], y: &mut [E::Out]) {
        let (s, w) = (self.s, self.w);
        let pixels = s.pixels();
        let c_out = w.shape[0];
        let per_group = w.per_group;
        y.par_chunks_mut(pixels)
            .enumerate()
            .for_each_init(Vec::new, |plane, (item, dest)| {
                let (b, channel) = (item / c_out, item % c_out);
                let input = b * s.c_in + channel / per_group;
                let n: usize = s.kernel.iter().product();
                let terms = &taps[channel * n..(channel + 1) * n];
                depthwise_channel(self.isa, self, input, channel, terms, plane, dest);
            });
    }
}

fn depthwise_channel<E: Epilogue>(
    isa: Isa,
    job: &Job<E>,
    input: usize,
    channel: usize,
    taps: &[i32],
    plane: &mut Vec<i16>,
    dest: &mut [E::Out],
) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the instruction set was detected on this CPU.
        Isa::Avx512Vnni if isa.available() => unsafe {
            depthwise_avx512(job, input, channel, taps, plane, dest)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Isa::Avx2 if isa.available() => unsafe {
            depthwise_avx2(job, input, channel, taps, plane, dest)
        },
        _ => depthwise_body(job, input, channel, taps, plane, dest),
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
/// bounds checks and run along contiguous rows when the stride is 1.
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
    plane.clear();
    plane.resize(pd * ph * pw, 0);
    let x = &job.x[input * id * ih * iw..][..id * ih * iw];
    let zero = job.x_zero as i16;
    for z in 0..id {
        for yy in 0..ih {
            let src = &x[(z * ih + yy) * iw..][..iw];
            let row = ((z + s.pad_before[0]) * ph + yy + s.pad_before[1]) * pw + s.pad_before[2];
            for (d, &v) in plane[row..row + iw].iter_mut().zip(src) {
                *d = v as i16 - zero;
            }
        }
    }
    let terms = RowTerms {
        offset: job.bias[channel],
        zero: 0,
        sum: 0,
        multiplier: job.multipliers[channel],
        bias: job.float_bias.get(channel).copied().unwrap_or(0.0),
    };
    let sw = s.stride[2];
    // Each tap's offset from the chunk's first input position.
    let mut offsets = Vec::with_capacity(taps.len());
    for a in 0..kd {
        for b in 0..kh {
            for c in 0..kw {
                offsets.push((a * s.dilation[0] * ph + b * s.dilation[1]) * pw + c * s.dilation[2]);
            }
        }
    }
    let mut strided = [0i16; NR];
    let vnni = job.isa == Isa::Avx512Vnni && job.isa.available();
    // A row wider than a chunk ends with a chunk that overlaps the one before it, so
    // every chunk is whole (its values written twice are the same values).
    let last_start = ow.saturating_sub(NR);
    for z in 0..od {
        for yy in 0..oh {
            for x0 in (0..ow).step_by(NR).map(|x| x.min(last_start)) {
                let base = (z * s.stride[0] * ph + yy * s.stride[1]) * pw + x0 * sw;
                let mut acc = [0i32; NR];
                if sw == 1 {
                    chunk(vnni, plane, base, &offsets, taps, &mut acc);
                } else {
                    for (&off, &tap) in offsets.iter().zip(taps) {
                        let src = plane[base + off..].iter().step_by(sw);
                        for (d, v) in strided.iter_mut().zip(src) {
                            *d = *v;
                        }
                        add_products(&mut acc, &strided, tap);
                    }
                }
                let at = (z * oh + yy) * ow + x0;
                let out = &mut dest[at..at + NR.min(ow - x0)];
                job.out.row(&acc, terms, ColTerms::default(), out);
            }
        }
    }
}

/// Σ over taps of `plane[base + offset..][..NR] · tap`, for stride 1: the depthwise
/// inner loop, with the accumulators held in registers on AVX-512 (`vnni`: the CPU has
/// AVX-512 VNNI, checked once per channel rather than per chunk).
#[inline(always)]
fn chunk(
    vnni: bool,
    plane: &[i16],
    base: usize,
    offsets: &[usize],
    taps: &[i32],
    acc: &mut [i32; NR],
) {
    let last = offsets.iter().max().map_or(0, |&o| base + o + NR);
    assert!(last <= plane.len(), "depthwise chunk out of the plane");
    match vnni {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `vnni` says the CPU has the features; the assert bounds every read.
        true if taps.len() == offsets.len() => unsafe {
            chunk_vnni(plane, base, offsets, taps, acc)
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
    let pair =
        |a: i32, b: i32| ((a as i16 as u16 as u32) | ((b as i16 as u16 as u32) << 16)) as i32;
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
