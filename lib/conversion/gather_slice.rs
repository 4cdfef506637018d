//! Gather and Slice: ops that pick some of a tensor's elements along its axes.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::runtime_ints::int_entries;
use super::shape_util::{
    as_result, await_constant, const_ints, dims_of, normalize_axes, normalize_axis,
    optional_const_ints, product, size_of, typed,
};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;
use crate::onnx::tensor::TensorData;

pub fn register(r: &mut Lowerings) {
    r.on_op("Gather", 1, gather);
    r.on_op("Slice", 1, slice_v1);
    r.on_op("Slice", 10, slice);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// `aten.index_select` along `axis` with the indices flattened to 1-D, then the
/// indices' shape put back (`unflatten.int`, or `squeeze.dim` for a scalar index), as
/// torch-mlir lowers it. ONNX allows negative indices and torch does not: constant
/// indices are made non-negative here, others with `where(i < 0, i + size, i)`.
fn gather<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let data = b.input(0, "data")?;
    let data_type = b.input_type(0, "data")?;
    let dims = dims_of(&data_type, "data")?;
    let indices = b.input(1, "indices")?;
    let indices_type = b.input_type(1, "indices")?;
    let index_dims = dims_of(&indices_type, "indices")?;
    if let Some(d) = indices_type.dtype
        && d != DType::I64
        && d != DType::I32
    {
        bail!("indices must be INT32 or INT64, but are {d}");
    }
    let axis = normalize_axis(b.int("axis", 0)?, dims.len(), "attribute 'axis'")?;
    let result = b.result_type(0)?;
    await_constant(b, 1, "indices")?;
    let constant = match b.constant_input(1) {
        Some(c) => constant_indices(&c, dims[axis], axis)?,
        None => ConstantIndices::Unknown,
    };

    let indices = match constant {
        ConstantIndices::NonNegative => indices,
        ConstantIndices::Normalized(data) => t.literal(&data)?,
        ConstantIndices::Unknown => {
            let below = TensorType {
                dtype: Some(DType::Bool),
                shape: indices_type.shape.clone(),
            };
            let zero = t.int(0)?;
            let negative = t.aten_tensor("lt.Scalar", &[indices, zero], &below)?;
            let size = match dims[axis] {
                Some(d) => t.int(d)?,
                None => size_of(t, data, axis)?,
            };
            let one = t.int(1)?;
            let wrapped = t.aten_tensor("add.Scalar", &[indices, size, one], &indices_type)?;
            t.aten_tensor("where.self", &[negative, wrapped, indices], &indices_type)?
        }
    };

    let count = product(&index_dims);
    let flat_type = typed(&indices_type, vec![count]);
    let flat = match index_dims.len() {
        0 => {
            let zero = t.int(0)?;
            t.aten_tensor("unsqueeze", &[indices, zero], &flat_type)?
        }
        1 => indices,
        n => {
            let (start, end) = (t.int(0)?, t.int(n as i64 - 1)?);
            t.aten_tensor("flatten.using_ints", &[indices, start, end], &flat_type)?
        }
    };
    let gathered_type = if index_dims.len() == 1 {
        result.clone()
    } else {
        let mut g = dims.clone();
        g[axis] = count;
        typed(&data_type, g)
    };
    let dim = t.int(axis as i64)?;
    let gathered = t.aten_tensor("index_select", &[data, dim, flat], &gathered_type)?;
    let out = match index_dims.len() {
        0 => t.aten_tensor("squeeze.dim", &[gathered, dim], &result)?,
        1 => gathered,
        _ => {
            let sizes = index_dims
                .iter()
                .enumerate()
                .map(|(i, d)| match d {
                    Some(d) => t.int(*d),
                    None => size_of(t, indices, i),
                })
                .collect::<Result<Vec<_>>>()?;
            let sizes = t.list(&sizes, "int")?;
            t.aten_tensor("unflatten.int", &[gathered, dim, sizes], &result)?
        }
    };
    Ok(vec![out])
}

