//! Flatten, Reshape, Transpose, Squeeze, Unsqueeze and Shape: ops that change how a
//! tensor's elements are arranged into dimensions, never the elements themselves.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::runtime_axes::{squeeze_at_run_time, unsqueeze_at_run_time};
use super::shape_util::{
    as_result, await_constant, const_ints, dims_of, normalize_axes, optional_const_ints, product,
    size_of, typed,
};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("Flatten", 1, flatten);
    r.on_op("Reshape", 1, reshape_v1);
    r.on_op("Reshape", 5, reshape);
    r.on_op("Transpose", 1, transpose);
    r.on_op("Squeeze", 1, squeeze_v1);
    r.on_op("Squeeze", 13, squeeze);
    r.on_op("Unsqueeze", 1, unsqueeze_v1);
    r.on_op("Unsqueeze", 13, unsqueeze);
    r.on_op("Shape", 1, shape);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// A bound on the rank a run-time shape may give, so that a malformed type cannot make
/// the lowering emit ops without end.
const MAX_RANK: i64 = 64;

/// ONNX Flatten makes `[prod(d[..axis]), prod(d[axis..])]`: the right range is
/// collapsed first, then the left one, each with `flatten.using_ints` when it spans
/// more than one dimension and with `unsqueeze` when it is empty.
fn flatten<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let x_type = b.input_type(0, "input")?;
    let dims = dims_of(&x_type, "input")?;
    let result = b.result_type(0)?;
    let rank = dims.len();
    let axis = b.int("axis", 1)?;
    let r = rank as i64;
    if axis < -r || axis > r {
        bail!("attribute 'axis' is {axis}, out of range [-{r}, {r}] for input of rank {rank}");
    }
    let axis = (if axis < 0 { axis + r } else { axis }) as usize;

    // With axis 1 the left range is already one dimension: the right step is the last.
    let right_type = if axis == 1 {
        result.clone()
    } else {
        let mut dims_after: Vec<Dim> = dims[..axis].to_vec();
        dims_after.push(product(&dims[axis..]));
        typed(&x_type, dims_after)
    };
    let current = if axis == rank {
        let at = t.int(r)?;
        let v = t.aten_tensor("unsqueeze", &[x, at], &right_type)?;
        (v, right_type)
    } else if axis + 1 < rank {
        let (start, end) = (t.int(axis as i64)?, t.int(r - 1)?);
        let v = t.aten_tensor("flatten.using_ints", &[x, start, end], &right_type)?;
        (v, right_type)
    } else {
        (x, x_type.clone())
    };
    let (v, v_type) = current;
    let out = if axis == 0 {
        let at = t.int(0)?;
        t.aten_tensor("unsqueeze", &[v, at], &result)?
    } else if axis > 1 {
        let (start, end) = (t.int(0)?, t.int(axis as i64 - 1)?);
        t.aten_tensor("flatten.using_ints", &[v, start, end], &result)?
    } else {
        as_result(t, v, &v_type, &result)?
    };
    Ok(vec![out])
}

/// Reshape-1 takes the new shape as an attribute.
fn reshape_v1<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let Some(shape) = b.optional_ints("shape")? else {
        bail!("missing required attribute 'shape'");
    };
    lower_reshape(b, t, Some(shape), false)
}

fn reshape<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    b.input(1, "shape")?;
    await_constant(b, 1, "shape")?;
    let shape = match b.constant_input(1) {
        Some(_) => Some(const_ints(b, 1, "shape")?),
        None => None,
    };
    let allow_zero = b.int("allowzero", 0)? != 0;
    lower_reshape(b, t, shape, allow_zero)
}

