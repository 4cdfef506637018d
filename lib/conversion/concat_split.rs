//! Concat and Split: joining tensors along an axis, and cutting one into pieces.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::runtime_ints::int_entries;
use super::shape_util::{await_constant, dims_of, normalize_axis, optional_const_ints, size_of};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::Dim;
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("Concat", 1, concat);
    r.on_op("Split", 1, split_v1);
    r.on_op("Split", 13, split);
    r.on_op("Split", 18, split_v18);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// `aten.cat` of a `!torch.list<vtensor>` of the inputs.
fn concat<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let n = b.input_count();
    if n == 0 {
        bail!("Concat needs at least one input");
    }
    let mut inputs = Vec::with_capacity(n);
    let mut shapes: Vec<(usize, Vec<Dim>)> = Vec::new();
    for i in 0..n {
        let name = format!("inputs[{i}]");
        inputs.push(b.input(i, &name)?);
        if let Some(dims) = b.input_type(i, &name)?.shape {
            shapes.push((i, dims));
        }
    }
    let result = b.result_type(0)?;
    let rank = match (shapes.first(), result.rank()) {
        (Some((_, dims)), _) => dims.len(),
        (None, Some(r)) => r,
        (None, None) => bail!("the rank of the inputs is unknown"),
    };
    // Concat-1 made the axis optional, defaulting to 1.
    let axis = match b.optional_int("axis")? {
        Some(a) => a,
        None if b.opset < 4 => 1,
        None => bail!("missing required attribute 'axis'"),
    };
    let axis = normalize_axis(axis, rank, "attribute 'axis'")?;
    check_concat_shapes(&shapes, axis)?;
    let list = t.list(&inputs, "vtensor")?;
    let dim = t.int(axis as i64)?;
    Ok(vec![t.aten_tensor("cat", &[list, dim], &result)?])
}

/// Every input has the same rank, and the same size outside `axis` where known.
fn check_concat_shapes(shapes: &[(usize, Vec<Dim>)], axis: usize) -> Result<()> {
    let Some((first, reference)) = shapes.first() else {
        return Ok(());
    };
    for (i, dims) in shapes {
        if dims.len() != reference.len() {
            bail!(
                "inputs[{i}] has rank {} but inputs[{first}] has rank {}",
                dims.len(),
                reference.len()
            );
        }
        for (d, (x, y)) in dims.iter().zip(reference).enumerate() {
            if let (Some(x), Some(y)) = (x, y)
                && d != axis
                && x != y
            {
                bail!("inputs[{i}] has size {x} in dimension {d} but inputs[{first}] has {y}");
            }
        }
    }
    Ok(())
}

/// Split-1 to -11: sizes in the `split` attribute (or Split-1's second input).
fn split_v1<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let sizes = match b.optional_ints("split")? {
        Some(s) => Some(s),
        None if b.opset < 2 => optional_const_ints(b, 1, "split")?,
        None => None,
    };
    lower_split(b, t, sizes.map(Parts::Sizes).unwrap_or(Parts::Even))
}

/// Split-13: sizes in the optional `split` input, known at compile or at run time.
fn split<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    if let Some(lowered) = split_at_run_time(b, t, None)? {
        return Ok(lowered);
    }
    let sizes = optional_const_ints(b, 1, "split")?;
    lower_split(b, t, sizes.map(Parts::Sizes).unwrap_or(Parts::Even))
}

/// Split-18 adds `num_outputs`: that many parts of `ceil(size / num_outputs)`, the
/// last one smaller.
fn split_v18<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    if let Some(lowered) = split_at_run_time(b, t, b.optional_int("num_outputs")?)? {
        return Ok(lowered);
    }
    let sizes = optional_const_ints(b, 1, "split")?;
    let parts = match (sizes, b.optional_int("num_outputs")?) {
        (Some(_), Some(_)) => bail!("input 'split' and attribute 'num_outputs' are both given"),
        (Some(s), None) => Parts::Sizes(s),
        (None, Some(n)) => Parts::Chunks(n),
        (None, None) => Parts::Even,
    };
    lower_split(b, t, parts)
}

