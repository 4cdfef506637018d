//! The input of `dynamic_matmul` quantized straight into the left operand the integer
//! tiles read (`qgemm`'s packed rows, 64-byte aligned): no uint8 tensor between the
//! two, no copying pass, and the rows spread over the pool, where quantizing and then
//! packing were two passes and the packing ran on one thread.

use rayon::prelude::*;

use super::super::quant::quantize_uint8_into;
use crate::kernels::linalg::qgemm::{self, Aligned};

/// Elements one rayon task quantizes: a few tasks per thread, each long enough that
/// handing it out costs little.
const TASK: usize = 1 << 15;

/// `x`, rows of `k` values, quantized as `quantize_uint8` does, in `qgemm`'s left
/// operand: rows `qgemm::lhs_stride(k)` bytes apart, zeros past `k` and up to whole
/// tiles. `k` is not 0.
pub(super) fn quantize(x: &[f32], k: usize, scale: f32, zero_point: u8) -> Aligned {
    let m = x.len() / k;
    let stride = qgemm::lhs_stride(k);
    let mut rows = Aligned::zeroed(qgemm::padded_rows(m) * stride);
    let per_task = (TASK / k).max(1);
    rows.par_chunks_mut(per_task * stride)
        .zip(x.par_chunks(per_task * k))
        .for_each(|(dst, src)| {
            for (d, s) in dst.chunks_exact_mut(stride).zip(src.chunks_exact(k)) {
                quantize_uint8_into(s, &mut d[..k], scale, zero_point);
            }
        });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::quantized::quant::quantize_uint8;

    #[test]
    fn rows_hold_the_quantized_tensor_with_zero_padding() {
        // Odd k (padding inside each row), rows not a whole tile, enough elements for
        // several tasks, and values near ties of the scale.
        for (m, k) in [(3usize, 5usize), (70, 37), (129, 512), (9, 70_000)] {
            let x: Vec<f32> = (0..m * k)
                .map(|i| ((i * 7919) % 2001) as f32 / 250.0 - 3.0)
                .collect();
            let (scale, zero_point) = (6.0 / 255.0, 128);
            let want = quantize_uint8(&x, scale, zero_point as i64).unwrap();
            let rows = quantize(&x, k, scale, zero_point);
            let stride = qgemm::lhs_stride(k);
            assert_eq!(rows.len(), qgemm::padded_rows(m) * stride);
            assert_eq!(rows.as_ptr() as usize % 64, 0);
            for (r, row) in rows.chunks_exact(stride).enumerate() {
                if r < m {
                    assert_eq!(&row[..k], &want[r * k..(r + 1) * k], "m={m} k={k} row {r}");
                    assert!(row[k..].iter().all(|&b| b == 0));
                } else {
                    assert!(row.iter().all(|&b| b == 0));
                }
            }
        }
    }
}
