//! Ops that rearrange dimensions without changing elements: reshape and its special
//! cases (flatten, unflatten, squeeze, unsqueeze), permute and transpose, plus the
//! shape as a tensor, `size.int`, and `tensor_static_info_cast`. Quantized tensors
//! keep their parameters; a per-channel axis follows its dimension, and an op that
//! splits or merges that dimension is refused.

use anyhow::{Context as _, Result, bail};

use crate::kernels::tensor::data::{gather, gather_runs, transpose_matrices};
use crate::kernels::tensor::layout::{signed, strides, view_map};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor, checked_count};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.reshape" | "aten.view" | "aten._unsafe_view" => reshape,
        "aten.flatten.using_ints" => flatten,
        "aten.unflatten.int" => unflatten,
        "aten.squeeze" => squeeze_all,
        "aten.squeeze.dim" => squeeze_dim,
        "aten.unsqueeze" => unsqueeze,
        "aten.permute" => permute,
        "aten.transpose.int" => transpose,
        "aten._shape_as_tensor" => shape_as_tensor,
        "aten.size.int" => size_int,
        "tensor_static_info_cast" | "aten.contiguous" | "aten.clone" | "aten.detach" => same,
        _ => return None,
    })
}

/// `x`'s quantization after an op that maps its dimension `axis` to `new_axis(axis)`,
/// or that removes it when `None`.
pub fn keep_quant(
    x: &Tensor,
    new_axis: impl FnOnce(usize) -> Option<usize>,
) -> Result<Option<Quant>> {
    Ok(match &x.quant {
        Some(Quant::PerChannel {
            scales,
            zero_points,
            axis,
        }) => {
            let Some(a) = new_axis(*axis) else {
                bail!("the op does not keep dimension {axis}, the per-channel quantization axis");
            };
            Some(Quant::PerChannel {
                scales: scales.clone(),
                zero_points: zero_points.clone(),
                axis: a,
            })
        }
        other => other.clone(),
    })
}

/// Where dimension `axis` of `from` is in `to`, when both shapes hold the same
/// elements: a dimension of the same size with as many elements before it.
fn reshaped_axis(from: &[usize], to: &[usize], axis: usize) -> Option<usize> {
    let outer: usize = from.get(..axis)?.iter().product();
    let size = *from.get(axis)?;
    let mut before = 1usize;
    for (j, &d) in to.iter().enumerate() {
        if before == outer && d == size {
            return Some(j);
        }
        before = before.checked_mul(d)?;
    }
    None
}

/// `x` with shape `shape` (same element count), quantization carried along.
fn reshaped(x: &Tensor, shape: Vec<usize>) -> Result<Tensor> {
    let quant = keep_quant(x, |a| reshaped_axis(&x.shape, &shape, a))?;
    let mut t = Tensor::new(shape, x.data.clone())?;
    t.quant = quant;
    Ok(t)
}

/// torch's view sizes: at most one -1, inferred from the element count.
fn resolve_sizes(sizes: &[i64], count: usize) -> Result<Vec<usize>> {
    let mut infer = None;
    let mut out = Vec::with_capacity(sizes.len());
    for (i, &s) in sizes.iter().enumerate() {
        if s == -1 {
            if infer.replace(i).is_some() {
                bail!("sizes {sizes:?} have more than one -1");
            }
            out.push(1);
        } else {
            out.push(args::size(s, "a size")?);
        }
    }
    let known = checked_count(&out)?;
    if let Some(i) = infer {
        if known == 0 || !count.is_multiple_of(known) {
            bail!("{count} elements cannot be viewed as {sizes:?}");
        }
        out[i] = count / known;
    } else if known != count {
        bail!("{count} elements cannot be viewed as {sizes:?}");
    }
    Ok(out)
}

fn reshape(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let shape = resolve_sizes(args::ints(c, 1)?, x.len())?;
    args::ret(c, reshaped(x, shape)?)
}

/// Dimensions `start..=end` merged into one.
fn flatten(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let rank = x.rank();
    let start = args::dim(args::int(c, 1)?, rank)?;
    let end = args::dim(args::int(c, 2)?, rank)?;
    if start > end {
        bail!("flatten from dimension {start} to {end}: start is after end");
    }
    if rank == 0 {
        return args::ret(c, reshaped(x, vec![1])?);
    }
    let mut shape = x.shape[..start].to_vec();
    shape.push(checked_count(&x.shape[start..=end])?);
    shape.extend_from_slice(&x.shape[end + 1..]);
    args::ret(c, reshaped(x, shape)?)
}

