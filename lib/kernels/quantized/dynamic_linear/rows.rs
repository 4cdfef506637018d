//! The input of `dynamic_matmul` quantized straight into the left operand the integer
//! tiles read (`qgemm`'s packed rows, 64-byte aligned): no uint8 tensor between the
//! two, no copying pass, and the rows spread over the pool, where quantizing and then
//! packing were two passes and the packing ran on one thread.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Weak};

use rayon::prelude::*;

use super::super::quant::quantize_uint8_into;
use crate::kernels::linalg::qgemm::{self, Aligned};
use crate::kernels::tensor::Tensor;

/// An input tensor as the tiles read it, with DynamicQuantizeLinear's scale and zero
/// point.
#[derive(Clone)]
pub(super) struct Quantized {
    pub rows: Rc<Aligned>,
    pub scale: f32,
    pub zero_point: u8,
}

/// The last input this thread quantized, for rows of `k`: a transformer's query, key
/// and value projections (or a gated MLP's two) read one activation, and quantizing
/// it once serves all of them, as ONNX Runtime's shared DynamicQuantizeLinear does.
/// The input is held weakly: a live `Weak` keeps its allocation, so no other tensor
/// can take its address, and the tensor itself is freed as usual.
struct Last {
    input: Weak<Tensor>,
    k: usize,
    quantized: Quantized,
}

thread_local! {
    static LAST: RefCell<Option<Last>> = const { RefCell::new(None) };
}

/// `input` quantized in rows of `k` by `quantize_with` (which gives the rows, scale and
/// zero point), or the rows this thread made for the same tensor and `k` last time.
pub(super) fn quantized_once(
    input: &Arc<Tensor>,
    k: usize,
    quantize_with: impl FnOnce() -> anyhow::Result<Quantized>,
) -> anyhow::Result<Quantized> {
    let hit = LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|l| l.k == k && l.input.upgrade().is_some_and(|t| Arc::ptr_eq(&t, input)))
            .map(|l| l.quantized.clone())
    });
    if let Some(q) = hit {
        return Ok(q);
    }
    let q = quantize_with()?;
    LAST.set(Some(Last {
        input: Arc::downgrade(input),
        k,
        quantized: q.clone(),
    }));
    Ok(q)
}

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

    /// One tensor read for the same `k` is quantized once; another tensor, another
    /// `k`, or a tensor made after the first was freed is quantized anew.
    #[test]
    fn an_input_is_quantized_once_for_its_readers() {
        use crate::kernels::tensor::Data;
        let tensor = |v: f32| Arc::new(Tensor::new(vec![2, 4], Data::F32(vec![v; 8])).unwrap());
        let calls = std::cell::Cell::new(0);
        let quantize = |scale: f32| {
            calls.set(calls.get() + 1);
            Ok(Quantized {
                rows: Rc::new(Aligned::zeroed(64)),
                scale,
                zero_point: 0,
            })
        };
        let (a, b) = (tensor(1.0), tensor(2.0));
        assert_eq!(quantized_once(&a, 4, || quantize(1.0)).unwrap().scale, 1.0);
        assert_eq!(quantized_once(&a, 4, || quantize(9.0)).unwrap().scale, 1.0);
        assert_eq!(calls.get(), 1);
        assert_eq!(quantized_once(&a, 2, || quantize(2.0)).unwrap().scale, 2.0);
        assert_eq!(quantized_once(&b, 2, || quantize(3.0)).unwrap().scale, 3.0);
        assert_eq!(calls.get(), 3);
        drop(b);
        let c = tensor(2.0);
        assert_eq!(quantized_once(&c, 2, || quantize(4.0)).unwrap().scale, 4.0);
        assert_eq!(calls.get(), 4);
    }

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