/// `aten.reshape` to a list of ints: the result's sizes when they are all known (as
/// torch-mlir does), else the constant shape with ONNX's 0 ("copy the input's
/// dimension") resolved, else the shape tensor read element by element at run time.
/// There, a size the result type knows (shape inference found it in a shape vector
/// known in part, or the model declares it) is written as that constant, so the list
/// gives the result type torch-mlir's own shape refinement infers, and downstream
/// compilers see the static sizes in the op, not only in its type.
fn lower_reshape<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    shape: Option<Vec<i64>>,
    allow_zero: bool,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    let result = b.result_type(0)?;
    if let Some(shape) = &shape {
        check_reshape(shape, &x_type, allow_zero)?;
    }
    if let Some(sizes) = result.static_dims() {
        let list = t.int_list(&sizes)?;
        return Ok(vec![t.aten_tensor("reshape", &[x, list], &result)?]);
    }
    let list = match shape {
        Some(shape) => {
            let in_dims = x_type.shape.clone().unwrap_or_default();
            let mut elements = Vec::with_capacity(shape.len());
            for (i, &s) in shape.iter().enumerate() {
                elements.push(match (s, in_dims.get(i)) {
                    (0, Some(Some(d))) if !allow_zero => t.int(*d)?,
                    (0, _) if !allow_zero => size_of(t, x, i)?,
                    _ => t.int(s)?,
                });
            }
            t.list(&elements, "int")?
        }
        None => {
            let known = result.shape.clone().unwrap_or_default();
            runtime_shape(b, t, x, &x_type, &known, allow_zero)?
        }
    };
    Ok(vec![t.aten_tensor("reshape", &[x, list], &result)?])
}

/// What ONNX requires of a known shape: at most one -1, nothing below -1, no 0 next
/// to a -1 when zeros are literal, 0 only where the input has a dimension to copy,
/// and the same element count as the input when both are known.
fn check_reshape(shape: &[i64], x_type: &TensorType, allow_zero: bool) -> Result<()> {
    if let Some(&bad) = shape.iter().find(|&&s| s < -1) {
        bail!("shape holds {bad}; entries must be -1, 0 or positive");
    }
    if shape.iter().filter(|&&s| s == -1).count() > 1 {
        bail!("shape {shape:?} has more than one -1");
    }
    if allow_zero && shape.contains(&0) && shape.contains(&-1) {
        bail!("shape {shape:?} has both 0 and -1, which allowzero=1 forbids");
    }
    let Some(in_dims) = &x_type.shape else {
        return Ok(());
    };
    let mut resolved = Vec::with_capacity(shape.len());
    for (i, &s) in shape.iter().enumerate() {
        resolved.push(if s == 0 && !allow_zero {
            match in_dims.get(i) {
                Some(d) => *d,
                None => bail!(
                    "shape[{i}] is 0 (copy the input's dimension) but data has rank {}",
                    in_dims.len()
                ),
            }
        } else {
            Some(s)
        });
    }
    let (Some(total), Some(known)) = (
        product(in_dims),
        product(
            &resolved
                .iter()
                .filter(|d| **d != Some(-1))
                .copied()
                .collect::<Vec<_>>(),
        ),
    ) else {
        return Ok(());
    };
    let fits = if resolved.contains(&Some(-1)) {
        (known != 0 && total % known == 0) || (known == 0 && total == 0)
    } else {
        known == total
    };
    if !fits {
        bail!("data has {total} elements, which cannot be reshaped to {shape:?}");
    }
    Ok(())
}

