//! Expand (broadcast to a shape) and Tile (repeat along each axis).

use anyhow::{Result, bail};

use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::{self, fmt_shape};
use super::{Inferred, broadcast};
use crate::dialect::types::Dim;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Expand"], 1, expand);
    r.infer_ops(&["Tile"], 1, tile);
}

/// A shape-like input as dims: its values when constant, the elements known of them
/// when partly known, else as many unknown dims as its length says.
pub(super) fn shape_input(ctx: &Ctx, i: usize, what: &str) -> Result<Option<Vec<Dim>>> {
    let known = match ctx.ints(i) {
        Some(v) => Some(dims::static_dims(&v)),
        None => ctx.elements(i).filter(|_| ctx.rank(i) == Some(1)),
    };
    if let Some(v) = known {
        if let Some(bad) = v.iter().flatten().find(|&&d| d < 0) {
            bail!("{what} holds {bad}, but sizes must be 0 or more");
        }
        return Ok(Some(v));
    }
    Ok(dims::vector_len(ctx.shape(i)).map(|n| vec![None; n]))
}

fn expand(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let (Some(input), Some(target)) = (ctx.shape(0), shape_input(ctx, 1, "input 'shape'")?) else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let Some(shape) = broadcast::pair(&input, &target) else {
        bail!(
            "input 'shape' {} does not broadcast with input 'input' {}",
            fmt_shape(&target),
            fmt_shape(&input)
        );
    };
    Ok(vec![Inferred::of(dtype, Some(shape))])
}

fn tile(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let Some(input) = ctx.shape(0) else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let Some(repeats) = ctx.ints(1) else {
        return Ok(vec![Inferred::of(dtype, Some(vec![None; input.len()]))]);
    };
    if repeats.len() != input.len() {
        bail!(
            "input 'repeats' has {} values, but input 'input' {} has rank {}",
            repeats.len(),
            fmt_shape(&input),
            input.len()
        );
    }
    if let Some(bad) = repeats.iter().find(|&&r| r < 0) {
        bail!("input 'repeats' holds {bad}, but repeats must be 0 or more");
    }
    let shape = input
        .iter()
        .zip(&repeats)
        .map(|(d, &r)| d.and_then(|d| d.checked_mul(r)))
        .collect();
    Ok(vec![Inferred::of(dtype, Some(shape))])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ty, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn expand_broadcasts_to_the_target() {
        let n = N::new("Expand", &["input", "shape"], 1);
        let ins = [
            Some(In::new(DType::F32, &[3, 1])),
            Some(In::ints(&[3], &[2, 1, 6])),
        ];
        assert_eq!(out_ty(&n, 13, &ins), ty(DType::F32, &[2, 3, 6]));
        let ins = [
            Some(In::new(DType::F32, &[3, 1])),
            Some(In::new(DType::I64, &[2])),
        ];
        assert_eq!(out_ty(&n, 13, &ins), ty(DType::F32, &[3, -1]));
        // A target known in part: a dynamic batch, then known sizes.
        let ins = [
            Some(In::new(DType::F32, &[1, 1, 64])),
            Some(In::partial(&[None, Some(6), Some(1)])),
        ];
        assert_eq!(out_ty(&n, 13, &ins), ty(DType::F32, &[-1, 6, 64]));
        let ins = [Some(In::new(DType::F32, &[3])), Some(In::ints(&[1], &[4]))];
        assert_eq!(
            err(&n, 13, &ins),
            "input 'shape' [4] does not broadcast with input 'input' [3]"
        );
    }

    #[test]
    fn tile_multiplies_each_axis() {
        let n = N::new("Tile", &["input", "repeats"], 1);
        let ins = [
            Some(In::new(DType::F32, &[2, -1])),
            Some(In::ints(&[2], &[3, 2])),
        ];
        assert_eq!(out_ty(&n, 13, &ins), ty(DType::F32, &[6, -1]));
    }
}
