//! Ops that pick elements along one dimension: `slice.Tensor`, `select.int`,
//! `index_select`, `narrow` and `flip`, plus `expand`. Each is a strided view of the
//! input; per-channel quantization picks the matching channels' parameters.

use anyhow::{Result, bail};

use crate::kernels::tensor::data::{gather, pick_along};
use crate::kernels::tensor::layout::{broadcast_map, result_count, signed, strides, view_map};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Quant, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.slice.Tensor" => slice,
        "aten.select.int" => select,
        "aten.index_select" => index_select,
        "aten.narrow" => narrow,
        "aten.flip" => flip,
        "aten.expand" | "aten.broadcast_to" => expand,
        _ => return None,
    })
}

/// `x`'s quantization once dimension `dim` holds the input's indices `picked`, or is
/// gone (`removed`, leaving the one index in `picked`).
fn picked_quant(x: &Tensor, dim: usize, picked: &[usize], removed: bool) -> Option<Quant> {
    match &x.quant {
        Some(Quant::PerChannel {
            scales,
            zero_points,
            axis,
        }) => {
            if *axis != dim {
                let axis = if removed && *axis > dim {
                    axis - 1
                } else {
                    *axis
                };
                return Some(Quant::PerChannel {
                    scales: scales.clone(),
                    zero_points: zero_points.clone(),
                    axis,
                });
            }
            let scales: Vec<f64> = picked
                .iter()
                .filter_map(|&i| scales.get(i).copied())
                .collect();
            let zero_points: Vec<i64> = picked
                .iter()
                .filter_map(|&i| zero_points.get(i).copied())
                .collect();
            match (removed, scales.as_slice(), zero_points.as_slice()) {
                (true, [scale], [zero_point]) => Some(Quant::PerTensor {
                    scale: *scale,
                    zero_point: *zero_point,
                }),
                _ => Some(Quant::PerChannel {
                    scales,
                    zero_points,
                    axis: dim,
                }),
            }
        }
        other => other.clone(),
    }
}

/// `x` with dimension `dim` replaced by the input positions `picked` (dropped when
/// `remove`, which needs exactly one position).
fn pick(x: &Tensor, dim: usize, picked: &[usize], remove: bool) -> Result<Tensor> {
    let size = x.shape.get(dim).copied().unwrap_or(0);
    if let Some(&bad) = picked.iter().find(|&&i| i >= size) {
        bail!("index {bad} is out of range for dimension {dim} of size {size}");
    }
    let mut shape = x.shape.clone();
    if remove {
        shape.remove(dim);
    } else {
        shape[dim] = picked.len();
    }
    let count = result_count(&shape)?;
    let outer: usize = x.shape[..dim].iter().product();
    let inner: usize = x.shape[dim + 1..].iter().product();
    if x.data.len() != outer * size * inner || count != outer * picked.len() * inner {
        bail!(
            "a tensor of shape {:?} holds {} elements",
            x.shape,
            x.data.len()
        );
    }
    let data = pick_along(&x.data, outer, size, inner, picked);
    let mut t = Tensor::new(shape, data)?;
    t.quant = picked_quant(x, dim, picked, remove);
    Ok(t)
}

/// `x` cut along `dim` into consecutive pieces of `sizes`, which must add up to the
/// dimension's size.
pub fn pieces(x: &Tensor, dim: usize, sizes: &[usize]) -> Result<Vec<Tensor>> {
    let size = x.shape.get(dim).copied().unwrap_or(0);
    let total = sizes
        .iter()
        .try_fold(0usize, |a, &s| a.checked_add(s))
        .filter(|&t| t == size);
    if total.is_none() {
        bail!("pieces of {sizes:?} do not add up to the size {size} of dimension {dim}");
    }
    let mut start = 0;
    let mut out = Vec::with_capacity(sizes.len());
    for &s in sizes {
        let picked: Vec<usize> = (start..start + s).collect();
        out.push(pick(x, dim, &picked, false)?);
        start += s;
    }
    Ok(out)
}

/// `slice.Tensor(self, dim, start?, end?, step)`: positions `start, start+step, …`
/// below `end`, both counted from the back when negative and clamped into the
/// dimension, as Python slices are.
fn slice(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    if x.rank() == 0 {
        bail!("slice of a 0-d tensor");
    }
    let d = args::dim(args::int(c, 1)?, x.rank())?;
    let size = x.shape[d] as i64;
    let start = args::opt_int(c, 2)?.unwrap_or(0);
    let end = args::opt_int(c, 3)?.unwrap_or(i64::MAX);
    let step = args::int(c, 4)?;
    if step <= 0 {
        bail!("slice step must be positive, but is {step}");
    }
    let clamp = |v: i64| (if v < 0 { v.saturating_add(size) } else { v }).clamp(0, size);
    let (start, end) = (clamp(start), clamp(end));
    let picked: Vec<usize> = (start..end.max(start))
        .step_by(usize::try_from(step).unwrap_or(usize::MAX))
        .map(|i| i as usize)
        .collect();
    args::ret(c, pick(x, d, &picked, false)?)
}