/// The shape tensor as a `!torch.list<int>` read at run time, like torch-mlir: each
/// entry is `item(select(shape, 0, i))`, and unless zeros are literal an entry `s`
/// below the input's rank becomes `s + (s == 0) * size(data, i)`. An entry whose size
/// the result type knows (`known`) is that constant instead.
fn runtime_shape<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    known: &[Dim],
    allow_zero: bool,
) -> Result<Value<'c, 'a>> {
    let shape = b.input(1, "shape")?;
    let shape_type = b.input_type(1, "shape")?;
    let len = match shape_type.shape.as_deref() {
        Some([Some(n)]) if *n > MAX_RANK => {
            bail!("shape has {n} entries; at most {MAX_RANK} dimensions are supported")
        }
        Some([Some(n)]) => *n,
        _ => bail!(
            "shape is not a constant and its length is not known ({shape_type}); \
             the result rank cannot be determined"
        ),
    };
    let rank = x_type.rank();
    if !allow_zero && rank.is_none() {
        bail!("shape is not a constant and data has an unknown rank");
    }
    let element = TensorType {
        dtype: shape_type.dtype,
        shape: Some(vec![]),
    };
    let int = t.torch_type("int")?;
    let zero = t.int(0)?;
    let mut elements = Vec::new();
    for i in 0..len {
        if let Some(Some(n)) = usize::try_from(i).ok().and_then(|i| known.get(i)) {
            elements.push(t.int(*n)?);
            continue;
        }
        let at = t.int(i)?;
        let picked = t.aten_tensor("select.int", &[shape, zero, at], &element)?;
        let s = t.item_int(picked)?;
        let s = match rank {
            Some(r) if !allow_zero && (i as usize) < r => {
                let is_zero = t.aten("eq.int", &[s, zero], t.torch_type("bool")?)?;
                let flag = t.aten("Int.bool", &[is_zero], int)?;
                let size = size_of(t, x, i as usize)?;
                let copied = t.aten("mul.int", &[flag, size], int)?;
                t.aten("add.int", &[s, copied], int)?
            }
            _ => s,
        };
        elements.push(s);
    }
    t.list(&elements, "int")
}

/// `aten.permute` with `perm`, by default the dimensions reversed.
fn transpose<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let rank = dims_of(&b.input_type(0, "data")?, "data")?.len();
    let reversed: Vec<i64> = (0..rank as i64).rev().collect();
    let perm = b.ints("perm", &reversed)?;
    if perm.len() != rank {
        bail!(
            "attribute 'perm' has {} entries but data has rank {rank}",
            perm.len()
        );
    }
    let perm = normalize_axes(&perm, rank, "attribute 'perm'")?;
    let perm: Vec<i64> = perm.into_iter().map(|p| p as i64).collect();
    let result = b.result_type(0)?;
    let list = t.int_list(&perm)?;
    Ok(vec![t.aten_tensor("permute", &[x, list], &result)?])
}

/// Squeeze-1 and -11: `axes` is an optional attribute.
fn squeeze_v1<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let axes = b.optional_ints("axes")?;
    lower_squeeze(b, t, axes, "attribute 'axes'")
}

/// Squeeze-13: `axes` is an optional input; one axis known only at run time is
/// read with `item` into `squeeze.dim`.
fn squeeze<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    await_constant(b, 1, "axes")?;
    if b.has_input(1) && b.constant_input(1).is_none() {
        return squeeze_at_run_time(b, t);
    }
    let axes = optional_const_ints(b, 1, "axes")?;
    lower_squeeze(b, t, axes, "input 'axes'")
}

/// Without axes every size-1 dimension goes (`aten.squeeze`); with axes, one
/// `squeeze.dim` per axis, from the last, so the remaining axes keep their positions.
fn lower_squeeze<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    axes: Option<Vec<i64>>,
    what: &str,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    let result = b.result_type(0)?;
    let axes = match axes {
        Some(axes) if !axes.is_empty() => axes,
        _ => return Ok(vec![t.aten_tensor("squeeze", &[x], &result)?]),
    };
    let mut dims = dims_of(&x_type, "data")?;
    let mut axes = normalize_axes(&axes, dims.len(), what)?;
    for &a in &axes {
        if let Some(d) = dims[a]
            && d != 1
        {
            bail!("{what} names axis {a}, but that dimension of data has size {d}, not 1");
        }
    }
    axes.sort_unstable_by(|a, b| b.cmp(a));
    let mut current = x;
    for (k, &a) in axes.iter().enumerate() {
        dims.remove(a);
        let ty = if k + 1 == axes.len() {
            result.clone()
        } else {
            typed(&x_type, dims.clone())
        };
        let dim = t.int(a as i64)?;
        current = t.aten_tensor("squeeze.dim", &[current, dim], &ty)?;
    }
    Ok(vec![current])
}

/// Unsqueeze-1 and -11: `axes` is a required attribute.
fn unsqueeze_v1<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let Some(axes) = b.optional_ints("axes")? else {
        bail!("missing required attribute 'axes'");
    };
    lower_unsqueeze(b, t, axes, "attribute 'axes'")
}

