//! `matmul` with numpy semantics (1-D operands become a row or a column that the
//! result drops, batch dimensions broadcast), and the plain `mm` and `bmm`. Every
//! output element sums its products in order along the shared dimension, in its own
//! element type (f32 without fused multiply-adds; i32 wrapping). Rows are computed in
//! parallel.
//!
//! f32 products go through `sgemm` instead (fused multiply-adds, blocked sums); the
//! in-order kernel stays for the other types and as the oracle of the fast path.

use anyhow::{Context as _, Result, bail};
use rayon::prelude::*;

use super::sgemm::{self, Matrix, Threads};
use crate::kernels::tensor::elem::{Elem, dispatch_numeric};
use crate::kernels::tensor::layout::{broadcast_map, broadcast_shapes, result_count};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.matmul" => matmul,
        "aten.mm" => mm,
        "aten.bmm" => bmm,
        _ => return None,
    })
}

/// A batched product: `a` is `[batch_a..., m, k]`, `b` is `[batch_b..., k, n]`.
struct Product {
    batch: Vec<usize>,
    a_batch: Vec<usize>,
    b_batch: Vec<usize>,
    m: usize,
    k: usize,
    n: usize,
}

fn run<T: Elem>(p: &Product, a: &Data, b: &Data) -> Result<Data> {
    let (Some(a), Some(b)) = (T::slice(a), T::slice(b)) else {
        bail!("the operands have different element types");
    };
    let batches = result_count(&p.batch)?;
    let a_map = broadcast_map(&p.a_batch, &p.batch)?;
    let b_map = broadcast_map(&p.b_batch, &p.batch)?;
    let total = result_count(&[batches, p.m, p.n])?;
    let mut out = vec![T::default(); total];
    if total == 0 {
        return Ok(T::wrap(out));
    }
    let (m, k, n) = (p.m, p.k, p.n);
    out.par_chunks_mut(n).enumerate().for_each(|(row, y)| {
        let (batch, i) = (row / m, row % m);
        let ab = a_map.as_ref().map_or(batch, |map| map[batch]);
        let bb = b_map.as_ref().map_or(batch, |map| map[batch]);
        let a_row = &a[(ab * m + i) * k..(ab * m + i + 1) * k];
        let b_mat = &b[bb * k * n..(bb + 1) * k * n];
        // Row by row of b, so b is read in order; each output element still sums its
        // products in order along k.
        for (l, &x) in a_row.iter().enumerate() {
            let b_row = &b_mat[l * n..(l + 1) * n];
            for (y, &w) in y.iter_mut().zip(b_row) {
                *y = y.add_product(x, w);
            }
        }
    });
    Ok(T::wrap(out))
}

/// Products below which a float matmul runs on the calling thread.
const MIN_PARALLEL_PRODUCTS: usize = 1 << 20;

/// `run` for f32 through `sgemm`; `None` when a view does not fit (then the caller runs
/// the reference, which reports the problem).
fn run_f32(p: &Product, a: &[f32], b: &[f32]) -> Result<Option<Vec<f32>>> {
    let batches = result_count(&p.batch)?;
    let a_map = broadcast_map(&p.a_batch, &p.batch)?;
    let b_map = broadcast_map(&p.b_batch, &p.batch)?;
    let (m, k, n) = (p.m, p.k, p.n);
    let mut out = vec![0.0f32; result_count(&[batches, m, n])?];
    if out.is_empty() {
        return Ok(Some(out));
    }
    let (a_len, b_len) = (m * k, k * n);
    let product = |batch: usize, y: &mut [f32], threads: Threads| {
        let ab = a_map.as_ref().map_or(batch, |map| map[batch]);
        let bb = b_map.as_ref().map_or(batch, |map| map[batch]);
        let (Some(a), Some(b)) = (
            a.get(ab * a_len..(ab + 1) * a_len),
            b.get(bb * b_len..(bb + 1) * b_len),
        ) else {
            return false;
        };
        let view = |data, rows, cols| Matrix {
            data,
            rows,
            cols,
            row_stride: cols,
        };
        sgemm::multiply(view(a, m, k), view(b, k, n), y, n, threads)
    };
    // Little work (attention over a short sequence: 8 heads of 7×64×7) stays on this
    // thread: handing it to another took longer than the products (2.3 → 5.7 µs a
    // call at 2 threads). Many batches: one product per task. Few: each product
    // splits over the pool.
    let work = batches
        .saturating_mul(m)
        .saturating_mul(k)
        .saturating_mul(n);
    let small = work < MIN_PARALLEL_PRODUCTS;
    let fine = if !small && batches >= 2 * rayon::current_num_threads() {
        out.par_chunks_mut(m * n)
            .enumerate()
            .map(|(i, y)| product(i, y, Threads::One))
            .all(|ok| ok)
    } else {
        let threads = if small { Threads::One } else { Threads::Pool };
        out.chunks_mut(m * n)
            .enumerate()
            .all(|(i, y)| product(i, y, threads))
    };
    Ok(fine.then_some(out))
}

