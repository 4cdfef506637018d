//! Padding: `constant_pad_nd` (negative pads crop) and `pad` with the constant,
//! reflect, replicate and circular modes. torch lists pads from the last dimension
//! backwards, `[begin_last, end_last, begin_last-1, end_last-1, ...]`.

use anyhow::{Result, bail};

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::data::{from_f64, gather_or_fill, place_runs};
use crate::kernels::tensor::layout::{result_count, strides};
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.constant_pad_nd" => constant_pad_nd,
        "aten.pad" => pad,
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Constant,
    Reflect,
    Replicate,
    Circular,
}

/// Per-dimension (begin, end) from torch's pad list for a tensor of rank `rank`.
fn per_dim(pads: &[i64], rank: usize) -> Result<Vec<(i64, i64)>> {
    if !pads.len().is_multiple_of(2) || pads.len() / 2 > rank {
        bail!(
            "{} pads for a tensor of rank {rank}: expected pairs for at most {rank} dimensions",
            pads.len()
        );
    }
    let mut out = vec![(0, 0); rank];
    for (k, pair) in pads.chunks_exact(2).enumerate() {
        out[rank - 1 - k] = (pair[0], pair[1]);
    }
    Ok(out)
}

/// The size of a dimension of `size` padded by `begin` and `end`, checked against
/// what the mode allows.
fn padded_size(size: usize, begin: i64, end: i64, mode: Mode) -> Result<usize> {
    let n = i64::try_from(size)?;
    let out = n
        .checked_add(begin)
        .and_then(|v| v.checked_add(end))
        .filter(|&v| v >= 0)
        .ok_or_else(|| anyhow::anyhow!("pads {begin} and {end} leave size {size} negative"))?;
    let fits = match mode {
        Mode::Constant => true,
        Mode::Reflect => begin < n && end < n,
        Mode::Replicate => n > 0,
        Mode::Circular => begin <= n && end <= n,
    };
    let padding = begin != 0 || end != 0;
    if (padding && !fits) || (mode != Mode::Constant && (begin < 0 || end < 0)) {
        bail!("{mode:?} padding of {begin} and {end} does not fit a dimension of size {size}");
    }
    Ok(usize::try_from(out)?)
}

/// For each of the `out` positions of a padded dimension, the input position it
/// copies, or `None` for the fill value (`padded_size` checked the arguments).
fn positions(size: usize, begin: i64, out: usize, mode: Mode) -> Vec<Option<usize>> {
    // i128: a crop by i64::MIN may meet a pad by i64::MAX.
    let n = size as i128;
    (0..out as i128)
        .map(|o| {
            let i = o - begin as i128;
            let i = match mode {
                _ if (0..n).contains(&i) => i,
                Mode::Constant => return None,
                Mode::Reflect if i < 0 => -i,
                Mode::Reflect => 2 * (n - 1) - i,
                Mode::Replicate => i.clamp(0, n - 1),
                Mode::Circular => i.rem_euclid(n),
            };
            Some(i as usize)
        })
        .collect()
}

/// `x` padded as `pads` says, with `fill` (a one-element storage of `x`'s type)
/// where the mode fills.
/// The input shape, pads and output shape with the trailing dimensions that have no
/// pads merged into the last one that has (its pads scaled by their size): the same
/// elements in the same places. Unchanged when every dimension is padded or none.
type Merged = (Vec<usize>, Vec<(i64, i64)>, Vec<usize>);
fn unpadded_tail_merged(shape: &[usize], pairs: &[(i64, i64)], out: &[usize]) -> Merged {
    let tail = pairs.iter().rev().take_while(|&&p| p == (0, 0)).count();
    let keep = shape.len() - tail;
    if tail == 0 || keep == 0 {
        return (shape.to_vec(), pairs.to_vec(), out.to_vec());
    }
    let inner: usize = shape[keep..].iter().product();
    let mut in_shape = shape[..keep].to_vec();
    let mut merged = pairs[..keep].to_vec();
    let mut out_shape = out[..keep].to_vec();
    in_shape[keep - 1] *= inner;
    out_shape[keep - 1] *= inner;
    let (b, e) = merged[keep - 1];
    merged[keep - 1] = (b * inner as i64, e * inner as i64);
    (in_shape, merged, out_shape)
}

