//! Lookups whose channel is the last axis (a transformer's per-channel GELU or
//! activation over `[tokens, channels]`): the table row changes at every element, so
//! instead of a scalar load per element, AVX-512 gathers sixteen at once, element `i`
//! reading row `channel(i)` at its byte, `channel·256 + x[i]`.

/// A table entry the gather path can load: bytes (gathered as the aligned 32-bit word
/// holding them, so no load passes the table's end) or f32.
pub(super) trait Entry: Copy + Default + Send + Sync {
    /// `out[i] = table[((first + i) % channels)·256 + x[i]]` for every `i` of `out`,
    /// with `first < channels`. Returns false, having written nothing, where the CPU
    /// or the operands do not suit the gather path.
    fn gather(x: &[u8], table: &[Self], channels: usize, first: usize, out: &mut [Self]) -> bool;

    /// `out[i] = row[x[i]]` for one row; false, having written nothing, where the
    /// gather path does not apply (byte rows have byte permutes instead).
    fn gather_row(_x: &[u8], _row: &[Self; 256], _out: &mut [Self]) -> bool {
        false
    }
}

/// Fewest channels for the gather path: a block of sixteen lanes then wraps around
/// the channels at most once.
const LANES: usize = 16;

/// Whether the gather path applies: AVX-512 on this CPU, at least a block of
/// channels, every index in i32, and the table and input long enough.
fn suits(table_len: usize, x: &[u8], channels: usize, first: usize, out: usize) -> bool {
    use crate::kernels::isa::Isa;
    Isa::Avx512Vnni.available()
        && channels >= LANES
        && first < channels
        && i32::try_from(channels * 256).is_ok()
        && table_len >= channels * 256
        && x.len() >= out
}

impl Entry for u8 {
    fn gather(x: &[u8], table: &[u8], channels: usize, first: usize, out: &mut [u8]) -> bool {
        if !suits(table.len(), x, channels, first, out.len()) || !table.len().is_multiple_of(4) {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `suits` detected AVX-512 and checked the table covers every index,
        // whose aligned word then lies inside the table (its length a multiple of 4).
        unsafe {
            gather_bytes(x, table, channels, first, out)
        };
        cfg!(target_arch = "x86_64")
    }
}

impl Entry for f32 {
    fn gather_row(x: &[u8], row: &[f32; 256], out: &mut [f32]) -> bool {
        if !crate::kernels::isa::Isa::Avx512Vnni.available() || x.len() < out.len() {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX-512 was detected; every index is a byte, inside the 256-entry row.
        unsafe {
            gather_row_floats(x, row, out)
        };
        cfg!(target_arch = "x86_64")
    }

    fn gather(x: &[u8], table: &[f32], channels: usize, first: usize, out: &mut [f32]) -> bool {
        if !suits(table.len(), x, channels, first, out.len()) {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as for bytes: every index lies inside the table.
        unsafe {
            gather_floats(x, table, channels, first, out)
        };
        cfg!(target_arch = "x86_64")
    }
}

/// The lanes' channels for the block after `ch`: sixteen on, wrapped once.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn next_channels(
    ch: std::arch::x86_64::__m512i,
    channels: std::arch::x86_64::__m512i,
) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    let ch = _mm512_add_epi32(ch, _mm512_set1_epi32(LANES as i32));
    let past = _mm512_cmpge_epi32_mask(ch, channels);
    _mm512_mask_sub_epi32(ch, past, ch, channels)
}

/// The first block's channels: `first + lane`, wrapped.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn first_channels(first: usize, channels: i32) -> std::arch::x86_64::__m512i {
    use std::arch::x86_64::*;
    let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let ch = _mm512_add_epi32(lanes, _mm512_set1_epi32(first as i32));
    let n = _mm512_set1_epi32(channels);
    let past = _mm512_cmpge_epi32_mask(ch, n);
    _mm512_mask_sub_epi32(ch, past, ch, n)
}

