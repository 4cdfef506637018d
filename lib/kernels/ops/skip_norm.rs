//! Normalizations over the last axis fused with the residual sum before them, as
//! `fuse-for-cpu` writes them (`qlower.skip_layer_norm`, `qlower.rms_norm`): the
//! transformer block's `norm(x + residual (+ bias))`, com.microsoft's
//! SkipLayerNormalization, (Skip)SimplifiedLayerNormalization and ONNX's
//! RMSNormalization, and the RMS norm exporters write out (T5, LLaMA). Each block of
//! rows is summed and normalized while it is in the cache, instead of one pass over
//! memory per op.
//!
//! Operands: the terms `a`, `b` (or none) and `c` (or none), summed as `(a + b) + c`
//! in f32 (`a` whole; `b` and `c` whole or one value per element of the last axis),
//! then the norm's own:
//! - `skip_layer_norm`: gamma (or none), beta (or none), epsilon; the norm is
//!   `layer_norm`'s f32 rows (`layer_norm::normalize_f32_rows`).
//! - `rms_norm`: gamma (or none), epsilon, and whether gamma is the product's first
//!   factor: `x / sqrt(mean(x·x) + eps) · gamma`, each step rounded to f32 as the
//!   unfused ops round it (the squares in f32, their mean as `mean.dim` takes it, an
//!   f64 sum in order divided by the count, the epsilon added in f32).
//!
//! Results: the norm, and the sum when the IR asks for a second result (the residual
//! stream the next block reads). So each gives the unfused ops' bytes.

use std::mem::MaybeUninit;

use anyhow::{Result, bail};
use rayon::prelude::*;

use super::layer_norm::{ROWS, affine, normalize_f32_rows};
use super::zip::with_avx2;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, args};

/// A term of the sum: a tensor of the sum's shape, or one value per element of the
/// last axis.
#[derive(Clone, Copy)]
enum Term<'a> {
    Whole(&'a [f32]),
    PerColumn(&'a [f32]),
}

/// The sum's terms and shape.
struct Terms<'a> {
    a: &'a [f32],
    rest: Vec<Term<'a>>,
    shape: Vec<usize>,
    /// Elements of a row (the last axis).
    n: usize,
}

impl Terms<'_> {
    /// Rows `first..` of the sum, as many as `out` holds, written into it.
    fn sum_rows<'o>(&self, first: usize, out: &'o mut [MaybeUninit<f32>]) -> &'o mut [f32] {
        let start = first * self.n;
        let a = &self.a[start..start + out.len()];
        let out = initialized_with(out, a);
        for term in &self.rest {
            match *term {
                Term::Whole(t) => {
                    for (s, &v) in out.iter_mut().zip(&t[start..]) {
                        *s += v;
                    }
                }
                Term::PerColumn(t) => {
                    for row in out.chunks_exact_mut(self.n) {
                        for (s, &v) in row.iter_mut().zip(t) {
                            *s += v;
                        }
                    }
                }
            }
        }
        out
    }
}

/// `out` written with `values` (as many as it holds), as initialized elements.
fn initialized_with<'o>(out: &'o mut [MaybeUninit<f32>], values: &[f32]) -> &'o mut [f32] {
    assert!(values.len() >= out.len(), "too few values to fill the rows");
    for (o, &v) in out.iter_mut().zip(values) {
        o.write(v);
    }
    // SAFETY: every element was written just above (the assert), and
    // `MaybeUninit<f32>` has f32's layout.
    unsafe { &mut *(out as *mut [MaybeUninit<f32>] as *mut [f32]) }
}

fn f32_data<'a>(t: &'a Tensor, what: &str) -> Result<&'a [f32]> {
    match &t.data {
        Data::F32(v) if t.quant.is_none() => Ok(v),
        _ => bail!("{what} must be an f32 tensor, but is {}", t.dtype()),
    }
}

/// Operands 0–2 as the terms of the sum.
fn terms<'a>(c: &'a Call) -> Result<Terms<'a>> {
    let a = args::tensor(c, 0)?;
    let Some(&n) = a.shape.last() else {
        bail!("the input must have at least one dimension");
    };
    let values = f32_data(a, "the input")?;
    let mut rest = Vec::new();
    for (i, what) in [(1, "the residual"), (2, "the bias")] {
        let Some(t) = args::opt_tensor(c, i)? else {
            continue;
        };
        let v = f32_data(t, what)?;
        let per_column =
            t.shape.last() == Some(&n) && t.shape.iter().rev().skip(1).all(|&d| d == 1);
        rest.push(if t.shape == a.shape {
            Term::Whole(v)
        } else if per_column {
            Term::PerColumn(v)
        } else {
            bail!(
                "{what} {:?} is neither the input's shape {:?} nor one row",
                t.shape,
                a.shape
            );
        });
    }
    Ok(Terms {
        a: values,
        rest,
        shape: a.shape.clone(),
        n,
    })
}

