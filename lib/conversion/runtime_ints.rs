//! Integer inputs that may be known only at run time: a shape, a list of axes or
//! bounds, a scalar count. Constants become `torch.constant.int`; other tensors are
//! read element by element with `select.int` and `item`, as torch-mlir does, so the
//! op that takes them gets a `!torch.list<int>` either way.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::Binder;
use super::shape_util::await_constant;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;

/// A bound on how many entries a run-time integer list may have, so that a malformed
/// type cannot make the lowering emit ops without end.
pub const MAX_ENTRIES: i64 = 64;

/// The entries of 1-D (or 0-d, one entry) integer input `i`, each as a `!torch.int`.
/// Refused when the input is not an integer tensor or its length is not known.
pub fn int_entries<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    i: usize,
    name: &str,
) -> Result<Vec<Value<'c, 'a>>> {
    await_constant(b, i, name)?;
    let x = b.input(i, name)?;
    if let Some(data) = b.constant_input(i) {
        if !data.dtype.is_integer() {
            bail!(
                "input '{name}' must be an integer tensor, but is {}",
                data.dtype
            );
        }
        let Some(values) = data.to_i64_vec() else {
            bail!("input '{name}' of type {} cannot be read", data.dtype);
        };
        return values.iter().map(|&v| t.int(v)).collect();
    }
    let ty = b.input_type(i, name)?;
    if ty.dtype.is_some_and(|d| !d.is_integer()) {
        bail!("input '{name}' must be an integer tensor, but is {ty}");
    }
    if ty.shape.as_deref() == Some(&[]) {
        return Ok(vec![t.item_int(x)?]);
    }
    let len = known_length(&ty, name)?;
    select_each(t, x, &ty, len, |v| t.item_int(v))
}

/// The entries of 1-D float input `i` (Resize's scales), each as a `!torch.float`:
/// constants when the input is one, else `item(select(x, 0, k))`.
pub fn float_entries<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    i: usize,
    name: &str,
) -> Result<Vec<Value<'c, 'a>>> {
    await_constant(b, i, name)?;
    let x = b.input(i, name)?;
    if let Some(data) = b.constant_input(i) {
        let Some(values) = data.to_f64_vec() else {
            bail!("input '{name}' of type {} cannot be read", data.dtype);
        };
        return values.iter().map(|&v| t.float(v)).collect();
    }
    let ty = b.input_type(i, name)?;
    if ty.dtype.is_some_and(|d| !d.is_float()) {
        bail!("input '{name}' must be a float tensor, but is {ty}");
    }
    let len = known_length(&ty, name)?;
    select_each(t, x, &ty, len, |v| t.item_float(v))
}

/// `item(select(x, 0, k))` for each `k` below `len`, the scalar read by `item`.
fn select_each<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    ty: &TensorType,
    len: i64,
    item: impl Fn(Value<'c, 'a>) -> Result<Value<'c, 'a>>,
) -> Result<Vec<Value<'c, 'a>>> {
    let element = TensorType {
        dtype: ty.dtype,
        shape: Some(vec![]),
    };
    let zero = t.int(0)?;
    (0..len)
        .map(|k| {
            let at = t.int(k)?;
            item(t.aten_tensor("select.int", &[x, zero, at], &element)?)
        })
        .collect()
}

/// The length of 1-D input `name` of type `ty`, which must be known and small.
fn known_length(ty: &TensorType, name: &str) -> Result<i64> {
    match ty.shape.as_deref() {
        Some([Some(n)]) if *n > MAX_ENTRIES => {
            bail!("input '{name}' has {n} entries; at most {MAX_ENTRIES} are supported")
        }
        Some([Some(n)]) => Ok(*n),
        _ => bail!(
            "input '{name}' is computed at run time and its length is not known ({ty}); \
             a 1-D tensor of known length is needed"
        ),
    }
}

/// The one element of scalar input `i` as a `!torch.int` or `!torch.float` (as its
/// element type says): a constant when it is one, else `item` at run time.
pub fn scalar<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    i: usize,
    name: &str,
) -> Result<Value<'c, 'a>> {
    await_constant(b, i, name)?;
    let x = b.input(i, name)?;
    let ty = b.input_type(i, name)?;
    let Some(dtype) = ty.dtype else {
        bail!("input '{name}' has an unknown element type");
    };
    if ty
        .shape
        .as_ref()
        .is_some_and(|s| s.iter().any(|d| *d != Some(1)))
    {
        bail!("input '{name}' must hold one element, but is {ty}");
    }
    if let Some(data) = b.constant_input(i) {
        if data.element_count() != 1 {
            bail!("input '{name}' must hold one element, but is {ty}");
        }
        if dtype.is_integer() {
            if let Some(v) = data.to_i64_vec() {
                return t.int(v[0]);
            }
        } else if let Some(v) = data.to_f64_vec() {
            return t.float(v[0]);
        }
        bail!("input '{name}' of type {} cannot be read", data.dtype);
    }
    if dtype.is_integer() {
        t.item_int(x)
    } else if dtype.is_float() {
        t.item_float(x)
    } else {
        bail!("input '{name}' must be a number, but is {ty}")
    }
}