fn padded(x: &Tensor, pads: &[i64], mode: Mode, fill: f64) -> Result<Tensor> {
    if x.quant.is_some() {
        bail!("padding a quantized tensor is not supported; pad its values");
    }
    let rank = x.rank();
    let pairs = per_dim(pads, rank)?;
    let shape = x
        .shape
        .iter()
        .zip(&pairs)
        .map(|(&s, &(b, e))| padded_size(s, b, e, mode))
        .collect::<Result<Vec<_>>>()?;
    let n = result_count(&shape)?;
    if n == 0 {
        return Tensor::new(shape, gather_or_fill(&x.data, &[], &x.data));
    }
    if rank == 0 {
        return Ok(x.clone());
    }
    if mode == Mode::Constant && pairs.iter().all(|&(b, e)| b >= 0 && e >= 0) {
        // Every input row lands whole: fill, then copy the rows into place. Trailing
        // dimensions without pads join the row (an NHWC pad of H and W copies rows of
        // W·C, not of C).
        let (in_shape, pairs, out_shape) = unpadded_tail_merged(&x.shape, &pairs, &shape);
        let out_strides = strides(&out_shape);
        let last = in_shape.len() - 1;
        let row = in_shape[last];
        let mut runs = Vec::with_capacity(x.data.len() / row.max(1));
        let mut coord = vec![0usize; last];
        for r in 0..x.data.len().checked_div(row).unwrap_or(0) {
            let dst = (0..last)
                .map(|d| (coord[d] + pairs[d].0 as usize) * out_strides[d])
                .sum::<usize>()
                + pairs[last].0 as usize;
            runs.push((r * row, dst));
            for d in (0..last).rev() {
                coord[d] += 1;
                if coord[d] < in_shape[d] {
                    break;
                }
                coord[d] = 0;
            }
        }
        let fill = from_f64(x.data.dtype(), &[fill]);
        return Tensor::new(shape, place_runs(&x.data, &fill, n, &runs, row));
    }
    let maps: Vec<Vec<Option<usize>>> = (0..rank)
        .map(|d| positions(x.shape[d], pairs[d].0, shape[d], mode))
        .collect();
    let in_strides = strides(&x.shape);
    // Row by row along the last dimension: the outer coordinates give the row's start
    // (or the fill), and the last dimension's map each element's offset.
    let last = rank - 1;
    let mut indices = Vec::with_capacity(n);
    let mut coord = vec![0usize; last];
    for _ in 0..n / shape[last] {
        let mut at = Some(0usize);
        for (d, &c) in coord.iter().enumerate() {
            at = match (at, maps[d][c]) {
                (Some(a), Some(p)) => Some(a + p * in_strides[d]),
                _ => None,
            };
        }
        match at {
            Some(a) => indices.extend(maps[last].iter().map(|p| p.map(|p| a + p))),
            None => indices.extend(std::iter::repeat_n(None, shape[last])),
        }
        for d in (0..last).rev() {
            coord[d] += 1;
            if coord[d] < shape[d] {
                break;
            }
            coord[d] = 0;
        }
    }
    let fill = from_f64(x.data.dtype(), &[fill]);
    Tensor::new(shape, gather_or_fill(&x.data, &indices, &fill))
}

/// `constant_pad_nd(self, pad, value)`.
pub(crate) fn constant_pad_nd(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let value = args::opt_float(c, 2)?.unwrap_or(0.0);
    args::ret(c, padded(x, args::ints(c, 1)?, Mode::Constant, value)?)
}

/// `pad(self, pad, mode, value?)`.
fn pad(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let mode = match args::string(c, 2)? {
        "constant" => Mode::Constant,
        "reflect" => Mode::Reflect,
        "replicate" => Mode::Replicate,
        "circular" => Mode::Circular,
        other => bail!("pad mode '{other}' is not one of constant, reflect, replicate, circular"),
    };
    let value = args::opt_float(c, 3)?.unwrap_or(0.0);
    args::ret(c, padded(x, args::ints(c, 1)?, mode, value)?)
}