/// The results: the norm `y`, then the sum when the IR declares a second result.
fn results(c: &Call, shape: &[usize], y: Vec<f32>, sum: Vec<f32>) -> Result<Vec<Value>> {
    let mut out = args::ret(c, Tensor::new(shape.to_vec(), Data::F32(y))?)?;
    if c.results.len() > 1 {
        out.push(Value::tensor(Tensor::new(shape.to_vec(), Data::F32(sum))?));
    }
    Ok(out)
}

/// The sum of `t` and `norm` of it, a block of `ROWS` rows at a time over the pool,
/// the block's sum still in the cache: `(norm, sum)`. The sum is the scratch the norm
/// reads, and a result when the IR asks for it.
/// Both are written block by block, never zeroed first (a serial `memset` of each).
fn sum_and_norm(t: &Terms, norm: impl Fn(&[f32], &mut [f32]) + Sync) -> (Vec<f32>, Vec<f32>) {
    let (n, total) = (t.n, t.a.len());
    if n == 0 {
        return (vec![0.0; total], vec![0.0; total]);
    }
    let mut y = Vec::with_capacity(total);
    let mut sum = Vec::with_capacity(total);
    y.spare_capacity_mut()[..total]
        .par_chunks_mut(n * ROWS)
        .zip(sum.spare_capacity_mut()[..total].par_chunks_mut(n * ROWS))
        .enumerate()
        .for_each(|(k, (y, x))| {
            let x = t.sum_rows(k * ROWS, x);
            // The norm writes every element of its rows: it starts from the sum.
            norm(x, initialized_with(y, x));
        });
    // SAFETY: the blocks cover the first `total` elements of both, and each block
    // wrote all of its own (`for_each` returns after every block; a panic unwinds
    // with both lengths 0).
    unsafe {
        y.set_len(total);
        sum.set_len(total);
    }
    (y, sum)
}

/// `qlower.skip_layer_norm(a, b, c, gamma, beta, epsilon)`.
pub fn skip_layer_norm(c: &Call) -> Result<Vec<Value>> {
    let t = terms(c)?;
    let n = t.n;
    let weight = affine(c, 3, &[n], "gamma")?;
    let bias = affine(c, 4, &[n], "beta")?;
    let eps = args::float(c, 5)?;
    let (y, sum) = sum_and_norm(&t, |x, y| {
        let (mut means, mut rstds) = ([0.0; ROWS], [0.0; ROWS]);
        let affine = (weight.as_deref(), bias.as_deref());
        normalize_f32_rows(x, n, eps, affine, y, &mut means, &mut rstds);
    });
    results(c, &t.shape, y, sum)
}

/// `qlower.rms_norm(a, b, c, gamma, epsilon, gamma_first)`.
pub fn rms_norm(c: &Call) -> Result<Vec<Value>> {
    let t = terms(c)?;
    let n = t.n;
    let gamma = match args::opt_tensor(c, 3)? {
        None => None,
        Some(g) => {
            let v = f32_data(g, "gamma")?;
            if v.len() != n {
                bail!("gamma has {} values for rows of {n}", v.len());
            }
            Some(v)
        }
    };
    // The unfused add rounds the epsilon to f32 (`add.Scalar`), or reads an f32 literal.
    let eps = args::float(c, 4)? as f32;
    let gamma_first = args::boolean(c, 5)?;
    let (y, sum) = sum_and_norm(&t, |x, y| rms_rows(x, n, eps, gamma, gamma_first, y));
    results(c, &t.shape, y, sum)
}

/// Up to `ROWS` rows of `n` values RMS-normalized into `y`. The squares' sums run
/// side by side, one f64 lane a row, each adding its row in order, as `mean.dim`'s
/// f32 path does.
fn rms_rows(
    x: &[f32],
    n: usize,
    eps: f32,
    gamma: Option<&[f32]>,
    gamma_first: bool,
    y: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::isa::Isa::best().includes(crate::kernels::isa::Isa::Avx512Vnni) {
        // SAFETY: the level's features were detected on this CPU.
        return unsafe { rms_rows_avx512(x, n, eps, gamma, gamma_first, y) };
    }
    with_avx2(
        #[inline(always)]
        || {
            let acc = square_sums(x, n);
            rms_scale(x, n, &acc, eps, gamma, gamma_first, y);
        },
    )
}

