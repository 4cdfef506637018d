//! MatMul, MatMulInteger, QLinearMatMul (numpy matmul semantics) and Gemm.

use anyhow::{Result, bail};

use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::fmt_shape;
use super::{Inferred, broadcast};
use crate::dialect::types::Dim;
use crate::onnx::dtype::DType;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["MatMul"], 1, |ctx| {
        let shape = matmul_shape(ctx, (0, "A"), (1, "B"))?;
        Ok(vec![Inferred::of(ctx.dtype(0).or(ctx.dtype(1)), shape)])
    });
    r.infer_ops(&["MatMulInteger"], 1, |ctx| {
        let shape = matmul_shape(ctx, (0, "A"), (1, "B"))?;
        Ok(vec![Inferred::of(Some(DType::I32), shape)])
    });
    r.infer_ops(&["QLinearMatMul"], 1, |ctx| {
        let shape = matmul_shape(ctx, (0, "a"), (3, "b"))?;
        Ok(vec![Inferred::of(ctx.dtype(7), shape)])
    });
    r.infer_ops(&["Gemm"], 1, |ctx| {
        let shape = gemm_shape(ctx, (0, "A"), (1, "B"), Some((2, "C")))?;
        Ok(vec![Inferred::of(ctx.dtype(0).or(ctx.dtype(1)), shape)])
    });
}

/// The numpy matmul of inputs `a` and `b`, each given as (input index, name): a 1-D
/// operand is a row (a) or a column (b) whose unit dimension is dropped again, and the
/// leading (batch) dimensions broadcast.
pub(super) fn matmul_shape(
    ctx: &Ctx,
    a: (usize, &str),
    b: (usize, &str),
) -> Result<Option<Vec<Dim>>> {
    let (Some(sa), Some(sb)) = (ctx.shape(a.0), ctx.shape(b.0)) else {
        for (i, name) in [a, b] {
            if ctx.rank(i) == Some(0) {
                bail!("input '{name}' is a scalar, but matrix multiplication needs rank 1 or more");
            }
        }
        return Ok(None);
    };
    for (s, name) in [(&sa, a.1), (&sb, b.1)] {
        if s.is_empty() {
            bail!("input '{name}' is a scalar, but matrix multiplication needs rank 1 or more");
        }
    }
    let (a_vec, b_vec) = (sa.len() == 1, sb.len() == 1);
    let split = |s: &[Dim], is_vec: bool, row: bool| -> (Vec<Dim>, Dim, Dim) {
        if is_vec {
            let d = s.first().copied().flatten();
            return if row {
                (vec![], Some(1), d)
            } else {
                (vec![], d, Some(1))
            };
        }
        let r = s.len();
        let batch = s.get(..r - 2).unwrap_or_default().to_vec();
        let at = |i: usize| s.get(i).copied().flatten();
        (batch, at(r - 2), at(r - 1))
    };
    let (batch_a, m, ka) = split(&sa, a_vec, true);
    let (batch_b, kb, n) = split(&sb, b_vec, false);
    if let (Some(ka), Some(kb)) = (ka, kb)
        && ka != kb
    {
        bail!(
            "input '{}' has shape {} and input '{}' has shape {}: the inner dimensions {ka} and {kb} differ",
            a.1,
            fmt_shape(&sa),
            b.1,
            fmt_shape(&sb)
        );
    }
    let Some(mut out) = broadcast::pair(&batch_a, &batch_b) else {
        bail!(
            "the batch dimensions of input '{}' {} and input '{}' {} do not broadcast",
            a.1,
            fmt_shape(&sa),
            b.1,
            fmt_shape(&sb)
        );
    };
    if !a_vec {
        out.push(m);
    }
    if !b_vec {
        out.push(n);
    }
    Ok(Some(out))
}

