//! QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear. The quantized convolution
//! and matmul ops live with their float counterparts (conv_pool, matmul).

use anyhow::{Result, bail};

use super::Inferred;
use super::ShapeRules;
use super::ctx::Ctx;
use super::dims::{self, fmt_shape};
use crate::onnx::dtype::DType;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["QuantizeLinear"], 1, |ctx| quantize(ctx, ctx.opset));
    r.infer_ops(&["DequantizeLinear"], 1, |ctx| dequantize(ctx, ctx.opset));
    r.infer_ops(&["DynamicQuantizeLinear"], 1, dynamic_quantize);
}

/// `QuantizeLinear(x, y_scale, y_zero_point?)` with the semantics of default-domain
/// `opset` (com.microsoft's version behaves like opset 19's).
pub(super) fn quantize(ctx: &Ctx, opset: i64) -> Result<Vec<Inferred>> {
    check_scale(ctx, opset, ["x", "y_scale"])?;
    let attr = if opset >= 21 {
        ctx.dtype_attr("output_dtype")?
    } else {
        None
    };
    let dtype = if ctx.present(2) {
        let zp = ctx.dtype(2);
        if let (Some(zp), Some(attr)) = (zp, attr)
            && zp != attr
        {
            bail!(
                "input 'y_zero_point' has element type {zp}, but attribute 'output_dtype' is {attr}"
            );
        }
        zp.or(attr)
    } else if attr.is_some() {
        attr
    } else if ctx.attrs().int("output_dtype", 0)? != 0 && opset >= 21 {
        // A type qlower cannot carry (such as INT4): unknown rather than UINT8.
        None
    } else {
        Some(DType::U8)
    };
    Ok(vec![Inferred::of(dtype, ctx.shape(0))])
}

/// `DequantizeLinear(x, x_scale, x_zero_point?)` with the semantics of default-domain
/// `opset` (com.microsoft's version behaves like opset 19's).
pub(super) fn dequantize(ctx: &Ctx, opset: i64) -> Result<Vec<Inferred>> {
    check_scale(ctx, opset, ["x", "x_scale"])?;
    if let (Some(x), Some(zp)) = (ctx.dtype(0), ctx.dtype(2))
        && x != zp
    {
        bail!("input 'x_zero_point' has element type {zp}, but input 'x' has {x}");
    }
    let attr = if opset >= 23 {
        ctx.dtype_attr("output_dtype")?
    } else {
        None
    };
    let dtype = if let Some(d) = attr {
        d
    } else if opset < 19 {
        // Until opset 19 the scale, and so the output, is always FLOAT.
        DType::F32
    } else {
        ctx.dtype(1).unwrap_or(DType::F32)
    };
    Ok(vec![Inferred::of(Some(dtype), ctx.shape(0))])
}

/// A 1-D scale of more than one element quantizes per axis and must have one element
/// per slice of x along `axis` (blocked quantization, opset 21, keeps x's rank instead).
fn check_scale(ctx: &Ctx, opset: i64, names: [&str; 2]) -> Result<()> {
    let [x_name, scale_name] = names;
    let (Some(x), Some(scale)) = (ctx.shape(0), ctx.shape(1)) else {
        return Ok(());
    };
    let [Some(n)] = scale[..] else {
        return Ok(());
    };
    if n == 1 || opset < 13 || ctx.attrs().int("block_size", 0)? != 0 {
        return Ok(());
    }
    // An axis out of range is left to the runtime: exporters write the default axis 1
    // even on 1-D tensors, and runtimes differ in what they make of it.
    let Ok(axis) = dims::axis(ctx.attrs().int("axis", 1)?, x.len(), "attribute 'axis'") else {
        return Ok(());
    };
    if let Some(Some(size)) = x.get(axis)
        && *size != n
    {
        bail!(
            "input '{scale_name}' has shape {}, but axis {axis} of input '{x_name}' {} has size {size}",
            fmt_shape(&scale),
            fmt_shape(&x)
        );
    }
    Ok(())
}