/// Multiplies `a` by `b` as `product` describes, giving `shape`.
fn multiply(
    c: &Call,
    a: &Tensor,
    b: &Tensor,
    p: &Product,
    shape: Vec<usize>,
) -> Result<Vec<Value>> {
    for t in [a, b] {
        if t.quant.is_some() {
            bail!(
                "a quantized {} operand; matmul takes plain values",
                t.dtype()
            );
        }
    }
    if a.data.dtype() != b.data.dtype() {
        bail!("matmul of {} by {}", a.dtype(), b.dtype());
    }
    if let (Data::F32(x), Data::F32(y)) = (&a.data, &b.data)
        && let Some(v) = run_f32(p, x, y)?
    {
        return args::ret(c, Tensor::new(shape, Data::F32(v))?);
    }
    let data = dispatch_numeric!(
        &a.data,
        run(p, &a.data, &b.data),
        bail!("matmul of {} tensors is not supported", a.dtype())
    )?;
    args::ret(c, Tensor::new(shape, data)?)
}

/// numpy's matmul: a 1-D `a` is a row `[1, k]` and a 1-D `b` a column `[k, 1]`, each
/// dimension dropped from the result; the batch dimensions broadcast.
pub(crate) fn matmul(c: &Call) -> Result<Vec<Value>> {
    // Quantized operands (the form fuse-quantized-ops writes) accumulate in int32.
    if args::tensor(c, 0)?.quant.is_some() {
        return crate::kernels::quantized::quantized_operands::quantized_matmul(c);
    }
    let a = args::tensor(c, 0)?;
    let b = args::tensor(c, 1)?;
    if a.rank() == 0 || b.rank() == 0 {
        bail!("matmul of a 0-d tensor");
    }
    let (a_shape, a_vector) = match a.shape.as_slice() {
        [k] => (vec![1, *k], true),
        s => (s.to_vec(), false),
    };
    let (b_shape, b_vector) = match b.shape.as_slice() {
        [k] => (vec![*k, 1], true),
        s => (s.to_vec(), false),
    };
    let (a_batch, a_mat) = a_shape.split_at(a_shape.len() - 2);
    let (b_batch, b_mat) = b_shape.split_at(b_shape.len() - 2);
    if a_mat[1] != b_mat[0] {
        bail!(
            "matmul of {:?} by {:?}: {} ≠ {}",
            a.shape,
            b.shape,
            a_mat[1],
            b_mat[0]
        );
    }
    let batch = broadcast_shapes(a_batch, b_batch).context("matmul batch dimensions")?;
    let p = Product {
        batch: batch.clone(),
        a_batch: a_batch.to_vec(),
        b_batch: b_batch.to_vec(),
        m: a_mat[0],
        k: a_mat[1],
        n: b_mat[1],
    };
    let mut shape = batch;
    if !a_vector {
        shape.push(p.m);
    }
    if !b_vector {
        shape.push(p.n);
    }
    multiply(c, a, b, &p, shape)
}

/// `mm`: `[m, k]` by `[k, n]`.
pub(crate) fn mm(c: &Call) -> Result<Vec<Value>> {
    // Quantized operands (the form fuse-quantized-ops writes) accumulate in int32.
    if args::tensor(c, 0)?.quant.is_some() {
        return crate::kernels::quantized::quantized_operands::quantized_matmul(c);
    }
    let a = args::tensor(c, 0)?;
    let b = args::tensor(c, 1)?;
    let ([m, k], [k2, n]) = (a.shape.as_slice(), b.shape.as_slice()) else {
        bail!("mm of {:?} by {:?}: both must be 2-D", a.shape, b.shape);
    };
    if k != k2 {
        bail!("mm of {:?} by {:?}: {k} ≠ {k2}", a.shape, b.shape);
    }
    let p = Product {
        batch: vec![],
        a_batch: vec![],
        b_batch: vec![],
        m: *m,
        k: *k,
        n: *n,
    };
    multiply(c, a, b, &p, vec![*m, *n])
}

