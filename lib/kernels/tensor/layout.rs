//! Row-major layout arithmetic: strides, and the flat source index of every element
//! of a strided view. Broadcasting, permutes, slices, flips and selects are all views
//! (a stride per output dimension plus an offset), so one function serves them all.

use anyhow::{Result, bail};

pub use crate::kernels::tensor::{MAX_ELEMENTS, bounded_count as result_count};

/// Row-major strides of `shape`, in elements.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1].saturating_mul(shape[i + 1]);
    }
    s
}

/// For every element of an `out`-shaped view, in row-major order, the flat index
/// `offset + Σ coordinate·stride` it reads. The caller picks strides and offset that
/// stay inside the source; `out` and `strides` have the same length.
pub fn view_map(out: &[usize], strides: &[isize], offset: isize) -> Result<Vec<usize>> {
    let n = result_count(out)?;
    let mut map = Vec::with_capacity(n);
    if n == 0 {
        return Ok(map);
    }
    let rank = out.len();
    let mut coord = vec![0usize; rank];
    let mut at = offset;
    for _ in 0..n {
        map.push(at as usize);
        // Advance the odometer: the last dimension fastest.
        for d in (0..rank).rev() {
            coord[d] += 1;
            at += strides[d];
            if coord[d] < out[d] {
                break;
            }
            at -= strides[d] * out[d] as isize;
            coord[d] = 0;
        }
    }
    Ok(map)
}

/// The offset, by `steps`, of each index of `shape` in row-major order.
pub fn step_offsets(shape: &[usize], steps: &[usize]) -> Vec<usize> {
    let mut out = vec![0usize];
    for (&size, &step) in shape.iter().zip(steps) {
        out = out
            .iter()
            .flat_map(|&o| (0..size).map(move |i| o + i * step))
            .collect();
    }
    out
}

/// Appends, for every combination of one entry from each of `lists` (row-major: the
/// last list fastest), the offset `Σ entry·stride`. Nothing when a list is empty.
pub fn cartesian_offsets(lists: &[&[usize]], strides: &[usize], out: &mut Vec<usize>) {
    if lists.iter().any(|l| l.is_empty()) {
        return;
    }
    let n = lists.len();
    let mut pick = vec![0usize; n];
    loop {
        out.push((0..n).map(|i| lists[i][pick[i]] * strides[i]).sum());
        let mut i = n;
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            pick[i] += 1;
            if pick[i] < lists[i].len() {
                break;
            }
            pick[i] = 0;
        }
    }
}

/// Strides as `isize`, refusing sizes beyond it.
pub fn signed(strides: &[usize]) -> Result<Vec<isize>> {
    strides
        .iter()
        .map(|&s| isize::try_from(s).map_err(|_| anyhow::anyhow!("stride {s} is too large")))
        .collect()
}

/// The shape both operands broadcast to, numpy-style: dimensions line up from the
/// back, and a size of 1 stretches to the other's size.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for (i, o) in out.iter_mut().enumerate() {
        let x = dim_from_back(a, rank - i);
        let y = dim_from_back(b, rank - i);
        *o = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            (x, y) => bail!("shapes {a:?} and {b:?} do not broadcast: sizes {x} and {y}"),
        };
    }
    Ok(out)
}

/// Size `k`-th from the back (1-based), 1 beyond the rank.
fn dim_from_back(shape: &[usize], k: usize) -> usize {
    shape.len().checked_sub(k).map_or(1, |i| shape[i])
}

/// For every element of `out` (which `input` broadcasts to), the flat index of the
/// `input` element it reads; `None` when `input` already has shape `out`.
pub fn broadcast_map(input: &[usize], out: &[usize]) -> Result<Option<Vec<usize>>> {
    if input == out {
        return Ok(None);
    }
    if input.len() > out.len() {
        bail!("shape {input:?} does not broadcast to {out:?}");
    }
    let lead = out.len() - input.len();
    let in_strides = signed(&strides(input))?;
    let mut view = vec![0isize; out.len()];
    for (i, &size) in input.iter().enumerate() {
        if size == out[lead + i] {
            view[lead + i] = in_strides[i];
        } else if size != 1 {
            bail!("shape {input:?} does not broadcast to {out:?}");
        }
    }
    Ok(Some(view_map(out, &view, 0)?))
}