/// Dimension `dim` split into `sizes` (one of which may be -1).
fn unflatten(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let d = args::dim(args::int(c, 1)?, x.rank())?;
    let size = x.shape.get(d).copied().unwrap_or(1);
    let parts = resolve_sizes(args::ints(c, 2)?, size)?;
    let mut shape = x.shape[..d.min(x.rank())].to_vec();
    shape.extend(parts);
    shape.extend_from_slice(x.shape.get(d + 1..).unwrap_or(&[]));
    args::ret(c, reshaped(x, shape)?)
}

/// Every dimension of size 1 removed.
fn squeeze_all(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let shape = x.shape.iter().copied().filter(|&d| d != 1).collect();
    args::ret(c, reshaped(x, shape)?)
}

/// Dimension `dim` removed if its size is 1; otherwise the tensor is unchanged.
fn squeeze_dim(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let d = args::dim(args::int(c, 1)?, x.rank())?;
    let mut shape = x.shape.clone();
    if shape.get(d) == Some(&1) {
        shape.remove(d);
    }
    args::ret(c, reshaped(x, shape)?)
}

/// A dimension of size 1 inserted at `dim`, which counts in the result's rank.
fn unsqueeze(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let d = args::dim(args::int(c, 1)?, x.rank() + 1)?;
    let mut shape = x.shape.clone();
    shape.insert(d, 1);
    args::ret(c, reshaped(x, shape)?)
}

/// Result dimension `i` is input dimension `perm[i]`.
fn permuted(x: &Tensor, perm: &[usize]) -> Result<Tensor> {
    let rank = x.rank();
    let mut seen = vec![false; rank];
    for &p in perm {
        if p >= rank || std::mem::replace(&mut seen[p], true) {
            bail!("{perm:?} is not a permutation of {rank} dimensions");
        }
    }
    if perm.len() != rank {
        bail!("{perm:?} is not a permutation of {rank} dimensions");
    }
    let shape: Vec<usize> = perm.iter().map(|&p| x.shape[p]).collect();
    // A permutation that, with its size-1 dimensions dropped and the input dimensions
    // it keeps adjacent merged, swaps the last two (the transposes of matmul weights,
    // k's [B, S, H, D] -> [B, H, D, S] in attention, NHWC <-> NCHW) takes the tiled
    // copy of a batch of matrices; any other, the general gather.
    let tiled = match batched_transpose(&x.shape, perm) {
        Some(BatchedTranspose::Copy) => Some(x.data.clone()),
        Some(BatchedTranspose::Matrices { batch, rows, cols }) => {
            transpose_matrices(&x.data, batch, rows, cols)
        }
        None => None,
    };
    let data = match tiled {
        Some(data) => data,
        None => {
            let in_strides = signed(&strides(&x.shape))?;
            let view: Vec<isize> = perm.iter().map(|&p| in_strides[p]).collect();
            // The trailing output dimensions that stay contiguous in the input (heads
            // moved past tokens keep each head's features together) are copied as
            // runs; the rest index element by element.
            let mut run = 1usize;
            let mut kept = rank;
            while kept > 0 && view[kept - 1] == run as isize {
                run *= shape[kept - 1];
                kept -= 1;
            }
            if run > 1 && kept < rank {
                let starts = view_map(&shape[..kept], &view[..kept], 0)?;
                gather_runs(&x.data, &starts, run)
            } else {
                gather(&x.data, &view_map(&shape, &view, 0)?)
            }
        }
    };
    let quant = keep_quant(x, |a| perm.iter().position(|&p| p == a))?;
    let mut t = Tensor::new(shape, data)?;
    t.quant = quant;
    Ok(t)
}

/// A permutation as a copy of batched matrices.
#[derive(Debug, PartialEq)]
enum BatchedTranspose {
    /// The elements stay in order.
    Copy,
    /// `batch` matrices of `rows × cols`, each transposed.
    Matrices {
        batch: usize,
        rows: usize,
        cols: usize,
    },
}