enum ConstantIndices {
    /// Already in `[0, size)`: used as they are.
    NonNegative,
    /// Negative ones wrapped, ready to become a literal.
    Normalized(TensorData),
    /// Normalized at run time.
    Unknown,
}

/// Checks constant indices against the size of the gathered axis and wraps negative
/// ones, when the size is known.
fn constant_indices(c: &TensorData, size: Dim, axis: usize) -> Result<ConstantIndices> {
    let Some(values) = c.to_i64_vec() else {
        bail!("indices of type {} cannot be read", c.dtype);
    };
    let Some(size) = size else {
        return Ok(ConstantIndices::Unknown);
    };
    if let Some(bad) = values.iter().find(|&&v| v < -size || v >= size) {
        bail!("indices holds {bad}, out of range for dimension {axis} of data (size {size})");
    }
    if values.iter().all(|&v| v >= 0) {
        return Ok(ConstantIndices::NonNegative);
    }
    let wrapped = values.iter().map(|&v| if v < 0 { v + size } else { v });
    let bytes: Vec<u8> = match c.dtype {
        DType::I32 => wrapped.flat_map(|v| (v as i32).to_le_bytes()).collect(),
        _ => wrapped.flat_map(|v| v.to_le_bytes()).collect(),
    };
    Ok(ConstantIndices::Normalized(TensorData {
        dtype: if c.dtype == DType::I32 {
            DType::I32
        } else {
            DType::I64
        },
        dims: c.dims.clone(),
        bytes: bytes.into(),
    }))
}

/// Slice-1: `starts`, `ends` and `axes` are attributes, and every step is 1.
fn slice_v1<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let Some(starts) = b.optional_ints("starts")? else {
        bail!("missing required attribute 'starts'");
    };
    let Some(ends) = b.optional_ints("ends")? else {
        bail!("missing required attribute 'ends'");
    };
    let axes = b.optional_ints("axes")?;
    lower_slice(b, t, SliceArgs::new(starts, ends, axes, None))
}

/// Slice-10 and later: `starts`, `ends`, `axes` and `steps` are inputs. Constants are
/// checked and planned here; values known only at run time go to `slice.Tensor` as
/// `!torch.int`s.
fn slice<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    for (i, name) in [(1, "starts"), (2, "ends"), (3, "axes"), (4, "steps")] {
        await_constant(b, i, name)?;
    }
    let known = |i: usize| !b.has_input(i) || b.constant_input(i).is_some();
    if !(known(1) && known(2) && known(3) && known(4)) {
        return slice_at_run_time(b, t);
    }
    let starts = const_ints(b, 1, "starts")?;
    let ends = const_ints(b, 2, "ends")?;
    let axes = optional_const_ints(b, 3, "axes")?;
    let steps = optional_const_ints(b, 4, "steps")?;
    lower_slice(b, t, SliceArgs::new(starts, ends, axes, steps))
}

