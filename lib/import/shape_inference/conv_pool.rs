//! Convolutions (Conv, ConvInteger, QLinearConv, ConvTranspose) and pools (MaxPool,
//! AveragePool, LpPool and their global forms), 1-D to 3-D and beyond.

use anyhow::{Result, bail};

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::fmt_shape;
use super::window::Window;
use crate::dialect::types::Dim;
use crate::onnx::dtype::DType;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Conv"], 1, |ctx| {
        let shape = conv_shape(ctx, [(0, "X"), (1, "W")])?;
        Ok(vec![Inferred::of(ctx.dtype(0), shape)])
    });
    r.infer_ops(&["ConvInteger"], 1, |ctx| {
        let shape = conv_shape(ctx, [(0, "x"), (1, "w")])?;
        Ok(vec![Inferred::of(Some(DType::I32), shape)])
    });
    r.infer_ops(&["QLinearConv"], 1, |ctx| {
        let shape = conv_shape(ctx, [(0, "x"), (3, "w")])?;
        Ok(vec![Inferred::of(ctx.dtype(7), shape)])
    });
    r.infer_ops(&["ConvTranspose"], 1, conv_transpose);
    r.infer_ops(&["MaxPool"], 1, |ctx| {
        let shape = pool_shape(ctx, 0, "X", false)?;
        Ok(vec![
            Inferred::of(ctx.dtype(0), shape.clone()),
            Inferred::of(Some(DType::I64), shape),
        ])
    });
    r.infer_ops(&["AveragePool", "LpPool"], 1, |ctx| {
        let shape = pool_shape(ctx, 0, "X", false)?;
        Ok(vec![Inferred::of(ctx.dtype(0), shape)])
    });
    r.infer_ops(
        &["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"],
        1,
        |ctx| {
            let shape = global_shape(ctx, 0, "X", false)?;
            Ok(vec![Inferred::of(ctx.dtype(0), shape)])
        },
    );
}

/// Number of spatial dimensions, from whichever of the data and weight ranks is known;
/// an error when the data has no spatial dimension or the two ranks disagree.
fn spatial_rank(ctx: &Ctx, x: (usize, &str), w: Option<(usize, &str)>) -> Result<Option<usize>> {
    let xr = ctx.rank(x.0);
    if let Some(r) = xr
        && r < 3
    {
        bail!(
            "input '{}' has rank {r}, but needs at least 3 (batch, channels and a spatial dimension)",
            x.1
        );
    }
    let wr = w.and_then(|(i, _)| ctx.rank(i));
    if let (Some(xr), Some(wr), Some((_, w_name))) = (xr, wr, w)
        && xr != wr
    {
        bail!(
            "input '{w_name}' has rank {wr}, but input '{}' has rank {xr}",
            x.1
        );
    }
    let kernel_len = ctx.attrs().optional_ints("kernel_shape")?.map(|k| k.len());
    Ok(xr.or(wr).map(|r| r.saturating_sub(2)).or(kernel_len))
}

fn dim_at(shape: &Option<Vec<Dim>>, i: usize) -> Dim {
    shape.as_ref().and_then(|s| s.get(i).copied().flatten())
}

fn group(ctx: &Ctx) -> Result<i64> {
    let g = ctx.attrs().int("group", 1)?;
    if g < 1 {
        bail!("attribute 'group' is {g}, but must be at least 1");
    }
    Ok(g)
}

/// The weight's kernel dims, checked against a `kernel_shape` attribute when both exist.
fn kernel(ctx: &Ctx, w: &Option<Vec<Dim>>, w_name: &str) -> Result<Option<Vec<Dim>>> {
    let from_w = w.as_ref().map(|s| s.get(2..).unwrap_or_default().to_vec());
    if let (Some(attr), Some(kw)) = (ctx.attrs().optional_ints("kernel_shape")?, &from_w) {
        let conflict =
            attr.len() != kw.len() || attr.iter().zip(kw).any(|(a, k)| k.is_some_and(|k| k != *a));
        if conflict {
            bail!(
                "attribute 'kernel_shape' is {attr:?}, but input '{w_name}' has kernel {}",
                fmt_shape(kw)
            );
        }
    }
    Ok(from_w)
}