/// `perm` of `shape` as a batch of transposed matrices, when it is one: size-1
/// dimensions dropped, each run of input dimensions that the output keeps adjacent
/// and in order merged into one, what is left must be the identity or swap its last
/// two dimensions.
fn batched_transpose(shape: &[usize], perm: &[usize]) -> Option<BatchedTranspose> {
    // Runs of input dimensions, in output order: (first, last).
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &p in perm.iter().filter(|&&p| shape[p] != 1) {
        match runs.last_mut() {
            Some(run) if (run.1 + 1..p).all(|d| shape[d] == 1) && p > run.1 => run.1 = p,
            _ => runs.push((p, p)),
        }
    }
    let size = |&(first, last): &(usize, usize)| shape[first..=last].iter().product::<usize>();
    let in_order = runs.windows(2).all(|w| w[0].0 < w[1].0);
    match runs.len() {
        _ if in_order => Some(BatchedTranspose::Copy),
        n if runs[n - 1].0 < runs[n - 2].0
            && runs[..n - 2].windows(2).all(|w| w[0].0 < w[1].0)
            && runs[..n - 2].last().is_none_or(|r| r.0 < runs[n - 1].0) =>
        {
            Some(BatchedTranspose::Matrices {
                batch: runs[..n - 2].iter().map(size).product(),
                rows: size(&runs[n - 1]),
                cols: size(&runs[n - 2]),
            })
        }
        _ => None,
    }
}

fn permute(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let perm = args::ints(c, 1)?
        .iter()
        .map(|&p| args::dim(p, x.rank()))
        .collect::<Result<Vec<_>>>()
        .context("permute")?;
    args::ret(c, permuted(x, &perm)?)
}

fn transpose(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let rank = x.rank();
    let a = args::dim(args::int(c, 1)?, rank)?;
    let b = args::dim(args::int(c, 2)?, rank)?;
    if rank == 0 {
        return args::ret(c, reshaped(x, vec![])?);
    }
    let mut perm: Vec<usize> = (0..rank).collect();
    perm.swap(a, b);
    args::ret(c, permuted(x, &perm)?)
}

/// The shape as a 1-D i64 tensor.
fn shape_as_tensor(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let dims = x
        .shape
        .iter()
        .map(|&d| i64::try_from(d).context("a dimension beyond i64"))
        .collect::<Result<Vec<_>>>()?;
    args::ret(c, Tensor::new(vec![dims.len()], Data::I64(dims))?)
}

/// `size.int(self, dim)`: one dimension, as a `!torch.int`.
fn size_int(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let d = args::dim(args::int(c, 1)?, x.rank())?;
    let size = x.shape.get(d).copied().unwrap_or(1);
    Ok(vec![Value::Int(
        i64::try_from(size).context("a dimension beyond i64")?,
    )])
}

/// Ops that only retype (or copy) a value: the tensor itself, checked against the
/// declared type.
fn same(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    if let Some(ty) = args::declared(c, 0) {
        args::check_declared(ty, x)?;
    }
    Ok(vec![c.arg(0)?.clone()])
}

#[cfg(test)]
mod tests {
    use crate::kernels::ResultType;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::tensor_type::TensorType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::tensor::{Data, Quant, Tensor};
    use crate::kernels::testing::*;

    fn iota(shape: &[usize]) -> Value {
        let n: usize = shape.iter().product();
        f32s(shape, &(0..n).map(|i| i as f32).collect::<Vec<_>>())
    }

    #[test]
    fn reshape_infers_one_size() {
        let t = run1("aten.reshape", &[iota(&[2, 3]), ints(&[-1, 2])], unknown()).unwrap();
        assert_eq!(t.shape, vec![3, 2]);
        assert!(
            run(
                "aten.reshape",
                &[iota(&[2, 3]), ints(&[4, -1])],
                &[unknown()]
            )
            .is_err()
        );
        assert!(
            run(
                "aten.reshape",
                &[iota(&[2, 3]), ints(&[-1, -1])],
                &[unknown()]
            )
            .is_err()
        );
        assert!(run("aten.reshape", &[iota(&[0]), ints(&[0, -1])], &[unknown()]).is_err());
    }

    #[test]
    fn declared_shapes_are_checked() {
        let declared = ResultType::Tensor(TensorType::known(DType::F32, &[2, 3]));
        let e = run("aten.reshape", &[iota(&[2, 3]), ints(&[3, 2])], &[declared]).unwrap_err();
        assert!(e.to_string().contains("declares"), "{e}");
    }

    #[test]
    fn flatten_unflatten_squeeze_unsqueeze() {
        let args = [iota(&[2, 3, 4, 5]), Value::Int(1), Value::Int(-2)];
        let t = run1("aten.flatten.using_ints", &args, unknown()).unwrap();
        assert_eq!(t.shape, vec![2, 12, 5]);
        let args = [Value::Tensor(t), Value::Int(1), ints(&[3, -1])];
        let t = run1("aten.unflatten.int", &args, unknown()).unwrap();
        assert_eq!(t.shape, vec![2, 3, 4, 5]);
        let t = run1(
            "aten.unsqueeze",
            &[iota(&[2, 3]), Value::Int(-1)],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.shape, vec![2, 3, 1]);
        let t = run1(
            "aten.squeeze.dim",
            &[Value::Tensor(t), Value::Int(2)],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.shape, vec![2, 3]);
        let t = run1(
            "aten.squeeze.dim",
            &[Value::Tensor(t), Value::Int(0)],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.shape, vec![2, 3]);
        let t = run1("aten.squeeze", &[iota(&[1, 2, 1])], unknown()).unwrap();
        assert_eq!(t.shape, vec![2]);
        assert!(run("aten.unsqueeze", &[iota(&[2]), Value::Int(3)], &[unknown()]).is_err());
    }

