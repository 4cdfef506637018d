//! The f32 matrix product behind float convolution and matmul, through the `gemm` crate.
//!
//! `gemm` was chosen over `matrixmultiply` because it has AVX-512 kernels (these machines
//! have them) and because its threading is rayon's: `Parallelism::Rayon(0)` splits the work
//! with `rayon::current_num_threads()` tasks on the *current* pool, so inside the pool of
//! `--threads` workers (`src/threads.rs`) it uses exactly that many threads.
//! `matrixmultiply` threads through its own `thread-tree` pool, which `--threads` would not
//! govern.
//!
//! The product uses fused multiply-adds and blocks the shared dimension, so it does not
//! round like the reference kernels (which add each product in order, unfused); results
//! agree within a few ulps of the sum's magnitude. The split over threads is over output
//! tiles only, so the result does not depend on the thread count.

/// A row-major matrix view: element (i, j) is at `data[i * row_stride + j]`.
#[derive(Clone, Copy)]
pub struct Matrix<'a> {
    pub data: &'a [f32],
    pub rows: usize,
    pub cols: usize,
    pub row_stride: usize,
}

impl Matrix<'_> {
    /// Whether every element the view names lies in `data`.
    fn fits(&self) -> bool {
        if self.rows == 0 || self.cols == 0 {
            return true;
        }
        (self.rows - 1)
            .checked_mul(self.row_stride)
            .and_then(|last_row| last_row.checked_add(self.cols))
            .is_some_and(|end| {
                // Rows must not overlap: a destination written twice would be a data race.
                end <= self.data.len() && (self.rows == 1 || self.cols <= self.row_stride)
            })
    }
}

/// How a call may use threads.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Threads {
    /// On the calling thread only: the caller already splits the work over the pool.
    One,
    /// Over the current rayon pool.
    Pool,
}

/// `dst = a · b`, where `dst` is `a.rows × b.cols` row-major with row stride `dst_stride`,
/// starting at `dst[0]`. Returns `false`, touching nothing, when the shapes disagree or a
/// view reaches outside its slice.
pub fn multiply(
    a: Matrix,
    b: Matrix,
    dst: &mut [f32],
    dst_stride: usize,
    threads: Threads,
) -> bool {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let out = Matrix {
        data: dst,
        rows: m,
        cols: n,
        row_stride: dst_stride,
    };
    if b.rows != k || !a.fits() || !b.fits() || !out.fits() {
        return false;
    }
    if m == 0 || n == 0 {
        return true;
    }
    if k == 0 {
        for row in 0..m {
            dst[row * dst_stride..row * dst_stride + n].fill(0.0);
        }
        return true;
    }
    let parallelism = match threads {
        Threads::Pool if rayon::current_num_threads() > 1 => gemm::Parallelism::Rayon(0),
        _ => gemm::Parallelism::None,
    };
    // Strides as isize: every index the views name was checked above to lie inside its
    // slice, and slices are at most isize::MAX bytes.
    let stride = |s: usize| s as isize;
    // SAFETY: `fits` checked that every element of the three views lies in its slice;
    // `dst` is borrowed mutably, so it aliases neither operand; `read_dst` is false, so
    // what `dst` held is not read.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            stride(dst_stride),
            false,
            a.data.as_ptr(),
            1,
            stride(a.row_stride),
            b.data.as_ptr(),
            1,
            stride(b.row_stride),
            0.0,
            1.0,
            false,
            false,
            false,
            parallelism,
        );
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
        let mut y = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                y[i * n + j] = (0..k).map(|l| a[i * k + l] * b[l * n + j]).sum();
            }
        }
        y
    }

    #[test]
    fn products_match_the_formula_and_bad_views_are_refused() {
        let (m, k, n) = (7, 33, 19);
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
        // Small integers: every rounding order gives the exact result.
        let mut y = vec![f32::NAN; m * n];
        let view = |data, rows, cols| Matrix {
            data,
            rows,
            cols,
            row_stride: cols,
        };
        for threads in [Threads::One, Threads::Pool] {
            assert!(multiply(view(&a, m, k), view(&b, k, n), &mut y, n, threads));
            assert_eq!(y, reference(&a, &b, m, k, n));
        }
        // An inner dimension that disagrees, and a destination too short.
        assert!(!multiply(
            view(&a, m, k),
            view(&b, k - 1, n),
            &mut y,
            n,
            Threads::One
        ));
        let mut short = vec![0.0; m * n - 1];
        assert!(!multiply(
            view(&a, m, k),
            view(&b, k, n),
            &mut short,
            n,
            Threads::One
        ));
        // k = 0 gives zeros.
        let mut z = vec![1.0; 4];
        assert!(multiply(
            view(&[], 2, 0),
            view(&[], 0, 2),
            &mut z,
            2,
            Threads::One
        ));
        assert_eq!(z, vec![0.0; 4]);
    }
}