/// Each whole block of sixteen elements of `out` with its indices `channel·256 + x[i]`
/// (`put` gathers and stores them), then the rest one by one.
///
/// # Safety
/// AVX-512 F is available; `first < channels ≥ 16`, `channels·256` fits i32, `table`
/// holds at least `channels·256` entries, `x` at least `out.len()` bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn each_block<T: Copy>(
    x: &[u8],
    table: &[T],
    channels: usize,
    first: usize,
    out: &mut [T],
    mut put: impl FnMut(std::arch::x86_64::__m512i, &mut [T; LANES]),
) {
    use std::arch::x86_64::*;
    let n = _mm512_set1_epi32(channels as i32);
    let mut ch = first_channels(first, channels as i32);
    let (blocks, _) = out.as_chunks_mut::<LANES>();
    let whole = blocks.len();
    for (b, dst) in blocks.iter_mut().enumerate() {
        // SAFETY: `x` holds `out.len()` bytes, so this block's sixteen.
        let q = _mm512_cvtepu8_epi32(unsafe {
            _mm_loadu_si128(x.as_ptr().add(b * LANES) as *const __m128i)
        });
        put(_mm512_add_epi32(_mm512_slli_epi32(ch, 8), q), dst);
        ch = next_channels(ch, n);
    }
    tail(x, table, channels, first, out, whole * LANES);
}

/// # Safety
/// AVX-512 F and BW are available; as `each_block`, and `table`'s length is a multiple
/// of 4.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn gather_bytes(x: &[u8], table: &[u8], channels: usize, first: usize, out: &mut [u8]) {
    use std::arch::x86_64::*;
    let words = table.as_ptr() as *const i32;
    let put = |at: __m512i, dst: &mut [u8; LANES]| {
        // The aligned word holding byte `at`, then that byte.
        // SAFETY: `at < channels·256 ≤ table.len()`, a multiple of 4, so the word
        // `at / 4` lies inside the table; `dst` is sixteen bytes.
        unsafe {
            let word = _mm512_i32gather_epi32::<4>(_mm512_srli_epi32(at, 2), words);
            let shift = _mm512_slli_epi32(_mm512_and_si512(at, _mm512_set1_epi32(3)), 3);
            let bytes = _mm512_cvtepi32_epi8(_mm512_srlv_epi32(word, shift));
            _mm_storeu_si128(dst.as_mut_ptr() as *mut __m128i, bytes);
        }
    };
    // SAFETY: forwarded from the caller.
    unsafe { each_block(x, table, channels, first, out, put) }
}

/// # Safety
/// As `each_block`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn gather_floats(x: &[u8], table: &[f32], channels: usize, first: usize, out: &mut [f32]) {
    use std::arch::x86_64::*;
    let put = |at: __m512i, dst: &mut [f32; LANES]| {
        // SAFETY: `at < channels·256 ≤ table.len()`; `dst` is sixteen floats.
        unsafe {
            _mm512_storeu_ps(
                dst.as_mut_ptr(),
                _mm512_i32gather_ps::<4>(at, table.as_ptr()),
            )
        }
    };
    // SAFETY: forwarded from the caller.
    unsafe { each_block(x, table, channels, first, out, put) }
}

/// # Safety
/// AVX-512 F is available; `x` holds at least `out.len()` bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn gather_row_floats(x: &[u8], row: &[f32; 256], out: &mut [f32]) {
    use std::arch::x86_64::*;
    let (blocks, _) = out.as_chunks_mut::<LANES>();
    let whole = blocks.len();
    for (b, dst) in blocks.iter_mut().enumerate() {
        // SAFETY: `x` holds `out.len()` bytes, so this block's sixteen.
        let q = _mm512_cvtepu8_epi32(unsafe {
            _mm_loadu_si128(x.as_ptr().add(b * LANES) as *const __m128i)
        });
        // SAFETY: every index is below 256, inside the row.
        let v = unsafe { _mm512_i32gather_ps::<4>(q, row.as_ptr()) };
        // SAFETY: `dst` is sixteen floats.
        unsafe { _mm512_storeu_ps(dst.as_mut_ptr(), v) };
    }
    for (y, &q) in out[whole * LANES..].iter_mut().zip(&x[whole * LANES..]) {
        *y = row[usize::from(q)];
    }
}