/// Unsqueeze-13: `axes` is a required input; axes known only at run time are read with
/// `item` (one into `unsqueeze`, several into a `reshape`'s sizes).
fn unsqueeze<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    await_constant(b, 1, "axes")?;
    if b.constant_input(1).is_none() {
        return unsqueeze_at_run_time(b, t);
    }
    let axes = const_ints(b, 1, "axes")?;
    lower_unsqueeze(b, t, axes, "input 'axes'")
}

/// Axes count in the output's rank; inserting them in ascending order puts each new
/// dimension where the output has it.
fn lower_unsqueeze<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    axes: Vec<i64>,
    what: &str,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    let result = b.result_type(0)?;
    let mut dims = dims_of(&x_type, "data")?;
    let mut axes = normalize_axes(&axes, dims.len() + axes.len(), what)?;
    if axes.is_empty() {
        return Ok(vec![as_result(t, x, &x_type, &result)?]);
    }
    axes.sort_unstable();
    let mut current = x;
    for (k, &a) in axes.iter().enumerate() {
        dims.insert(a, Some(1));
        let ty = if k + 1 == axes.len() {
            result.clone()
        } else {
            typed(&x_type, dims.clone())
        };
        let dim = t.int(a as i64)?;
        current = t.aten_tensor("unsqueeze", &[current, dim], &ty)?;
    }
    Ok(vec![current])
}

/// `aten._shape_as_tensor`, sliced to `[start, end)` when Shape-15's attributes ask
/// for part of it (as torch-mlir lowers it).
fn shape<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    let result = b.result_type(0)?;
    let start = b.optional_int("start")?;
    let end = b.optional_int("end")?;
    let full_type = TensorType::new(DType::I64, vec![x_type.rank().map(|r| r as i64)]);
    let Some(rank) = x_type.rank() else {
        if start.unwrap_or(0) != 0 || end.is_some() {
            bail!("attributes 'start' and 'end' need the rank of data, which is unknown");
        }
        let full = t.aten_tensor("_shape_as_tensor", &[x], &full_type)?;
        return Ok(vec![as_result(t, full, &full_type, &result)?]);
    };
    // ONNX counts negative bounds from the back and clamps both into [0, rank].
    let clamp = |v: i64| {
        let r = rank as i64;
        (if v < 0 { v + r } else { v }).clamp(0, r)
    };
    let start = clamp(start.unwrap_or(0));
    let end = clamp(end.unwrap_or(rank as i64)).max(start);
    if start == 0 && end == rank as i64 {
        return Ok(vec![t.aten_tensor("_shape_as_tensor", &[x], &result)?]);
    }
    let full = t.aten_tensor("_shape_as_tensor", &[x], &full_type)?;
    let (dim, from, to, step) = (t.int(0)?, t.int(start)?, t.int(end)?, t.int(1)?);
    Ok(vec![t.aten_tensor(
        "slice.Tensor",
        &[full, dim, from, to, step],
        &result,
    )?])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(dims: &[i64]) -> TensorType {
        TensorType::known(DType::F32, dims)
    }

    #[test]
    fn reshape_shapes_follow_onnx_rules() {
        assert!(check_reshape(&[0, -1], &data(&[2, 3, 4]), false).is_ok());
        assert!(check_reshape(&[4, 6], &data(&[2, 3, 4]), false).is_ok());
        let e = check_reshape(&[5, -1], &data(&[2, 3, 4]), false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "data has 24 elements, which cannot be reshaped to [5, -1]"
        );
        assert!(check_reshape(&[-1, -1], &data(&[4]), false).is_err());
        assert!(check_reshape(&[0, -1], &data(&[2, 2]), true).is_err());
        assert!(check_reshape(&[0, 0, 0], &data(&[2, 2]), false).is_err());
        assert!(check_reshape(&[0, 5], &data(&[2, 3]), true).is_err());
        assert!(check_reshape(&[3, 0], &data(&[0, 3]), true).is_ok());
    }
}
