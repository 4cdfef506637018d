//! Comparisons (`eq`, `ne`, `lt`, `le`, `gt`, `ge`, against a tensor or a scalar),
//! which give booleans, and `where`, which picks by them.

use anyhow::{Result, bail};

use super::promote::result_type;
use super::zip::{Arg, arg, fast_i64_binary, out_dtype, zip, zip_float, zip_int};
use crate::kernels::tensor::data::{Prec, from_f64, from_i64, is_float};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.eq.Tensor" | "aten.eq.Scalar" => eq,
        "aten.ne.Tensor" | "aten.ne.Scalar" => ne,
        "aten.lt.Tensor" | "aten.lt.Scalar" => lt,
        "aten.le.Tensor" | "aten.le.Scalar" => le,
        "aten.gt.Tensor" | "aten.gt.Scalar" => gt,
        "aten.ge.Tensor" | "aten.ge.Scalar" => ge,
        "aten.where.self"
        | "aten.where.Scalar"
        | "aten.where.ScalarSelf"
        | "aten.where.ScalarOther" => where_,
        _ => return None,
    })
}

fn eq(c: &Call) -> Result<Vec<Value>> {
    compare(c, |o| o.is_eq())
}

fn ne(c: &Call) -> Result<Vec<Value>> {
    compare(c, |o| o.is_ne())
}

fn lt(c: &Call) -> Result<Vec<Value>> {
    compare(c, |o| o.is_lt())
}

fn le(c: &Call) -> Result<Vec<Value>> {
    compare(c, |o| o.is_le())
}

fn gt(c: &Call) -> Result<Vec<Value>> {
    compare(c, |o| o.is_gt())
}

fn ge(c: &Call) -> Result<Vec<Value>> {
    compare(c, |o| o.is_ge())
}

/// `test` of the ordering of the operands, compared in their promoted type. A NaN
/// compares unequal to everything, so only `ne` holds for it.
fn compare(c: &Call, test: impl Fn(std::cmp::Ordering) -> bool) -> Result<Vec<Value>> {
    let (a, b) = (arg(c, 0)?, arg(c, 1)?);
    let common = result_type(&[a.operand(), b.operand()])
        .ok_or_else(|| anyhow::anyhow!("the operands have no common type"))?;
    let nan_result = test(std::cmp::Ordering::Less) && test(std::cmp::Ordering::Greater);
    // `test` is generic, not a function pointer, so each comparison inlines it.
    let operands = [a, b];
    let (shape, v) = if is_float(common) {
        let prec = Prec(common);
        let inputs: Vec<(&[usize], Vec<f64>)> = operands
            .iter()
            .map(|a| (a.shape(), a.floats(prec)))
            .collect();
        zip(&inputs, |x| {
            Ok(x[0].partial_cmp(&x[1]).map_or(nan_result, &test))
        })?
    } else if common == DType::I64
        && let Some(fast) = fast_i64_binary(&a, &b, |x, y| test(x.cmp(&y)))
    {
        fast
    } else {
        let inputs: Vec<(&[usize], Vec<i64>)> =
            operands.iter().map(|a| (a.shape(), a.ints())).collect();
        zip(&inputs, |x| Ok(test(x[0].cmp(&x[1]))))?
    };
    let data = match args::declared_dtype(c).unwrap_or(DType::Bool) {
        DType::Bool => Data::Bool(v),
        dtype => from_f64(
            dtype,
            &v.into_iter()
                .map(|r| f64::from(u8::from(r)))
                .collect::<Vec<_>>(),
        ),
    };
    args::ret(c, Tensor::new(shape, data)?)
}

/// `where(condition, a, b)`: `a` where the condition holds, else `b`, broadcast.
fn where_(c: &Call) -> Result<Vec<Value>> {
    let cond = arg(c, 0)?;
    let Arg::Tensor(t) = cond else {
        bail!("the condition must be a tensor");
    };
    if !matches!(t.data, Data::Bool(_) | Data::U8(_)) {
        bail!("the condition must be boolean, but is {}", t.dtype());
    }
    let (a, b) = (arg(c, 1)?, arg(c, 2)?);
    let dtype = out_dtype(c, &[a, b])?;
    if let Some(data) = same_shape_select(t, &a, &b, dtype) {
        return args::ret(c, Tensor::new(t.shape.clone(), data)?);
    }
    let pick = |x: &[i64]| Ok(if x[0] != 0 { x[1] } else { x[2] });
    let (shape, data) = if is_float(dtype) {
        // The condition's 0 and 1 are exact at any precision.
        let (shape, v) = zip_float(&[cond, a, b], Prec(dtype), |x| {
            if x[0] != 0.0 { x[1] } else { x[2] }
        })?;
        (shape, from_f64(dtype, &v))
    } else {
        let (shape, v) = zip_int(&[cond, a, b], pick)?;
        (shape, from_i64(dtype, &v))
    };
    args::ret(c, Tensor::new(shape, data)?)
}

