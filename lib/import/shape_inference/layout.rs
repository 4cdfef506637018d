//! DepthToSpace and SpaceToDepth, which trade channels for spatial blocks.

use anyhow::{Result, bail};

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::fmt_shape;
use crate::dialect::types::Dim;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["DepthToSpace"], 1, |ctx| blocks(ctx, true));
    r.infer_ops(&["SpaceToDepth"], 1, |ctx| blocks(ctx, false));
}

fn blocks(ctx: &Ctx, to_space: bool) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let b = ctx.attrs().int("blocksize", 0)?;
    if b < 1 {
        bail!("attribute 'blocksize' is {b}, but must be at least 1");
    }
    let Some(input) = ctx.shape(0) else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let [n, c, h, w] = input[..] else {
        bail!(
            "input 'input' has shape {}, but needs rank 4",
            fmt_shape(&input)
        );
    };
    let area = b.checked_mul(b);
    let exact = |d: Dim, by: Option<i64>, what: &str| -> Result<Dim> {
        match (d, by) {
            (Some(d), Some(by)) if d % by != 0 => bail!(
                "input 'input' {} has {what} {d}, which blocksize {b} does not divide",
                fmt_shape(&input)
            ),
            (Some(d), Some(by)) => Ok(Some(d / by)),
            _ => Ok(None),
        }
    };
    let grow = |d: Dim, by: Option<i64>| d.zip(by).and_then(|(d, by)| d.checked_mul(by));
    let shape = if to_space {
        vec![
            n,
            exact(c, area, "channels")?,
            grow(h, Some(b)),
            grow(w, Some(b)),
        ]
    } else {
        vec![
            n,
            grow(c, area),
            exact(h, Some(b), "height")?,
            exact(w, Some(b), "width")?,
        ]
    };
    Ok(vec![Inferred::of(dtype, Some(shape))])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ty, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn blocks_move_between_channels_and_space() {
        let d2s = N::new("DepthToSpace", &["input"], 1).int("blocksize", 2);
        let x = [Some(In::new(DType::F32, &[1, 8, 3, -1]))];
        assert_eq!(out_ty(&d2s, 13, &x), ty(DType::F32, &[1, 2, 6, -1]));
        let s2d = N::new("SpaceToDepth", &["input"], 1).int("blocksize", 2);
        let x = [Some(In::new(DType::F32, &[1, 2, 6, 4]))];
        assert_eq!(out_ty(&s2d, 13, &x), ty(DType::F32, &[1, 8, 3, 2]));
        let x = [Some(In::new(DType::F32, &[1, 2, 5, 4]))];
        assert_eq!(
            err(&s2d, 13, &x),
            "input 'input' [1,2,5,4] has height 5, which blocksize 2 does not divide"
        );
    }
}
