//! Layer normalization: `native_layer_norm(input, normalized_shape, weight?, bias?,
//! eps)` gives `(y, mean, rstd)`, normalizing over the trailing dimensions that
//! `normalized_shape` names; `layer_norm(…, cudnn_enable)` gives `y` alone. Each group's
//! mean and variance are accumulated in f64 (ONNX Runtime accumulates f32 in f32; the
//! f64 figures are the exact ones it approximates), and `y` is rounded once.

use anyhow::{Result, bail};

use rayon::prelude::*;

use crate::kernels::tensor::data::from_f64;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.native_layer_norm" => |c| layer_norm(c, true),
        "aten.layer_norm" => |c| layer_norm(c, false),
        _ => return None,
    })
}

/// An optional affine operand (weight or bias): absent, or a float tensor of the
/// normalized shape (broadcast from fewer leading dimensions, as ONNX allows).
pub(crate) fn affine(
    c: &Call,
    i: usize,
    normalized: &[usize],
    what: &str,
) -> Result<Option<Vec<f64>>> {
    let Some(t) = args::opt_tensor(c, i)? else {
        return Ok(None);
    };
    if t.quant.is_some() || !t.data.dtype().is_float() {
        bail!("{what} must be a float tensor, but is {}", t.dtype());
    }
    let n: usize = normalized.iter().product();
    let fits = t.rank() <= normalized.len()
        && t.shape
            .iter()
            .rev()
            .zip(normalized.iter().rev())
            .all(|(&a, &b)| a == b || a == 1);
    if !fits {
        bail!(
            "{what} has shape {:?}, which does not broadcast to the normalized shape {normalized:?}",
            t.shape
        );
    }
    let v = t.data.to_f64();
    if v.len() == n {
        return Ok(Some(v));
    }
    // Broadcast the few size-1 dimensions out to the full normalized shape.
    let mut out = Vec::with_capacity(n);
    let pad = normalized.len() - t.rank();
    let shape: Vec<usize> = std::iter::repeat_n(1, pad)
        .chain(t.shape.iter().copied())
        .collect();
    for flat in 0..n {
        let (mut rest, mut src, mut stride) = (flat, 0, 1);
        for d in (0..normalized.len()).rev() {
            let k = rest % normalized[d];
            rest /= normalized[d];
            if shape[d] != 1 {
                src += k * stride;
            }
            stride *= shape[d];
        }
        out.push(v.get(src).copied().unwrap_or(0.0));
    }
    Ok(Some(out))
}

/// One group: its mean and 1/std, and each normalized value (times the weight, plus
/// the bias) written to `out`.
fn normalize(
    row: &[f64],
    eps: f64,
    weight: Option<&[f64]>,
    bias: Option<&[f64]>,
    out: &mut [f64],
) -> (f64, f64) {
    let [(mean, rstd)] = statistics([row], eps, |a| a);
    apply(row, mean, rstd, (weight, bias), |a| a, out, |r| r);
    (mean, rstd)
}

/// The mean and 1/std of each of `R` rows of one length, each row's sums added left
/// to right from -0.0 as `Iterator::sum` does; the rows side by side, so that their
/// independent additions overlap instead of each waiting for the one before.
#[inline(always)]
fn statistics<T: Copy, const R: usize>(
    rows: [&[T]; R],
    eps: f64,
    wide: impl Fn(T) -> f64,
) -> [(f64, f64); R] {
    let n = rows[0].len();
    let mut sums = [-0.0f64; R];
    for k in 0..n {
        for (s, row) in sums.iter_mut().zip(rows) {
            *s += wide(row[k]);
        }
    }
    let means = sums.map(|s| s / n as f64);
    let mut squares = [-0.0f64; R];
    for k in 0..n {
        for ((s, row), mean) in squares.iter_mut().zip(rows).zip(means) {
            let d = wide(row[k]) - mean;
            *s += d * d;
        }
    }
    std::array::from_fn(|r| (means[r], 1.0 / (squares[r] / n as f64 + eps).sqrt()))
}