/// `bmm`: `[batch, m, k]` by `[batch, k, n]`.
fn bmm(c: &Call) -> Result<Vec<Value>> {
    let a = args::tensor(c, 0)?;
    let b = args::tensor(c, 1)?;
    let ([ba, m, k], [bb, k2, n]) = (a.shape.as_slice(), b.shape.as_slice()) else {
        bail!("bmm of {:?} by {:?}: both must be 3-D", a.shape, b.shape);
    };
    if ba != bb || k != k2 {
        bail!("bmm of {:?} by {:?}", a.shape, b.shape);
    }
    let p = Product {
        batch: vec![*ba],
        a_batch: vec![*ba],
        b_batch: vec![*bb],
        m: *m,
        k: *k,
        n: *n,
    };
    multiply(c, a, b, &p, vec![*ba, *m, *n])
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::testing::*;

    fn matmul(a: (&[usize], &[f32]), b: (&[usize], &[f32])) -> (Vec<usize>, Vec<f32>) {
        let t = run1("aten.matmul", &[f32s(a.0, a.1), f32s(b.0, b.1)], unknown()).unwrap();
        (t.shape.clone(), f32_values(&t))
    }

    #[test]
    fn matrices_and_vectors() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let b = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        assert_eq!(
            matmul((&[2, 3], &a), (&[3, 2], &b)),
            (vec![2, 2], vec![4.0, 5.0, 10.0, 11.0])
        );
        // Vector by matrix: the row dimension is dropped.
        assert_eq!(
            matmul((&[3], &a[..3]), (&[3, 2], &b)),
            (vec![2], vec![4.0, 5.0])
        );
        // Matrix by vector: the column dimension is dropped.
        assert_eq!(
            matmul((&[2, 3], &a), (&[3], &[1.0, 1.0, 1.0])),
            (vec![2], vec![6.0, 15.0])
        );
        // Dot product.
        assert_eq!(
            matmul((&[3], &a[..3]), (&[3], &a[..3])),
            (vec![], vec![14.0])
        );
    }

    #[test]
    fn batch_dimensions_broadcast() {
        // [2, 1, 1, 2] by [3, 2, 1]: batch [2, 3], each a [1, 2] by [2, 1] product.
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [1.0, 1.0, 1.0, 0.0, 0.0, 1.0];
        let (shape, v) = matmul((&[2, 1, 1, 2], &a), (&[3, 2, 1], &b));
        assert_eq!(shape, vec![2, 3, 1, 1]);
        assert_eq!(v, vec![3.0, 1.0, 2.0, 7.0, 3.0, 4.0]);
        // A vector against a batch of matrices.
        let (shape, v) = matmul((&[2], &[1.0, 1.0]), (&[3, 2, 1], &b));
        assert_eq!((shape, v), (vec![3, 1], vec![2.0, 1.0, 1.0]));
    }

    #[test]
    fn int32_products_wrap_and_mm_bmm_check_ranks() {
        let a = i32s(&[1, 2], &[i32::MAX, 1]);
        let b = i32s(&[2, 1], &[1, 1]);
        let t = run1("aten.matmul", &[a.clone(), b.clone()], unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![i32::MIN]));
        let t = run1("aten.mm", &[a.clone(), b.clone()], unknown()).unwrap();
        assert_eq!(t.shape, vec![1, 1]);
        assert!(run("aten.mm", &[i32s(&[2], &[1, 1]), b.clone()], &[unknown()]).is_err());
        assert!(run("aten.bmm", &[a.clone(), b], &[unknown()]).is_err());
        assert!(run("aten.matmul", &[a.clone(), a], &[unknown()]).is_err());
        let x = i32s(&[1, 1, 2], &[1, 2]);
        let y = i32s(&[1, 2, 1], &[3, 4]);
        let t = run1("aten.bmm", &[x, y], unknown()).unwrap();
        assert_eq!(t.data, Data::I32(vec![11]));
    }

    /// The gemm path against the in-order kernel on random shapes with broadcast batches,
    /// at 1 and 2 threads, within the roundings a k-term sum can differ by.
    #[test]
    fn f32_fast_path_matches_the_reference() {
        use super::{Product, run, run_f32};
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for case in 0..40 {
            let (m, k, n) = (1 + next(40), next(70), 1 + next(40));
            let (a_batch, b_batch, batch) = match case % 3 {
                0 => (vec![], vec![], vec![]),
                1 => (vec![3], vec![1], vec![3]),
                _ => (vec![2, 1], vec![5], vec![2, 5]),
            };
            let count = |b: &[usize], r, c| b.iter().product::<usize>() * r * c;
            let mut values =
                |len| -> Vec<f32> { (0..len).map(|_| next(2001) as f32 / 1000.0 - 1.0).collect() };
            let a = values(count(&a_batch, m, k));
            let b = values(count(&b_batch, k, n));
            let p = Product {
                batch,
                a_batch,
                b_batch,
                m,
                k,
                n,
            };
            let reference = |a: &[f32], b: &[f32]| match run::<f32>(
                &p,
                &Data::F32(a.to_vec()),
                &Data::F32(b.to_vec()),
            )
            .unwrap()
            {
                Data::F32(v) => v,
                _ => unreachable!(),
            };
            let want = reference(&a, &b);
            let abs = |v: &[f32]| v.iter().map(|x| x.abs()).collect::<Vec<_>>();
            let magnitude = reference(&abs(&a), &abs(&b));
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let got = pool.install(|| run_f32(&p, &a, &b)).unwrap().unwrap();
                assert_eq!(got.len(), want.len());
                for ((x, y), mag) in got.iter().zip(&want).zip(&magnitude) {
                    let bound = 2.0 * (k as f32 + 1.0) * f32::EPSILON * mag;
                    assert!((x - y).abs() <= bound, "case {case}: {x} vs {y}");
                }
            }
        }
    }
}
