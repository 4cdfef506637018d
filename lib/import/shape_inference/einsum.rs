//! Einsum: the output has one dimension per output label, of the size the operands
//! give that label (the equation is resolved by the kernel library's parser, so the
//! shapes inferred here are the ones the kernel computes).

use anyhow::Result;

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use crate::dialect::types::Dim;
use crate::kernels::ops::einsum::resolve;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Einsum"], 12, einsum);
}

fn einsum(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let n = ctx.input_slots();
    let names: Vec<(usize, String)> = (0..n).map(|i| (i, format!("input {i}"))).collect();
    let dtype = ctx.shared_dtype(&names)?;
    let equation = ctx.attrs().string("equation", "")?;
    let shapes: Option<Vec<Vec<Dim>>> = (0..n).map(|i| ctx.shape(i)).collect();
    let Some(shapes) = shapes else {
        return Ok(vec![Inferred::of(dtype, None)]);
    };
    let ranks: Vec<usize> = shapes.iter().map(Vec::len).collect();
    let r = resolve(&equation, &ranks)?;
    // A label's size is any operand's size for it other than a broadcast 1.
    let mut sizes: Vec<Dim> = vec![Some(1); r.labels];
    for (dims, shape) in r.inputs.iter().zip(&shapes) {
        for (&l, &d) in dims.iter().zip(shape) {
            sizes[l] = match (sizes[l], d) {
                (Some(1), d) => d,
                (s, Some(1)) => s,
                (None, d) | (d, None) => d,
                (s, _) => s,
            };
        }
    }
    let out = r.output.iter().map(|&l| sizes[l]).collect();
    Ok(vec![Inferred::of(dtype, Some(out))])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ty, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn batched_matmul_and_implicit_outputs() {
        let n = N::new("Einsum", &["a", "b"], 1).string("equation", "bij,bjk->bik");
        let ins = [
            Some(In::new(DType::F32, &[2, 3, 4])),
            Some(In::new(DType::F32, &[2, 4, -1])),
        ];
        assert_eq!(out_ty(&n, 12, &ins), ty(DType::F32, &[2, 3, -1]));
        let n = N::new("Einsum", &["a"], 1).string("equation", "ij");
        let ins = [Some(In::new(DType::F32, &[3, 4]))];
        assert_eq!(out_ty(&n, 12, &ins), ty(DType::F32, &[3, 4]));
        let n = N::new("Einsum", &["a"], 1).string("equation", "ijk->ij");
        assert!(err(&n, 12, &ins).contains("has rank 2"));
    }
}
