//! ONNX Runtime's transformer contrib ops that keep their input's shape: the GELU
//! family, BiasAdd, and the (skip) layer and RMS normalizations with their optional
//! statistics outputs. SimplifiedLayerNormalization is registered by ONNX Runtime in
//! the default domain, and is accepted in com.microsoft too; ONNX's RMSNormalization
//! (opset 23) shares its rule.

use anyhow::Result;

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use super::dims;
use crate::dialect::types::Dim;
use crate::onnx::dtype::DType;

const MS: &str = "com.microsoft";

pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_domain_ops(
        MS,
        &["Gelu", "BiasGelu", "FastGelu", "QuickGelu", "BiasAdd"],
        1,
        |ctx| Ok(vec![Inferred::of(ctx.dtype(0), ctx.shape(0))]),
    );
    r.infer_domain_ops(
        MS,
        &["SkipLayerNormalization", "SkipSimplifiedLayerNormalization"],
        1,
        skip_norm,
    );
    r.infer_domain_ops(MS, &["SimplifiedLayerNormalization"], 1, simplified_norm);
    r.infer_ops(&["SimplifiedLayerNormalization"], 1, simplified_norm);
    r.infer_ops(&["RMSNormalization"], 23, simplified_norm);
}

/// The shape of statistics over the dimensions from `axis` on: X's before it, then 1s.
fn stats_shape(x: Option<Vec<Dim>>, axis: i64) -> Result<Option<Vec<Dim>>> {
    let Some(x) = x else {
        return Ok(None);
    };
    let a = dims::axis(axis, x.len(), "attribute 'axis'")?;
    let mut s: Vec<Dim> = x.get(..a).unwrap_or_default().to_vec();
    s.resize(x.len(), Some(1));
    Ok(Some(s))
}

/// (output, mean, inv_std_var, input_skip_bias_sum): the output and the sum have the
/// input's type, the statistics (over the last axis) are f32.
fn skip_norm(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let y = Inferred::of(ctx.dtype(0), ctx.shape(0));
    let stats = Inferred::of(Some(DType::F32), stats_shape(ctx.shape(0), -1)?);
    let mut out = vec![y.clone(), stats.clone(), stats, y];
    out.truncate(ctx.outputs().max(1));
    Ok(out)
}

/// (Y, inv_std_var): Y has X's type, the statistics have `stash_type` (f32).
fn simplified_norm(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let y = Inferred::of(ctx.dtype(0), ctx.shape(0));
    let stash = ctx.dtype_attr("stash_type")?.or(Some(DType::F32));
    let axis = ctx.attrs().int("axis", -1)?;
    let stats = Inferred::of(stash, stats_shape(ctx.shape(0), axis)?);
    let mut out = vec![y, stats];
    out.truncate(ctx.outputs().max(1));
    Ok(out)
}
