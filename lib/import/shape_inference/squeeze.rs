//! Squeeze and Unsqueeze; their axes are an attribute before opset 13, an input after.

use anyhow::{Result, bail};

use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::{self, fmt_shape};
use super::{Inferred, fold};
use crate::dialect::types::Dim;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Squeeze"], 1, squeeze);
    r.infer_ops(&["Unsqueeze"], 1, unsqueeze);
}

/// The axes and the name messages give them: `Some(None)` when no axes are given, and
/// `None` when an axes input exists but its value is not known.
fn read_axes(ctx: &Ctx) -> Result<(Option<Option<Vec<i64>>>, &'static str)> {
    if ctx.opset < 13 {
        Ok((Some(ctx.attrs().optional_ints("axes")?), "attribute 'axes'"))
    } else if ctx.present(1) {
        Ok((ctx.ints(1).map(Some), "input 'axes'"))
    } else {
        Ok((Some(None), "input 'axes'"))
    }
}

fn with_value(ctx: &Ctx, shape: Option<Vec<Dim>>) -> Vec<Inferred> {
    let value = match (ctx.value(0), shape.as_deref().and_then(dims::known)) {
        (Some(v), Some(d)) => fold::reshaped(v, d),
        _ => None,
    };
    // The elements keep their order, so a partly known vector stays one.
    vec![
        Inferred::of(ctx.dtype(0), shape)
            .with_value(value)
            .with_elements(ctx.elements(0)),
    ]
}

/// The rank an axes input known only at run time gives: the input's rank changed by
/// its (known) length, every dimension unknown.
fn run_time_axes(ctx: &Ctx, inserted: bool) -> Option<Vec<Inferred>> {
    if ctx.opset < 13 || !ctx.present(1) || ctx.ints(1).is_some() {
        return None;
    }
    let n = dims::vector_len(ctx.shape(1))?;
    let rank = ctx.rank(0)?;
    let rank = if inserted {
        rank.checked_add(n)?
    } else {
        rank.checked_sub(n)?
    };
    Some(vec![Inferred::of(ctx.dtype(0), Some(vec![None; rank]))])
}

fn squeeze(ctx: &Ctx) -> Result<Vec<Inferred>> {
    if let Some(out) = run_time_axes(ctx, false) {
        return Ok(out);
    }
    let (axes, what) = read_axes(ctx)?;
    let (Some(axes), Some(input)) = (axes, ctx.shape(0)) else {
        return Ok(with_value(ctx, None));
    };
    let shape = match axes {
        // Without axes every 1 goes, which needs every size known.
        None => dims::known(&input).map(|d| d.into_iter().filter(|&n| n != 1).map(Some).collect()),
        Some(axes) => {
            let axes = dims::axes(&axes, input.len(), what)?;
            for &a in &axes {
                if let Some(Some(n)) = input.get(a)
                    && *n != 1
                {
                    bail!(
                        "{what} names axis {a}, which has size {n} in input 'data' {}",
                        fmt_shape(&input)
                    );
                }
            }
            Some(
                input
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !axes.contains(i))
                    .map(|(_, &d)| d)
                    .collect(),
            )
        }
    };
    Ok(with_value(ctx, shape))
}

fn unsqueeze(ctx: &Ctx) -> Result<Vec<Inferred>> {
    if let Some(out) = run_time_axes(ctx, true) {
        return Ok(out);
    }
    let (axes, what) = read_axes(ctx)?;
    let (Some(Some(axes)), Some(input)) = (axes, ctx.shape(0)) else {
        return Ok(with_value(ctx, None));
    };
    let rank = input.len().saturating_add(axes.len());
    let axes = dims::axes(&axes, rank, what)?;
    let mut rest = input.iter();
    let shape = (0..rank)
        .map(|i| {
            if axes.contains(&i) {
                Some(1)
            } else {
                rest.next().copied().flatten()
            }
        })
        .collect();
    Ok(with_value(ctx, Some(shape)))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ints, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn squeeze_axes_come_from_the_attribute_before_opset_13() {
        let n = N::new("Squeeze", &["data"], 1).ints("axes", &[0, -1]);
        let t = out_ty(&n, 11, &[Some(In::new(DType::F32, &[1, 3, 1]))]);
        assert_eq!(t, ty(DType::F32, &[3]));
        let n = N::new("Squeeze", &["data", "axes"], 1);
        let t = out_ty(
            &n,
            13,
            &[
                Some(In::new(DType::F32, &[1, 3, 1])),
                Some(In::ints(&[1], &[2])),
            ],
        );
        assert_eq!(t, ty(DType::F32, &[1, 3]));
    }

    #[test]
    fn squeeze_without_axes_drops_every_one() {
        let n = N::new("Squeeze", &["data"], 1);
        let t = out_ty(&n, 13, &[Some(In::new(DType::F32, &[1, 3, 1, 2]))]);
        assert_eq!(t, ty(DType::F32, &[3, 2]));
        let t = out_ty(&n, 13, &[Some(In::new(DType::F32, &[1, -1]))]);
        assert_eq!(t.shape, None);
        let outs = run(&n, 13, &[Some(In::partial(&[None, Some(3)]))]).unwrap();
        assert_eq!(outs[0].partial, Some(vec![None, Some(3)]));
    }

    #[test]
    fn squeezing_a_non_unit_axis_is_an_error() {
        let n = N::new("Squeeze", &["data"], 1).ints("axes", &[1]);
        let e = err(&n, 11, &[Some(In::new(DType::F32, &[1, 3]))]);
        assert_eq!(
            e,
            "attribute 'axes' names axis 1, which has size 3 in input 'data' [1,3]"
        );
    }

    #[test]
    fn unsqueeze_by_opset_and_value() {
        let n = N::new("Unsqueeze", &["data"], 1).ints("axes", &[0, 3]);
        let t = out_ty(&n, 11, &[Some(In::new(DType::F32, &[2, 3]))]);
        assert_eq!(t, ty(DType::F32, &[1, 2, 3, 1]));
        let n = N::new("Unsqueeze", &["data", "axes"], 1);
        let outs = run(
            &n,
            13,
            &[Some(In::ints(&[], &[7])), Some(In::ints(&[1], &[-1]))],
        )
        .unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[1]));
        assert_eq!(out_ints(&outs, 0), Some(vec![7]));
        let outs = run(
            &n,
            13,
            &[
                Some(In::partial(&[None, Some(3)])),
                Some(In::ints(&[1], &[0])),
            ],
        )
        .unwrap();
        assert_eq!(outs[0].ty, ty(DType::I64, &[1, 2]));
        assert_eq!(outs[0].partial, None);
        // At opset 13 the attribute is gone: axes must come as the input.
        let old_style = N::new("Unsqueeze", &["data"], 1).ints("axes", &[0]);
        let t = out_ty(&old_style, 13, &[Some(In::new(DType::F32, &[2]))]);
        assert_eq!(t.shape, None);
    }
}