/// Slice with starts, ends, axes or steps read at run time: one `slice.Tensor` per
/// listed axis. torch clamps starts and ends into the axis as ONNX does for positive steps;
/// a step that turns out 0 or negative is refused by the kernel, naming the node.
fn slice_at_run_time<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    let mut dims = dims_of(&x_type, "data")?;
    let rank = dims.len();
    let result = b.result_type(0)?;
    let starts = int_entries(b, t, 1, "starts")?;
    let ends = int_entries(b, t, 2, "ends")?;
    let n = starts.len();
    if ends.len() != n {
        bail!("starts has {n} entries but ends has {}", ends.len());
    }
    // Axes known only at run time are torch dims too (negative ones count from the
    // back in both); which dimensions change is then unknown until the op runs.
    let axes_at_run_time = b.has_input(3) && b.constant_input(3).is_none();
    let axes: Vec<Option<usize>> = if axes_at_run_time {
        vec![None; n]
    } else {
        match optional_const_ints(b, 3, "axes")? {
            Some(a) if a.len() != n => bail!("axes has {} entries but starts has {n}", a.len()),
            Some(a) => normalize_axes(&a, rank, "axes")?
                .into_iter()
                .map(Some)
                .collect(),
            None if n > rank => bail!("starts has {n} entries, but data has rank {rank}"),
            None => (0..n).map(Some).collect(),
        }
    };
    let axis_values = match axes_at_run_time {
        true => int_entries(b, t, 3, "axes")?,
        false => axes
            .iter()
            .map(|a| t.int(a.unwrap_or_default() as i64))
            .collect::<Result<Vec<_>>>()?,
    };
    if axis_values.len() != n {
        bail!("axes has {} entries but starts has {n}", axis_values.len());
    }
    if let Some(steps) = b.constant_input(4).and_then(|d| d.to_i64_vec())
        && let Some(bad) = steps.iter().find(|&&s| s <= 0)
    {
        bail!(
            "steps holds {bad}; with starts or ends known only at run time, steps must be \
             positive"
        );
    }
    let steps = match b.has_input(4) {
        true => int_entries(b, t, 4, "steps")?,
        false => (0..n).map(|_| t.int(1)).collect::<Result<Vec<_>>>()?,
    };
    if steps.len() != n {
        bail!("steps has {} entries but starts has {n}", steps.len());
    }
    let result_dims = dims_of(&result, "the result")?;
    if result_dims.len() != rank {
        bail!(
            "the result has rank {}, but data has rank {rank}",
            result_dims.len()
        );
    }
    let mut current = x;
    for (k, axis) in axes.iter().enumerate() {
        match axis {
            Some(a) => dims[*a] = result_dims[*a],
            None => dims = vec![None; rank],
        }
        let ty = if k + 1 == n {
            result.clone()
        } else {
            typed(&x_type, dims.clone())
        };
        current = t.aten_tensor(
            "slice.Tensor",
            &[current, axis_values[k], starts[k], ends[k], steps[k]],
            &ty,
        )?;
    }
    if n == 0 {
        return Ok(vec![as_result(t, x, &x_type, &result)?]);
    }
    Ok(vec![current])
}

struct SliceArgs {
    starts: Vec<i64>,
    ends: Vec<i64>,
    axes: Option<Vec<i64>>,
    steps: Option<Vec<i64>>,
}

impl SliceArgs {
    fn new(
        starts: Vec<i64>,
        ends: Vec<i64>,
        axes: Option<Vec<i64>>,
        steps: Option<Vec<i64>>,
    ) -> Self {
        SliceArgs {
            starts,
            ends,
            axes,
            steps,
        }
    }
}

/// One `slice.Tensor`, preceded by a `flip` of the axis for negative ONNX steps.
#[derive(Debug, PartialEq)]
struct AxisSlice {
    axis: usize,
    start: i64,
    end: i64,
    step: i64,
    flip: bool,
    /// `start` and `end` are still ONNX's (an INT_MAX end already made -1): the axis's
    /// size is unknown, so they are clamped and flipped at run time.
    at_run_time: bool,
    /// The axis's size afterwards.
    size: Dim,
}

/// One `slice.Tensor` per axis that is not taken whole.
fn lower_slice<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    args: SliceArgs,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    let mut dims = dims_of(&x_type, "data")?;
    let result = b.result_type(0)?;
    let plan = plan_slices(&dims, &args)?;
    let mut current = (x, x_type.clone());
    for (k, s) in plan.iter().enumerate() {
        let (v, v_type) = current;
        let v = if s.flip {
            let axes = t.int_list(&[s.axis as i64])?;
            t.aten_tensor("flip", &[v, axes], &v_type)?
        } else {
            v
        };
        dims[s.axis] = s.size;
        let ty = if k + 1 == plan.len() {
            result.clone()
        } else {
            typed(&x_type, dims.clone())
        };
        let axis = t.int(s.axis as i64)?;
        let (start, end) = if s.at_run_time {
            flipped_bounds_at_run_time(t, v, s)?
        } else {
            (t.int(s.start)?, t.int(s.end)?)
        };
        let step = t.int(s.step)?;
        let sliced = t.aten_tensor("slice.Tensor", &[v, axis, start, end, step], &ty)?;
        current = (sliced, ty);
    }
    let (v, v_type) = current;
    Ok(vec![as_result(t, v, &v_type, &result)?])
}

