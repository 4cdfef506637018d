//! One softmax row's passes (maximum, exponentials of the shifted values, f64 sum,
//! scaling) in one function compiled for the vector unit: as separate kernels the
//! maximum tracked NaNs lane by lane, the shift and the scale ran on SSE, and the
//! shifted row went through memory. The arithmetic is `norm::softmax_row_in_passes`',
//! element for element and in its order: `x - max` in f32, `exp` per lane (the tail
//! through a padded vector, as `map_on` does), the f64 sum of `row_reduce::sum_f64`
//! itself, rounded to f32 once, and each exponential times the f32 reciprocal of the sum. The
//! maximum is `vmaxps`', which drops NaNs; a NaN in the row makes the sum NaN, and the
//! row is then left to the passes, whose maximum is NaN as torch's is.

use super::exp::exp;
use super::lanes::Lanes;
use crate::kernels::ops::row_reduce::sum_f64;

/// Lanes of the widest vector: the tail goes through one padded vector.
const LANES: usize = 16;

/// Rows a group runs side by side.
pub(super) const GROUP_ROWS: usize = 4;

/// `exp(x - max) / sum` of each row of `n` elements of `x` (at most `GROUP_ROWS`)
/// into `y` (as long); `false` when a row's sum is NaN (a NaN in the row, or
/// infinities of both signs), and `y` is then to be recomputed. Each pass runs over
/// every row of the group before the next pass: a row's passes are chains of
/// dependent steps (128 elements took ~3 cycles each row by row), and the rows'
/// chains overlap. Each row's arithmetic is the single row's.
#[inline(always)]
pub(super) fn softmax_rows<V: Lanes>(x: &[f32], y: &mut [f32], n: usize) -> bool {
    if n == 0 {
        return true;
    }
    let rows = (x.len().min(y.len()) / n).min(GROUP_ROWS);
    let mut shift = [0.0f32; GROUP_ROWS];
    for (r, m) in shift.iter_mut().enumerate().take(rows) {
        *m = row_max::<V>(&x[r * n..(r + 1) * n]);
    }
    for (r, &m) in shift.iter().enumerate().take(rows) {
        exps::<V>(&x[r * n..(r + 1) * n], &mut y[r * n..(r + 1) * n], m);
    }
    let mut inv = [0.0f32; GROUP_ROWS];
    for (r, v) in inv.iter_mut().enumerate().take(rows) {
        let sum = sum_f64(&y[r * n..(r + 1) * n]) as f32;
        if sum.is_nan() {
            return false;
        }
        *v = (1.0 / f64::from(sum)) as f32;
    }
    for (r, &v) in inv.iter().enumerate().take(rows) {
        scale::<V>(&mut y[r * n..(r + 1) * n], v);
    }
    true
}

/// The row's maximum as `vmaxps` takes it (NaNs dropped).
#[inline(always)]
fn row_max<V: Lanes>(x: &[f32]) -> f32 {
    let n = x.len();
    let vectors = n - n % V::N;
    let mut top = V::splat(f32::NEG_INFINITY);
    for x in x[..vectors].chunks_exact(V::N) {
        top = V::load(x).max(top);
    }
    let mut lanes = [f32::NEG_INFINITY; LANES];
    top.store(&mut lanes);
    lanes[..V::N]
        .iter()
        .chain(&x[vectors..n])
        .fold(f32::NEG_INFINITY, |m, &v| m.max(v))
}

/// `y = exp(x - max)`, the tail through a padded vector.
#[inline(always)]
fn exps<V: Lanes>(x: &[f32], y: &mut [f32], max: f32) {
    let n = x.len().min(y.len());
    let vectors = n - n % V::N;
    let shift = V::splat(max);
    for (x, y) in x[..vectors]
        .chunks_exact(V::N)
        .zip(y[..vectors].chunks_exact_mut(V::N))
    {
        exp(V::load(x).sub(shift)).store(y);
    }
    if vectors < n {
        let mut padded = [0.0f32; LANES];
        padded[..n - vectors].copy_from_slice(&x[vectors..n]);
        let mut res = [0.0f32; LANES];
        exp(V::load(&padded).sub(shift)).store(&mut res);
        y[vectors..n].copy_from_slice(&res[..n - vectors]);
    }
}

/// `y *= inv`.
#[inline(always)]
fn scale<V: Lanes>(y: &mut [f32], inv: f32) {
    let vectors = y.len() - y.len() % V::N;
    let (whole, tail) = y.split_at_mut(vectors);
    for y in whole.chunks_exact_mut(V::N) {
        V::load(y).mul(V::splat(inv)).store(y);
    }
    for e in tail {
        *e *= inv;
    }
}
