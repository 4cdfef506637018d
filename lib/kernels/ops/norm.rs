//! Normalizations: inference `batch_norm`, and `softmax` / `log_softmax` along a
//! dimension. Both are computed in the steps ONNX Runtime takes, rounding to the
//! element type after each: batch norm folds each channel into one scale and one
//! offset; softmax subtracts the maximum, sums the exponentials in f64, and scales
//! by the reciprocal of the sum (log-softmax subtracts its logarithm).

use std::mem::MaybeUninit;

use anyhow::{Result, bail};

use rayon::prelude::*;

use super::row_reduce::{max_or_nan, sum_f64};
use super::vector_math::{Func, SOFTMAX_ROWS, map_on, softmax_rows_on};
use crate::kernels::isa::Isa;
use crate::kernels::tensor::data::{Prec, cast, from_f64};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::unfilled::{cleared, written_by};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.batch_norm" | "aten._native_batch_norm_legit_no_training" => batch_norm,
        "aten.softmax.int" | "aten._softmax" => |c| softmax(c, false),
        "aten.log_softmax.int" | "aten._log_softmax" => |c| softmax(c, true),
        _ => return None,
    })
}

/// A float tensor's precision; other inputs are refused.
fn float_dtype(t: &Tensor, what: &str) -> Result<DType> {
    let dtype = t.data.dtype();
    if t.quant.is_some() || !dtype.is_float() {
        bail!("{what} must be a float tensor, but is {}", t.dtype());
    }
    Ok(dtype)
}

/// A float tensor's values and precision; other inputs are refused.
fn float_input(t: &Tensor, what: &str) -> Result<(Vec<f64>, DType)> {
    let dtype = float_dtype(t, what)?;
    Ok((t.data.to_f64(), dtype))
}

/// `batch_norm(input, weight?, bias?, running_mean?, running_var?, training,
/// momentum, eps, cudnn_enabled)` with `training = false`: per channel (dimension 1),
/// `y = x·s + (b - mean·s)` with `s = weight / sqrt(var + eps)`.
fn batch_norm(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let dtype = float_dtype(x, "the input")?;
    if x.rank() < 2 {
        bail!("batch_norm of shape {:?}: needs (N, C, ...)", x.shape);
    }
    // The short form (`_native_batch_norm_legit_no_training`) has no training flag.
    let (training, eps) = if c.args.len() >= 9 {
        (args::boolean(c, 5)?, args::float(c, 7)?)
    } else {
        (false, args::float(c, 6)?)
    };
    if training {
        bail!("batch_norm in training mode is not supported: only inference is");
    }
    let channels = x.shape[1];
    let per_channel = |i: usize, default: Option<f64>, what: &str| -> Result<Vec<f64>> {
        match (args::opt_tensor(c, i)?, default) {
            (Some(t), _) => {
                if t.shape != [channels] {
                    bail!("{what} has shape {:?}, expected [{channels}]", t.shape);
                }
                Ok(float_input(t, what)?.0)
            }
            (None, Some(d)) => Ok(vec![d; channels]),
            (None, None) => bail!("{what} is required in inference"),
        }
    };
    let weight = per_channel(1, Some(1.0), "weight")?;
    let bias = per_channel(2, Some(0.0), "bias")?;
    let mean = per_channel(3, None, "running_mean")?;
    let var = per_channel(4, None, "running_var")?;
    let p = Prec(dtype);
    let eps = p.round(eps);
    let mut scale = Vec::with_capacity(channels);
    let mut offset = Vec::with_capacity(channels);
    for ch in 0..channels {
        let inv_std = p.round(1.0 / p.round(p.round(var[ch] + eps).sqrt()));
        let s = p.round(inv_std * weight[ch]);
        scale.push(s);
        offset.push(p.round(bias[ch] - p.round(mean[ch] * s)));
    }
    let inner: usize = x.shape[2..].iter().product();
    if let Data::F32(values) = &x.data {
        // In f32 itself: f64 holds every f32 product and sum exactly enough (53 ≥
        // 2·24 + 2 bits) that rounding it to f32 gives f32's own result, so this is
        // the loop below, without the round trip through f64 (a dynamically quantized
        // ResNet-50 at 1024x1024 spent three quarters of its run there).
        let scale: Vec<f32> = scale.iter().map(|&v| v as f32).collect();
        let offset: Vec<f32> = offset.iter().map(|&v| v as f32).collect();
        let mut y = vec![0f32; values.len()];
        let planes = y
            .par_chunks_mut(inner.max(1))
            .zip(values.par_chunks(inner.max(1)))
            .enumerate()
            .with_min_len((PLANE_TASK / inner.max(1)).max(1));
        planes.for_each(|(plane, (dst, src))| {
            let ch = plane % channels.max(1);
            let (s, o) = (scale[ch], offset[ch]);
            for (d, &v) in dst.iter_mut().zip(src) {
                *d = v * s + o;
            }
        });
        return args::ret(c, Tensor::new(x.shape.clone(), Data::F32(y))?);
    }
    let values = x.data.to_f64();
    let y: Vec<f64> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let ch = (i / inner.max(1)) % channels.max(1);
            p.round(p.round(v * scale[ch]) + offset[ch])
        })
        .collect();
    args::ret(c, Tensor::new(x.shape.clone(), from_f64(dtype, &y))?)
}

