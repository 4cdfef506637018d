//! Reading a call's operands and returning its results: each getter names the operand
//! it failed on, tensors are checked to hold as many elements as their shape says (the
//! kernels index by shape), and results are checked against the types the IR declares.

use anyhow::{Context as _, Result, bail};

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::layout::result_count;
use crate::kernels::tensor::tensor_type::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, ResultType};

/// Operand `i` as an unquantized f32 tensor and its values; `name` names it in the
/// error.
pub fn f32_tensor<'c>(c: &'c Call, i: usize, name: &str) -> Result<(&'c Tensor, &'c [f32])> {
    let t = tensor(c, i)?;
    match &t.data {
        crate::kernels::tensor::Data::F32(v) if t.quant.is_none() => Ok((t, v)),
        _ => bail!("{name} must be an f32 tensor, but is {}", t.dtype()),
    }
}

/// Operand `i` as a tensor whose shape and storage agree.
pub fn tensor<'c>(c: &'c Call, i: usize) -> Result<&'c Tensor> {
    let t = c
        .arg(i)?
        .as_tensor()
        .with_context(|| format!("operand {i}"))?;
    check_consistent(t).with_context(|| format!("operand {i}"))?;
    Ok(t)
}

/// Operand `i` as a tensor, or `None` for `!torch.none` (or a missing trailing operand).
pub fn opt_tensor<'c>(c: &'c Call, i: usize) -> Result<Option<&'c Tensor>> {
    match c.args.get(i) {
        None | Some(Value::None) => Ok(None),
        Some(_) => tensor(c, i).map(Some),
    }
}

/// The shape's element count matches the storage, and no product of its sizes
/// overflows (an empty tensor may still have huge other dimensions).
pub fn check_consistent(t: &Tensor) -> Result<()> {
    let n = result_count(&t.shape)?;
    if n != t.data.len() {
        bail!(
            "tensor of shape {:?} holds {} elements, expected {n}",
            t.shape,
            t.data.len()
        );
    }
    Ok(())
}

pub fn int(c: &Call, i: usize) -> Result<i64> {
    c.arg(i)?.as_int().with_context(|| format!("operand {i}"))
}

pub fn float(c: &Call, i: usize) -> Result<f64> {
    c.arg(i)?.as_float().with_context(|| format!("operand {i}"))
}

pub fn boolean(c: &Call, i: usize) -> Result<bool> {
    c.arg(i)?.as_bool().with_context(|| format!("operand {i}"))
}

pub fn string<'c>(c: &'c Call, i: usize) -> Result<&'c str> {
    c.arg(i)?.as_str().with_context(|| format!("operand {i}"))
}

pub fn ints<'c>(c: &'c Call, i: usize) -> Result<&'c [i64]> {
    c.arg(i)?
        .as_int_list()
        .with_context(|| format!("operand {i}"))
}

/// An optional operand: `None` for `!torch.none` or a missing trailing operand.
pub fn opt<'c>(c: &'c Call, i: usize) -> Option<&'c Value> {
    c.args.get(i).filter(|v| !v.is_none())
}

pub fn opt_int(c: &Call, i: usize) -> Result<Option<i64>> {
    opt(c, i).map(|_| int(c, i)).transpose()
}

pub fn opt_float(c: &Call, i: usize) -> Result<Option<f64>> {
    opt(c, i).map(|_| float(c, i)).transpose()
}

pub fn opt_ints<'c>(c: &'c Call, i: usize) -> Result<Option<&'c [i64]>> {
    opt(c, i).map(|_| ints(c, i)).transpose()
}

/// A list of floats; ints widen, as torch's `float[]` operands accept them.
pub fn floats(c: &Call, i: usize) -> Result<Vec<f64>> {
    match c.arg(i)? {
        Value::FloatList(v) => Ok(v.clone()),
        Value::IntList(v) => Ok(v.iter().map(|&x| x as f64).collect()),
        other => bail!("operand {i}: expected a list<float>, got {}", other.kind()),
    }
}

/// Dimension `d` of a tensor of rank `rank`, counted from the back when negative. A
/// 0-d tensor takes dims -1 and 0, as torch allows.
pub fn dim(d: i64, rank: usize) -> Result<usize> {
    let r = rank.max(1) as i64;
    if d < -r || d >= r {
        bail!("dimension {d} is out of range for a tensor of rank {rank}");
    }
    Ok((if d < 0 { d + r } else { d }) as usize)
}

/// A size or count operand, which must not be negative.
pub fn size(v: i64, what: &str) -> Result<usize> {
    usize::try_from(v).map_err(|_| anyhow::anyhow!("{what} is {v}, expected a non-negative size"))
}

/// The declared type of result `i` when it is a tensor type.
pub fn declared<'c>(c: &'c Call, i: usize) -> Option<&'c TensorType> {
    match c.results.get(i) {
        Some(ResultType::Tensor(t)) => Some(t),
        _ => None,
    }
}

/// The element type the IR declares for result 0, if it names one.
pub fn declared_dtype(c: &Call) -> Option<DType> {
    declared(c, 0).and_then(|t| t.dtype)
}

/// A dtype operand: torch's ScalarType code.
pub fn dtype_code(c: &Call, i: usize) -> Result<DType> {
    let code = int(c, i)?;
    DType::from_torch_scalar_type(code)
        .ok_or_else(|| anyhow::anyhow!("operand {i}: {code} is not a torch dtype code"))
}

/// Checks `t` against the declared type `ty`: the element type when declared, and the
/// rank and every static size.
pub fn check_declared(ty: &TensorType, t: &Tensor) -> Result<()> {
    if let Some(d) = ty.dtype
        && !d.holds(t.dtype())
    {
        bail!("computed a {} tensor but the IR declares {ty}", t.dtype());
    }
    if let Some(dims) = &ty.shape {
        let fits = dims.len() == t.shape.len()
            && dims
                .iter()
                .zip(&t.shape)
                .all(|(d, &n)| d.is_none_or(|d| u64::try_from(d).is_ok_and(|d| d == n as u64)));
        if !fits {
            bail!("computed shape {:?} but the IR declares {ty}", t.shape);
        }
    }
    Ok(())
}

/// The one tensor result, checked against its declared type.
pub fn ret(c: &Call, t: Tensor) -> Result<Vec<Value>> {
    if let Some(ty) = declared(c, 0) {
        check_declared(ty, &t)?;
    }
    Ok(vec![Value::tensor(t)])
}

/// A per-spatial-axis list operand `i`: `n` entries, or one for all axes, each at least
/// `min`.
pub fn per_axis(c: &Call, i: usize, n: usize, what: &str, min: usize) -> Result<Vec<usize>> {
    let v = ints(c, i)?;
    let v: Vec<i64> = match v {
        [x] => vec![*x; n],
        v if v.len() == n => v.to_vec(),
        v => bail!("{what} has {} entries for {n} spatial dimensions", v.len()),
    };
    v.iter()
        .map(|&x| match usize::try_from(x) {
            Ok(x) if x >= min => Ok(x),
            _ => bail!("{what} {v:?} must be at least {min}"),
        })
        .collect()
}