/// Split whose part bounds are known only at run time: sizes from a `split` input that
/// is not a constant, or equal parts (`num_outputs` parts of `ceil(size / n)`) of an
/// axis whose size is not known. Each output is a `slice.Tensor` between `!torch.int`
/// bounds summed at run time; slicing clamps the last part to the axis, as ONNX's
/// `num_outputs` wants. `None` when everything is known at compile time.
fn split_at_run_time<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    num_outputs: Option<i64>,
) -> Result<Option<Vec<Value<'c, 'a>>>> {
    await_constant(b, 1, "split")?;
    let sizes_at_run_time = b.has_input(1) && b.constant_input(1).is_none();
    let x = b.input(0, "input")?;
    let dims = dims_of(&b.input_type(0, "input")?, "input")?;
    let axis = normalize_axis(b.int("axis", 0)?, dims.len(), "attribute 'axis'")?;
    // Constant sizes are planned at compile time even over an axis of unknown size.
    let equal_parts_of_unknown = !b.has_input(1) && dims[axis].is_none();
    if !sizes_at_run_time && !equal_parts_of_unknown {
        return Ok(None);
    }
    let outputs = b.result_count();
    let int = t.torch_type("int")?;
    let sizes = if sizes_at_run_time {
        if num_outputs.is_some() {
            bail!("input 'split' and attribute 'num_outputs' are both given");
        }
        let sizes = int_entries(b, t, 1, "split")?;
        if sizes.len() != outputs {
            bail!(
                "split has {} entries but the op has {outputs} outputs",
                sizes.len()
            );
        }
        sizes
    } else {
        let n = num_outputs.unwrap_or(outputs as i64);
        if n != outputs as i64 || n < 1 {
            bail!("attribute 'num_outputs' is {n} but the op has {outputs} outputs");
        }
        // Without num_outputs the parts must be equal; ceil(size / n) is then size / n.
        let size = size_of(t, x, axis)?;
        let rounded = t.aten("add.int", &[size, t.int(n - 1)?], int)?;
        let chunk = t.aten("floordiv.int", &[rounded, t.int(n)?], int)?;
        vec![chunk; outputs]
    };
    let (dim, step) = (t.int(axis as i64)?, t.int(1)?);
    let mut start = t.int(0)?;
    let mut values = Vec::with_capacity(outputs);
    for (i, size) in sizes.into_iter().enumerate() {
        let end = t.aten("add.int", &[start, size], int)?;
        let ty = b.result_type(i)?;
        values.push(t.aten_tensor("slice.Tensor", &[x, dim, start, end, step], &ty)?);
        start = end;
    }
    Ok(Some(values))
}

/// How the axis is cut.
enum Parts {
    /// Explicit part sizes.
    Sizes(Vec<i64>),
    /// `n` parts of `ceil(size / n)`, the last smaller.
    Chunks(i64),
    /// One equal part per output.
    Even,
}

/// One `slice.Tensor` per output, with bounds known at compile time.
fn lower_split<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    parts: Parts,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let dims = dims_of(&b.input_type(0, "input")?, "input")?;
    let axis = normalize_axis(b.int("axis", 0)?, dims.len(), "attribute 'axis'")?;
    let outputs = b.result_count();
    let sizes = part_sizes(parts, dims[axis], outputs)?;
    let (dim, step) = (t.int(axis as i64)?, t.int(1)?);
    let mut start = 0;
    let mut values = Vec::with_capacity(outputs);
    for (i, size) in sizes.iter().enumerate() {
        let (from, to) = (t.int(start)?, t.int(start + size)?);
        let ty = b.result_type(i)?;
        values.push(t.aten_tensor("slice.Tensor", &[x, dim, from, to, step], &ty)?);
        start += size;
    }
    Ok(values)
}

/// The size of each output along the axis, checked against the axis's size.
fn part_sizes(parts: Parts, size: Dim, outputs: usize) -> Result<Vec<i64>> {
    let n = outputs as i64;
    let sizes = match parts {
        Parts::Sizes(s) => {
            if s.len() != outputs {
                bail!(
                    "split has {} entries but the op has {outputs} outputs",
                    s.len()
                );
            }
            if let Some(bad) = s.iter().find(|&&v| v < 0) {
                bail!("split holds {bad}; sizes must not be negative");
            }
            s
        }
        Parts::Chunks(k) => {
            if k < 1 {
                bail!("attribute 'num_outputs' is {k}; it must be positive");
            }
            if k != n {
                bail!("attribute 'num_outputs' is {k} but the op has {outputs} outputs");
            }
            let Some(size) = size else {
                bail!("splitting an axis of unknown size into num_outputs parts is not supported");
            };
            let chunk = (size + n - 1) / n;
            let last = size - chunk * (n - 1);
            if last < 0 {
                bail!("an axis of size {size} cannot be split into {n} parts of {chunk}");
            }
            let mut s = vec![chunk; outputs - 1];
            s.push(last);
            s
        }
        Parts::Even => {
            let Some(size) = size else {
                bail!("splitting an axis of unknown size evenly is not supported");
            };
            if n == 0 || size % n != 0 {
                bail!("an axis of size {size} cannot be split evenly into {n} parts");
            }
            vec![size / n; outputs]
        }
    };
    let Some(total) = sizes.iter().try_fold(0i64, |acc, &s| acc.checked_add(s)) else {
        bail!("split sizes {sizes:?} add up to more than an axis can hold");
    };
    if let Some(size) = size
        && total != size
    {
        bail!("split sizes {sizes:?} add up to {total}, but the axis has size {size}");
    }
    Ok(sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_axis() {
        assert_eq!(part_sizes(Parts::Even, Some(6), 3).unwrap(), vec![2, 2, 2]);
        assert_eq!(
            part_sizes(Parts::Chunks(3), Some(7), 3).unwrap(),
            vec![3, 3, 1]
        );
        assert_eq!(
            part_sizes(Parts::Sizes(vec![1, 5]), None, 2).unwrap(),
            vec![1, 5]
        );
        assert!(part_sizes(Parts::Even, Some(7), 3).is_err());
        assert!(part_sizes(Parts::Chunks(4), Some(5), 4).is_err());
        assert!(part_sizes(Parts::Sizes(vec![1, 2]), Some(4), 2).is_err());
        assert!(part_sizes(Parts::Sizes(vec![1, 2]), Some(3), 3).is_err());
    }
}