fn dynamic_quantize(ctx: &Ctx) -> Result<Vec<Inferred>> {
    Ok(vec![
        Inferred::of(Some(DType::U8), ctx.shape(0)),
        Inferred::of(Some(DType::F32), Some(vec![])),
        Inferred::of(Some(DType::U8), Some(vec![])),
    ])
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, err, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    fn x() -> Option<In> {
        Some(In::new(DType::F32, &[1, 3, 8, 8]))
    }

    fn scale() -> Option<In> {
        Some(In::new(DType::F32, &[]))
    }

    #[test]
    fn quantize_takes_the_zero_point_type() {
        let n = N::new("QuantizeLinear", &["x", "s", "zp"], 1);
        let t = out_ty(&n, 13, &[x(), scale(), Some(In::new(DType::I8, &[]))]);
        assert_eq!(t, ty(DType::I8, &[1, 3, 8, 8]));
    }

    #[test]
    fn quantize_without_zero_point_uses_output_dtype_or_uint8() {
        let n = N::new("QuantizeLinear", &["x", "s"], 1).int("output_dtype", 3);
        assert_eq!(out_ty(&n, 21, &[x(), scale()]).dtype, Some(DType::I8));
        // output_dtype does not exist before opset 21.
        assert_eq!(out_ty(&n, 19, &[x(), scale()]).dtype, Some(DType::U8));
        let plain = N::new("QuantizeLinear", &["x", "s", ""], 1);
        assert_eq!(
            out_ty(&plain, 13, &[x(), scale(), None]).dtype,
            Some(DType::U8)
        );
        let int4 = N::new("QuantizeLinear", &["x", "s"], 1).int("output_dtype", 22);
        assert_eq!(out_ty(&int4, 21, &[x(), scale()]).dtype, Some(DType::I4));
        // INT2 is a real type qlower cannot carry: unknown, not UINT8.
        let int2 = N::new("QuantizeLinear", &["x", "s"], 1).int("output_dtype", 26);
        assert_eq!(out_ty(&int2, 21, &[x(), scale()]).dtype, None);
    }

    #[test]
    fn quantize_to_float8_takes_the_zero_point_or_output_dtype() {
        let n = N::new("QuantizeLinear", &["x", "s", "zp"], 1);
        let zp = Some(In::new(DType::F8E5M2, &[]));
        assert_eq!(
            out_ty(&n, 19, &[x(), scale(), zp]).dtype,
            Some(DType::F8E5M2)
        );
        let n = N::new("QuantizeLinear", &["x", "s"], 1).int("output_dtype", 18);
        assert_eq!(
            out_ty(&n, 21, &[x(), scale()]).dtype,
            Some(DType::F8E4M3FNUZ)
        );
    }

    #[test]
    fn quantize_with_unknown_zero_point_type_stays_unknown() {
        let n = N::new("QuantizeLinear", &["x", "s", "zp"], 1);
        let t = out_ty(&n, 13, &[x(), scale(), None]);
        assert_eq!(t.dtype, None);
        assert_eq!(t.shape, ty(DType::F32, &[1, 3, 8, 8]).shape);
    }

    #[test]
    fn quantize_zero_point_conflicting_with_output_dtype_is_an_error() {
        let n = N::new("QuantizeLinear", &["x", "s", "zp"], 1).int("output_dtype", 2);
        let e = err(&n, 21, &[x(), scale(), Some(In::new(DType::I8, &[]))]);
        assert_eq!(
            e,
            "input 'y_zero_point' has element type INT8, but attribute 'output_dtype' is UINT8"
        );
    }

    #[test]
    fn dequantize_per_axis_keeps_the_shape_and_takes_the_scale_type() {
        let n = N::new("DequantizeLinear", &["x", "s", "zp"], 1).int("axis", 0);
        let ins = [
            Some(In::new(DType::I8, &[16, 3, 3, 3])),
            Some(In::new(DType::F32, &[16])),
            Some(In::new(DType::I8, &[16])),
        ];
        assert_eq!(out_ty(&n, 13, &ins), ty(DType::F32, &[16, 3, 3, 3]));
        let half = [
            Some(In::new(DType::U8, &[2, 4])),
            Some(In::new(DType::F16, &[])),
            None,
        ];
        let n = N::new("DequantizeLinear", &["x", "s"], 1);
        assert_eq!(out_ty(&n, 19, &half), ty(DType::F16, &[2, 4]));
        let unknown_scale = [Some(In::new(DType::U8, &[2])), Some(In::unknown())];
        assert_eq!(out_ty(&n, 19, &unknown_scale).dtype, Some(DType::F32));
    }

    #[test]
    fn dequantize_per_axis_scale_of_the_wrong_length_is_an_error() {
        let n = N::new("DequantizeLinear", &["x", "s"], 1).int("axis", 0);
        let e = err(
            &n,
            13,
            &[
                Some(In::new(DType::I8, &[16, 3])),
                Some(In::new(DType::F32, &[8])),
            ],
        );
        assert_eq!(
            e,
            "input 'x_scale' has shape [8], but axis 0 of input 'x' [16,3] has size 16"
        );
        let n = N::new("DequantizeLinear", &["x", "s", "zp"], 1);
        let e = err(
            &n,
            13,
            &[
                Some(In::new(DType::I8, &[4])),
                scale(),
                Some(In::new(DType::U8, &[])),
            ],
        );
        assert_eq!(
            e,
            "input 'x_zero_point' has element type UINT8, but input 'x' has INT8"
        );
    }

    #[test]
    fn dequantize_output_dtype_from_opset_23() {
        let n = N::new("DequantizeLinear", &["x", "s"], 1).int("output_dtype", 10);
        let ins = [Some(In::new(DType::I8, &[4])), scale()];
        assert_eq!(out_ty(&n, 23, &ins).dtype, Some(DType::F16));
        assert_eq!(out_ty(&n, 21, &ins).dtype, Some(DType::F32));
    }

    #[test]
    fn dynamic_quantize_gives_uint8_and_scalar_parameters() {
        let n = N::new("DynamicQuantizeLinear", &["x"], 3);
        let outs = run(&n, 11, &[Some(In::new(DType::F32, &[-1, 64]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::U8, &[-1, 64]));
        assert_eq!(outs[1].ty, ty(DType::F32, &[]));
        assert_eq!(outs[2].ty, ty(DType::U8, &[]));
    }
}
