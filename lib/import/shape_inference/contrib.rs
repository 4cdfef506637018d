//! The com.microsoft ops that ONNX Runtime's quantization tools write: the QLinear*
//! family, its QuantizeLinear/DequantizeLinear, the integer matmuls, and
//! GatherBlockQuantized (block-quantized embedding tables).

use anyhow::{Result, bail};

use super::ShapeRules;
use super::ctx::Ctx;
use super::{Inferred, broadcast, concat, conv_pool, matmul, quantization};
use crate::onnx::dtype::DType;

/// The default-domain opset whose quantize/dequantize rules com.microsoft's follow
/// (per-axis scales, output typed like the scale, no `output_dtype`).
const QDQ_OPSET: i64 = 19;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_domain_ops(
        "com.microsoft",
        &["GatherBlockQuantized"],
        1,
        gather_block_quantized,
    );
    r.infer_domain_ops("com.microsoft", &["QuantizeLinear"], 1, |ctx| {
        quantization::quantize(ctx, QDQ_OPSET)
    });
    r.infer_domain_ops("com.microsoft", &["DequantizeLinear"], 1, |ctx| {
        quantization::dequantize(ctx, QDQ_OPSET)
    });
    r.infer_domain_ops(
        "com.microsoft",
        &["QLinearAdd", "QLinearMul"],
        1,
        qlinear_binary,
    );
    r.infer_domain_ops(
        "com.microsoft",
        &["QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax"],
        1,
        |ctx| Ok(vec![Inferred::of(ctx.dtype(0), ctx.shape(0))]),
    );
    r.infer_domain_ops("com.microsoft", &["QLinearGlobalAveragePool"], 1, |ctx| {
        let channels_last = ctx.attrs().int("channels_last", 0)? != 0;
        let shape = conv_pool::global_shape(ctx, 0, "X", channels_last)?;
        Ok(vec![Inferred::of(ctx.dtype(0), shape)])
    });
    r.infer_domain_ops("com.microsoft", &["QLinearAveragePool"], 1, |ctx| {
        let channels_last = ctx.attrs().int("channels_last", 0)? != 0;
        let shape = conv_pool::pool_shape(ctx, 0, "X", channels_last)?;
        Ok(vec![Inferred::of(ctx.dtype(0), shape)])
    });
    r.infer_domain_ops("com.microsoft", &["QLinearConcat"], 1, qlinear_concat);
    r.infer_domain_ops("com.microsoft", &["QGemm"], 1, qgemm);
    r.infer_domain_ops("com.microsoft", &["MatMulIntegerToFloat"], 1, |ctx| {
        let shape = matmul::matmul_shape(ctx, (0, "A"), (1, "B"))?;
        Ok(vec![Inferred::of(ctx.dtype(2).or(Some(DType::F32)), shape)])
    });
    r.infer_domain_ops("com.microsoft", &["DynamicQuantizeMatMul"], 1, |ctx| {
        let shape = matmul::matmul_shape(ctx, (0, "A"), (1, "B"))?;
        Ok(vec![Inferred::of(ctx.dtype(0), shape)])
    });
    r.infer_domain_ops("com.microsoft", &["MatMulNBits"], 1, matmul_nbits);
}

/// (A, B, scales, zero_points, g_idx, bias): A's shape with its last dimension, K,
/// replaced by the attribute N, in A's type.
fn matmul_nbits(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let k = ctx.attrs().int("K", 0)?;
    let n = ctx.attrs().int("N", 0)?;
    let shape = match ctx.shape(0) {
        Some(mut s) => {
            match s.last_mut() {
                None => bail!("input 'A' is a scalar, but MatMulNBits needs rank 1 or more"),
                Some(Some(last)) if *last != k => {
                    bail!("input 'A' has last dimension {last}, but attribute K is {k}")
                }
                Some(last) => *last = Some(n),
            }
            Some(s)
        }
        None => None,
    };
    Ok(vec![Inferred::of(ctx.dtype(0), shape)])
}

/// (A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point): the
/// broadcast of A and B, in A's type.
fn qlinear_binary(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let shape = broadcast::shapes(&[
        ("input 'A'".to_string(), ctx.shape(0)),
        ("input 'B'".to_string(), ctx.shape(3)),
    ])?;
    Ok(vec![Inferred::of(ctx.dtype(0).or(ctx.dtype(7)), shape)])
}

/// (Y_scale, Y_zero_point, then X, scale, zero point for each input).
fn qlinear_concat(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let n = ctx.input_slots().saturating_sub(2) / 3;
    let inputs: Vec<(usize, String)> = (0..n)
        .map(|k| (2 + 3 * k, format!("input {}", 2 + 3 * k)))
        .collect();
    let shape = concat::concat_shape(ctx, &inputs, ctx.attrs().int("axis", 0)?)?;
    Ok(vec![Inferred::of(ctx.dtype(1), shape)])
}

/// (A, a_scale, a_zp, B, b_scale, b_zp, C, y_scale, y_zp): quantized output when
/// y_scale is given, FLOAT otherwise.
fn qgemm(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let shape = matmul::gemm_shape(ctx, (0, "A"), (3, "B"), Some((6, "C")))?;
    let dtype = if ctx.present(7) {
        ctx.dtype(8).or(ctx.dtype(0))
    } else {
        Some(DType::F32)
    };
    Ok(vec![Inferred::of(dtype, shape)])
}

