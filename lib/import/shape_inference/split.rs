//! Split by explicit sizes (an attribute before opset 13, an input after), by
//! `num_outputs` (opset 18), or evenly across the outputs.

use anyhow::{Result, bail};

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::{self, fmt_shape};
use crate::dialect::types::Dim;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Split"], 1, split);
}

/// What the node says about the output sizes along the axis.
enum Sizes {
    /// An input holds them, but its value is not known.
    Unknown,
    /// No sizes are given: split by `num_outputs` or evenly.
    Implicit,
    /// The sizes, with the name messages give their source.
    Given(Vec<i64>, &'static str),
}

fn explicit_sizes(ctx: &Ctx) -> Result<Sizes> {
    if ctx.present(1) && (ctx.opset >= 13 || ctx.opset <= 1) {
        return Ok(match ctx.ints(1) {
            Some(v) => Sizes::Given(v, "input 'split'"),
            None => Sizes::Unknown,
        });
    }
    if ctx.opset < 13
        && let Some(v) = ctx.attrs().optional_ints("split")?
    {
        return Ok(Sizes::Given(v, "attribute 'split'"));
    }
    Ok(Sizes::Implicit)
}

fn split(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.dtype(0);
    let k = ctx.outputs();
    let unknown = || Ok(vec![Inferred::of(dtype, None); k]);
    let Some(input) = ctx.shape(0) else {
        return unknown();
    };
    let a = dims::axis(ctx.attrs().int("axis", 0)?, input.len(), "attribute 'axis'")?;
    let d = input.get(a).copied().flatten();
    let sizes: Vec<Dim> = match explicit_sizes(ctx)? {
        Sizes::Unknown => vec![None; k],
        Sizes::Given(sizes, what) => {
            if sizes.len() != k {
                bail!(
                    "{what} has {} values, but the node has {k} outputs",
                    sizes.len()
                );
            }
            if let Some(bad) = sizes.iter().find(|&&s| s < 0) {
                bail!("{what} holds {bad}, but sizes must be 0 or more");
            }
            let sum = sizes.iter().try_fold(0i64, |acc, &s| acc.checked_add(s));
            if let Some(d) = d
                && sum != Some(d)
            {
                bail!(
                    "{what} {sizes:?} does not add up to size {d} of axis {a} of input 'input' {}",
                    fmt_shape(&input)
                );
            }
            sizes.into_iter().map(Some).collect()
        }
        Sizes::Implicit => even_sizes(ctx, d, k, a, &input)?,
    };
    Ok(sizes
        .into_iter()
        .map(|s| {
            let mut shape = input.clone();
            if let Some(slot) = shape.get_mut(a) {
                *slot = s;
            }
            Inferred::of(dtype, Some(shape))
        })
        .collect())
}

/// Sizes without an explicit list: `num_outputs` chunks of ceil(d / n) with a smaller
/// last one (opset 18), or else an even split across the outputs.
fn even_sizes(ctx: &Ctx, d: Dim, k: usize, a: usize, input: &[Dim]) -> Result<Vec<Dim>> {
    let num_outputs = if ctx.opset >= 18 {
        ctx.attrs().optional_int("num_outputs")?
    } else {
        None
    };
    if let Some(n) = num_outputs
        && usize::try_from(n).ok() != Some(k)
    {
        bail!("attribute 'num_outputs' is {n}, but the node has {k} outputs");
    }
    let (Some(d), Ok(n)) = (d, i64::try_from(k)) else {
        return Ok(vec![None; k]);
    };
    if n == 0 {
        return Ok(vec![]);
    }
    if d % n == 0 {
        return Ok(vec![Some(d / n); k]);
    }
    let chunk = d / n + 1;
    let last = chunk.checked_mul(n - 1).map(|used| d - used);
    match (num_outputs, last) {
        (Some(_), Some(last)) if last > 0 => {
            let mut sizes = vec![Some(chunk); k - 1];
            sizes.push(Some(last));
            Ok(sizes)
        }
        _ => bail!(
            "axis {a} of input 'input' {} has size {d}, which does not split into {k} outputs",
            fmt_shape(input)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, run, ty};
    use crate::onnx::dtype::DType;

    fn shapes(n: &N, opset: i64, ins: &[Option<In>]) -> Vec<crate::dialect::types::TensorType> {
        run(n, opset, ins)
            .unwrap()
            .into_iter()
            .map(|i| i.ty)
            .collect()
    }

    #[test]
    fn split_by_attribute_input_and_evenly() {
        let x = || Some(In::new(DType::F32, &[2, 10]));
        let attr = N::new("Split", &["input"], 2)
            .int("axis", 1)
            .ints("split", &[3, 7]);
        assert_eq!(
            shapes(&attr, 11, &[x()]),
            vec![ty(DType::F32, &[2, 3]), ty(DType::F32, &[2, 7])]
        );
        let input = N::new("Split", &["input", "split"], 2).int("axis", -1);
        assert_eq!(
            shapes(&input, 13, &[x(), Some(In::ints(&[2], &[4, 6]))]),
            vec![ty(DType::F32, &[2, 4]), ty(DType::F32, &[2, 6])]
        );
        let even = N::new("Split", &["input"], 5).int("axis", 1);
        assert_eq!(shapes(&even, 13, &[x()]), vec![ty(DType::F32, &[2, 2]); 5]);
    }

    #[test]
    fn num_outputs_leaves_a_smaller_last_chunk() {
        let n = N::new("Split", &["input"], 3).int("num_outputs", 3);
        assert_eq!(
            shapes(&n, 18, &[Some(In::new(DType::F32, &[7]))]),
            vec![
                ty(DType::F32, &[3]),
                ty(DType::F32, &[3]),
                ty(DType::F32, &[1])
            ]
        );
    }

    #[test]
    fn split_sizes_that_do_not_fit_are_errors() {
        let n = N::new("Split", &["input", "split"], 2);
        let e = err(
            &n,
            13,
            &[
                Some(In::new(DType::F32, &[5])),
                Some(In::ints(&[2], &[2, 2])),
            ],
        );
        assert_eq!(
            e,
            "input 'split' [2, 2] does not add up to size 5 of axis 0 of input 'input' [5]"
        );
        let n = N::new("Split", &["input"], 2);
        let e = err(&n, 13, &[Some(In::new(DType::F32, &[5]))]);
        assert_eq!(
            e,
            "axis 0 of input 'input' [5] has size 5, which does not split into 2 outputs"
        );
    }
}