/// Elements of f32 batch norm one rayon task takes, in whole planes.
const PLANE_TASK: usize = 1 << 16;

/// `softmax.int(self, dim, dtype?)` and `_softmax(self, dim, half_to_float)`, and the
/// log forms: along `dim`, with the input first converted to `dtype` when given.
fn softmax(c: &Call, log: bool) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let dim = args::dim(args::int(c, 1)?, x.rank())?;
    let converted;
    let x = match args::opt(c, 2) {
        Some(Value::Int(_)) => {
            let dtype = args::dtype_code(c, 2)?;
            converted = Tensor::new(x.shape.clone(), cast(&x.data, dtype))?;
            &converted
        }
        _ => x,
    };
    let size = x.shape.get(dim).copied().unwrap_or(1);
    let inner: usize = x.shape.get(dim + 1..).unwrap_or(&[]).iter().product();
    if let (Data::F32(v), false, 1) = (&x.data, log, inner) {
        return args::ret(
            c,
            Tensor::new(x.shape.clone(), Data::F32(softmax_rows(v, size)))?,
        );
    }
    let (values, dtype) = float_input(x, "the input")?;
    let p = Prec(dtype);
    let outer: usize = x.shape[..dim.min(x.rank())].iter().product();
    let mut y = vec![0.0; values.len()];
    let mut e = vec![0.0; size];
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * size + k) * inner + i;
            let max = (0..size)
                .map(|k| values[at(k)])
                .fold(
                    f64::NEG_INFINITY,
                    |m, v| if v > m || v.is_nan() { v } else { m },
                );
            // The exponentials add in f64 and round once: a fold at the element
            // type's precision loses ~size/2 of its ulps.
            let mut sum = 0.0;
            for (k, e) in e.iter_mut().enumerate() {
                *e = p.round(p.round(values[at(k)] - max).exp());
                sum += *e;
            }
            let sum = p.round(sum);
            if log {
                let log_sum = p.round(sum.ln());
                for k in 0..size {
                    y[at(k)] = p.round(p.round(values[at(k)] - max) - log_sum);
                }
            } else {
                let inv = p.round(1.0 / sum);
                for (k, e) in e.iter().enumerate() {
                    y[at(k)] = p.round(e * inv);
                }
            }
        }
    }
    args::ret(c, Tensor::new(x.shape.clone(), from_f64(dtype, &y))?)
}

/// Softmax of each row of `size` f32s (the last axis): the row's maximum subtracted
/// in f32, the exponentials by `vector_math` (within an ulp, like ONNX Runtime's),
/// summed in f64 and rounded once, then each times the f32 reciprocal of the sum, as
/// the general path rounds them. Rows are split over the pool when there are many.
fn softmax_rows(x: &[f32], size: usize) -> Vec<f32> {
    if size == 0 {
        return vec![0.0f32; x.len()];
    }
    // Each task clears its own part of the output (a serial clear of the whole on
    // the calling thread kept a second core from helping).
    let rows = |x: &[f32], y: &mut [MaybeUninit<f32>]| {
        let y = cleared(y);
        let group = size * SOFTMAX_ROWS;
        for (x, y) in x.chunks(group).zip(y.chunks_mut(group)) {
            softmax_group(x, y, size);
        }
    };
    // SAFETY: `rows` clears, so writes, every element of each part, and the parts
    // cover the output.
    unsafe {
        written_by(x.len(), |y| {
            if x.len() >= 1 << 15 {
                let rows_per_task = ((1 << 13) / size).max(1) * size;
                x.par_chunks(rows_per_task)
                    .zip(y.par_chunks_mut(rows_per_task))
                    .for_each(|(x, y)| rows(x, y));
            } else {
                rows(x, y);
            }
        })
    }
}

/// Softmax of each row of `n` f32s of `x` (at most `SOFTMAX_ROWS` of them) into `y`:
/// `softmax_rows`' arithmetic, which the fused attention kernel shares so that it
/// gives the bytes of the unfused ops. The passes run in one vector function, the
/// group's rows side by side (`vector_math::softmax_rows_on`); a row whose sum is NaN
/// runs them one by one, with a maximum that keeps the NaN.
pub(crate) fn softmax_group(x: &[f32], y: &mut [f32], n: usize) {
    if n == 0 || softmax_rows_on(Isa::best(), x, y, n) {
        return;
    }
    for (x, y) in x.chunks(n).zip(y.chunks_mut(n)) {
        if !softmax_rows_on(Isa::best(), x, y, n) {
            softmax_row_in_passes(x, y);
        }
    }
}

