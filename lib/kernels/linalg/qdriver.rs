//! What the quantized GEMM drivers (`qconv`, `qmatmul`) share: 8-bit operands moved
//! into the signed and unsigned ranges `qgemm` multiplies, the output their workers
//! write in parallel.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::kernels::tensor::Data;
use crate::kernels::tensor::unfilled::cleared;

/// The bytes of an 8-bit tensor moved into the unsigned (`signed == false`) or signed
/// range, and the shift that moves its zero points along with them. Borrowed when no
/// shift is needed.
pub fn shifted(data: &Data, signed: bool) -> Option<(Cow<'_, [u8]>, i64)> {
    match (data, signed) {
        (Data::U8(v), false) => Some((Cow::Borrowed(v), 0)),
        // SAFETY: i8 and u8 have the same size and alignment, and every bit pattern
        // is valid for both.
        (Data::I8(v), true) => Some((
            Cow::Borrowed(unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, v.len()) }),
            0,
        )),
        (Data::U8(v), true) => Some((v.iter().map(|&b| b ^ 0x80).collect(), -128)),
        (Data::I8(v), false) => Some((v.iter().map(|&b| b as u8 ^ 0x80).collect(), 128)),
        _ => None,
    }
}

/// `vec![T::default(); len]`, cleared by the pool's threads a block each: clearing
/// a 1 MB output on one thread was a serial pass (35-40 µs, a fifth of the tile loop
/// after it) in a 512³ dynamic matmul. (Leaving it uninitialized for the tiles to
/// fill was slower: their stores then missed the cache.)
pub fn cleared_vec<T: Copy + Default + Send>(len: usize) -> Vec<T> {
    const BLOCK_BYTES: usize = 1 << 16;
    let block = (BLOCK_BYTES / std::mem::size_of::<T>().max(1)).max(1);
    let mut y = Vec::with_capacity(len);
    y.spare_capacity_mut()[..len]
        .par_chunks_mut(block)
        .for_each(|c| {
            cleared(c);
        });
    // SAFETY: the blocks cover the first `len` elements, and `cleared` wrote each
    // (`for_each` returns after every block; a panic unwinds with the length 0).
    unsafe { y.set_len(len) };
    y
}

/// A write-only view of the output shared by the workers. Each output element belongs
/// to exactly one (tile, row) or (channel, row) a worker handles, so no two workers
/// write the same byte.
pub struct SharedOut<T = u8> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: workers write disjoint elements (see the type's comment) and nothing reads
// the buffer until every worker has finished.
unsafe impl<T: Send> Sync for SharedOut<T> {}

impl<T> SharedOut<T> {
    pub fn new(y: &mut [T]) -> SharedOut<T> {
        SharedOut {
            ptr: y.as_mut_ptr(),
            len: y.len(),
        }
    }

    /// Elements in the buffer.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `slice` without its bounds check, for loops that check their whole range once.
    ///
    /// # Safety
    /// `at + n` is at most `len()`, and no other worker touches these elements while
    /// the slice lives.
    #[allow(clippy::mut_from_ref)]
    #[inline(always)]
    pub unsafe fn slice_unchecked(&self, at: usize, n: usize) -> &mut [T] {
        debug_assert!(at + n <= self.len, "output slice out of bounds");
        // SAFETY: in bounds and exclusive by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(at), n) }
    }

    /// The `n` bytes at `at` as a slice.
    ///
    /// # Safety
    /// No other worker touches these bytes while the slice lives.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice(&self, at: usize, n: usize) -> &mut [T] {
        assert!(at + n <= self.len, "output slice out of bounds");
        // SAFETY: in bounds by the assert; exclusive by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(at), n) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleared_vec_is_a_vec_of_defaults_across_blocks() {
        // Empty, shorter than a block, and whole and partial blocks of 64 KB.
        for len in [0usize, 1, 1000, 1 << 14, (3 << 14) + 5] {
            let floats: Vec<f32> = cleared_vec(len);
            assert_eq!(floats.len(), len);
            assert!(floats.iter().all(|v| v.to_bits() == 0));
            let bytes: Vec<u8> = cleared_vec(4 * len + 3);
            assert_eq!(bytes, vec![0u8; 4 * len + 3]);
        }
    }
}
