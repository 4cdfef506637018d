//! Ops on torch scalars and lists: `item`, `prim.ListConstruct`, and scalar arithmetic.

use anyhow::{Result, bail};

use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, ResultType};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.item" => item,
        "prim.ListConstruct" => list_construct,
        "prim.ListUnpack" => list_unpack,
        "aten.mul.float" => mul_float,
        "aten.add.float" => |c| float_op(c, |a, b| a + b),
        "aten.sub.float" => |c| float_op(c, |a, b| a - b),
        "aten.div.float" => |c| float_op(c, |a, b| a / b),
        "aten.add.int" => |c| int_op(c, |a, b| Ok(a.wrapping_add(b))),
        "aten.sub.int" => |c| int_op(c, |a, b| Ok(a.wrapping_sub(b))),
        "aten.mul.int" => |c| int_op(c, |a, b| Ok(a.wrapping_mul(b))),
        "aten.floordiv.int" => |c| int_op(c, floordiv),
        "aten.remainder.int" => |c| int_op(c, remainder),
        "prim.max.int" => |c| int_op(c, |a, b| Ok(a.max(b))),
        "prim.min.int" => |c| int_op(c, |a, b| Ok(a.min(b))),
        "aten.neg.int" => |c| Ok(vec![Value::Int(c.arg(0)?.as_int()?.wrapping_neg())]),
        "aten.eq.int" => |c| int_cmp(c, |o| o.is_eq()),
        "aten.ne.int" => |c| int_cmp(c, |o| o.is_ne()),
        "aten.lt.int" => |c| int_cmp(c, |o| o.is_lt()),
        "aten.le.int" => |c| int_cmp(c, |o| o.is_le()),
        "aten.gt.int" => |c| int_cmp(c, |o| o.is_gt()),
        "aten.ge.int" => |c| int_cmp(c, |o| o.is_ge()),
        "aten.Bool.int" => |c| Ok(vec![Value::Bool(c.arg(0)?.as_int()? != 0)]),
        "aten.Int.bool" => |c| Ok(vec![Value::Int(i64::from(c.arg(0)?.as_bool()?))]),
        "aten.Int.float" => int_of_float,
        "aten.Float.int" => |c| Ok(vec![Value::Float(c.arg(0)?.as_float()?)]),
        _ => return None,
    })
}

/// `aten.item`: the one element of a tensor, as `!torch.int` or `!torch.float` as the
/// IR declares it.
fn item(c: &Call) -> Result<Vec<Value>> {
    let t = c.arg(0)?.as_tensor()?;
    if t.len() != 1 {
        bail!("item of a tensor with {} elements", t.len());
    }
    Ok(vec![match c.result(0)? {
        ResultType::Int => Value::Int(t.data.to_i64()[0]),
        ResultType::Bool => Value::Bool(t.data.to_f64()[0] != 0.0),
        _ => Value::Float(t.data.to_f64()[0]),
    }])
}

fn list_construct(c: &Call) -> Result<Vec<Value>> {
    let ResultType::List(elem) = c.result(0)? else {
        bail!("ListConstruct must produce a list");
    };
    Ok(vec![match elem.as_str() {
        "int" => Value::IntList(c.args.iter().map(Value::as_int).collect::<Result<_>>()?),
        "float" => Value::FloatList(c.args.iter().map(Value::as_float).collect::<Result<_>>()?),
        "bool" => Value::BoolList(c.args.iter().map(Value::as_bool).collect::<Result<_>>()?),
        _ => Value::TensorList(
            c.args
                .iter()
                .map(|v| v.as_tensor().cloned())
                .collect::<Result<_>>()?,
        ),
    }])
}

/// `prim.ListUnpack`: each element of a list as its own result.
fn list_unpack(c: &Call) -> Result<Vec<Value>> {
    let items: Vec<Value> = match c.arg(0)? {
        Value::TensorList(v) => v.iter().cloned().map(Value::Tensor).collect(),
        Value::IntList(v) => v.iter().copied().map(Value::Int).collect(),
        Value::FloatList(v) => v.iter().copied().map(Value::Float).collect(),
        Value::BoolList(v) => v.iter().copied().map(Value::Bool).collect(),
        other => bail!("ListUnpack of a {}", other.kind()),
    };
    if items.len() != c.results.len() {
        bail!(
            "ListUnpack of {} elements into {} results",
            items.len(),
            c.results.len()
        );
    }
    Ok(items)
}

fn mul_float(c: &Call) -> Result<Vec<Value>> {
    Ok(vec![Value::Float(
        c.arg(0)?.as_float()? * c.arg(1)?.as_float()?,
    )])
}