#[cfg(test)]
mod tests {
    use super::unpadded_tail_merged;
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    fn pad(mode: &str, x: Value, pads: &[i64]) -> anyhow::Result<Vec<f32>> {
        let args = [x, ints(pads), Value::Str(mode.into()), Value::None];
        run1("aten.pad", &args, unknown()).map(|t| f32_values(&t))
    }

    #[test]
    fn constant_padding_pads_the_last_dimension_first() {
        let x = f32s(&[1, 2], &[1.0, 2.0]);
        let args = [x, ints(&[1, 0, 0, 1]), Value::Float(9.0)];
        let t = run1("aten.constant_pad_nd", &args, unknown()).unwrap();
        assert_eq!(t.shape, vec![2, 3]);
        assert_eq!(f32_values(&t), vec![9.0, 1.0, 2.0, 9.0, 9.0, 9.0]);
    }

    #[test]
    fn unpadded_trailing_dimensions_join_the_row() {
        // NHWC [1, 2, 2, 3] padded by one column on each side of W: rows of W·C = 6
        // with 3 elements of padding each side.
        let (x, p, o) = unpadded_tail_merged(
            &[1, 2, 2, 3],
            &[(0, 0), (0, 0), (1, 1), (0, 0)],
            &[1, 2, 4, 3],
        );
        assert_eq!(
            (x, p, o),
            (vec![1, 2, 6], vec![(0, 0), (0, 0), (3, 3)], vec![1, 2, 12])
        );
        let nhwc = i32s(&[1, 2, 2, 3], &(1..=12).collect::<Vec<_>>());
        let t = run1(
            "aten.constant_pad_nd",
            &[nhwc, ints(&[0, 0, 1, 1]), Value::Float(0.0)],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.shape, vec![1, 2, 4, 3]);
        let mut expected = vec![0; 3];
        expected.extend(1..=6);
        expected.extend([0; 6]);
        expected.extend(7..=12);
        expected.extend([0; 3]);
        assert_eq!(t.data, Data::I32(expected));
    }

    #[test]
    fn negative_pads_crop() {
        let x = f32s(&[4], &[1.0, 2.0, 3.0, 4.0]);
        let t = run1(
            "aten.constant_pad_nd",
            &[x, ints(&[-1, -2]), Value::Int(0)],
            unknown(),
        )
        .unwrap();
        assert_eq!(f32_values(&t), vec![2.0]);
        let x = f32s(&[1], &[1.0]);
        assert!(
            run(
                "aten.constant_pad_nd",
                &[x, ints(&[-1, -1]), Value::Int(0)],
                &[unknown()]
            )
            .is_err()
        );
    }

    #[test]
    fn integer_tensors_take_an_integer_fill() {
        let x = i32s(&[1], &[5]);
        let t = run1(
            "aten.constant_pad_nd",
            &[x, ints(&[1, 1]), Value::Float(0.0)],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.data, Data::I32(vec![0, 5, 0]));
    }

    #[test]
    fn reflect_replicate_circular() {
        let x = f32s(&[1, 3], &[1.0, 2.0, 3.0]);
        assert_eq!(
            pad("reflect", x.clone(), &[2, 1]).unwrap(),
            vec![3.0, 2.0, 1.0, 2.0, 3.0, 2.0]
        );
        assert_eq!(
            pad("replicate", x.clone(), &[2, 1]).unwrap(),
            vec![1.0, 1.0, 1.0, 2.0, 3.0, 3.0]
        );
        assert_eq!(
            pad("circular", x.clone(), &[2, 1]).unwrap(),
            vec![2.0, 3.0, 1.0, 2.0, 3.0, 1.0]
        );
        assert!(pad("reflect", x.clone(), &[3, 0]).is_err());
        assert!(pad("wrap", x.clone(), &[1, 0]).is_err());
        assert!(pad("constant", x, &[1, 0, 0, 0, 0, 0]).is_err());
    }
}
