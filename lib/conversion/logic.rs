//! Comparisons (Equal, Less, Greater, LessOrEqual, GreaterOrEqual), logic (Not, And,
//! Or, Xor), Where, and the variadic Min, Max and Sum. All broadcast numpy-style.
//! Lowered as torch-mlir does: `eq`/`lt`/`gt`/`le`/`ge.Tensor`, `logical_*`,
//! `where.self`, and a left-to-right chain of `minimum`, `maximum` or `add.Tensor`.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::simple_ops::refine;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};

pub fn register(r: &mut Lowerings) {
    r.on_op("Equal", 7, |b, t| binary(b, t, "eq.Tensor"));
    r.on_op("Less", 7, |b, t| binary(b, t, "lt.Tensor"));
    r.on_op("Greater", 7, |b, t| binary(b, t, "gt.Tensor"));
    r.on_op("LessOrEqual", 12, |b, t| binary(b, t, "le.Tensor"));
    r.on_op("GreaterOrEqual", 12, |b, t| binary(b, t, "ge.Tensor"));
    r.on_op("And", 7, |b, t| binary(b, t, "logical_and"));
    r.on_op("Or", 7, |b, t| binary(b, t, "logical_or"));
    r.on_op("Xor", 7, |b, t| binary(b, t, "logical_xor"));
    r.on_op("Not", 1, not);
    r.on_op("Where", 9, where_);
    for since in [6, 8] {
        r.on_op("Min", since, |b, t| variadic(b, t, "minimum"));
        r.on_op("Max", since, |b, t| variadic(b, t, "maximum"));
        r.on_op("Sum", since, |b, t| variadic(b, t, "add.Tensor"));
    }
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// `torch.aten.<aten>(A, B)` for two operands of one element type.
fn binary<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>, aten: &str) -> Lowered<'c, 'a> {
    let lhs = b.input(0, "A")?;
    let rhs = b.input(1, "B")?;
    let a_type = b.input_type(0, "A")?;
    let b_type = b.input_type(1, "B")?;
    if let (Some(x), Some(y)) = (a_type.dtype, b_type.dtype)
        && x != y
    {
        bail!("A is {x} but B is {y}");
    }
    broadcast(&a_type, &b_type, "A", "B")?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor(aten, &[lhs, rhs], &result)?])
}

fn not<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor("logical_not", &[x], &result)?])
}

/// `where.self(condition, X, Y)`.
fn where_<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let cond = b.input(0, "condition")?;
    let x = b.input(1, "X")?;
    let y = b.input(2, "Y")?;
    let c_type = b.input_type(0, "condition")?;
    let x_type = b.input_type(1, "X")?;
    let y_type = b.input_type(2, "Y")?;
    if let Some(d) = c_type.dtype
        && d != crate::onnx::dtype::DType::Bool
    {
        bail!("input 'condition' is {c_type}, expected BOOL");
    }
    if let (Some(p), Some(q)) = (x_type.dtype, y_type.dtype)
        && p != q
    {
        bail!("X is {p} but Y is {q}");
    }
    let xy = broadcast(&x_type, &y_type, "X", "Y")?;
    broadcast(&c_type, &xy, "condition", "the broadcast of X and Y")?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor("where.self", &[cond, x, y], &result)?])
}

/// Min, Max or Sum of one or more inputs: `aten` folded over them left to right, each
/// step typed by broadcasting the shapes so far.
fn variadic<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>, aten: &str) -> Lowered<'c, 'a> {
    let n = b.input_count();
    if n == 0 {
        bail!("needs at least one input");
    }
    let result = b.result_type(0)?;
    let mut acc = b.input(0, "data_0")?;
    let mut acc_type = b.input_type(0, "data_0")?;
    for i in 1..n {
        let name = format!("data_{i}");
        let v = b.input(i, &name)?;
        let v_type = b.input_type(i, &name)?;
        if let (Some(p), Some(q)) = (acc_type.dtype, v_type.dtype)
            && p != q
        {
            bail!("data_0 is {p} but {name} is {q}");
        }
        let before = if i == 1 {
            "data_0".to_string()
        } else {
            format!("the broadcast of data_0 to data_{}", i - 1)
        };
        let shape = broadcast(&acc_type, &v_type, &before, &name)?;
        let ty = if i + 1 == n { result.clone() } else { shape };
        acc = if aten == "add.Tensor" {
            let one = t.int(1)?;
            t.aten_tensor("add.Tensor", &[acc, v, one], &ty)?
        } else {
            t.aten_tensor(aten, &[acc, v], &ty)?
        };
        acc_type = ty;
    }
    if n == 1 {
        return Ok(vec![refine(t, acc, &acc_type, &result)?]);
    }
    Ok(vec![acc])
}

/// The numpy broadcast of two types (unknown sizes stay unknown unless the other is a
/// known size other than 1), or an error naming the operands whose sizes clash.
fn broadcast(a: &TensorType, b: &TensorType, a_name: &str, b_name: &str) -> Result<TensorType> {
    let dtype = a.dtype.or(b.dtype);
    let (Some(x), Some(y)) = (&a.shape, &b.shape) else {
        return Ok(TensorType { dtype, shape: None });
    };
    let rank = x.len().max(y.len());
    let at = |s: &[Dim], i: usize| -> Dim {
        let pad = rank - s.len();
        if i < pad { Some(1) } else { s[i - pad] }
    };
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let d = match (at(x, i), at(y, i)) {
            (Some(1), d) | (d, Some(1)) => d,
            (Some(p), Some(q)) if p == q => Some(p),
            (Some(p), Some(q)) => {
                bail!("{a_name} is {a} and {b_name} is {b}: sizes {p} and {q} do not broadcast")
            }
            (Some(p), None) | (None, Some(p)) => Some(p),
            (None, None) => None,
        };
        out.push(d);
    }
    Ok(TensorType {
        dtype,
        shape: Some(out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onnx::dtype::DType;

    #[test]
    fn broadcast_keeps_known_sizes_and_names_clashes() {
        let a = TensorType::new(DType::F32, vec![Some(2), Some(1), None]);
        let b = TensorType::new(DType::F32, vec![Some(3), Some(1)]);
        let c = broadcast(&a, &b, "A", "B").unwrap();
        assert_eq!(c, TensorType::new(DType::F32, vec![Some(2), Some(3), None]));
        let e = TensorType::new(DType::F32, vec![Some(2), Some(3)]);
        let d = TensorType::new(DType::F32, vec![Some(4)]);
        let err = broadcast(&e, &d, "A", "B").unwrap_err().to_string();
        assert!(err.ends_with("sizes 3 and 4 do not broadcast"), "{err}");
    }
}