/// For each dimension of `out`, the step in `input`'s row-major values that one step
/// along it takes when `input` broadcasts to `out`: 0 along a broadcast dimension.
pub fn broadcast_strides(input: &[usize], out: &[usize]) -> Result<Vec<usize>> {
    if input.len() > out.len() {
        bail!("shape {input:?} does not broadcast to {out:?}");
    }
    let lead = out.len() - input.len();
    let in_strides = strides(input);
    let mut steps = vec![0usize; out.len()];
    for (i, &size) in input.iter().enumerate() {
        if size == out[lead + i] {
            steps[lead + i] = in_strides[i];
        } else if size != 1 {
            bail!("shape {input:?} does not broadcast to {out:?}");
        }
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_strides_are_zero_along_broadcast_dimensions() {
        assert_eq!(
            broadcast_strides(&[3, 1], &[2, 3, 4]).unwrap(),
            vec![0, 1, 0]
        );
        assert_eq!(broadcast_strides(&[], &[2]).unwrap(), vec![0]);
        assert_eq!(broadcast_strides(&[2, 3], &[2, 3]).unwrap(), vec![3, 1]);
        assert!(broadcast_strides(&[2], &[3]).is_err());
        assert!(broadcast_strides(&[1, 2], &[2]).is_err());
    }

    #[test]
    fn strides_are_row_major() {
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(strides(&[]), Vec::<usize>::new());
    }

    #[test]
    fn views_walk_in_row_major_order() {
        // The transpose of a 2x3 matrix.
        assert_eq!(
            view_map(&[3, 2], &[1, 3], 0).unwrap(),
            vec![0, 3, 1, 4, 2, 5]
        );
        // A reversed vector.
        assert_eq!(view_map(&[3], &[-1], 2).unwrap(), vec![2, 1, 0]);
        assert_eq!(view_map(&[], &[], 5).unwrap(), vec![5]);
        assert!(view_map(&[2, 0], &[1, 1], 0).unwrap().is_empty());
        assert!(view_map(&[1 << 40, 1 << 40], &[0, 0], 0).is_err());
        assert!(result_count(&[0, 1 << 40, 1 << 40]).is_err());
        assert!(result_count(&[MAX_ELEMENTS + 1]).is_err());
        assert_eq!(result_count(&[0, 1 << 20]).unwrap(), 0);
    }

    #[test]
    fn combinations_in_row_major_order() {
        let mut out = Vec::new();
        cartesian_offsets(&[&[0, 1], &[0, 2]], &[10, 1], &mut out);
        assert_eq!(out, vec![0, 2, 10, 12]);
        cartesian_offsets(&[&[0, 1], &[]], &[10, 1], &mut out);
        assert_eq!(out.len(), 4);
        cartesian_offsets(&[], &[], &mut out);
        assert_eq!(out, vec![0, 2, 10, 12, 0]);
    }

    #[test]
    fn shapes_broadcast_numpy_style() {
        assert_eq!(
            broadcast_shapes(&[2, 1, 3], &[4, 1]).unwrap(),
            vec![2, 4, 3]
        );
        assert_eq!(broadcast_shapes(&[], &[5]).unwrap(), vec![5]);
        assert!(broadcast_shapes(&[2], &[3]).is_err());
        let map = broadcast_map(&[3], &[2, 3]).unwrap().unwrap();
        assert_eq!(map, vec![0, 1, 2, 0, 1, 2]);
        let map = broadcast_map(&[2, 1], &[2, 2]).unwrap().unwrap();
        assert_eq!(map, vec![0, 0, 1, 1]);
        assert_eq!(broadcast_map(&[2], &[2]).unwrap(), None);
        assert!(broadcast_map(&[3], &[2]).is_err());
    }
}
