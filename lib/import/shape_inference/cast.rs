//! Cast and CastLike; casts of small constants to integer types are folded, and so are
//! casts of small integers to float32 and float64 that are exact (a size taken by Shape
//! and cast to float for Range, as YOLOv8's anchor grid does).

use super::ShapeRules;
use super::ctx::Ctx;
use super::{Inferred, fold, int_arith};
use crate::onnx::dtype::DType;
use crate::onnx::tensor::TensorData;

/// Registers the shape rule of each op this file covers.
pub(crate) fn register(r: &mut ShapeRules) {
    r.infer_ops(&["Cast"], 1, |ctx| {
        let to = ctx.dtype_attr("to")?;
        Ok(vec![cast_to(ctx, to)])
    });
    r.infer_ops(&["CastLike"], 1, |ctx| Ok(vec![cast_to(ctx, ctx.dtype(1))]));
}

fn cast_to(ctx: &Ctx, to: Option<DType>) -> Inferred {
    let value = match (ctx.value(0), to) {
        (Some(v), Some(to)) => fold_cast(v, to),
        _ => None,
    };
    // An integer cast keeps each known element the target type holds.
    let elements = to
        .filter(|&t| fold::is_int(t) && t != DType::Bool)
        .and_then(|_| ctx.elements(0));
    Inferred::of(to, ctx.shape(0))
        .with_value(value)
        .with_elements(elements)
}

/// Integers of at most this magnitude are exact in float32 (2^24); float64 holds all
/// of them up to 2^53.
const EXACT_F32: i64 = 1 << 24;
const EXACT_F64: i64 = 1 << 53;

/// An integer value cast to float32 or float64, when every element converts exactly.
fn fold_to_float(v: &TensorData, to: DType) -> Option<TensorData> {
    let v = fold::small(v)?;
    if v.dtype == DType::U64 {
        return None;
    }
    let vals = fold::decode_ints(v)?;
    let bytes: Vec<u8> = match to {
        DType::F32 if vals.iter().all(|x| (-EXACT_F32..=EXACT_F32).contains(x)) => vals
            .iter()
            .flat_map(|&x| (x as f32).to_le_bytes())
            .collect(),
        DType::F64 if vals.iter().all(|x| (-EXACT_F64..=EXACT_F64).contains(x)) => vals
            .iter()
            .flat_map(|&x| (x as f64).to_le_bytes())
            .collect(),
        _ => return None,
    };
    Some(TensorData {
        dtype: to,
        dims: v.dims.clone(),
        bytes: bytes.into(),
    })
}