/// The softmax row as separate passes: the maximum (NaN when any element is), the
/// shifted values, their exponentials, the f64 sum in lanes, the scaling.
fn softmax_row_in_passes(x: &[f32], y: &mut [f32]) {
    let max = max_or_nan(x);
    let shifted: Vec<f32> = x.iter().map(|v| v - max).collect();
    map_on(Isa::best(), Func::Exp, &shifted, y);
    let sum = sum_f64(y) as f32;
    let inv = (1.0 / f64::from(sum)) as f32;
    for e in y.iter_mut() {
        *e *= inv;
    }
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn batch_norm_normalizes_each_channel() {
        // Channel 0: mean 1, var 4 - eps → scale 1/2; channel 1: weight 2, bias 1.
        let eps = 1e-5f32;
        let x = f32s(&[1, 2, 2], &[1.0, 3.0, 0.0, 1.0]);
        let args = batch_norm_args(
            x,
            [
                &[1.0, 2.0],
                &[0.0, 1.0],
                &[1.0, 0.0],
                &[4.0 - eps, 1.0 - eps],
            ],
            eps,
        );
        let t = run1("aten.batch_norm", &args, unknown()).unwrap();
        let y = f32_values(&t);
        let close = |a: f32, b: f32| (a - b).abs() < 1e-6;
        assert!(close(y[0], 0.0) && close(y[1], 1.0), "{y:?}");
        assert!(close(y[2], 1.0) && close(y[3], 3.0), "{y:?}");
        let mut training = args.clone();
        training[5] = Value::Bool(true);
        assert!(run("aten.batch_norm", &training, &[unknown()]).is_err());
        let mut no_stats = args;
        no_stats[3] = Value::None;
        assert!(run("aten.batch_norm", &no_stats, &[unknown()]).is_err());
    }

    /// `aten.batch_norm`'s operands in inference: x, then weight, bias, running mean and
    /// running variance, one value per channel each.
    fn batch_norm_args(x: Value, per_channel: [&[f32]; 4], eps: f32) -> [Value; 9] {
        let [w, b, m, v] = per_channel.map(|c| f32s(&[c.len()], c));
        [
            x,
            w,
            b,
            m,
            v,
            Value::Bool(false),
            Value::Float(0.1),
            Value::Float(eps as f64),
            Value::Bool(false),
        ]
    }

    #[test]
    fn f32_batch_norm_equals_the_f64_steps_rounded_each_time() {
        // Values across magnitudes and signs, scales and offsets that round; the
        // per-channel terms as the kernel folds them, then x·s + o in f64 rounded to
        // f32 after each step.
        let (n, channels, inner) = (2usize, 3usize, 37usize);
        let x: Vec<f32> = (0..n * channels * inner)
            .map(|i| ((i * 7919) % 1999) as f32 * 1.37e-3 - 1.3 + (i % 5) as f32 * 1e4)
            .collect();
        let (w, b, m, v) = (
            [0.7f32, -1.3, 3.1e-3],
            [0.1f32, -2.5, 1e3],
            [0.3f32, 11.0, -0.01],
            [0.9f32, 1e-3, 7.0],
        );
        let eps = 1e-5f32;
        let args = batch_norm_args(f32s(&[n, channels, inner], &x), [&w, &b, &m, &v], eps);
        let t = run1("aten.batch_norm", &args, unknown()).unwrap();
        let y = f32_values(&t);
        let r = |v: f64| v as f32 as f64;
        for (i, (&got, &xv)) in y.iter().zip(&x).enumerate() {
            let ch = (i / inner) % channels;
            let inv_std = r(1.0 / r(r(v[ch] as f64 + eps as f64).sqrt()));
            let s = r(inv_std * w[ch] as f64);
            let o = r(b[ch] as f64 - r(m[ch] as f64 * s));
            let want = r(r(xv as f64 * s) + o) as f32;
            assert_eq!(got.to_bits(), want.to_bits(), "element {i}");
        }
    }

    #[test]
    fn softmax_row_gives_the_bytes_of_separate_passes_on_every_path() {
        use super::softmax_row_in_passes;
        use crate::kernels::isa::Isa;
        use crate::kernels::ops::vector_math::softmax_rows_on;
        // Lengths around the 16 lanes and the vector widths; values across magnitudes,
        // a row dominated by one value, a masked row, infinities and a NaN.
        for n in [0usize, 1, 7, 8, 15, 16, 17, 31, 32, 33, 100, 128, 333] {
            let rows: Vec<Vec<f32>> = vec![
                (0..n)
                    .map(|i| ((i * 7919) % 1013) as f32 * 0.0137 - 6.9)
                    .collect(),
                (0..n)
                    .map(|i| if i == n / 2 { 80.0 } else { -(i as f32) * 0.5 })
                    .collect(),
                (0..n)
                    .map(|i| if i % 3 == 0 { f32::MIN } else { i as f32 })
                    .collect(),
                (0..n)
                    .map(|i| if i == 1 { f32::INFINITY } else { 1.0 })
                    .collect(),
                (0..n)
                    .map(|i| if i == n / 3 { f32::NAN } else { 0.25 })
                    .collect(),
            ];
            for x in &rows {
                let mut want = vec![0.0f32; n];
                softmax_row_in_passes(x, &mut want);
                for isa in [Isa::Portable, Isa::Avx2, Isa::Avx512Vnni] {
                    if !isa.available() {
                        continue;
                    }
                    let mut got = vec![0.0f32; n];
                    if !softmax_rows_on(isa, x, &mut got, n) {
                        assert!(x.iter().any(|v| !v.is_finite()), "n {n} {isa:?}: {x:?}");
                        continue;
                    }
                    let same = got
                        .iter()
                        .zip(&want)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "n {n} {isa:?}: {got:?} vs {want:?}");
                }
            }
        }
    }

    /// A group of rows side by side gives each row's own bytes, a NaN row among them
    /// included (the group falls back to rows one by one).
    #[test]
    fn softmax_groups_give_each_rows_bytes() {
        use super::{softmax_group, softmax_row_in_passes};
        for n in [1usize, 15, 16, 33, 128] {
            for rows in 1..=4 {
                let mut x: Vec<f32> = (0..rows * n)
                    .map(|i| ((i * 7919) % 1013) as f32 * 0.0137 - 6.9)
                    .collect();
                if rows == 3 {
                    x[n + n / 2] = f32::NAN;
                }
                let mut want = vec![0.0f32; x.len()];
                for (x, y) in x.chunks(n).zip(want.chunks_mut(n)) {
                    softmax_row_in_passes(x, y);
                }
                let mut got = vec![0.0f32; x.len()];
                softmax_group(&x, &mut got, n);
                let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "n {n} rows {rows}");
            }
        }
    }

    #[test]
    fn softmax_behind_an_additive_mask() {
        // A row masked everywhere with f32's lowest value is uniform (no NaN); a row
        // of -inf is NaN, as ONNX Runtime gives (-inf minus its -inf maximum).
        let lo = f32::MIN;
        let inf = f32::NEG_INFINITY;
        let x = f32s(&[3, 2], &[1.0, lo, lo, lo, inf, inf]);
        let t = run1(
            "aten.softmax.int",
            &[x, Value::Int(1), Value::None],
            unknown(),
        )
        .unwrap();
        let y = f32_values(&t);
        assert_eq!(y[..4], [1.0, 0.0, 0.5, 0.5]);
        assert!(y[4].is_nan() && y[5].is_nan(), "{y:?}");
    }

    #[test]
    fn softmax_along_a_dimension() {
        let x = f32s(&[2, 2], &[0.0, 0.0, 1.0, 3.0]);
        let t = run1(
            "aten.softmax.int",
            &[x.clone(), Value::Int(0), Value::None],
            unknown(),
        )
        .unwrap();
        let y = f32_values(&t);
        let close = |a: f32, b: f64| (a as f64 - b).abs() < 1e-6;
        assert!(close(y[0], 1.0 / (1.0 + 1f64.exp())), "{y:?}");
        assert!(close(y[1], 1.0 / (1.0 + 3f64.exp())), "{y:?}");
        assert!(close(y[0] + y[2], 1.0));
        let t = run1(
            "aten.softmax.int",
            &[x.clone(), Value::Int(-1), Value::None],
            unknown(),
        )
        .unwrap();
        assert_eq!(f32_values(&t)[..2], [0.5, 0.5]);
        let t = run1(
            "aten.log_softmax.int",
            &[x, Value::Int(1), Value::None],
            unknown(),
        )
        .unwrap();
        let y = f32_values(&t);
        assert!(close(y[0], -(2f64.ln())), "{y:?}");
        assert!(close(y[3], -(1.0 + (-2f64).exp()).ln()), "{y:?}");
        // Large inputs do not overflow.
        let big = f32s(&[2], &[1000.0, 1000.0]);
        let t = run1(
            "aten._softmax",
            &[big, Value::Int(0), Value::Bool(false)],
            unknown(),
        )
        .unwrap();
        assert_eq!(f32_values(&t), vec![0.5, 0.5]);
    }
}