/// The position `index` (negative from the back) of a dimension of `size`.
fn position(index: i64, size: usize) -> Result<usize> {
    let n = size as i64;
    if index < -n || index >= n {
        bail!("index {index} is out of range for a dimension of size {size}");
    }
    Ok((if index < 0 { index + n } else { index }) as usize)
}

fn select(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    if x.rank() == 0 {
        bail!("select of a 0-d tensor");
    }
    let d = args::dim(args::int(c, 1)?, x.rank())?;
    let i = position(args::int(c, 2)?, x.shape[d])?;
    args::ret(c, pick(x, d, &[i], true)?)
}

/// `index_select(self, dim, index)`: the positions a 1-D (or 0-d) integer tensor
/// lists, which must lie in the dimension (torch takes no negative ones).
fn index_select(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let index = args::tensor(c, 2)?;
    if index.rank() > 1 || !index.data.dtype().is_integer() {
        bail!(
            "the index must be a 1-D integer tensor, but is {} of shape {:?}",
            index.dtype(),
            index.shape
        );
    }
    if x.rank() == 0 {
        bail!("index_select of a 0-d tensor");
    }
    let d = args::dim(args::int(c, 1)?, x.rank())?;
    let size = x.shape[d];
    let picked = index
        .data
        .to_i64()
        .into_iter()
        .map(|i| match usize::try_from(i) {
            Ok(p) if p < size => Ok(p),
            _ => bail!("index {i} is out of range for dimension {d} of size {size}"),
        })
        .collect::<Result<Vec<_>>>()?;
    args::ret(c, pick(x, d, &picked, false)?)
}

/// `narrow(self, dim, start, length)`.
fn narrow(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    if x.rank() == 0 {
        bail!("narrow of a 0-d tensor");
    }
    let d = args::dim(args::int(c, 1)?, x.rank())?;
    let size = x.shape[d];
    let start = if args::int(c, 2)? == size as i64 {
        size
    } else {
        position(args::int(c, 2)?, size)?
    };
    let length = args::size(args::int(c, 3)?, "length")?;
    if start.checked_add(length).is_none_or(|end| end > size) {
        bail!("narrow of {length} from {start} overruns a dimension of size {size}");
    }
    let picked: Vec<usize> = (start..start + length).collect();
    args::ret(c, pick(x, d, &picked, false)?)
}

/// The dimensions listed reversed.
fn flip(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let rank = x.rank();
    let mut flipped = vec![false; rank];
    for &d in args::ints(c, 1)? {
        let d = args::dim(d, rank)?;
        if rank > 0 && std::mem::replace(&mut flipped[d], true) {
            bail!("flip names dimension {d} twice");
        }
    }
    let mut view = signed(&strides(&x.shape))?;
    let mut offset = 0isize;
    for (d, &f) in flipped.iter().enumerate() {
        if f && x.shape[d] > 0 {
            offset += view[d] * (x.shape[d] as isize - 1);
            view[d] = -view[d];
        }
    }
    let data = gather(&x.data, &view_map(&x.shape, &view, offset)?);
    let mut t = Tensor::new(x.shape.clone(), data)?;
    t.quant = match &x.quant {
        Some(Quant::PerChannel {
            scales,
            zero_points,
            axis,
        }) if flipped.get(*axis) == Some(&true) => Some(Quant::PerChannel {
            scales: scales.iter().rev().copied().collect(),
            zero_points: zero_points.iter().rev().copied().collect(),
            axis: *axis,
        }),
        other => other.clone(),
    };
    args::ret(c, t)
}

