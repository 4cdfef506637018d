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
    /// Rows `first..` of the sum, as many as `out` holds.
    fn sum_rows(&self, first: usize, out: &mut [f32]) {
        let start = first * self.n;
        let a = &self.a[start..start + out.len()];
        out.copy_from_slice(a);
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
    }
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
fn sum_and_norm(t: &Terms, norm: impl Fn(&[f32], &mut [f32]) + Sync) -> (Vec<f32>, Vec<f32>) {
    let (n, total) = (t.n, t.a.len());
    let mut y = vec![0.0f32; total];
    let mut sum = vec![0.0f32; total];
    if n > 0 {
        y.par_chunks_mut(n * ROWS)
            .zip(sum.par_chunks_mut(n * ROWS))
            .enumerate()
            .for_each(|(k, (y, x))| {
                t.sum_rows(k * ROWS, x);
                norm(x, y);
            });
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
    with_avx2(
        #[inline(always)]
        || {
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
        },
    )
}