/// Each normalized value of `row` (times the weight, plus the bias), narrowed into
/// `out`: one loop per combination of affine operands, so that each vectorizes.
#[inline(always)]
fn apply<T: Copy, O>(
    row: &[T],
    mean: f64,
    rstd: f64,
    affine: (Option<&[f64]>, Option<&[f64]>),
    wide: impl Fn(T) -> f64,
    out: &mut [O],
    narrow: impl Fn(f64) -> O,
) {
    let n = row.len().min(out.len());
    let (row, out) = (&row[..n], &mut out[..n]);
    let normal = |a: T| (wide(a) - mean) * rstd;
    match affine {
        (Some(w), Some(b)) => {
            for (((y, &a), &w), &b) in out.iter_mut().zip(row).zip(&w[..n]).zip(&b[..n]) {
                *y = narrow(normal(a) * w + b);
            }
        }
        (Some(w), None) => {
            for ((y, &a), &w) in out.iter_mut().zip(row).zip(&w[..n]) {
                *y = narrow(normal(a) * w);
            }
        }
        (None, Some(b)) => {
            for ((y, &a), &b) in out.iter_mut().zip(row).zip(&b[..n]) {
                *y = narrow(normal(a) + b);
            }
        }
        (None, None) => {
            for (y, &a) in out.iter_mut().zip(row) {
                *y = narrow(normal(a));
            }
        }
    }
}

/// Rows whose statistics are computed together.
pub(crate) const ROWS: usize = 8;

/// Up to `ROWS` f32 rows of `n` values (`rows`), normalized into `y`, each row's mean
/// and 1/std into `means` and `rstds`: the f32 path of `layer_norm`, which fused
/// kernels that end in a layer norm call for its bytes.
pub(crate) fn normalize_f32_rows(
    rows: &[f32],
    n: usize,
    eps: f64,
    affine: (Option<&[f64]>, Option<&[f64]>),
    y: &mut [f32],
    means: &mut [f64],
    rstds: &mut [f64],
) {
    let wide = |a: f32| f64::from(a);
    super::zip::with_avx2(
        #[inline(always)]
        || {
            let mut stats = [(0.0, 0.0); ROWS];
            if rows.len() == n * ROWS {
                let rows = std::array::from_fn(|r| &rows[r * n..][..n]);
                stats = statistics(rows, eps, wide);
            } else {
                for (st, row) in stats.iter_mut().zip(rows.chunks_exact(n)) {
                    [*st] = statistics([row], eps, wide);
                }
            }
            for (((y, row), &(mean, rstd)), (m, s)) in y
                .chunks_exact_mut(n)
                .zip(rows.chunks_exact(n))
                .zip(&stats)
                .zip(means.iter_mut().zip(rstds.iter_mut()))
            {
                apply(row, mean, rstd, affine, wide, y, |r| r as f32);
                (*m, *s) = (mean, rstd);
            }
        },
    )
}