/// `rms_rows` with the block's squares summed a column of eight rows at a time (the
/// scalar loop loaded the rows' values one by one), each 8x8 block of values
/// transposed in registers, and zmm divisions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
fn rms_rows_avx512(
    x: &[f32],
    n: usize,
    eps: f32,
    gamma: Option<&[f32]>,
    gamma_first: bool,
    y: &mut [f32],
) {
    use std::arch::x86_64::*;
    const _: () = assert!(ROWS == 8);
    let acc = if x.len() == ROWS * n {
        let whole = n - n % 8;
        let mut acc = [0.0f64; ROWS];
        // SAFETY: avx512f and avx2 are enabled here; each load reads 8 values of a
        // row at a column below `whole`, inside the row.
        unsafe {
            let mut sums = _mm512_setzero_pd();
            for j in (0..whole).step_by(8) {
                let r: [__m256; 8] =
                    std::array::from_fn(|k| _mm256_loadu_ps(x.as_ptr().add(k * n + j)));
                let t = [
                    _mm256_unpacklo_ps(r[0], r[1]),
                    _mm256_unpackhi_ps(r[0], r[1]),
                    _mm256_unpacklo_ps(r[2], r[3]),
                    _mm256_unpackhi_ps(r[2], r[3]),
                    _mm256_unpacklo_ps(r[4], r[5]),
                    _mm256_unpackhi_ps(r[4], r[5]),
                    _mm256_unpacklo_ps(r[6], r[7]),
                    _mm256_unpackhi_ps(r[6], r[7]),
                ];
                // u[c] holds columns c (low half) and c + 4 (high half) of rows 0-3,
                // u[4 + c] the same of rows 4-7.
                let u = [
                    _mm256_shuffle_ps::<0x44>(t[0], t[2]),
                    _mm256_shuffle_ps::<0xEE>(t[0], t[2]),
                    _mm256_shuffle_ps::<0x44>(t[1], t[3]),
                    _mm256_shuffle_ps::<0xEE>(t[1], t[3]),
                    _mm256_shuffle_ps::<0x44>(t[4], t[6]),
                    _mm256_shuffle_ps::<0xEE>(t[4], t[6]),
                    _mm256_shuffle_ps::<0x44>(t[5], t[7]),
                    _mm256_shuffle_ps::<0xEE>(t[5], t[7]),
                ];
                for c in 0..8 {
                    let column = if c < 4 {
                        _mm256_permute2f128_ps::<0x20>(u[c], u[4 + c])
                    } else {
                        _mm256_permute2f128_ps::<0x31>(u[c - 4], u[c])
                    };
                    let squares = _mm256_mul_ps(column, column);
                    sums = _mm512_add_pd(sums, _mm512_cvtps_pd(squares));
                }
            }
            _mm512_storeu_pd(acc.as_mut_ptr(), sums);
        }
        for (k, a) in acc.iter_mut().enumerate() {
            for &v in &x[k * n + whole..(k + 1) * n] {
                *a += f64::from(v * v);
            }
        }
        acc
    } else {
        square_sums(x, n)
    };
    rms_scale(x, n, &acc, eps, gamma, gamma_first, y);
}

/// Each row's sum of squares in f64, in order: `acc[k] += f64(v·v)`.
#[inline(always)]
fn square_sums(x: &[f32], n: usize) -> [f64; ROWS] {
    let count = x.len() / n;
    let rows: [&[f32]; ROWS] = std::array::from_fn(|k| &x[k.min(count - 1) * n..][..n]);
    let mut acc = [0.0f64; ROWS];
    #[expect(
        clippy::needless_range_loop,
        reason = "j is a column, taken from every row"
    )]
    for j in 0..n {
        for k in 0..ROWS {
            let v = rows[k][j];
            acc[k] += f64::from(v * v);
        }
    }
    acc
}

/// Each row divided by its root mean square (and times gamma), from the rows' sums of
/// squares `acc`.
#[inline(always)]
fn rms_scale(
    x: &[f32],
    n: usize,
    acc: &[f64; ROWS],
    eps: f32,
    gamma: Option<&[f32]>,
    gamma_first: bool,
    y: &mut [f32],
) {
    for (k, (x, y)) in x.chunks_exact(n).zip(y.chunks_exact_mut(n)).enumerate() {
        let mean = (acc[k] / n as f64) as f32;
        let root = (mean + eps).sqrt();
        match (gamma, gamma_first) {
            (None, _) => y.iter_mut().zip(x).for_each(|(y, &v)| *y = v / root),
            (Some(g), false) => {
                for ((y, &v), &g) in y.iter_mut().zip(x).zip(g) {
                    *y = (v / root) * g;
                }
            }
            (Some(g), true) => {
                for ((y, &v), &g) in y.iter_mut().zip(x).zip(g) {
                    *y = g * (v / root);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::testing::test_bytes;

    /// The transposed column sums give the scalar loop's bytes: rows of whole and
    /// partial 8-column blocks, a whole block of rows and a short one, with and
    /// without gamma.
    #[test]
    fn every_path_gives_the_scalar_rows() {
        for n in [1usize, 3, 8, 21, 64, 67] {
            for count in [ROWS, 5, 1] {
                let x: Vec<f32> = test_bytes(n as u64, n * count)
                    .iter()
                    .map(|&b| (f32::from(b) - 127.5) * 0.0371)
                    .collect();
                let g: Vec<f32> = (0..n).map(|j| 0.5 + j as f32 * 0.013).collect();
                for (gamma, first) in [(None, false), (Some(&g[..]), false), (Some(&g[..]), true)] {
                    let mut want = vec![0.0f32; x.len()];
                    rms_scale(&x, n, &square_sums(&x, n), 1e-6, gamma, first, &mut want);
                    let mut got = vec![0.0f32; x.len()];
                    rms_rows(&x, n, 1e-6, gamma, first, &mut got);
                    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got), bits(&want), "n={n} rows={count}");
                }
            }
        }
    }
}