/// GatherBlockQuantized of a 2-D table along axis 0: `indices.shape + [columns]`, the
/// columns the packed width times the values per byte (`8 / bits` for uint8 data),
/// typed as the scales.
fn gather_block_quantized(ctx: &Ctx) -> Result<Vec<Inferred>> {
    let bits = ctx.attrs().int("bits", 4)?;
    let per_byte = if ctx.dtype(0) == Some(DType::U8) && bits > 0 {
        8 / bits
    } else {
        1
    };
    let columns = ctx
        .shape(0)
        .and_then(|s| s.last().copied().flatten())
        .map(|w| w * per_byte);
    let shape = ctx.shape(1).map(|mut s| {
        s.push(columns);
        s
    });
    Ok(vec![Inferred::of(ctx.dtype(2), shape)])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, run_in, ty};
    use crate::dialect::types::TensorType;
    use crate::onnx::dtype::DType;

    fn ms(n: &N, ins: &[Option<In>]) -> anyhow::Result<TensorType> {
        Ok(run_in("com.microsoft", n, 1, ins)?.remove(0).ty)
    }

    fn scalar(d: DType) -> Option<In> {
        Some(In::new(d, &[]))
    }

    #[test]
    fn qlinear_add_broadcasts_a_and_b() {
        let n = N::new(
            "QLinearAdd",
            &["A", "As", "Az", "B", "Bs", "Bz", "Cs", "Cz"],
            1,
        );
        let ins = [
            Some(In::new(DType::U8, &[1, 8, 4, 4])),
            scalar(DType::F32),
            scalar(DType::U8),
            Some(In::new(DType::U8, &[8, 1, 1])),
            scalar(DType::F32),
            scalar(DType::U8),
            scalar(DType::F32),
            scalar(DType::U8),
        ];
        assert_eq!(ms(&n, &ins).unwrap(), ty(DType::U8, &[1, 8, 4, 4]));
        let mut bad = ins;
        bad[3] = Some(In::new(DType::U8, &[3, 1, 1]));
        let e = ms(&n, &bad).unwrap_err().to_string();
        assert_eq!(
            e,
            "input 'B' has shape [3,1,1], which does not broadcast with [1,8,4,4]"
        );
    }

    #[test]
    fn matmul_nbits_replaces_k_by_n() {
        let n = N::new("MatMulNBits", &["A", "B", "s"], 1)
            .int("K", 32)
            .int("N", 5);
        let ins = [
            Some(In::new(DType::F32, &[2, 3, 32])),
            Some(In::new(DType::U8, &[5, 1, 16])),
            Some(In::new(DType::F32, &[5])),
        ];
        assert_eq!(ms(&n, &ins).unwrap(), ty(DType::F32, &[2, 3, 5]));
        let mut bad = ins;
        bad[0] = Some(In::new(DType::F32, &[2, 31]));
        let e = ms(&n, &bad).unwrap_err().to_string();
        assert_eq!(e, "input 'A' has last dimension 31, but attribute K is 32");
    }

    #[test]
    fn qlinear_global_average_pool_honours_channels_last() {
        let ins = [
            Some(In::new(DType::I8, &[1, 7, 7, 64])),
            scalar(DType::F32),
            scalar(DType::I8),
            scalar(DType::F32),
            scalar(DType::I8),
        ];
        let n = N::new(
            "QLinearGlobalAveragePool",
            &["X", "xs", "xz", "ys", "yz"],
            1,
        )
        .int("channels_last", 1);
        assert_eq!(ms(&n, &ins).unwrap(), ty(DType::I8, &[1, 1, 1, 64]));
        let n = N::new(
            "QLinearGlobalAveragePool",
            &["X", "xs", "xz", "ys", "yz"],
            1,
        );
        assert_eq!(ms(&n, &ins).unwrap(), ty(DType::I8, &[1, 7, 1, 1]));
    }

    #[test]
    fn contrib_quantize_and_dequantize_follow_the_default_rules() {
        let q = N::new("QuantizeLinear", &["x", "s", "zp"], 1);
        let ins = [
            Some(In::new(DType::F32, &[4, 4])),
            scalar(DType::F32),
            Some(In::new(DType::U16, &[])),
        ];
        assert_eq!(ms(&q, &ins).unwrap(), ty(DType::U16, &[4, 4]));
        let dq = N::new("DequantizeLinear", &["x", "s"], 1);
        let ins = [Some(In::new(DType::I8, &[4])), scalar(DType::F16)];
        assert_eq!(ms(&dq, &ins).unwrap(), ty(DType::F16, &[4]));
    }

    #[test]
    fn qlinear_concat_and_sigmoid() {
        let n = N::new(
            "QLinearConcat",
            &["ys", "yz", "a", "as", "az", "b", "bs", "bz"],
            1,
        )
        .int("axis", 1);
        let ins = [
            scalar(DType::F32),
            scalar(DType::U8),
            Some(In::new(DType::U8, &[1, 2, 5])),
            scalar(DType::F32),
            scalar(DType::U8),
            Some(In::new(DType::U8, &[1, 3, 5])),
            scalar(DType::F32),
            scalar(DType::U8),
        ];
        assert_eq!(ms(&n, &ins).unwrap(), ty(DType::U8, &[1, 5, 5]));
        let s = N::new("QLinearSigmoid", &["X", "xs", "xz", "ys", "yz"], 1);
        let ins = [Some(In::new(DType::U8, &[3, -1]))];
        assert_eq!(ms(&s, &ins).unwrap(), ty(DType::U8, &[3, -1]));
    }
}