/// `where` of three tensors of one shape whose values are already of the result's
/// type: each element picked as it is (through the general path's i64 or f64 each
/// took a conversion both ways). `None` for anything else.
fn same_shape_select(cond: &Tensor, a: &Arg, b: &Arg, dtype: DType) -> Option<Data> {
    let (Arg::Tensor(a), Arg::Tensor(b)) = (a, b) else {
        return None;
    };
    if a.shape != cond.shape || b.shape != cond.shape || a.dtype() != dtype || b.dtype() != dtype {
        return None;
    }
    fn pick<T: Copy>(keep: impl Iterator<Item = bool>, a: &[T], b: &[T]) -> Vec<T> {
        keep.zip(a.iter().zip(b))
            .map(|(k, (&x, &y))| if k { x } else { y })
            .collect()
    }
    macro_rules! select {
        ($keep:expr) => {
            match (&a.data, &b.data) {
                (Data::F32(x), Data::F32(y)) => Data::F32(pick($keep, x, y)),
                (Data::I64(x), Data::I64(y)) => Data::I64(pick($keep, x, y)),
                (Data::I32(x), Data::I32(y)) => Data::I32(pick($keep, x, y)),
                (Data::U8(x), Data::U8(y)) => Data::U8(pick($keep, x, y)),
                (Data::I8(x), Data::I8(y)) => Data::I8(pick($keep, x, y)),
                (Data::Bool(x), Data::Bool(y)) => Data::Bool(pick($keep, x, y)),
                _ => return None,
            }
        };
    }
    Some(match &cond.data {
        Data::Bool(k) => select!(k.iter().copied()),
        Data::U8(k) => select!(k.iter().map(|&v| v != 0)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn comparisons_give_booleans() {
        let x = tensor(&[4], Data::I64(vec![-2, 0, 3, -1]));
        let t = run1(
            "aten.lt.Scalar",
            &[x.clone(), Value::Int(0)],
            of(DType::Bool),
        )
        .unwrap();
        assert_eq!(t.data, Data::Bool(vec![true, false, false, true]));
        let t = run1("aten.ge.Scalar", &[x, Value::Float(-1.5)], unknown()).unwrap();
        assert_eq!(t.data, Data::Bool(vec![false, true, true, true]));
        let f = f32s(&[2], &[f32::NAN, 1.0]);
        let t = run1("aten.ne.Tensor", &[f.clone(), f.clone()], unknown()).unwrap();
        assert_eq!(t.data, Data::Bool(vec![true, false]));
        let t = run1("aten.eq.Tensor", &[f.clone(), f], unknown()).unwrap();
        assert_eq!(t.data, Data::Bool(vec![false, true]));
    }

    #[test]
    fn where_of_one_shape_picks_as_the_broadcasting_path() {
        // The same selection with `b` whole (the direct path) and as a row repeated
        // over the rows (the general path), with a NaN and a negative zero to carry.
        let keep = vec![true, false, false, true, false, true];
        let cond = tensor(&[2, 3], Data::Bool(keep));
        let a = f32s(&[2, 3], &[1.0, f32::NAN, -0.0, 4.0, 5.0, 6.0]);
        let row = [-1.0, -0.0, f32::NAN];
        let b_whole = f32s(&[2, 3], &[row, row].concat());
        let b_row = f32s(&[1, 3], &row);
        let direct = run1(
            "aten.where.self",
            &[cond.clone(), a.clone(), b_whole],
            unknown(),
        )
        .unwrap();
        let general = run1("aten.where.self", &[cond, a, b_row], unknown()).unwrap();
        let bits = |t: &crate::kernels::tensor::Tensor| -> Vec<u32> {
            f32_values(t).iter().map(|v| v.to_bits()).collect()
        };
        assert_eq!(direct.shape, general.shape);
        assert_eq!(bits(&direct), bits(&general));
    }

    #[test]
    fn where_picks_and_broadcasts() {
        // Negative indices wrapped: where(i < 0, i + 5, i), as the Gather lowering does.
        let i = tensor(&[3], Data::I64(vec![-1, 2, -5]));
        let neg = run1("aten.lt.Scalar", &[i.clone(), Value::Int(0)], unknown()).unwrap();
        let args = [i.clone(), Value::Int(5), Value::Int(1)];
        let wrapped = run1("aten.add.Scalar", &args, unknown()).unwrap();
        let args = [Value::Tensor(neg), Value::Tensor(wrapped), i];
        let t = run1("aten.where.self", &args, of(DType::I64)).unwrap();
        assert_eq!(t.data, Data::I64(vec![4, 2, 0]));
        let cond = tensor(&[2, 1], Data::Bool(vec![true, false]));
        let args = [cond, f32s(&[2], &[1.0, 2.0]), Value::Float(0.5)];
        let t = run1("aten.where.ScalarOther", &args, unknown()).unwrap();
        assert_eq!(t.shape, vec![2, 2]);
        assert_eq!(f32_values(&t), vec![1.0, 2.0, 0.5, 0.5]);
        let args = [f32s(&[1], &[1.0]), f32s(&[1], &[1.0]), f32s(&[1], &[1.0])];
        assert!(run("aten.where.self", &args, &[unknown()]).is_err());
    }
}
