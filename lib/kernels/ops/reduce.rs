//! Reductions: full `min` / `max` to a 0-d tensor, `amin` / `amax`, `sum` and `mean`
//! over dimensions, `max.dim` / `min.dim` with indices, and `argmax` / `argmin`. Sums
//! add in index order, rounding to the element type after every addition; NaN wins
//! every minimum and maximum, as in torch.

use anyhow::{Result, bail};
use rayon::prelude::*;

use super::zip::with_avx2;

use crate::kernels::tensor::data::{Prec, from_f64, from_i64, is_float};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::layout::{signed, strides, view_map};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.max" => |c| extreme_all(c, true),
        "aten.min" => |c| extreme_all(c, false),
        "aten.amax" => |c| extreme_dims(c, true),
        "aten.amin" => |c| extreme_dims(c, false),
        "aten.sum" => |c| total(c, None, 1, false),
        "aten.sum.dim_IntList" => |c| total(c, Some(1), 3, false),
        "aten.mean" => |c| total(c, None, 1, true),
        "aten.mean.dim" => |c| total(c, Some(1), 3, true),
        "aten.max.dim" => |c| extreme_with_index(c, true, true),
        "aten.min.dim" => |c| extreme_with_index(c, false, true),
        "aten.argmax" => |c| extreme_with_index(c, true, false),
        "aten.argmin" => |c| extreme_with_index(c, false, false),
        _ => return None,
    })
}

/// Which dimensions of a tensor are reduced, and where each output element's inputs
/// are: `bases[o] + inner[j]` over all j.
pub(super) struct Reduction {
    pub shape: Vec<usize>,
    pub bases: Vec<usize>,
    pub inner: Vec<usize>,
}

/// Reduces `dims` (all when empty) of `shape`, keeping them as size 1 if `keepdim`.
pub(super) fn reduction(shape: &[usize], dims: &[i64], keepdim: bool) -> Result<Reduction> {
    let rank = shape.len();
    let mut reduced = vec![dims.is_empty(); rank];
    for &d in dims {
        let d = args::dim(d, rank)?;
        if rank > 0 && std::mem::replace(&mut reduced[d], true) {
            bail!("dimension {d} is reduced twice");
        }
    }
    let st = signed(&strides(shape))?;
    let (mut kept_shape, mut kept_strides, mut red_shape, mut red_strides) =
        (vec![], vec![], vec![], vec![]);
    let mut out = Vec::with_capacity(rank);
    for d in 0..rank {
        if reduced[d] {
            red_shape.push(shape[d]);
            red_strides.push(st[d]);
            if keepdim {
                out.push(1);
            }
        } else {
            kept_shape.push(shape[d]);
            kept_strides.push(st[d]);
            out.push(shape[d]);
        }
    }
    Ok(Reduction {
        shape: out,
        bases: view_map(&kept_shape, &kept_strides, 0)?,
        inner: view_map(&red_shape, &red_strides, 0)?,
    })
}

/// The maximum (or minimum) of `v`, NaN if any is NaN, with the first index of it.
fn extreme(v: impl Iterator<Item = f64>, max: bool) -> Option<(f64, usize)> {
    let mut best: Option<(f64, usize)> = None;
    for (i, x) in v.enumerate() {
        let better = match best {
            None => true,
            Some((b, _)) if b.is_nan() => false,
            Some((b, _)) => x.is_nan() || if max { x > b } else { x < b },
        };
        if better {
            best = Some((x, i));
        }
    }
    best
}

/// Integer data keeps its exact values (i64 holds all but huge u64).
pub(super) fn values(t: &Tensor) -> Result<Vec<f64>> {
    if t.quant.is_some() {
        bail!("reducing a quantized tensor is not supported; reduce its values");
    }
    Ok(t.data.to_f64())
}

/// `max(self)` / `min(self)`: the one extreme element, as a 0-d tensor.
fn extreme_all(c: &Call, max: bool) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let Some((m, _)) = extreme(values(x)?.into_iter(), max) else {
        bail!("max or min of an empty tensor");
    };
    args::ret(c, Tensor::new(vec![], from_f64(x.data.dtype(), &[m]))?)
}

