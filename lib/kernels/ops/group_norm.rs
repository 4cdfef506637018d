//! Group and instance normalization of an (N, C, D1, ...) tensor:
//! `group_norm(input, num_groups, weight?, bias?, eps, cudnn_enabled)` normalizes each
//! group of C/num_groups channels of each sample over those channels and the spatial
//! dimensions; `instance_norm(input, weight?, bias?, running_mean?, running_var?,
//! use_input_stats, momentum, eps, cudnn_enabled)` is the case of one channel per
//! group (or, without input statistics, uses the running ones). Weight and bias are
//! per channel. Means and (biased) variances are accumulated in f64, and each output
//! is rounded once.

use anyhow::{Result, bail};

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::data::from_f64;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.group_norm" => group_norm,
        "aten.instance_norm" => instance_norm,
        _ => return None,
    })
}

/// The float input and its channel count.
fn input<'c>(c: &'c Call) -> Result<(&'c Tensor, usize)> {
    let x = args::tensor(c, 0)?;
    if x.quant.is_some() || !x.data.dtype().is_float() {
        bail!("the input must be a float tensor, but is {}", x.dtype());
    }
    if x.rank() < 2 {
        bail!(
            "the input has shape {:?}, but needs a batch and a channel dimension",
            x.shape
        );
    }
    Ok((x, x.shape[1]))
}

/// Optional per-channel operand `i`: `channels` floats.
fn per_channel(c: &Call, i: usize, channels: usize, what: &str) -> Result<Option<Vec<f64>>> {
    let Some(t) = args::opt_tensor(c, i)? else {
        return Ok(None);
    };
    if t.quant.is_some() || !t.data.dtype().is_float() {
        bail!("{what} must be a float tensor, but is {}", t.dtype());
    }
    if t.shape != [channels] {
        bail!(
            "{what} has shape {:?}, expected [{channels}] (one per channel)",
            t.shape
        );
    }
    Ok(Some(t.data.to_f64()))
}

/// Statistics of one group: from the data, or given (the running ones).
enum Stats<'a> {
    Computed {
        eps: f64,
    },
    Running {
        mean: &'a [f64],
        var: &'a [f64],
        eps: f64,
    },
}

/// Normalizes `x` in `groups` groups of channels per sample, then applies the
/// per-channel affine.
fn normalize(
    c: &Call,
    x: &Tensor,
    groups: usize,
    weight: Option<Vec<f64>>,
    bias: Option<Vec<f64>>,
    stats: Stats,
) -> Result<Vec<Value>> {
    let channels = x.shape[1];
    if groups == 0 {
        // No channels (instance_norm's one group per channel): nothing to normalize.
        return args::ret(c, x.clone());
    }
    let spatial: usize = x.shape[2..].iter().product();
    let per_group = channels / groups;
    let group_len = per_group * spatial;
    let v = x.data.to_f64();
    let mut y = vec![0.0; v.len()];
    if group_len > 0 {
        for (g, (row, out)) in v.chunks(group_len).zip(y.chunks_mut(group_len)).enumerate() {
            let (mean, rstd) = match &stats {
                Stats::Computed { eps } => {
                    let n = group_len as f64;
                    let mean = row.iter().sum::<f64>() / n;
                    let var = row.iter().map(|&a| (a - mean) * (a - mean)).sum::<f64>() / n;
                    (mean, 1.0 / (var + eps).sqrt())
                }
                Stats::Running { mean, var, eps } => {
                    let ch = g % channels;
                    (mean[ch], 1.0 / (var[ch] + eps).sqrt())
                }
            };
            let first_channel = (g % groups) * per_group;
            for (k, (o, &a)) in out.iter_mut().zip(row).enumerate() {
                let ch = first_channel + k / spatial.max(1);
                let mut r = (a - mean) * rstd;
                if let Some(w) = &weight {
                    r *= w[ch];
                }
                if let Some(b) = &bias {
                    r += b[ch];
                }
                *o = r;
            }
        }
    }
    args::ret(
        c,
        Tensor::new(x.shape.clone(), from_f64(x.data.dtype(), &y))?,
    )
}

fn group_norm(c: &Call) -> Result<Vec<Value>> {
    let (x, channels) = input(c)?;
    let groups = args::int(c, 1)?;
    let groups = usize::try_from(groups)
        .ok()
        .filter(|&g| g > 0 && channels % g == 0)
        .ok_or_else(|| {
            anyhow::anyhow!("num_groups is {groups}, which does not divide {channels} channels")
        })?;
    let weight = per_channel(c, 2, channels, "weight")?;
    let bias = per_channel(c, 3, channels, "bias")?;
    let eps = args::float(c, 4)?;
    normalize(c, x, groups, weight, bias, Stats::Computed { eps })
}