fn layer_norm(c: &Call, stats: bool) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let dtype = x.data.dtype();
    if x.quant.is_some() || !dtype.is_float() {
        bail!("the input must be a float tensor, but is {}", x.dtype());
    }
    let normalized = args::ints(c, 1)?;
    let rank = x.rank();
    if normalized.len() > rank {
        bail!(
            "normalized_shape {normalized:?} has more dimensions than the input {:?}",
            x.shape
        );
    }
    let axis = rank - normalized.len();
    let tail = &x.shape[axis..];
    if tail.iter().zip(normalized).any(|(&a, &b)| a as i64 != b) {
        bail!("normalized_shape {normalized:?} is not the input's trailing shape {tail:?}");
    }
    let weight = affine(c, 2, tail, "weight")?;
    let bias = affine(c, 3, tail, "bias")?;
    let eps = args::float(c, 4)?;
    let n: usize = tail.iter().product();
    let groups: usize = x.shape[..axis].iter().product();
    let mut means = vec![f64::NAN; groups];
    let mut rstds = vec![f64::NAN; groups];
    let (weight, bias) = (weight.as_deref(), bias.as_deref());
    let out = match &x.data {
        // Rows are independent, so they run in parallel with the same arithmetic,
        // `ROWS` at a time.
        Data::F32(v) if n > 0 => {
            let mut y = vec![0.0f32; v.len()];
            y.par_chunks_mut(n * ROWS)
                .zip(v.par_chunks(n * ROWS))
                .zip(means.par_chunks_mut(ROWS).zip(rstds.par_chunks_mut(ROWS)))
                .for_each(|((y, rows), (means, rstds))| {
                    normalize_f32_rows(rows, n, eps, (weight, bias), y, means, rstds)
                });
            Tensor::new(x.shape.clone(), Data::F32(y))?
        }
        _ => {
            let v = x.data.to_f64();
            let mut y = vec![0.0; v.len()];
            if n > 0 {
                for (g, (row, out)) in v.chunks(n).zip(y.chunks_mut(n)).take(groups).enumerate() {
                    (means[g], rstds[g]) = normalize(row, eps, weight, bias, out);
                }
            }
            Tensor::new(x.shape.clone(), from_f64(dtype, &y))?
        }
    };
    let result = args::ret(c, out)?;
    if !stats {
        return Ok(result);
    }
    let mut stats_shape = x.shape[..axis].to_vec();
    stats_shape.resize(rank, 1);
    let mut values = result;
    for (i, s) in [(1, means), (2, rstds)] {
        let stat_dtype = args::declared(c, i).and_then(|t| t.dtype).unwrap_or(dtype);
        if !stat_dtype.is_float() {
            bail!("result {i} is declared {stat_dtype}, not a float type");
        }
        let t = Tensor::new(stats_shape.clone(), from_f64(stat_dtype, &s))?;
        if let Some(ty) = args::declared(c, i) {
            args::check_declared(ty, &t)?;
        }
        values.push(Value::tensor(t));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn normalizes_the_trailing_dimensions() {
        let x = f32s(&[2, 2], &[1.0, 3.0, -2.0, -2.0]);
        let w = f32s(&[2], &[2.0, 1.0]);
        let b = f32s(&[2], &[0.5, 0.0]);
        let args = [x.clone(), ints(&[2]), w, b, Value::Float(0.0)];
        let out = run(
            "aten.native_layer_norm",
            &args,
            &[of(DType::F32), of(DType::F32), of(DType::F32)],
        )
        .unwrap();
        let y = f32_values(out[0].as_tensor().unwrap());
        // Row 0: mean 2, std 1 → (-1, 1) · w + b.
        assert_eq!(y[..2], [-1.5, 1.0]);
        // Row 1: variance 0 and eps 0 → inf · 0 is NaN, as 0/0 is.
        assert!(y[2].is_nan());
        let mean = out[1].as_tensor().unwrap();
        assert_eq!(
            (mean.shape.clone(), f32_values(mean)),
            (vec![2, 1], vec![2.0, -2.0])
        );
        assert_eq!(f32_values(out[2].as_tensor().unwrap())[0], 1.0);
        let args = [
            x.clone(),
            ints(&[2, 2]),
            Value::None,
            Value::None,
            Value::Float(1e-5),
            Value::Bool(false),
        ];
        let t = run1("aten.layer_norm", &args, unknown()).unwrap();
        assert_eq!(t.shape, vec![2, 2]);
        let args = [x, ints(&[3]), Value::None, Value::None, Value::Float(1e-5)];
        assert!(
            run(
                "aten.native_layer_norm",
                &args,
                &[unknown(), unknown(), unknown()]
            )
            .is_err()
        );
    }

    #[test]
    fn rows_side_by_side_keep_each_rows_sums_bit_for_bit() {
        // 8 + 8 + 3 rows of values too widely ranged for an exact f64 sum, so the
        // order of the additions shows: the side-by-side sums and the
        // output loops give the bits of one row summed alone, in f64 from -0.0.
        let (rows, n) = (19, 37);
        let x: Vec<f32> = test_bytes(3, rows * n)
            .iter()
            .enumerate()
            .map(|(i, &b)| (b as f32 - 127.5) * [1e12, 1e-3, 7.0, 1e-12, 3e5][i % 5])
            .collect();
        let w: Vec<f32> = test_bytes(4, n).iter().map(|&b| b as f32 / 64.0).collect();
        let b: Vec<f32> = test_bytes(5, n).iter().map(|&b| b as f32 - 9.0).collect();
        let args = [
            f32s(&[rows, n], &x),
            ints(&[n as i64]),
            f32s(&[n], &w),
            f32s(&[n], &b),
            Value::Float(1e-5),
        ];
        // The statistics as f64, so that every bit of the sums shows.
        let out = run(
            "aten.native_layer_norm",
            &args,
            &[of(DType::F32), of(DType::F64), of(DType::F64)],
        )
        .unwrap();
        let y = f32_values(out[0].as_tensor().unwrap());
        let stat = |i: usize| match &out[i].as_tensor().unwrap().data {
            crate::kernels::tensor::Data::F64(v) => v.clone(),
            other => panic!("{other:?}"),
        };
        let (means, rstds) = (stat(1), stat(2));
        for (r, row) in x.chunks(n).enumerate() {
            let wide: Vec<f64> = row.iter().map(|&a| f64::from(a)).collect();
            let mean = wide.iter().sum::<f64>() / n as f64;
            let var = wide.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / n as f64;
            let rstd = 1.0 / (var + 1e-5).sqrt();
            assert_eq!(means[r].to_bits(), mean.to_bits(), "row {r} mean");
            assert_eq!(rstds[r].to_bits(), rstd.to_bits(), "row {r} rstd");
            for k in 0..n {
                let want = ((wide[k] - mean) * rstd * f64::from(w[k]) + f64::from(b[k])) as f32;
                assert_eq!(y[r * n + k].to_bits(), want.to_bits(), "row {r} column {k}");
            }
        }
    }
}
