//! Normalizations (batch, instance, layer, group, LRN, ...) and the softmax family:
//! the main output has the input's type; LayerNormalization and BatchNormalization
//! have statistics outputs besides.

use anyhow::{Result, bail};

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::{self, fmt_shape};
use crate::dialect::types::Dim;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["BatchNormalization"], 1, batch_norm);
    r.infer_ops(&["LayerNormalization"], 1, layer_norm);
    r.infer_ops(
        &[
            "InstanceNormalization",
            "LRN",
            "MeanVarianceNormalization",
            "LpNormalization",
        ],
        1,
        same,
    );
    r.infer_ops(&["GroupNormalization"], 1, group_norm);
    r.infer_ops(&["Softmax", "LogSoftmax", "Hardmax"], 1, softmax);
}

fn same(ctx: &Ctx) -> Result<Vec<Inferred>> {
    Ok(vec![Inferred::of(ctx.dtype(0), ctx.shape(0))])
}

fn softmax(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let default = if ctx.opset >= 13 { -1 } else { 1 };
    if let Some(r) = ctx.rank(0)
        && r > 0
    {
        dims::axis(ctx.attrs().int("axis", default)?, r, "attribute 'axis'")?;
    }
    same(ctx)
}

/// Y has X's type; `num_groups` must divide X's channels.
fn group_norm(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let groups = ctx.attrs().int("num_groups", 0)?;
    if groups < 1 {
        bail!("attribute 'num_groups' is {groups}, expected at least 1");
    }
    if let Some(x) = ctx.shape(0)
        && let Some(Some(c)) = x.get(1)
        && c % groups != 0
    {
        bail!(
            "attribute 'num_groups' is {groups}, which does not divide the {c} channels of \
             input 'X' {}",
            fmt_shape(&x)
        );
    }
    same(ctx)
}

/// Y has X's type; the optional statistics outputs have the running mean's.
fn batch_norm(ctx: &Ctx) -> Result<Vec<Inferred>> {
    if let (Some(x), Some(scale)) = (ctx.shape(0), ctx.shape(1))
        && let (Some(Some(c)), [Some(s)]) = (x.get(1), &scale[..])
        && c != s
    {
        bail!(
            "input 'scale' has shape {}, but input 'X' {} has {c} channels",
            fmt_shape(&scale),
            fmt_shape(&x)
        );
    }
    let stats = Inferred::of(ctx.dtype(3), ctx.shape(3));
    let mut out = vec![Inferred::of(ctx.dtype(0), ctx.shape(0))];
    out.extend(std::iter::repeat_n(stats, ctx.outputs().saturating_sub(1)));
    Ok(out)
}

/// Mean and InvStdDev keep X's dims before `axis` and have 1 from there on.
fn layer_norm(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let y = Inferred::of(ctx.dtype(0), ctx.shape(0));
    let stash = ctx
        .dtype_attr("stash_type")?
        .or(Some(crate::onnx::dtype::DType::F32));
    let stats_shape = match ctx.shape(0) {
        Some(x) => {
            let a = dims::axis(ctx.attrs().int("axis", -1)?, x.len(), "attribute 'axis'")?;
            let mut s: Vec<Dim> = x.get(..a).unwrap_or_default().to_vec();
            s.resize(x.len(), Some(1));
            Some(s)
        }
        None => None,
    };
    let stats = Inferred::of(stash, stats_shape);
    Ok(vec![y, stats.clone(), stats])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn batch_norm_keeps_x_and_checks_channels() {
        let n = N::new("BatchNormalization", &["X", "scale", "B", "mean", "var"], 1);
        let c = |k| Some(In::new(DType::F32, &[k]));
        let ins = [
            Some(In::new(DType::F32, &[2, 4, 8, 8])),
            c(4),
            c(4),
            c(4),
            c(4),
        ];
        assert_eq!(out_ty(&n, 15, &ins), ty(DType::F32, &[2, 4, 8, 8]));
        let bad = [
            Some(In::new(DType::F32, &[2, 4, 8, 8])),
            c(3),
            c(3),
            c(3),
            c(3),
        ];
        assert_eq!(
            err(&n, 15, &bad),
            "input 'scale' has shape [3], but input 'X' [2,4,8,8] has 4 channels"
        );
    }

    #[test]
    fn instance_group_lrn_and_mvn_keep_the_type() {
        let x = [Some(In::new(DType::F32, &[2, 4, 3, -1]))];
        for op in ["InstanceNormalization", "LRN", "MeanVarianceNormalization"] {
            let n = N::new(op, &["X"], 1);
            assert_eq!(out_ty(&n, 13, &x), ty(DType::F32, &[2, 4, 3, -1]), "{op}");
        }
        let n = N::new("GroupNormalization", &["X", "scale", "bias"], 1).int("num_groups", 2);
        assert_eq!(out_ty(&n, 21, &x), ty(DType::F32, &[2, 4, 3, -1]));
        let n = N::new("GroupNormalization", &["X", "scale", "bias"], 1).int("num_groups", 3);
        assert_eq!(
            err(&n, 21, &x),
            "attribute 'num_groups' is 3, which does not divide the 4 channels of input 'X' \
             [2,4,3,?]"
        );
        let n = N::new("GroupNormalization", &["X", "scale", "bias"], 1);
        assert!(err(&n, 21, &x).starts_with("attribute 'num_groups' is 0"));
    }

    #[test]
    fn softmax_keeps_the_type_and_checks_the_axis() {
        let n = N::new("Softmax", &["input"], 1).int("axis", 2);
        let x = [Some(In::new(DType::F32, &[2, 10]))];
        assert!(err(&n, 13, &x).starts_with("attribute 'axis' is 2"));
        let n = N::new("LogSoftmax", &["input"], 1);
        assert_eq!(out_ty(&n, 13, &x), ty(DType::F32, &[2, 10]));
    }

    #[test]
    fn layer_norm_statistics_reduce_from_the_axis() {
        let n = N::new("LayerNormalization", &["X", "Scale"], 3).int("axis", 1);
        let outs = run(&n, 17, &[Some(In::new(DType::F16, &[2, 5, 8]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::F16, &[2, 5, 8]));
        assert_eq!(outs[1].ty, ty(DType::F32, &[2, 1, 1]));
    }
}
