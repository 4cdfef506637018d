//! Output buffers a kernel writes whole, allocated without zeroing them first.
//!
//! `vec![0; n]` writes every byte once before the kernel writes it again, and it does
//! so on the calling thread before the kernel's parallel tasks start: in PP-OCR det at
//! 2 threads that serial `memset` of dequantize, QLinearAdd/Mul and conv outputs was
//! among the main thread's largest items. Kernels that write every element instead
//! receive the memory uninitialized, as `MaybeUninit`, and write it with stores that
//! never read it.

use std::mem::MaybeUninit;

/// A vector of `n` elements written by `fill`, which gets them uninitialized.
///
/// # Safety
///
/// `fill` must write every element of the slice it is given before it returns. (If it
/// panics instead, the vector is dropped empty, which is sound.)
pub unsafe fn written_by<T>(n: usize, fill: impl FnOnce(&mut [MaybeUninit<T>])) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    fill(&mut v.spare_capacity_mut()[..n]);
    // SAFETY: the caller promises that `fill` wrote all `n` elements.
    unsafe { v.set_len(n) };
    v
}

/// `dest` filled with `T::default()`, as initialized elements: for a kernel whose
/// writes need initialized elements, clearing each task's part on its own thread
/// (hot in its cache) instead of the whole output on the calling thread.
pub fn cleared<T: Copy + Default>(dest: &mut [MaybeUninit<T>]) -> &mut [T] {
    for d in dest.iter_mut() {
        d.write(T::default());
    }
    // SAFETY: every element was written just above, and `MaybeUninit<T>` has `T`'s
    // size, alignment and layout, so the slice is one of initialized `T`s.
    unsafe { &mut *(dest as *mut [MaybeUninit<T>] as *mut [T]) }
}

/// Initialized elements seen as possibly uninitialized ones, for a kernel that writes
/// into either: writing a `Copy` value over a `Copy` value never drops or reads one.
pub fn as_unfilled<T: Copy>(v: &mut [T]) -> &mut [MaybeUninit<T>] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and only initialized values of `T`
    // (which need no drop) can be written through the view.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<MaybeUninit<T>>(), v.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_written_is_kept() {
        for n in [0usize, 1, 63, 4097] {
            // SAFETY: the loop writes each element.
            let v = unsafe {
                written_by(n, |out: &mut [MaybeUninit<u32>]| {
                    for (i, y) in out.iter_mut().enumerate() {
                        y.write(i as u32 * 3);
                    }
                })
            };
            assert_eq!(v, (0..n as u32).map(|i| i * 3).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_filled_slice_is_written_through_its_view() {
        let mut v = vec![1.0f32; 5];
        for (i, y) in as_unfilled(&mut v).iter_mut().enumerate() {
            y.write(i as f32);
        }
        assert_eq!(v, [0.0, 1.0, 2.0, 3.0, 4.0]);
    }
}