/// ONNX's bounds of a negative-step slice of an axis of run-time size d, as positions
/// of the flipped axis: start clamps into [0, d-1] and end into [-1, d-1] (after adding
/// d to negative ones), and position p becomes d-1-p, so both land in [0, d].
fn flipped_bounds_at_run_time<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    flipped: Value<'c, 'a>,
    s: &AxisSlice,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>)> {
    let int = t.torch_type("int")?;
    let d = size_of(t, flipped, s.axis)?;
    let last = t.aten("sub.int", &[d, t.int(1)?], int)?;
    let flip_clamped = |v: i64, low: i64| -> Result<Value<'c, 'a>> {
        let v = if v < 0 {
            t.aten("add.int", &[t.int(v)?, d], int)?
        } else {
            t.int(v)?
        };
        let above = t.op("torch.prim.max.int", &[v, t.int(low)?], &[int], &[])?;
        let above: Value = above.result(0)?.into();
        let clamped = t.op("torch.prim.min.int", &[above, last], &[int], &[])?;
        let clamped: Value = clamped.result(0)?.into();
        t.aten("sub.int", &[last, clamped], int)
    };
    Ok((flip_clamped(s.start, 0)?, flip_clamped(s.end, -1)?))
}

/// Checks the arguments and turns each sliced axis into torch's terms. ONNX clamps
/// starts and ends into the axis; torch's `slice.Tensor` does the same for positive
/// steps, so unknown sizes are fine there. A negative step becomes a flip of the axis
/// and a positive step over the flipped positions, whose bounds need the size: computed
/// here when it is known, at run time when not.
fn plan_slices(dims: &[Dim], args: &SliceArgs) -> Result<Vec<AxisSlice>> {
    let n = args.starts.len();
    if args.ends.len() != n {
        bail!("starts has {n} entries but ends has {}", args.ends.len());
    }
    let rank = dims.len();
    let axes = match &args.axes {
        Some(a) if a.len() != n => bail!("axes has {} entries but starts has {n}", a.len()),
        Some(a) => normalize_axes(a, rank, "axes")?,
        None if n > rank => bail!("starts has {n} entries but data has rank {rank}"),
        None => (0..n).collect(),
    };
    let steps = match &args.steps {
        Some(s) if s.len() != n => bail!("steps has {} entries but starts has {n}", s.len()),
        Some(s) => s.clone(),
        None => vec![1; n],
    };
    let mut plan = Vec::new();
    for k in 0..n {
        let (axis, step) = (axes[k], steps[k]);
        let (start, end) = (args.starts[k], args.ends[k]);
        if step == 0 {
            bail!("steps[{k}] is 0");
        }
        let Some(d) = dims[axis] else {
            let (flip, end, step) = if step < 0 {
                let Some(step) = step.checked_neg() else {
                    bail!("steps[{k}] is {step}, out of range");
                };
                // An INT_MAX end runs to the front (see below): i64::MIN plus any size
                // still clamps to -1.
                let to_front = end == i64::MAX || end == i64::from(i32::MAX);
                (true, if to_front { i64::MIN } else { end }, step)
            } else {
                (false, end, step)
            };
            plan.push(AxisSlice {
                axis,
                start,
                end,
                step,
                flip,
                at_run_time: flip,
                size: None,
            });
            continue;
        };
        let from_back = |v: i64| if v < 0 { v.saturating_add(d) } else { v };
        let s = if d == 0 {
            // Nothing to pick from an empty axis: it stays empty.
            AxisSlice {
                axis,
                start: 0,
                end: 0,
                step: 1,
                flip: false,
                at_run_time: false,
                size: Some(0),
            }
        } else if step > 0 {
            let start = from_back(start).clamp(0, d);
            let end = from_back(end).clamp(0, d);
            AxisSlice {
                axis,
                start,
                end,
                step,
                flip: false,
                at_run_time: false,
                size: Some(count(start, end, step)),
            }
        } else {
            let start = from_back(start).clamp(0, d - 1);
            // ONNX Runtime reads an INT_MAX end as numpy's "no end" whatever the step's
            // sign, so with a negative step it runs to the front, not nowhere.
            let end = if end == i64::MAX || end == i64::from(i32::MAX) {
                -1
            } else {
                from_back(end).clamp(-1, d - 1)
            };
            // Position p of the axis is position d-1-p of the flipped one.
            let (start, end) = (d - 1 - start, d - 1 - end);
            let Some(step) = step.checked_neg() else {
                bail!("steps[{k}] is {step}, out of range");
            };
            AxisSlice {
                axis,
                start,
                end,
                step,
                flip: true,
                at_run_time: false,
                size: Some(count(start, end, step)),
            }
        };
        let whole = !s.flip && s.start == 0 && s.end == d && s.step == 1;
        if !whole && d != 0 {
            plan.push(s);
        }
    }
    Ok(plan)
}