fn instance_norm(c: &Call) -> Result<Vec<Value>> {
    let (x, channels) = input(c)?;
    let weight = per_channel(c, 1, channels, "weight")?;
    let bias = per_channel(c, 2, channels, "bias")?;
    let use_input_stats = args::boolean(c, 5)?;
    let eps = args::float(c, 7)?;
    if use_input_stats {
        return normalize(c, x, channels, weight, bias, Stats::Computed { eps });
    }
    let mean = per_channel(c, 3, channels, "running_mean")?;
    let var = per_channel(c, 4, channels, "running_var")?;
    let (Some(mean), Some(var)) = (mean, var) else {
        bail!("use_input_stats is false, but running_mean or running_var is none");
    };
    let stats = Stats::Running {
        mean: &mean,
        var: &var,
        eps,
    };
    normalize(c, x, channels, weight, bias, stats)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    /// The normalization of `v` with biased variance, in f64.
    fn normalized(v: &[f64], eps: f64) -> Vec<f64> {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / n;
        v.iter().map(|a| (a - mean) / (var + eps).sqrt()).collect()
    }

    #[test]
    fn group_norm_normalizes_groups_and_scales_channels() {
        // N=1, C=4, spatial 2; two groups of two channels.
        let x: Vec<f32> = vec![1.0, 2.0, 3.0, 5.0, -1.0, 0.0, 4.0, 4.0];
        let args = [
            f32s(&[1, 4, 2], &x),
            Value::Int(2),
            f32s(&[4], &[1.0, 2.0, 3.0, 4.0]),
            f32s(&[4], &[0.0, 0.0, 1.0, 1.0]),
            Value::Float(1e-5),
            Value::Bool(false),
        ];
        let y = f32_values(&run1("aten.group_norm", &args, of(DType::F32)).unwrap());
        let g0 = normalized(&[1.0, 2.0, 3.0, 5.0], 1e-5);
        let g1 = normalized(&[-1.0, 0.0, 4.0, 4.0], 1e-5);
        let want: Vec<f32> = vec![
            g0[0] as f32,
            g0[1] as f32,
            (g0[2] * 2.0) as f32,
            (g0[3] * 2.0) as f32,
            (g1[0] * 3.0 + 1.0) as f32,
            (g1[1] * 3.0 + 1.0) as f32,
            (g1[2] * 4.0 + 1.0) as f32,
            (g1[3] * 4.0 + 1.0) as f32,
        ];
        assert_eq!(y, want);
        let mut bad = args.to_vec();
        bad[1] = Value::Int(3);
        assert!(run1("aten.group_norm", &bad, unknown()).is_err());
    }

    #[test]
    fn instance_norm_uses_each_channel() {
        let x: Vec<f32> = vec![1.0, 3.0, 10.0, 20.0];
        let args = [
            f32s(&[1, 2, 2], &x),
            f32s(&[2], &[1.0, 0.5]),
            f32s(&[2], &[0.0, 1.0]),
            Value::None,
            Value::None,
            Value::Bool(true),
            Value::Float(0.1),
            Value::Float(1e-5),
            Value::Bool(false),
        ];
        let y = f32_values(&run1("aten.instance_norm", &args, of(DType::F32)).unwrap());
        let c0 = normalized(&[1.0, 3.0], 1e-5);
        let c1 = normalized(&[10.0, 20.0], 1e-5);
        let want: Vec<f32> = vec![
            c0[0] as f32,
            c0[1] as f32,
            (c1[0] * 0.5 + 1.0) as f32,
            (c1[1] * 0.5 + 1.0) as f32,
        ];
        assert_eq!(y, want);
        let short = [f32s(&[3], &[1.0, 2.0, 3.0]), Value::None];
        assert!(run1("aten.instance_norm", &short, unknown()).is_err());
        let mut empty = args.to_vec();
        empty[0] = f32s(&[1, 0, 2], &[]);
        empty[1] = Value::None;
        empty[2] = Value::None;
        let t = run1("aten.instance_norm", &empty, unknown()).unwrap();
        assert_eq!(t.shape, vec![1, 0, 2]);
    }
}
