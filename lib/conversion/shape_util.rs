//! What the shape and data-movement lowerings share: reading axes and integer lists
//! that must be known at compile time, the types of the ops between an input and the
//! final result, and a few torch constants the builder does not spell.

use anyhow::{Result, bail};
use melior::ir::Value;
use melior::ir::attribute::StringAttribute;
use melior::ir::operation::{OperationLike, OperationResult};

use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};

/// The dimensions of `t`, or an error naming `name` when its rank is unknown.
pub fn dims_of(t: &TensorType, name: &str) -> Result<Vec<Dim>> {
    match &t.shape {
        Some(dims) => Ok(dims.clone()),
        None => bail!("{name} has an unknown rank"),
    }
}

/// `axis` counted from the front, for a tensor of rank `rank`; `what` names the
/// attribute or input the axis came from.
pub fn normalize_axis(axis: i64, rank: usize, what: &str) -> Result<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        bail!("{what} is {axis}, out of range for rank {rank}");
    }
    Ok((if axis < 0 { axis + r } else { axis }) as usize)
}

/// Every entry of `axes` normalized; an axis named twice is an error.
pub fn normalize_axes(axes: &[i64], rank: usize, what: &str) -> Result<Vec<usize>> {
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = normalize_axis(a, rank, &format!("an entry of {what}"))?;
        if seen[n] {
            bail!("{what} names axis {n} more than once");
        }
        seen[n] = true;
        out.push(n);
    }
    Ok(out)
}

/// Fails while input `i` comes from an `onnx.Constant` the conversion has not reached
/// yet. Its value is known once that is lowered, and the driver retries this op then;
/// lowering it now would read at run time what the retry reads at compile time.
pub fn await_constant(b: &Binder, i: usize, name: &str) -> Result<()> {
    let Some(v) = b.optional_input(i) else {
        return Ok(());
    };
    let Ok(result) = OperationResult::try_from(v) else {
        return Ok(());
    };
    let owner = result.owner();
    let is_constant = owner.name().as_string_ref().as_str() == Ok("torch.operator")
        && owner
            .attribute("name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .is_some_and(|s| s.value() == "onnx.Constant");
    if is_constant {
        bail!("input '{name}' comes from a Constant that could not be lowered");
    }
    Ok(())
}

/// The integers of input `i` when it is given: it must then be a constant.
pub fn optional_const_ints(b: &Binder, i: usize, name: &str) -> Result<Option<Vec<i64>>> {
    if !b.has_input(i) {
        return Ok(None);
    }
    let Some(data) = b.constant_input(i) else {
        bail!("input '{name}' must be a constant known at compile time");
    };
    if !data.dtype.is_integer() {
        bail!(
            "input '{name}' must be an integer tensor, but is {}",
            data.dtype
        );
    }
    match data.to_i64_vec() {
        Some(v) => Ok(Some(v)),
        None => bail!("input '{name}' of type {} cannot be read", data.dtype),
    }
}

/// The integers of required input `i`, which must be a constant.
pub fn const_ints(b: &Binder, i: usize, name: &str) -> Result<Vec<i64>> {
    match optional_const_ints(b, i, name)? {
        Some(v) => Ok(v),
        None => bail!("missing required input {name}"),
    }
}

/// The product of `dims`, unknown when any of them is (or when it overflows).
pub fn product(dims: &[Dim]) -> Dim {
    dims.iter()
        .try_fold(1i64, |acc, d| d.and_then(|d| acc.checked_mul(d)))
}

/// A tensor of `like`'s element type with `dims`.
pub fn typed(like: &TensorType, dims: Vec<Dim>) -> TensorType {
    TensorType {
        dtype: like.dtype,
        shape: Some(dims),
    }
}

/// `torch.constant.str`.
pub fn str_constant<'c, 'a>(t: &TorchBuilder<'c, 'a>, s: &str) -> Result<Value<'c, 'a>> {
    let ty = t.torch_type("str")?;
    let attr = StringAttribute::new(t.context(), s).into();
    let op = t.op("torch.constant.str", &[], &[ty], &[("value", attr)])?;
    Ok(op.result(0)?.into())
}

/// A `!torch.list<float>` of constants.
pub fn float_list<'c, 'a>(t: &TorchBuilder<'c, 'a>, values: &[f64]) -> Result<Value<'c, 'a>> {
    let elements = values
        .iter()
        .map(|&v| t.float(v))
        .collect::<Result<Vec<_>>>()?;
    t.list(&elements, "float")
}

/// `torch.aten.size.int`: dimension `dim` of `x` at run time.
pub fn size_of<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    dim: usize,
) -> Result<Value<'c, 'a>> {
    let d = t.int(dim as i64)?;
    t.aten("size.int", &[x, d], t.torch_type("int")?)
}

/// `x` as the op's result: itself when the types agree, else a
/// `torch.tensor_static_info_cast`, for lowerings that turn out to be no-ops.
pub fn as_result<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    result: &TensorType,
) -> Result<Value<'c, 'a>> {
    if x_type == result {
        return Ok(x);
    }
    let ty = t.tensor_type(result)?;
    let op = t.op("torch.tensor_static_info_cast", &[x], &[ty], &[])?;
    Ok(op.result(0)?.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_normalize_from_the_back_and_refuse_repeats() {
        assert_eq!(normalize_axis(-1, 4, "axis").unwrap(), 3);
        assert_eq!(normalize_axis(2, 4, "axis").unwrap(), 2);
        assert!(normalize_axis(4, 4, "axis").is_err());
        assert!(normalize_axis(-5, 4, "axis").is_err());
        assert_eq!(normalize_axes(&[0, -1], 3, "axes").unwrap(), vec![0, 2]);
        let e = normalize_axes(&[1, -2], 3, "axes").unwrap_err();
        assert_eq!(e.to_string(), "axes names axis 1 more than once");
    }

    #[test]
    fn products_are_unknown_when_a_factor_is() {
        assert_eq!(product(&[Some(2), Some(3)]), Some(6));
        assert_eq!(product(&[]), Some(1));
        assert_eq!(product(&[Some(2), None]), None);
        assert_eq!(product(&[Some(i64::MAX), Some(2)]), None);
    }
}