/// Elements of `[start, end)` taken every `step` (positive).
fn count(start: i64, end: i64, step: i64) -> i64 {
    if end > start {
        (end - start - 1) / step + 1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(
        starts: &[i64],
        ends: &[i64],
        axes: Option<&[i64]>,
        steps: Option<&[i64]>,
    ) -> SliceArgs {
        SliceArgs::new(
            starts.to_vec(),
            ends.to_vec(),
            axes.map(<[i64]>::to_vec),
            steps.map(<[i64]>::to_vec),
        )
    }

    #[test]
    fn slices_clamp_like_onnx() {
        let dims = [Some(20), Some(10)];
        let plan = plan_slices(&dims, &args(&[-3, 1], &[i64::MAX, 1000], None, None)).unwrap();
        assert_eq!(plan[0].start, 17);
        assert_eq!(plan[0].end, 20);
        assert_eq!(plan[0].size, Some(3));
        assert_eq!(plan[1].end, 10);
        assert_eq!(plan[1].size, Some(9));
        let whole = plan_slices(&dims, &args(&[0], &[i64::MAX], Some(&[-1]), None)).unwrap();
        assert!(whole.is_empty());
    }

    #[test]
    fn negative_steps_flip_the_axis() {
        // x[8:2:-2] over 10 elements picks 8, 6, 4: flipped positions 1, 3, 5.
        let plan = plan_slices(&[Some(10)], &args(&[8], &[2], None, Some(&[-2]))).unwrap();
        assert_eq!(
            plan[0],
            AxisSlice {
                axis: 0,
                start: 1,
                end: 7,
                step: 2,
                flip: true,
                at_run_time: false,
                size: Some(3)
            }
        );
        // x[::-1] reverses: the flip and all of it.
        let plan = plan_slices(&[Some(4)], &args(&[-1], &[i64::MIN], None, Some(&[-1]))).unwrap();
        assert_eq!((plan[0].start, plan[0].end, plan[0].size), (0, 4, Some(4)));
        // An INT_MAX end runs to the front, as in ONNX Runtime.
        let plan = plan_slices(&[Some(7)], &args(&[2], &[i64::MAX], None, Some(&[-1]))).unwrap();
        assert_eq!((plan[0].start, plan[0].end, plan[0].size), (4, 7, Some(3)));
        // Over an unknown size the bounds stay ONNX's, clamped and flipped at run time;
        // an INT_MAX end becomes one that clamps to the front whatever the size.
        let plan = plan_slices(&[None], &args(&[-1], &[i64::MAX], None, Some(&[-2]))).unwrap();
        let s = &plan[0];
        assert_eq!(
            (s.start, s.end, s.step, s.flip, s.at_run_time),
            (-1, i64::MIN, 2, true, true)
        );
    }

    #[test]
    fn bad_arguments_are_refused() {
        let dims = [Some(4), Some(4)];
        assert!(plan_slices(&dims, &args(&[0], &[1, 2], None, None)).is_err());
        assert!(plan_slices(&dims, &args(&[0], &[1], None, Some(&[0]))).is_err());
        assert!(plan_slices(&dims, &args(&[0, 0], &[1, 1], Some(&[1, -1]), None)).is_err());
        assert!(plan_slices(&dims, &args(&[0], &[1], Some(&[2]), None)).is_err());
    }
}
