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

/// `exp(x - max) / sum` of the row `x` into `y` (as long); `false` when the sum is
/// NaN (a NaN in the row, or infinities of both signs), and `y` is then to be
/// recomputed.
#[inline(always)]
pub(super) fn softmax_row<V: Lanes>(x: &[f32], y: &mut [f32]) -> bool {
    let n = x.len().min(y.len());
    let vectors = n - n % V::N;
    let mut top = V::splat(f32::NEG_INFINITY);
    for x in x[..vectors].chunks_exact(V::N) {
        top = V::load(x).max(top);
    }
    let mut lanes = [f32::NEG_INFINITY; LANES];
    top.store(&mut lanes);
    let max = lanes[..V::N]
        .iter()
        .chain(&x[vectors..n])
        .fold(f32::NEG_INFINITY, |m, &v| m.max(v));
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
    let sum = sum_f64(&y[..n]) as f32;
    if sum.is_nan() {
        return false;
    }
    let inv = (1.0 / f64::from(sum)) as f32;
    for y in y[..vectors].chunks_exact_mut(V::N) {
        V::load(y).mul(V::splat(inv)).store(y);
    }
    for e in &mut y[vectors..n] {
        *e *= inv;
    }
    true
}