    #[test]
    fn every_permutation_of_four_dimensions_moves_every_element() {
        // Shapes with size-1 dimensions between and around the others, so that runs
        // merge across them, and every one of the 24 orders of each.
        for dims in [[2usize, 3, 4, 5], [1, 3, 1, 5], [2, 1, 4, 1], [1, 6, 1, 1]] {
            let mut perms = Vec::new();
            for a in 0..4 {
                for b in 0..4 {
                    for c in 0..4 {
                        // The fourth is what the other three leave of 0+1+2+3.
                        let Some(d) = 6usize.checked_sub(a + b + c) else {
                            continue;
                        };
                        if a != b && a != c && b != c && d < 4 && d != a && d != b && d != c {
                            perms.push([a, b, c, d]);
                        }
                    }
                }
            }
            assert_eq!(perms.len(), 24);
            for perm in perms {
                let perm_i64: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
                let t = run1("aten.permute", &[iota(&dims), ints(&perm_i64)], unknown()).unwrap();
                let shape: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
                let mut expected = Vec::new();
                for i in 0..shape.iter().product::<usize>() {
                    let mut rest = i;
                    let mut at = [0usize; 4];
                    for k in (0..4).rev() {
                        at[perm[k]] = rest % shape[k];
                        rest /= shape[k];
                    }
                    let flat = ((at[0] * dims[1] + at[1]) * dims[2] + at[2]) * dims[3] + at[3];
                    expected.push(flat as f32);
                }
                assert_eq!(t.shape, shape);
                assert_eq!(f32_values(&t), expected, "{dims:?} {perm:?}");
            }
        }
    }

    #[test]
    fn permutations_that_are_batched_transposes_are_recognised() {
        use super::BatchedTranspose::{Copy, Matrices};
        use super::batched_transpose;
        let m = |batch, rows, cols| Some(Matrices { batch, rows, cols });
        assert_eq!(
            batched_transpose(&[1, 128, 4, 32], &[0, 2, 3, 1]),
            m(1, 128, 128)
        );
        assert_eq!(
            batched_transpose(&[2, 7, 7, 64], &[0, 3, 1, 2]),
            m(2, 49, 64)
        );
        assert_eq!(
            batched_transpose(&[2, 64, 7, 7], &[0, 2, 3, 1]),
            m(2, 64, 49)
        );
        assert_eq!(batched_transpose(&[3, 1, 5], &[1, 0, 2]), Some(Copy));
        assert_eq!(batched_transpose(&[2, 3, 4, 5], &[0, 2, 1, 3]), None);
        assert_eq!(batched_transpose(&[2, 3, 4], &[2, 1, 0]), None);
    }

    #[test]
    fn permutes_copying_runs_equal_the_element_gather() {
        // [0, 2, 1, 3] keeps the last axis whole (runs of 5); [2, 0, 1, 3] too; the
        // identity is one run; [0, 1, 3, 2] moves the last axis (the tiled path) and
        // [3, 1, 2, 0] no run at all; [0, 3, 1, 2] (NHWC to NCHW) and [2, 3, 0, 1] are
        // the tiled path once their runs merge.
        let dims = [2usize, 3, 4, 5];
        for perm in [
            [0, 2, 1, 3],
            [2, 0, 1, 3],
            [0, 1, 2, 3],
            [0, 1, 3, 2],
            [3, 1, 2, 0],
            [0, 3, 1, 2],
            [2, 3, 0, 1],
        ] {
            let perm_i64: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
            let t = run1("aten.permute", &[iota(&dims), ints(&perm_i64)], unknown()).unwrap();
            let shape: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
            assert_eq!(t.shape, shape);
            let mut expected = Vec::new();
            for a in 0..shape[0] {
                for b in 0..shape[1] {
                    for c in 0..shape[2] {
                        for d in 0..shape[3] {
                            let mut at = [0usize; 4];
                            for (k, &i) in [a, b, c, d].iter().enumerate() {
                                at[perm[k]] = i;
                            }
                            let flat = ((at[0] * 3 + at[1]) * 4 + at[2]) * 5 + at[3];
                            expected.push(flat as f32);
                        }
                    }
                }
            }
            assert_eq!(f32_values(&t), expected, "{perm:?}");
        }
    }