/// `amax(self, dim, keepdim)` / `amin`. Over an empty dimension each result is the
/// identity of the reduction (−inf for a float maximum, the type's least integer,
/// false), which is ONNX's ReduceMax/ReduceMin of an empty set and what torch-mlir's
/// linalg form computes from its initial value; eager torch refuses instead.
fn extreme_dims(c: &Call, max: bool) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let r = reduction(&x.shape, args::ints(c, 1)?, args::boolean(c, 2)?)?;
    let dtype = x.data.dtype();
    let empty = if r.inner.is_empty() {
        identity_of_extreme(dtype, max)?
    } else {
        0.0
    };
    let v = values(x)?;
    let out: Vec<f64> = r
        .bases
        .iter()
        .map(|&b| extreme(r.inner.iter().map(|&j| v[b + j]), max).map_or(empty, |(m, _)| m))
        .collect();
    args::ret(c, Tensor::new(r.shape, from_f64(x.data.dtype(), &out))?)
}

/// The maximum (or minimum) of no elements of `dtype`: the value every element beats.
fn identity_of_extreme(dtype: DType, max: bool) -> Result<f64> {
    let (least, most) = match dtype {
        d if is_float(d) => (f64::NEG_INFINITY, f64::INFINITY),
        DType::Bool => (0.0, 1.0),
        DType::I8 => (f64::from(i8::MIN), f64::from(i8::MAX)),
        DType::U8 => (0.0, f64::from(u8::MAX)),
        DType::I16 => (f64::from(i16::MIN), f64::from(i16::MAX)),
        DType::U16 => (0.0, f64::from(u16::MAX)),
        DType::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
        DType::U32 => (0.0, f64::from(u32::MAX)),
        DType::I64 => (i64::MIN as f64, i64::MAX as f64),
        DType::U64 => (0.0, u64::MAX as f64),
        other => bail!("amax or amin over an empty dimension of {other} values"),
    };
    Ok(if max { least } else { most })
}

/// `max.dim(self, dim, keepdim)` (values and indices) or `argmax(self, dim?, keepdim)`.
fn extreme_with_index(c: &Call, max: bool, with_values: bool) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let (dims, flat) = match args::opt_int(c, 1)? {
        Some(d) => (vec![d], false),
        None if !with_values => (vec![], true),
        None => bail!("max.dim needs a dimension"),
    };
    let keepdim = args::boolean(c, 2)?;
    // argmax without a dimension indexes the flattened tensor.
    let r = reduction(&x.shape, &dims, keepdim && !flat)?;
    let v = values(x)?;
    let mut best = Vec::with_capacity(r.bases.len());
    let mut index = Vec::with_capacity(r.bases.len());
    for &b in &r.bases {
        let Some((m, i)) = extreme(r.inner.iter().map(|&j| v[b + j]), max) else {
            bail!("max or min over an empty dimension");
        };
        best.push(m);
        index.push(i as i64);
    }
    let indices = Value::tensor(Tensor::new(r.shape.clone(), Data::I64(index))?);
    if !with_values {
        return Ok(vec![indices]);
    }
    let values = Tensor::new(r.shape, from_f64(x.data.dtype(), &best))?;
    if let Some(ty) = args::declared(c, 0) {
        args::check_declared(ty, &values)?;
    }
    Ok(vec![Value::tensor(values), indices])
}

/// `sum` / `mean`, over `dim` (operand `dims_at`; all dimensions when absent or empty)
/// with `keepdim` after it and an optional `dtype` at `dtype_at`.
fn total(c: &Call, dims_at: Option<usize>, dtype_at: usize, mean: bool) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    let (dims, keepdim) = match dims_at {
        Some(i) => (
            args::opt_ints(c, i)?.unwrap_or(&[]),
            args::boolean(c, i + 1)?,
        ),
        None => (&[][..], false),
    };
    let dtype = result_dtype(c, dtype_at, x.data.dtype())?;
    if mean && !is_float(dtype) {
        bail!("mean of {} values: only floats are averaged", dtype);
    }
    let r = reduction(&x.shape, dims, keepdim)?;
    if let (DType::F32, Data::F32(v), None) = (dtype, &x.data, &x.quant) {
        let sums = sums_f32(v, &r);
        let n = r.inner.len() as f64;
        let out = sums
            .iter()
            .map(|&s| if mean { (s / n) as f32 } else { s as f32 })
            .collect();
        return args::ret(c, Tensor::new(r.shape, Data::F32(out))?);
    }
    let data = if is_float(dtype) {
        let p = Prec(dtype);
        let v: Vec<f64> = values(x)?.into_iter().map(|x| p.round(x)).collect();
        let n = p.round(r.inner.len() as f64);
        let mut out = sums_f64(&v, &r, p);
        if mean {
            out.iter_mut().for_each(|s| *s = p.round(*s / n));
        }
        from_f64(dtype, &out)
    } else {
        from_i64(dtype, &fold_ints(x, &r, 0, i64::wrapping_add)?)
    };
    args::ret(c, Tensor::new(r.shape, data)?)
}