/// `[N, M, spatial...]` of a convolution of input `io[0]` by weight `io[1]` ([M, C/group,
/// k...]), each given as (input index, name).
fn conv_shape(ctx: &Ctx, io: [(usize, &str); 2]) -> Result<Option<Vec<Dim>>> {
    let [(xi, x_name), (wi, w_name)] = io;
    let Some(n) = spatial_rank(ctx, (xi, x_name), Some((wi, w_name)))? else {
        return Ok(None);
    };
    let (x, w) = (ctx.shape(xi), ctx.shape(wi));
    let g = group(ctx)?;
    if let (Some(c), Some(per_group)) = (dim_at(&x, 1), dim_at(&w, 1))
        && per_group.checked_mul(g) != Some(c)
    {
        bail!(
            "input '{w_name}' has shape {}, with {per_group} input channels per group, but input '{x_name}' {} has {c} channels and group is {g}",
            fmt_shape(w.as_deref().unwrap_or_default()),
            fmt_shape(x.as_deref().unwrap_or_default())
        );
    }
    let m = dim_at(&w, 0);
    if let Some(m) = m
        && m % g != 0
    {
        bail!("input '{w_name}' has {m} output channels, which group {g} does not divide");
    }
    let window = Window::read(ctx, n, kernel(ctx, &w, w_name)?)?;
    let spatial = match &x {
        Some(x) => window.output(x.get(2..).unwrap_or_default(), &format!("input '{x_name}'"))?,
        None => vec![None; n],
    };
    let mut out = vec![dim_at(&x, 0), m];
    out.extend(spatial);
    Ok(Some(out))
}

/// ConvTranspose(X, W [C, M/group, k...], B) gives [N, M, spatial...].
fn conv_transpose(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let Some(n) = spatial_rank(ctx, (0, "X"), Some((1, "W")))? else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let (x, w) = (ctx.shape(0), ctx.shape(1));
    let g = group(ctx)?;
    if let (Some(c), Some(wc)) = (dim_at(&x, 1), dim_at(&w, 0))
        && c != wc
    {
        bail!("input 'W' has {wc} input channels, but input 'X' has {c}");
    }
    let m = dim_at(&w, 1).and_then(|m| m.checked_mul(g));
    let window = Window::read(ctx, n, kernel(ctx, &w, "W")?)?;
    let output_padding = ctx
        .attrs()
        .optional_ints("output_padding")?
        .unwrap_or_default();
    let spatial = match ctx.attrs().optional_ints("output_shape")? {
        Some(given) => {
            // Some exporters write the full output shape rather than its spatial part.
            let skip = given.len().checked_sub(n);
            match skip {
                Some(0) | Some(2) => given
                    .get(skip.unwrap_or(0)..)
                    .unwrap_or_default()
                    .iter()
                    .map(|&d| (d >= 0).then_some(d))
                    .collect(),
                _ => bail!(
                    "attribute 'output_shape' has {} values, but the input has {n} spatial dimensions",
                    given.len()
                ),
            }
        }
        None => match &x {
            Some(x) => {
                window.transposed(x.get(2..).unwrap_or_default(), &output_padding, "input 'X'")?
            }
            None => vec![None; n],
        },
    };
    let mut out = vec![dim_at(&x, 0), m];
    out.extend(spatial);
    Ok(vec![Inferred::of(dtype, Some(out))])
}

/// Splits a shape into (batch, channels, spatial), where channels come last in a
/// `channels_last` layout (com.microsoft's NHWC ops).
fn split_layout(x: &[Dim], channels_last: bool) -> (Dim, Dim, Vec<Dim>) {
    let n = x.first().copied().flatten();
    let r = x.len();
    if channels_last {
        let c = x.last().copied().flatten();
        (
            n,
            c,
            x.get(1..r.saturating_sub(1)).unwrap_or_default().to_vec(),
        )
    } else {
        (
            n,
            x.get(1).copied().flatten(),
            x.get(2..).unwrap_or_default().to_vec(),
        )
    }
}

fn join_layout(n: Dim, c: Dim, spatial: Vec<Dim>, channels_last: bool) -> Vec<Dim> {
    let mut out = vec![n];
    if channels_last {
        out.extend(spatial);
        out.push(c);
    } else {
        out.push(c);
        out.extend(spatial);
    }
    out
}

