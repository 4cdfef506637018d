//! Range: a 1-D tensor of `max(ceil((limit - start) / delta), 0)` elements of the
//! inputs' type. Its length is known when all three inputs are constants; integer
//! ranges are then folded too, as the shape arithmetic around them often is.

use anyhow::{Result, bail};

use super::ShapeRules;
use super::ctx::Ctx;
use super::{Inferred, fold};
use crate::onnx::dtype::DType;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Range"], 11, range);
}

/// A bound on the length of a range whose value is kept at import, as for every
/// folded integer tensor.
const FOLD_LIMIT: i64 = fold::LIMIT as i64;

fn range(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let dtype = ctx.shared_dtype(&[
        (0, "start".to_string()),
        (1, "limit".to_string()),
        (2, "delta".to_string()),
    ])?;
    let scalars: Option<Vec<f64>> = (0..3)
        .map(|i| {
            let v = ctx.value(i)?.to_f64_vec()?;
            (v.len() == 1).then(|| v[0])
        })
        .collect();
    let Some(s) = scalars else {
        return Ok(vec![Inferred::of(dtype, Some(vec![None]))]);
    };
    let (start, limit, delta) = (s[0], s[1], s[2]);
    if delta == 0.0 {
        bail!("input 'delta' is 0, so the range never reaches 'limit'");
    }
    let n = ((limit - start) / delta).ceil().max(0.0);
    if !n.is_finite() || n > i64::MAX as f64 / 2.0 {
        bail!("Range from {start} to {limit} by {delta} has too many elements");
    }
    let n = n as i64;
    let out = Inferred::of(dtype, Some(vec![Some(n)]));
    let value = match dtype {
        Some(d @ (DType::I16 | DType::I32 | DType::I64)) if n <= FOLD_LIMIT => {
            let (start, delta) = (start as i64, delta as i64);
            let vals: Vec<i64> = (0..n).map(|i| start + i * delta).collect();
            fold::encode_ints(d, vec![n], &vals)
        }
        _ => None,
    };
    Ok(vec![out.with_value(value)])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ints, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    fn node() -> N {
        N::new("Range", &["start", "limit", "delta"], 1)
    }

    #[test]
    fn constant_ranges_have_a_length_and_integer_ones_a_value() {
        let ins = [
            Some(In::ints(&[], &[1])),
            Some(In::ints(&[], &[8])),
            Some(In::ints(&[], &[3])),
        ];
        let outs = run(&node(), 17, &ins).unwrap();
        assert_eq!(out_ints(&outs, 0), Some(vec![1, 4, 7]));
        let ins = [
            Some(In::floats(&[], &[0.5])),
            Some(In::floats(&[], &[0.0])),
            Some(In::floats(&[], &[-0.25])),
        ];
        assert_eq!(out_ty(&node(), 17, &ins), ty(DType::F32, &[2]));
        let ins = [
            Some(In::ints(&[], &[5])),
            Some(In::ints(&[], &[1])),
            Some(In::ints(&[], &[1])),
        ];
        assert_eq!(out_ty(&node(), 17, &ins), ty(DType::I64, &[0]));
    }

    #[test]
    fn run_time_bounds_give_an_unknown_length_and_zero_steps_are_refused() {
        let ins = [
            Some(In::floats(&[], &[0.0])),
            Some(In::new(DType::F32, &[])),
            Some(In::floats(&[], &[1.0])),
        ];
        assert_eq!(out_ty(&node(), 17, &ins), ty(DType::F32, &[-1]));
        let ins = [
            Some(In::ints(&[], &[0])),
            Some(In::ints(&[], &[4])),
            Some(In::ints(&[], &[0])),
        ];
        assert_eq!(
            err(&node(), 17, &ins),
            "input 'delta' is 0, so the range never reaches 'limit'"
        );
    }
}