/// Each output's sum of `v`, added in index order from +0.0 and rounded to `p` after
/// every addition.
fn sums_f64(v: &[f64], r: &Reduction, p: Prec) -> Vec<f64> {
    r.bases
        .iter()
        .map(|&b| r.inner.iter().fold(0.0, |acc, &j| p.round(acc + v[b + j])))
        .collect()
}

/// Outputs the f32 sum folds side by side.
const LANES: usize = 8;

/// Elements summed per rayon task: below this, splitting costs more than it saves.
const SUM_CHUNK: usize = 1 << 16;

/// Each output's sum of an f32 tensor, accumulated in f64 and rounded by the caller
/// once: a fold in f32 loses ~n/2 ulps over n elements (2.5e-5 relative for an 80×80
/// mean), while f64 keeps the sum of up to millions of f32s correctly rounded but
/// for rare ties. `LANES` outputs fold at once so that their additions are independent.
fn sums_f32(v: &[f32], r: &Reduction) -> Vec<f64> {
    let mut out = vec![0.0f64; r.bases.len()];
    if r.inner.is_empty() {
        // A zero-sized reduced dimension: every sum is +0.0 (and `bases` may point past
        // the empty data).
        return out;
    }
    // The reduced elements of one output are contiguous (the reduced dimensions are the
    // last ones): each lane reads a row.
    let rows = r.inner.iter().enumerate().all(|(j, &i)| i == j);
    let work = r.inner.len().max(1) * LANES;
    let groups = (SUM_CHUNK / work).max(1);
    let task = |(g, sums): (usize, &mut [f64])| {
        let bases = &r.bases[g * groups * LANES..][..sums.len()];
        for (sums, bases) in sums.chunks_mut(LANES).zip(bases.chunks(LANES)) {
            let lanes = fold_lanes(v, bases, &r.inner, rows);
            sums.copy_from_slice(&lanes[..sums.len()]);
        }
    };
    if out.len() > groups * LANES {
        out.par_chunks_mut(groups * LANES)
            .enumerate()
            .for_each(task);
    } else {
        task((0, &mut out));
    }
    out
}

/// The sums of the (at most `LANES`) outputs at `bases`, each folding `inner` in order;
/// a short group repeats its last output in the spare lanes.
fn fold_lanes(v: &[f32], bases: &[usize], inner: &[usize], rows: bool) -> [f64; LANES] {
    let last = bases.len() - 1;
    let b: [usize; LANES] = std::array::from_fn(|k| bases[k.min(last)]);
    with_avx2(
        #[inline(always)]
        || {
            let mut acc = [0.0f64; LANES];
            let consecutive = bases.len() == LANES && (0..LANES).all(|k| b[k] == b[0] + k);
            if consecutive {
                // Outputs next to each other in memory (a reduction over an outer
                // dimension): one vector of lanes per reduced position.
                for &j in inner {
                    let x: &[f32; LANES] = v[b[0] + j..][..LANES].try_into().expect("lanes");
                    for k in 0..LANES {
                        acc[k] += f64::from(x[k]);
                    }
                }
            } else if rows {
                let n = inner.len();
                let rows: [&[f32]; LANES] = std::array::from_fn(|k| &v[b[k]..][..n]);
                #[expect(
                    clippy::needless_range_loop,
                    reason = "j is a column, taken from every row"
                )]
                for j in 0..n {
                    let x: [f32; LANES] = std::array::from_fn(|k| rows[k][j]);
                    for k in 0..LANES {
                        acc[k] += f64::from(x[k]);
                    }
                }
            } else {
                for &j in inner {
                    for k in 0..LANES {
                        acc[k] += f64::from(v[b[k] + j]);
                    }
                }
            }
            acc
        },
    )
}

/// A reduction's result dtype: operand `at` when given, else as declared, else the
/// input's (integers and booleans widen to i64, as torch's reductions do).
pub(super) fn result_dtype(c: &Call, at: usize, input: DType) -> Result<DType> {
    Ok(match args::opt(c, at) {
        Some(_) => args::dtype_code(c, at)?,
        None => match args::declared_dtype(c) {
            Some(d) => d,
            None if !is_float(input) => DType::I64,
            None => input,
        },
    })
}