/// The output shape of a pool over input `xi`.
pub(super) fn pool_shape(
    ctx: &Ctx,
    xi: usize,
    name: &str,
    channels_last: bool,
) -> Result<Option<Vec<Dim>>> {
    let Some(n) = spatial_rank(ctx, (xi, name), None)? else {
        return Ok(None);
    };
    let window = Window::read(ctx, n, None)?;
    let Some(x) = ctx.shape(xi) else {
        return Ok(None);
    };
    let (batch, c, spatial) = split_layout(&x, channels_last);
    let spatial = window.output(&spatial, &format!("input '{name}'"))?;
    Ok(Some(join_layout(batch, c, spatial, channels_last)))
}

/// A global pool keeps batch and channels and reduces every spatial dimension to 1.
pub(super) fn global_shape(
    ctx: &Ctx,
    xi: usize,
    name: &str,
    channels_last: bool,
) -> Result<Option<Vec<Dim>>> {
    spatial_rank(ctx, (xi, name), None)?;
    Ok(ctx.shape(xi).map(|x| {
        let (batch, c, spatial) = split_layout(&x, channels_last);
        join_layout(batch, c, vec![Some(1); spatial.len()], channels_last)
    }))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    fn qlinear_inputs(x: &[i64], w: &[i64]) -> Vec<Option<In>> {
        let scalar = |d| Some(In::new(d, &[]));
        vec![
            Some(In::new(DType::U8, x)),
            scalar(DType::F32),
            scalar(DType::U8),
            Some(In::new(DType::I8, w)),
            scalar(DType::F32),
            scalar(DType::I8),
            scalar(DType::F32),
            scalar(DType::I8),
        ]
    }

    fn qlinear_conv() -> N {
        N::new(
            "QLinearConv",
            &["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"],
            1,
        )
    }

    #[test]
    fn qlinear_conv_with_pads_strides_and_dilations() {
        let n = qlinear_conv()
            .ints("pads", &[0, 1, 2, 3])
            .ints("strides", &[2, 2])
            .ints("dilations", &[2, 2]);
        let t = out_ty(&n, 10, &qlinear_inputs(&[1, 3, 32, 32], &[16, 3, 3, 3]));
        // Extent 5; H: (32+0+2-5)/2+1 = 15, W: (32+1+3-5)/2+1 = 16. Type of y_zero_point.
        assert_eq!(t, ty(DType::I8, &[1, 16, 15, 16]));
    }

    #[test]
    fn qlinear_conv_same_upper_rounds_up() {
        let n = qlinear_conv()
            .string("auto_pad", "SAME_UPPER")
            .ints("strides", &[2, 2]);
        let t = out_ty(&n, 10, &qlinear_inputs(&[-1, 3, 15, 17], &[8, 3, 3, 3]));
        assert_eq!(t, ty(DType::I8, &[-1, 8, 8, 9]));
    }

    #[test]
    fn depthwise_conv_checks_channels_against_group() {
        let n = N::new("Conv", &["X", "W"], 1)
            .int("group", 32)
            .ints("pads", &[1, 1, 1, 1]);
        let ins = [
            Some(In::new(DType::F32, &[1, 32, 56, 56])),
            Some(In::new(DType::F32, &[32, 1, 3, 3])),
        ];
        assert_eq!(out_ty(&n, 11, &ins), ty(DType::F32, &[1, 32, 56, 56]));
        let n = N::new("Conv", &["X", "W"], 1).int("group", 16);
        assert_eq!(
            err(&n, 11, &ins),
            "input 'W' has shape [32,1,3,3], with 1 input channels per group, but input 'X' [1,32,56,56] has 32 channels and group is 16"
        );
    }

    #[test]
    fn conv_in_one_and_three_dimensions() {
        let n = N::new("Conv", &["X", "W", "B"], 1).ints("strides", &[3]);
        let ins = [
            Some(In::new(DType::F32, &[2, 4, 100])),
            Some(In::new(DType::F32, &[8, 4, 5])),
            Some(In::new(DType::F32, &[8])),
        ];
        assert_eq!(out_ty(&n, 11, &ins), ty(DType::F32, &[2, 8, 32]));
        let n = N::new("ConvInteger", &["x", "w"], 1).ints("pads", &[1; 6]);
        let ins = [
            Some(In::new(DType::U8, &[1, 2, 8, 16, 16])),
            Some(In::new(DType::U8, &[4, 2, 3, 3, 3])),
        ];
        assert_eq!(out_ty(&n, 10, &ins), ty(DType::I32, &[1, 4, 8, 16, 16]));
    }

    #[test]
    fn conv_inconsistencies_are_errors() {
        let n = N::new("Conv", &["X", "W"], 1);
        let e = err(
            &n,
            11,
            &[
                Some(In::new(DType::F32, &[1, 3])),
                Some(In::new(DType::F32, &[4, 3])),
            ],
        );
        assert_eq!(
            e,
            "input 'X' has rank 2, but needs at least 3 (batch, channels and a spatial dimension)"
        );
        let small = [
            Some(In::new(DType::F32, &[1, 3, 2, 2])),
            Some(In::new(DType::F32, &[4, 3, 3, 3])),
        ];
        assert!(err(&n, 11, &small).contains("smaller than the kernel's extent 3"));
        let n = N::new("Conv", &["X", "W"], 1).ints("strides", &[1]);
        let e = err(&n, 11, &[Some(In::new(DType::F32, &[1, 3, 8, 8])), None]);
        assert_eq!(
            e,
            "attribute 'strides' has 1 values, but the input has 2 spatial dimensions"
        );
    }

    #[test]
    fn unknown_weights_leave_spatial_dims_unknown() {
        let n = N::new("Conv", &["X", "W"], 1);
        let t = out_ty(&n, 11, &[Some(In::new(DType::F32, &[1, 3, 8, 8])), None]);
        assert_eq!(t, ty(DType::F32, &[1, -1, -1, -1]));
    }

    #[test]
    fn max_pool_ceil_mode_drops_windows_starting_in_right_padding() {
        let pool = |ceil: i64, pads: &[i64]| {
            N::new("MaxPool", &["X"], 2)
                .ints("kernel_shape", &[2, 2])
                .ints("strides", &[2, 2])
                .ints("pads", pads)
                .int("ceil_mode", ceil)
        };
        let x = [Some(In::new(DType::F32, &[1, 1, 5, 5]))];
        assert_eq!(
            out_ty(&pool(0, &[0; 4]), 12, &x),
            ty(DType::F32, &[1, 1, 2, 2])
        );
        assert_eq!(
            out_ty(&pool(1, &[0; 4]), 12, &x),
            ty(DType::F32, &[1, 1, 3, 3])
        );
        // Padded to 7, ceil gives 4 windows, but the 4th would start in the right padding.
        assert_eq!(
            out_ty(&pool(1, &[1; 4]), 12, &x),
            ty(DType::F32, &[1, 1, 3, 3])
        );
        let outs = run(&pool(0, &[0; 4]), 12, &x).unwrap();
        assert_eq!(outs[1].ty, ty(DType::I64, &[1, 1, 2, 2]));
    }

    #[test]
    fn average_pool_valid_ignores_ceil_mode() {
        let n = N::new("AveragePool", &["X"], 1)
            .ints("kernel_shape", &[2])
            .ints("strides", &[2])
            .string("auto_pad", "VALID")
            .int("ceil_mode", 1);
        let t = out_ty(&n, 19, &[Some(In::new(DType::F32, &[1, 1, 5]))]);
        assert_eq!(t, ty(DType::F32, &[1, 1, 2]));
    }

    #[test]
    fn conv_transpose_and_global_pool() {
        let n = N::new("ConvTranspose", &["X", "W"], 1)
            .ints("strides", &[2, 2])
            .ints("pads", &[1, 1, 1, 1])
            .ints("output_padding", &[1, 1]);
        let ins = [
            Some(In::new(DType::F32, &[1, 8, 10, 10])),
            Some(In::new(DType::F32, &[8, 4, 3, 3])),
        ];
        assert_eq!(out_ty(&n, 11, &ins), ty(DType::F32, &[1, 4, 20, 20]));
        let g = N::new("GlobalAveragePool", &["X"], 1);
        let t = out_ty(&g, 11, &[Some(In::new(DType::F32, &[-1, 64, 7, 7]))]);
        assert_eq!(t, ty(DType::F32, &[-1, 64, 1, 1]));
    }
}