/// The elements from `from` on, one by one.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn tail<T: Copy>(x: &[u8], table: &[T], channels: usize, first: usize, out: &mut [T], from: usize) {
    let mut channel = (first + from) % channels;
    for (y, &q) in out[from..].iter_mut().zip(&x[from..]) {
        *y = table[channel * 256 + usize::from(q)];
        channel += 1;
        if channel == channels {
            channel = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Entry;
    use crate::kernels::testing::test_bytes;

    fn naive<T: Copy>(x: &[u8], table: &[T], channels: usize, first: usize) -> Vec<T> {
        (0..x.len())
            .map(|i| table[(first + i) % channels * 256 + usize::from(x[i])])
            .collect()
    }

    #[test]
    fn gathers_read_each_elements_own_row() {
        // Lengths with and without a tail, starts that wrap inside the first block,
        // the last byte of the table (its aligned word ends there).
        for (seed, channels, first, len) in [
            (1u64, 16usize, 0usize, 16usize),
            (2, 16, 15, 40),
            (3, 17, 9, 100),
            (4, 64, 63, 64),
            (5, 200, 7, 999),
            (6, 1536, 1535, 3 * 1536 + 5),
        ] {
            let mut x = test_bytes(seed, len);
            x[len - 1] = 255;
            let bytes = test_bytes(seed + 50, channels * 256);
            let floats: Vec<f32> = bytes.iter().map(|&b| b as f32 * 0.25 - 7.0).collect();
            let mut got = vec![0u8; len];
            let ran = u8::gather(&x, &bytes, channels, first, &mut got);
            if ran {
                assert_eq!(got, naive(&x, &bytes, channels, first), "bytes {seed}");
            }
            let mut got = vec![0f32; len];
            if f32::gather(&x, &floats, channels, first, &mut got) {
                assert_eq!(got, naive(&x, &floats, channels, first), "floats {seed}");
            }
            // The path runs wherever the CPU has AVX-512.
            assert_eq!(
                ran,
                cfg!(target_arch = "x86_64") && crate::kernels::isa::Isa::Avx512Vnni.available()
            );
        }
    }

    #[test]
    fn one_row_gathers_read_it_at_each_byte() {
        let row: [f32; 256] = std::array::from_fn(|i| i as f32 * -0.75 + 3.0);
        for len in [0usize, 5, 16, 37, 1000] {
            let mut x = test_bytes(len as u64 + 1, len);
            if let Some(last) = x.last_mut() {
                *last = 255;
            }
            let mut got = vec![0f32; len];
            if f32::gather_row(&x, &row, &mut got) {
                let want: Vec<f32> = x.iter().map(|&q| row[usize::from(q)]).collect();
                assert_eq!(got, want, "{len}");
            }
        }
        // Bytes have byte permutes instead.
        assert!(!u8::gather_row(&[1], &[0; 256], &mut [0]));
    }

    #[test]
    fn operands_the_gather_cannot_take_are_left_to_the_caller() {
        let x = [1u8; 32];
        let mut out = [0u8; 32];
        // Fewer channels than lanes, a start past the channels, a short table.
        assert!(!u8::gather(&x, &[0; 8 * 256], 8, 0, &mut out));
        assert!(!u8::gather(&x, &[0; 16 * 256], 16, 16, &mut out));
        assert!(!u8::gather(&x, &[0; 16 * 256 - 4], 16, 0, &mut out));
        assert!(!u8::gather(&x[..8], &[0; 16 * 256], 16, 0, &mut out));
        assert!(out.iter().all(|&b| b == 0));
    }
}