/// Each reduced group of an integer tensor folded with `op` from `init`, in index
/// order; `op` wraps as int64 arithmetic does.
pub(super) fn fold_ints(
    x: &Tensor,
    r: &Reduction,
    init: i64,
    op: fn(i64, i64) -> i64,
) -> Result<Vec<i64>> {
    if x.quant.is_some() {
        bail!("reducing a quantized tensor is not supported; reduce its values");
    }
    let v = x.data.to_i64();
    Ok(r.bases
        .iter()
        .map(|&b| r.inner.iter().fold(init, |acc, &j| op(acc, v[b + j])))
        .collect())
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn full_min_and_max_give_0d_tensors() {
        let x = f32s(&[2, 2], &[3.0, -1.0, 7.0, 0.0]);
        let t = run1("aten.max", std::slice::from_ref(&x), of(DType::F32)).unwrap();
        assert_eq!((t.shape.clone(), f32_values(&t)), (vec![], vec![7.0]));
        let t = run1("aten.min", &[x], of(DType::F32)).unwrap();
        assert_eq!(f32_values(&t), vec![-1.0]);
        let t = run1("aten.max", &[f32s(&[2], &[f32::NAN, 1.0])], unknown()).unwrap();
        assert!(f32_values(&t)[0].is_nan());
        assert!(run("aten.max", &[f32s(&[0], &[])], &[unknown()]).is_err());
        let t = run1("aten.min", &[tensor(&[2], Data::U8(vec![9, 4]))], unknown()).unwrap();
        assert_eq!(t.data, Data::U8(vec![4]));
    }

    #[test]
    fn amax_and_amin_over_an_empty_dimension_give_the_identity() {
        let reduce = |op: &str, x: Value| {
            let args = [x, ints(&[1]), Value::Bool(true)];
            run1(op, &args, unknown()).unwrap()
        };
        let t = reduce("aten.amax", f32s(&[2, 0, 3], &[]));
        assert_eq!(t.shape, vec![2, 1, 3]);
        assert!(f32_values(&t).iter().all(|&x| x == f32::NEG_INFINITY));
        let t = reduce("aten.amin", f32s(&[2, 0, 3], &[]));
        assert!(f32_values(&t).iter().all(|&x| x == f32::INFINITY));
        let t = reduce("aten.amax", tensor(&[1, 0], Data::Bool(vec![])));
        assert_eq!(t.data, Data::Bool(vec![false]));
        let t = reduce("aten.amin", tensor(&[1, 0], Data::I32(vec![])));
        assert_eq!(t.data, Data::I32(vec![i32::MAX]));
        let t = reduce("aten.amax", tensor(&[1, 0], Data::I64(vec![])));
        assert_eq!(t.data, Data::I64(vec![i64::MIN]));
        // Over a dimension that is not empty, an empty tensor stays empty.
        let args = [f32s(&[2, 0, 3], &[]), ints(&[2]), Value::Bool(true)];
        assert_eq!(
            run1("aten.amax", &args, unknown()).unwrap().shape,
            vec![2, 0, 1]
        );
    }

    #[test]
    fn sums_and_means_over_dimensions() {
        let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let args = [x.clone(), ints(&[1]), Value::Bool(true), Value::None];
        let t = run1("aten.mean.dim", &args, unknown()).unwrap();
        assert_eq!(
            (t.shape.clone(), f32_values(&t)),
            (vec![2, 1], vec![2.0, 5.0])
        );
        let args = [x.clone(), ints(&[0]), Value::Bool(false), Value::None];
        let t = run1("aten.sum.dim_IntList", &args, unknown()).unwrap();
        assert_eq!(
            (t.shape.clone(), f32_values(&t)),
            (vec![3], vec![5.0, 7.0, 9.0])
        );
        let args = [x.clone(), Value::None, Value::Bool(false), Value::None];
        let t = run1("aten.mean.dim", &args, unknown()).unwrap();
        assert_eq!((t.shape.clone(), f32_values(&t)), (vec![], vec![3.5]));
        let t = run1(
            "aten.sum",
            &[i32s(&[3], &[1, 2, 3]), Value::None],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.data, Data::I64(vec![6]));
        let args = [x.clone(), ints(&[2]), Value::Bool(false), Value::None];
        assert!(run("aten.sum.dim_IntList", &args, &[unknown()]).is_err());
        let args = [x, ints(&[-1]), Value::Bool(false)];
        let t = run1("aten.amax", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![3.0, 6.0]);
    }

    #[test]
    fn f32_sums_fold_as_the_f64_path_does() {
        use super::{Prec, reduction, sums_f32, sums_f64};
        let cases: &[(&[usize], &[i64])] = &[
            (&[1, 7, 64], &[-1]),
            (&[1, 7, 512], &[2]),
            (&[3, 5, 9], &[1]),
            (&[3, 5, 9], &[0]),
            (&[3, 5, 9], &[0, 2]),
            (&[3, 5, 9], &[2, 1]),
            (&[3, 5, 9], &[]),
            (&[13, 40], &[0]),
            (&[5, 17, 8], &[1]),
            (&[2, 0, 3], &[1]),
            (&[0, 3], &[0]),
            (&[2, 0, 3], &[2]),
            (&[300, 300], &[1]),
            (&[300, 300], &[0]),
            (&[], &[]),
        ];
        for (seed, &(shape, dims)) in cases.iter().enumerate() {
            for specials in [false, true] {
                let n: usize = shape.iter().product();
                let v = awkward_f32s(seed as u64, n, specials);
                let r = reduction(shape, dims, true).unwrap();
                let wide: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
                // The f32 path adds in f64, in index order, and rounds once.
                let slow = sums_f64(&wide, &r, Prec(DType::F64));
                let fast: Vec<f32> = sums_f32(&v, &r).iter().map(|&s| s as f32).collect();
                let slow32: Vec<f32> = slow.iter().map(|&s| s as f32).collect();
                let what = format!("sums of {shape:?} over {dims:?}");
                assert_same_f32_bits(&one_nan(&fast), &one_nan(&slow32), &what);
                // The means through the kernel: the sums divided by n, rounded to f32.
                let args = [f32s(shape, &v), ints(dims), Value::Bool(false), Value::None];
                let t = run1("aten.mean.dim", &args, unknown()).unwrap();
                let count = r.inner.len() as f64;
                let means: Vec<f32> = slow.iter().map(|&s| (s / count) as f32).collect();
                let got = one_nan(&f32_values(&t));
                assert_same_f32_bits(&got, &one_nan(&means), &format!("means {what}"));
            }
        }
    }

    /// ReduceMean over 80×80 planes of uniform values: ONNX Runtime 1.31's is 4.1e-6
    /// from the f64 mean (relative L2); a fold in f32 was 2.5e-5. Adding in f64 and
    /// rounding once leaves only the final rounding, below 2^-24.
    #[test]
    fn f32_means_of_planes_are_rounded_once() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let v: Vec<f32> = (0..8 * 80 * 80)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                (state >> 40) as f32 / (1u64 << 24) as f32
            })
            .collect();
        let args = [
            f32s(&[8, 80, 80], &v),
            ints(&[1, 2]),
            Value::Bool(false),
            Value::None,
        ];
        let got = f32_values(&run1("aten.mean.dim", &args, unknown()).unwrap());
        let exact: Vec<f64> = v
            .chunks(6400)
            .map(|p| p.iter().map(|&x| f64::from(x)).sum::<f64>() / 6400.0)
            .collect();
        let err: f64 = got
            .iter()
            .zip(&exact)
            .map(|(&g, &e)| (g as f64 - e).powi(2))
            .sum();
        let norm: f64 = exact.iter().map(|e| e * e).sum();
        let rel = (err / norm).sqrt();
        assert!(rel <= 2f64.powi(-24), "relative L2 error {rel:e}");
    }

    /// `v` with every NaN as `f32::NAN`: which of several NaNs a sum keeps is not
    /// specified (an optimising build may swap an addition's operands), so only
    /// NaN-ness is compared; every other value bit for bit.
    fn one_nan(v: &[f32]) -> Vec<f32> {
        v.iter()
            .map(|&x| if x.is_nan() { f32::NAN } else { x })
            .collect()
    }

    #[test]
    fn arg_extremes_give_first_indices() {
        let x = f32s(&[2, 3], &[1.0, 5.0, 5.0, 0.0, -1.0, 0.0]);
        let t = run1(
            "aten.argmax",
            &[x.clone(), Value::Int(1), Value::Bool(false)],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.data, Data::I64(vec![1, 0]));
        let t = run1(
            "aten.argmin",
            &[x.clone(), Value::None, Value::Bool(false)],
            unknown(),
        )
        .unwrap();
        assert_eq!(
            (t.shape.clone(), t.data.clone()),
            (vec![], Data::I64(vec![4]))
        );
        let out = run(
            "aten.max.dim",
            &[x, Value::Int(0), Value::Bool(true)],
            &[unknown(), unknown()],
        )
        .unwrap();
        assert_eq!(out.len(), 2);
        let v = out[0].as_tensor().unwrap();
        assert_eq!(
            (v.shape.clone(), f32_values(v)),
            (vec![1, 3], vec![1.0, 5.0, 5.0])
        );
        assert_eq!(out[1].as_tensor().unwrap().data, Data::I64(vec![0, 0, 0]));
    }
}