    #[test]
    fn runs_kept_together_merge() {
        // NHWC to NCHW is the swap of [N, H·W, C]; the identity is a copy; a reversal
        // merges nothing; two pairs swapped are one swap.
        use super::BatchedTranspose::{Copy, Matrices};
        use super::batched_transpose;
        let m = |batch, rows, cols| Some(Matrices { batch, rows, cols });
        assert_eq!(batched_transpose(&[1, 4, 5, 3], &[0, 3, 1, 2]), m(1, 20, 3));
        assert_eq!(batched_transpose(&[2, 3, 4], &[0, 1, 2]), Some(Copy));
        assert_eq!(batched_transpose(&[2, 3, 4], &[2, 1, 0]), None);
        assert_eq!(batched_transpose(&[2, 3, 4, 5], &[2, 3, 0, 1]), m(1, 6, 20));
    }

    #[test]
    fn permute_moves_elements() {
        let t = run1("aten.permute", &[iota(&[2, 3]), ints(&[1, 0])], unknown()).unwrap();
        assert_eq!(t.shape, vec![3, 2]);
        assert_eq!(f32_values(&t), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        let args = [iota(&[2, 3, 2]), Value::Int(0), Value::Int(2)];
        let t = run1("aten.transpose.int", &args, unknown()).unwrap();
        assert_eq!(t.shape, vec![2, 3, 2]);
        assert_eq!(f32_values(&t)[..4], [0.0, 6.0, 2.0, 8.0]);
        assert!(
            run(
                "aten.permute",
                &[iota(&[2, 3]), ints(&[0, 0])],
                &[unknown()]
            )
            .is_err()
        );
        assert!(run("aten.permute", &[iota(&[2, 3]), ints(&[0])], &[unknown()]).is_err());
    }

    #[test]
    fn per_channel_axes_follow_their_dimension() {
        let mut q = Tensor::new(vec![1, 3, 2], Data::I8(vec![0; 6])).unwrap();
        q.quant = Some(Quant::PerChannel {
            scales: vec![1.0; 3],
            zero_points: vec![0; 3],
            axis: 1,
        });
        let q = Value::tensor(q);
        let t = run1("aten.permute", &[q.clone(), ints(&[2, 0, 1])], unknown()).unwrap();
        assert!(matches!(t.quant, Some(Quant::PerChannel { axis: 2, .. })));
        let t = run1("aten.squeeze.dim", &[q.clone(), Value::Int(0)], unknown()).unwrap();
        assert!(matches!(t.quant, Some(Quant::PerChannel { axis: 0, .. })));
        assert_eq!(t.dtype(), DType::QInt8);
        // Merging the channel dimension with another loses the axis.
        assert!(run("aten.reshape", &[q, ints(&[6])], &[unknown()]).is_err());
    }

    #[test]
    fn shapes_as_values() {
        let t = run1("aten._shape_as_tensor", &[iota(&[2, 3])], unknown()).unwrap();
        assert_eq!(t.data, Data::I64(vec![2, 3]));
        let out = run(
            "aten.size.int",
            &[iota(&[2, 3]), Value::Int(-1)],
            &[ResultType::Int],
        )
        .unwrap();
        assert_eq!(out, vec![Value::Int(3)]);
        let declared = ResultType::Tensor(TensorType::known(DType::F32, &[2, 3]));
        let out = run("tensor_static_info_cast", &[iota(&[2, 3])], &[declared]).unwrap();
        assert_eq!(out, vec![iota(&[2, 3])]);
    }

    /// The tiled transpose of the last two dimensions gives the general gather's
    /// elements, across tile edges and with a batch in front.
    #[test]
    fn tiled_transpose_matches_the_gather() {
        use crate::kernels::tensor::data::gather;
        use crate::kernels::tensor::layout::{signed, strides, view_map};
        let shape = [3usize, 37, 70];
        let n: usize = shape.iter().product();
        let x = Data::I32((0..n as i32).collect());
        let t = run1(
            "aten.transpose.int",
            &[tensor(&shape, x.clone()), Value::Int(-1), Value::Int(1)],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.shape, vec![3, 70, 37]);
        let s = signed(&strides(&shape)).unwrap();
        let want = gather(&x, &view_map(&[3, 70, 37], &[s[0], s[2], s[1]], 0).unwrap());
        assert_eq!(t.data, want);
    }
}