fn float_op(c: &Call, f: fn(f64, f64) -> f64) -> Result<Vec<Value>> {
    Ok(vec![Value::Float(f(
        c.arg(0)?.as_float()?,
        c.arg(1)?.as_float()?,
    ))])
}

/// Integer arithmetic on `!torch.int`s (i64), wrapping on overflow.
fn int_op(c: &Call, f: fn(i64, i64) -> Result<i64>) -> Result<Vec<Value>> {
    Ok(vec![Value::Int(f(
        c.arg(0)?.as_int()?,
        c.arg(1)?.as_int()?,
    )?)])
}

fn int_cmp(c: &Call, test: fn(std::cmp::Ordering) -> bool) -> Result<Vec<Value>> {
    let (a, b) = (c.arg(0)?.as_int()?, c.arg(1)?.as_int()?);
    Ok(vec![Value::Bool(test(a.cmp(&b)))])
}

/// Python's `//`: rounds toward negative infinity.
fn floordiv(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        bail!("integer division by zero");
    }
    let q = a.wrapping_div(b);
    Ok(if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// Python's `%`: the sign of the divisor.
fn remainder(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        bail!("integer remainder by zero");
    }
    let r = a.wrapping_rem(b);
    Ok(if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    })
}

/// `Int.float`: truncation toward zero; a value no i64 holds is an error.
fn int_of_float(c: &Call) -> Result<Vec<Value>> {
    let v = c.arg(0)?.as_float()?;
    if !v.is_finite() || v.trunc() < i64::MIN as f64 || v.trunc() >= i64::MAX as f64 {
        bail!("{v} does not convert to an int");
    }
    Ok(vec![Value::Int(v as i64)])
}

#[cfg(test)]
mod tests {
    use crate::kernels::ResultType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    fn scalar(op: &str, args: &[Value]) -> anyhow::Result<Value> {
        Ok(run(op, args, &[ResultType::Int])?.remove(0))
    }

    #[test]
    fn int_arithmetic_and_comparisons() {
        let (a, b) = (Value::Int(-7), Value::Int(2));
        assert_eq!(
            scalar("aten.add.int", &[a.clone(), b.clone()]).unwrap(),
            Value::Int(-5)
        );
        assert_eq!(
            scalar("aten.mul.int", &[a.clone(), b.clone()]).unwrap(),
            Value::Int(-14)
        );
        assert_eq!(
            scalar("aten.floordiv.int", &[a.clone(), b.clone()]).unwrap(),
            Value::Int(-4)
        );
        assert_eq!(
            scalar("aten.remainder.int", &[a.clone(), b.clone()]).unwrap(),
            Value::Int(1)
        );
        assert!(scalar("aten.floordiv.int", &[a.clone(), Value::Int(0)]).is_err());
        assert_eq!(
            scalar("aten.eq.int", &[a.clone(), b.clone()]).unwrap(),
            Value::Bool(false)
        );
        assert_eq!(scalar("aten.lt.int", &[a, b]).unwrap(), Value::Bool(true));
        assert_eq!(
            scalar("aten.Int.bool", &[Value::Bool(true)]).unwrap(),
            Value::Int(1)
        );
        assert_eq!(
            scalar("aten.Int.float", &[Value::Float(-2.7)]).unwrap(),
            Value::Int(-2)
        );
        assert!(scalar("aten.Int.float", &[Value::Float(f64::NAN)]).is_err());
        let max = Value::Int(i64::MAX);
        assert_eq!(
            scalar("aten.add.int", &[max, Value::Int(1)]).unwrap(),
            Value::Int(i64::MIN)
        );
    }

    #[test]
    fn the_reshape_lowering_resolves_zero_sizes() {
        // s + (s == 0) · size, as the Reshape lowering spells it.
        let s = Value::Int(0);
        let is_zero = scalar("aten.eq.int", &[s.clone(), Value::Int(0)]).unwrap();
        let flag = scalar("aten.Int.bool", &[is_zero]).unwrap();
        let copied = scalar("aten.mul.int", &[flag, Value::Int(5)]).unwrap();
        assert_eq!(scalar("aten.add.int", &[s, copied]).unwrap(), Value::Int(5));
    }

    #[test]
    fn lists_unpack_into_results() {
        let list = Value::IntList(vec![1, 2]);
        let out = run(
            "prim.ListUnpack",
            std::slice::from_ref(&list),
            &[ResultType::Int, ResultType::Int],
        )
        .unwrap();
        assert_eq!(out, vec![Value::Int(1), Value::Int(2)]);
        assert!(run("prim.ListUnpack", &[list], &[ResultType::Int]).is_err());
        let t = f32s(&[1], &[1.0]);
        let out = run("aten.item", &[t], &[ResultType::Float]).unwrap();
        assert_eq!(out, vec![Value::Float(1.0)]);
    }
}