/// Gemm: op(A) [M, K] times op(B) [K, N], op transposing per `transA`/`transB`, plus
/// an optional C that must broadcast onto [M, N].
pub(super) fn gemm_shape(
    ctx: &Ctx,
    a: (usize, &str),
    b: (usize, &str),
    c: Option<(usize, &str)>,
) -> Result<Option<Vec<Dim>>> {
    let trans_a = ctx.attrs().int("transA", 0)? != 0;
    let trans_b = ctx.attrs().int("transB", 0)? != 0;
    let matrix = |(i, name): (usize, &str), trans: bool| -> Result<(Dim, Dim, Option<Vec<Dim>>)> {
        let Some(s) = ctx.shape(i) else {
            return Ok((None, None, None));
        };
        let [r, k] = s[..] else {
            bail!(
                "input '{name}' has shape {}, but Gemm needs a matrix",
                fmt_shape(&s)
            );
        };
        Ok(if trans {
            (k, r, Some(s))
        } else {
            (r, k, Some(s))
        })
    };
    let (m, ka, sa) = matrix(a, trans_a)?;
    let (kb, n, sb) = matrix(b, trans_b)?;
    if let (Some(ka), Some(kb)) = (ka, kb)
        && ka != kb
    {
        bail!(
            "input '{}' has shape {} and input '{}' has shape {}: with transA={} and transB={} the inner dimensions {ka} and {kb} differ",
            a.1,
            fmt_shape(&sa.unwrap_or_default()),
            b.1,
            fmt_shape(&sb.unwrap_or_default()),
            i64::from(trans_a),
            i64::from(trans_b)
        );
    }
    let out = vec![m, n];
    if let Some((ci, c_name)) = c
        && ctx.opset >= 7
        && let Some(sc) = ctx.shape(ci)
        && !broadcast::onto(&sc, &out)
    {
        bail!(
            "input '{c_name}' has shape {}, which does not broadcast to the result {}",
            fmt_shape(&sc),
            fmt_shape(&out)
        );
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ty, ty};
    use crate::onnx::dtype::DType;

    fn qlinear(a: &[i64], b: &[i64]) -> Vec<Option<In>> {
        let scalar = |d| Some(In::new(d, &[]));
        vec![
            Some(In::new(DType::U8, a)),
            scalar(DType::F32),
            scalar(DType::U8),
            Some(In::new(DType::I8, b)),
            scalar(DType::F32),
            scalar(DType::I8),
            scalar(DType::F32),
            scalar(DType::U8),
        ]
    }

    fn qlinear_matmul() -> N {
        N::new(
            "QLinearMatMul",
            &["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
            1,
        )
    }

    #[test]
    fn qlinear_matmul_batches_and_takes_the_output_zero_point_type() {
        let t = out_ty(&qlinear_matmul(), 10, &qlinear(&[2, 1, 4, 8], &[3, 8, 16]));
        assert_eq!(t, ty(DType::U8, &[2, 3, 4, 16]));
    }

    #[test]
    fn qlinear_matmul_drops_the_unit_dimension_of_vectors() {
        assert_eq!(
            out_ty(&qlinear_matmul(), 10, &qlinear(&[8], &[8, 16])),
            ty(DType::U8, &[16])
        );
        assert_eq!(
            out_ty(&qlinear_matmul(), 10, &qlinear(&[5, 8], &[8])),
            ty(DType::U8, &[5])
        );
        assert_eq!(
            out_ty(&qlinear_matmul(), 10, &qlinear(&[8], &[8])),
            ty(DType::U8, &[])
        );
    }

    #[test]
    fn matmul_inner_dimension_mismatch_is_an_error() {
        let n = N::new("MatMul", &["A", "B"], 1);
        let e = err(
            &n,
            13,
            &[
                Some(In::new(DType::F32, &[2, 3])),
                Some(In::new(DType::F32, &[4, 5])),
            ],
        );
        assert_eq!(
            e,
            "input 'A' has shape [2,3] and input 'B' has shape [4,5]: the inner dimensions 3 and 4 differ"
        );
        let t = out_ty(
            &N::new("MatMulInteger", &["A", "B"], 1),
            10,
            &[
                Some(In::new(DType::U8, &[-1, 3])),
                Some(In::new(DType::I8, &[3, 5])),
            ],
        );
        assert_eq!(t, ty(DType::I32, &[-1, 5]));
    }

    #[test]
    fn gemm_honours_trans_b_and_checks_c() {
        let n = N::new("Gemm", &["A", "B", "C"], 1).int("transB", 1);
        let ins = [
            Some(In::new(DType::F32, &[4, 256])),
            Some(In::new(DType::F32, &[1000, 256])),
            Some(In::new(DType::F32, &[1000])),
        ];
        assert_eq!(out_ty(&n, 13, &ins), ty(DType::F32, &[4, 1000]));
        let bad_c = [
            Some(In::new(DType::F32, &[4, 256])),
            Some(In::new(DType::F32, &[1000, 256])),
            Some(In::new(DType::F32, &[10])),
        ];
        assert_eq!(
            err(&n, 13, &bad_c),
            "input 'C' has shape [10], which does not broadcast to the result [4,1000]"
        );
        let plain = N::new("Gemm", &["A", "B"], 1);
        assert!(err(&plain, 13, &ins[..2]).contains("transA=0 and transB=0"));
    }
}