/// The value cast to an integer type. Floats truncate toward zero; a value the target
/// cannot hold (whose cast ONNX leaves undefined) stops the fold.
fn fold_cast(v: &TensorData, to: DType) -> Option<TensorData> {
    if matches!(to, DType::F32 | DType::F64) && fold::is_int(v.dtype) {
        return fold_to_float(v, to);
    }
    if !fold::is_int(to) || fold::count_of(&v.dims)? > fold::LIMIT {
        return None;
    }
    let vals: Vec<i64> = if fold::is_int(v.dtype) {
        fold::decode_ints(v)?
    } else if matches!(v.dtype, DType::F32 | DType::F64) {
        v.to_f64_vec()?
            .into_iter()
            .map(|f| {
                let t = f.trunc();
                // -2^63 and 2^63 are exact in f64, so the range test is exact too.
                let bound = -(i64::MIN as f64);
                (-bound..bound).contains(&t).then_some(t as i64)
            })
            .collect::<Option<_>>()?
    } else {
        return None;
    };
    let vals: Vec<i64> = if to == DType::Bool {
        vals.into_iter().map(|x| i64::from(x != 0)).collect()
    } else {
        vals
    };
    if v.dtype == DType::U64 || !vals.iter().all(|&x| int_arith::fits(to, x)) {
        return None;
    }
    fold::encode_ints(to, v.dims.clone(), &vals)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{In, N, out_ints, out_ty, run, ty};
    use crate::onnx::dtype::DType;

    #[test]
    fn cast_takes_the_to_type() {
        let n = N::new("Cast", &["input"], 1).int("to", 1);
        let t = out_ty(&n, 13, &[Some(In::new(DType::U8, &[2, -1]))]);
        assert_eq!(t, ty(DType::F32, &[2, -1]));
        let like = N::new("CastLike", &["input", "target_type"], 1);
        let t = out_ty(
            &like,
            15,
            &[
                Some(In::new(DType::F32, &[3])),
                Some(In::new(DType::I8, &[])),
            ],
        );
        assert_eq!(t, ty(DType::I8, &[3]));
    }

    #[test]
    fn cast_to_float8_takes_the_float8_type() {
        let n = N::new("Cast", &["input"], 1)
            .int("to", 17)
            .int("saturate", 0);
        let t = out_ty(&n, 19, &[Some(In::new(DType::F16, &[4]))]);
        assert_eq!(t, ty(DType::F8E4M3FN, &[4]));
    }

    #[test]
    fn cast_folds_to_integers_only_when_exact() {
        let n = N::new("Cast", &["input"], 1).int("to", 6);
        let outs = run(&n, 13, &[Some(In::ints(&[2], &[7, -3]))]).unwrap();
        assert_eq!(outs[0].ty, ty(DType::I32, &[2]));
        assert_eq!(out_ints(&outs, 0), Some(vec![7, -3]));
        let outs = run(&n, 13, &[Some(In::floats(&[2], &[2.9, -1.5]))]).unwrap();
        assert_eq!(out_ints(&outs, 0), Some(vec![2, -1]));
        let outs = run(&n, 13, &[Some(In::ints(&[1], &[1 << 40]))]).unwrap();
        assert_eq!(outs[0].value, None);
        let outs = run(&n, 13, &[Some(In::floats(&[1], &[f32::NAN]))]).unwrap();
        assert_eq!(outs[0].value, None);
    }

    #[test]
    fn cast_of_small_integers_to_float_is_folded_when_exact() {
        let n = N::new("Cast", &["input"], 1).int("to", 1);
        let outs = run(&n, 13, &[Some(In::ints(&[], &[40]))]).unwrap();
        let v = outs[0].value.as_ref().and_then(|v| v.to_f64_vec());
        assert_eq!(v, Some(vec![40.0]));
        assert_eq!(outs[0].value.as_ref().map(|v| v.dtype), Some(DType::F32));
        let outs = run(&n, 13, &[Some(In::ints(&[2], &[-3, (1 << 24) + 1]))]).unwrap();
        assert_eq!(outs[0].value, None);
        let outs = run(&n, 13, &[Some(In::ints(&[1], &[i64::MIN]))]).unwrap();
        assert_eq!(outs[0].value, None);
        let to_f64 = N::new("Cast", &["input"], 1).int("to", 11);
        let outs = run(&to_f64, 13, &[Some(In::ints(&[1], &[(1 << 24) + 1]))]).unwrap();
        let v = outs[0].value.as_ref().and_then(|v| v.to_f64_vec());
        assert_eq!(v, Some(vec![16_777_217.0]));
        let to_f16 = N::new("Cast", &["input"], 1).int("to", 10);
        let outs = run(&to_f16, 13, &[Some(In::ints(&[], &[40]))]).unwrap();
        assert_eq!(outs[0].value, None);
    }

    #[test]
    fn cast_keeps_the_known_elements_the_target_holds() {
        let n = N::new("Cast", &["input"], 1).int("to", 6);
        let shape = In::partial(&[None, Some(1 << 40), Some(5)]);
        let outs = run(&n, 13, &[Some(shape)]).unwrap();
        assert_eq!(outs[0].partial, Some(vec![None, None, Some(5)]));
        let to_float = N::new("Cast", &["input"], 1).int("to", 1);
        let outs = run(&to_float, 13, &[Some(In::partial(&[None, Some(5)]))]).unwrap();
        assert_eq!(outs[0].partial, None);
    }
}
