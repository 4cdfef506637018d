//! Compares a tensor qlower produced with the expected one: same dtype and shape; integers
//! and booleans exactly; floats with numpy's `allclose` rule `|got - want| <= atol + rtol *
//! |want|`, where NaN equals NaN and infinities equal themselves.

use qlower::kernels::tensor::{Data, Tensor};

fn is_float(data: &Data) -> bool {
    matches!(
        data,
        Data::F32(_) | Data::F64(_) | Data::F16(_) | Data::BF16(_) | Data::F8(..)
    )
}

/// `flat` as a multi-index of `shape`.
fn unflatten(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (slot, &dim) in index.iter_mut().zip(shape).rev() {
        if dim > 0 {
            *slot = flat % dim;
            flat /= dim;
        }
    }
    index
}

fn close(got: f64, want: f64, rtol: f64, atol: f64) -> bool {
    if got.is_nan() || want.is_nan() {
        return got.is_nan() && want.is_nan();
    }
    if got == want {
        return true;
    }
    if got.is_infinite() || want.is_infinite() {
        return false;
    }
    (got - want).abs() <= atol + rtol * want.abs()
}

/// `Ok` when `got` matches `want`; otherwise a one-line description of the first difference.
pub fn compare(got: &Tensor, want: &Tensor, rtol: f64, atol: f64) -> Result<(), String> {
    let (gd, wd) = (got.data.dtype(), want.data.dtype());
    if gd != wd {
        return Err(format!("dtype {gd}, expected {wd}"));
    }
    if got.shape != want.shape {
        return Err(format!("shape {:?}, expected {:?}", got.shape, want.shape));
    }
    if is_float(&want.data) {
        let (g, w) = (got.data.to_f64(), want.data.to_f64());
        let mut first = None;
        let mut count = 0usize;
        let mut max_diff = 0f64;
        for (i, (&a, &b)) in g.iter().zip(&w).enumerate() {
            if !close(a, b, rtol, atol) {
                count += 1;
                first.get_or_insert(i);
                let d = (a - b).abs();
                if d.is_nan() || d > max_diff {
                    max_diff = d;
                }
            }
        }
        if let Some(i) = first {
            return Err(format!(
                "{count} of {} elements differ beyond rtol {rtol:e}, atol {atol:e} \
                 (max |diff| {max_diff:e}); first at {:?}: got {}, expected {}",
                w.len(),
                unflatten(i, &want.shape),
                g[i],
                w[i]
            ));
        }
        return Ok(());
    }
    if got.data == want.data {
        return Ok(());
    }
    let (g, w) = (got.data.to_i64(), want.data.to_i64());
    let differing: Vec<usize> = (0..w.len()).filter(|&i| g[i] != w[i]).collect();
    let max_diff = differing
        .iter()
        .map(|&i| (g[i] as i128 - w[i] as i128).unsigned_abs())
        .max()
        .unwrap_or(0);
    let i = differing.first().copied().unwrap_or(0);
    Err(format!(
        "{} of {} elements differ (max |diff| {max_diff}); first at {:?}: got {}, expected {}",
        differing.len(),
        w.len(),
        unflatten(i, &want.shape),
        g[i],
        w[i]
    ))
}