/// `expand(self, size, implicit)`: size-1 dimensions stretched (and new ones in
/// front); -1 keeps a dimension.
fn expand(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let sizes = args::ints(c, 1)?;
    if sizes.len() < x.rank() {
        bail!("cannot expand shape {:?} to {sizes:?}", x.shape);
    }
    let lead = sizes.len() - x.rank();
    let shape = sizes
        .iter()
        .enumerate()
        .map(|(i, &s)| match (s, i.checked_sub(lead)) {
            (-1, Some(j)) => Ok(x.shape[j]),
            (s, _) => args::size(s, "an expanded size"),
        })
        .collect::<Result<Vec<_>>>()?;
    result_count(&shape)?;
    let data = match broadcast_map(&x.shape, &shape)? {
        Some(map) => gather(&x.data, &map),
        None => x.data.clone(),
    };
    let mut t = Tensor::new(shape, data)?;
    t.quant = super::shape::keep_quant(x, |a| Some(a + lead))?;
    args::ret(c, t)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::value::Value;
    use crate::kernels::tensor::{Data, Quant, Tensor};
    use crate::kernels::testing::*;

    fn iota(shape: &[usize]) -> Value {
        let n: usize = shape.iter().product();
        f32s(shape, &(0..n).map(|i| i as f32).collect::<Vec<_>>())
    }

    fn slice(x: Value, dim: i64, start: Value, end: Value, step: i64) -> anyhow::Result<Vec<f32>> {
        let args = [x, Value::Int(dim), start, end, Value::Int(step)];
        run1("aten.slice.Tensor", &args, unknown()).map(|t| f32_values(&t))
    }

    #[test]
    fn slices_clamp_and_count_from_the_back() {
        let x = iota(&[6]);
        assert_eq!(
            slice(x.clone(), 0, Value::Int(1), Value::Int(5), 2).unwrap(),
            vec![1.0, 3.0]
        );
        assert_eq!(
            slice(x.clone(), 0, Value::Int(-2), Value::Int(i64::MAX), 1).unwrap(),
            vec![4.0, 5.0]
        );
        assert_eq!(
            slice(x.clone(), 0, Value::None, Value::Int(-4), 1).unwrap(),
            vec![0.0, 1.0]
        );
        assert!(
            slice(x.clone(), 0, Value::Int(4), Value::Int(2), 1)
                .unwrap()
                .is_empty()
        );
        assert!(slice(x, 0, Value::Int(0), Value::Int(2), 0).is_err());
        let rows = slice(iota(&[2, 3]), 1, Value::Int(1), Value::Int(3), 1).unwrap();
        assert_eq!(rows, vec![1.0, 2.0, 4.0, 5.0]);
    }

    #[test]
    fn select_and_index_select() {
        let args = [iota(&[2, 3]), Value::Int(1), Value::Int(-1)];
        let t = run1("aten.select.int", &args, unknown()).unwrap();
        assert_eq!((t.shape.clone(), f32_values(&t)), (vec![2], vec![2.0, 5.0]));
        let index = tensor(&[3], Data::I64(vec![2, 0, 2]));
        let args = [iota(&[2, 3]), Value::Int(1), index];
        let t = run1("aten.index_select", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![2.0, 0.0, 2.0, 5.0, 3.0, 5.0]);
        let bad = tensor(&[1], Data::I64(vec![-1]));
        assert!(
            run(
                "aten.index_select",
                &[iota(&[3]), Value::Int(0), bad],
                &[unknown()]
            )
            .is_err()
        );
        let args = [iota(&[2]), Value::Int(0), Value::Int(2)];
        assert!(run("aten.select.int", &args, &[unknown()]).is_err());
    }

    #[test]
    fn flip_narrow_expand() {
        let t = run1("aten.flip", &[iota(&[2, 2]), ints(&[0, 1])], unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![3.0, 2.0, 1.0, 0.0]);
        let args = [iota(&[5]), Value::Int(0), Value::Int(1), Value::Int(3)];
        let t = run1("aten.narrow", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![1.0, 2.0, 3.0]);
        let args = [iota(&[2, 1]), ints(&[2, -1, 3]), Value::Bool(false)];
        let t = run1("aten.expand", &args, unknown()).unwrap();
        assert_eq!(t.shape, vec![2, 2, 3]);
        assert_eq!(f32_values(&t)[..6], [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn picking_channels_picks_their_parameters() {
        let mut q = Tensor::new(vec![3, 1], Data::U8(vec![1, 2, 3])).unwrap();
        q.quant = Some(Quant::PerChannel {
            scales: vec![1.0, 2.0, 3.0],
            zero_points: vec![0, 1, 2],
            axis: 0,
        });
        let q = Value::tensor(q);
        let args = [q.clone(), Value::Int(0), Value::Int(1)];
        let t = run1("aten.select.int", &args, unknown()).unwrap();
        assert_eq!(
            t.quant,
            Some(Quant::PerTensor {
                scale: 2.0,
                zero_point: 1
            })
        );
        let args = [q, Value::Int(0), Value::Int(1), Value::None, Value::Int(1)];
        let t = run1("aten.slice.Tensor", &args, unknown()).unwrap();
        assert_eq!(t.data, Data::U8(vec![2, 3]));
        assert!(
            matches!(&t.quant, Some(Quant::PerChannel { scales, .. }) if scales == &[2.0, 3.0])
        );
    }
}
