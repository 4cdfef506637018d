//! Element picking by index tensors: `gather(self, dim, index, sparse_grad)` reads
//! `self` at `index` along `dim`; `index_put(self, indices, values, accumulate)` writes
//! `values` into a copy of `self` at the positions the index tensors give for its
//! leading dimensions (adding when `accumulate`). Negative positions count from the
//! end in `index_put`, as in torch; `gather` takes only positions in range.
//! `scatter_reduce.two(self, dim, index, src, reduce, include_self)` folds each `src`
//! element into `self`'s element at `index` along `dim` (sum, prod, amax or amin), in
//! index order.

use anyhow::{Result, bail};

use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::data::{Prec, from_f64, from_i64, gather, is_float};
use crate::kernels::tensor::layout::{broadcast_map, broadcast_shapes, result_count, strides};
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.gather" => gather_kernel,
        "aten.index_put" => index_put,
        "aten.scatter_reduce.two" => scatter_reduce,
        _ => return None,
    })
}

fn plain(t: &Tensor, what: &str) -> Result<()> {
    if t.quant.is_some() {
        bail!("{what} is a quantized tensor; this op takes plain values");
    }
    Ok(())
}

fn gather_kernel(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    plain(x, "self")?;
    let rank = x.rank();
    let dim = args::dim(args::int(c, 1)?, rank.max(1))?;
    let index = args::tensor(c, 2)?;
    if index.rank() != rank {
        bail!("index has rank {} but self has rank {rank}", index.rank());
    }
    for (d, (&i, &s)) in index.shape.iter().zip(&x.shape).enumerate() {
        if d != dim && i > s {
            bail!("index has size {i} in dimension {d}, more than self's {s}");
        }
    }
    let idx = index.data.to_i64();
    let x_strides = strides(&x.shape);
    let i_strides = strides(&index.shape);
    let size = x.shape.get(dim).copied().unwrap_or(1);
    let mut picked = Vec::with_capacity(idx.len());
    for (flat, &k) in idx.iter().enumerate() {
        if k < 0 || k as u64 >= size as u64 {
            bail!("index {k} is out of range for size {size} of dimension {dim}");
        }
        let mut at = 0usize;
        for d in 0..rank {
            let coord = (flat / i_strides[d]) % index.shape[d];
            let coord = if d == dim { k as usize } else { coord };
            at += coord * x_strides[d];
        }
        picked.push(at);
    }
    args::ret(
        c,
        Tensor::new(index.shape.clone(), gather(&x.data, &picked))?,
    )
}

fn index_put(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    plain(x, "self")?;
    let indices = match c.arg(1)? {
        Value::TensorList(v) => v,
        other => bail!("indices must be a list of tensors, got {}", other.kind()),
    };
    let values = args::tensor(c, 2)?;
    plain(values, "values")?;
    let accumulate = args::boolean(c, 3)?;
    let k = indices.len();
    if k == 0 || k > x.rank() {
        bail!("{k} index tensors for a tensor of rank {}", x.rank());
    }
    let mut batch: Vec<usize> = vec![];
    for t in indices.iter() {
        if t.data.dtype().is_float() {
            bail!("index tensors must hold integers, got {}", t.dtype());
        }
        batch = broadcast_shapes(&batch, &t.shape)?;
    }
    let tail = &x.shape[k..];
    let inner = result_count(tail)?;
    let target: Vec<usize> = batch.iter().chain(tail).copied().collect();
    let value_map = broadcast_map(&values.shape, &target)?;
    let maps = indices
        .iter()
        .map(|t| broadcast_map(&t.shape, &batch))
        .collect::<Result<Vec<_>>>()?;
    let index_values: Vec<Vec<i64>> = indices.iter().map(|t| t.data.to_i64()).collect();
    let x_strides = strides(&x.shape);
    let positions = result_count(&batch)?;
    let dtype = x.data.dtype();
    let float = is_float(dtype);
    let (mut fv, mut iv) = if float {
        (x.data.to_f64(), vec![])
    } else {
        (vec![], x.data.to_i64())
    };
    let (vf, vi) = if float {
        (values.data.to_f64(), vec![])
    } else {
        (vec![], values.data.to_i64())
    };
    let prec = Prec(dtype);
    for b in 0..positions {
        let mut base = 0usize;
        for d in 0..k {
            let at = maps[d].as_ref().map_or(b, |m| m[b]);
            let size = x.shape[d] as i64;
            let mut p = index_values[d][at];
            if p < 0 {
                p += size;
            }
            if p < 0 || p >= size {
                bail!(
                    "index {} is out of range for size {size} of dimension {d}",
                    index_values[d][at]
                );
            }
            base += p as usize * x_strides[d];
        }
        for j in 0..inner {
            let src = b * inner + j;
            let src = value_map.as_ref().map_or(src, |m| m[src]);
            if float {
                let v = vf[src];
                let dst = &mut fv[base + j];
                *dst = if accumulate { prec.round(*dst + v) } else { v };
            } else {
                let v = vi[src];
                let dst = &mut iv[base + j];
                *dst = if accumulate { dst.wrapping_add(v) } else { v };
            }
        }
    }
    let data = if float {
        from_f64(dtype, &fv)
    } else {
        from_i64(dtype, &iv)
    };
    args::ret(c, Tensor::new(x.shape.clone(), data)?)
}

/// `scatter_reduce.two` with `include_self` (ScatterND's mul, max and min); `mean` and
/// leaving `self` out are refused.
fn scatter_reduce(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    plain(x, "self")?;
    let rank = x.rank();
    let dim = args::dim(args::int(c, 1)?, rank.max(1))?;
    let (index, src) = (args::tensor(c, 2)?, args::tensor(c, 3)?);
    plain(src, "src")?;
    let reduce = args::string(c, 4)?;
    if !args::boolean(c, 5)? {
        bail!("scatter_reduce without include_self is not supported");
    }
    if index.rank() != rank || src.rank() != rank {
        bail!(
            "index and src have ranks {} and {}, but self has rank {rank}",
            index.rank(),
            src.rank()
        );
    }
    for d in 0..rank {
        let i = index.shape[d];
        if i > src.shape[d] || (d != dim && i > x.shape[d]) {
            bail!(
                "index {:?} is larger than src {:?} or self {:?} in dimension {d}",
                index.shape,
                src.shape,
                x.shape
            );
        }
    }
    if index.data.dtype().is_float() {
        bail!("index must hold integers, got {}", index.dtype());
    }
    let dtype = x.data.dtype();
    let float = is_float(dtype);
    let prec = Prec(dtype);
    let fold_float: fn(f64, f64) -> f64 = match reduce {
        "sum" => |a, b| a + b,
        "prod" => |a, b| a * b,
        // NaN wins, as in torch.
        "amax" => |a, b| if a.is_nan() || a >= b { a } else { b },
        "amin" => |a, b| if a.is_nan() || a <= b { a } else { b },
        other => bail!("scatter_reduce '{other}' is not one of sum, prod, amax, amin"),
    };
    let fold_int: fn(i64, i64) -> i64 = match reduce {
        "sum" => i64::wrapping_add,
        "prod" => i64::wrapping_mul,
        "amax" => |a, b| a.max(b),
        _ => |a, b| a.min(b),
    };
    let idx = index.data.to_i64();
    let (x_strides, i_strides, s_strides) = (
        strides(&x.shape),
        strides(&index.shape),
        strides(&src.shape),
    );
    let size = x.shape.get(dim).copied().unwrap_or(1);
    let (mut fv, mut iv) = if float {
        (x.data.to_f64(), vec![])
    } else {
        (vec![], x.data.to_i64())
    };
    let (sf, si) = if float {
        (src.data.to_f64(), vec![])
    } else {
        (vec![], src.data.to_i64())
    };
    for (flat, &k) in idx.iter().enumerate() {
        let p = if k < 0 { k + size as i64 } else { k };
        if p < 0 || p as u64 >= size as u64 {
            bail!("index {k} is out of range for size {size} of dimension {dim}");
        }
        let (mut at, mut from) = (0usize, 0usize);
        for d in 0..rank {
            let coord = (flat / i_strides[d]) % index.shape[d];
            from += coord * s_strides[d];
            at += if d == dim { p as usize } else { coord } * x_strides[d];
        }
        if float {
            fv[at] = prec.round(fold_float(fv[at], sf[from]));
        } else {
            iv[at] = fold_int(iv[at], si[from]);
        }
    }
    let data = if float {
        from_f64(dtype, &fv)
    } else {
        from_i64(dtype, &iv)
    };
    args::ret(c, Tensor::new(x.shape.clone(), data)?)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::kernels::tensor::value::Value;
    use crate::kernels::tensor::{Data, Tensor};
    use crate::kernels::testing::*;

    fn i64s(shape: &[usize], v: &[i64]) -> Arc<Tensor> {
        Arc::new(Tensor::new(shape.to_vec(), Data::I64(v.to_vec())).unwrap())
    }

    #[test]
    fn scatter_reduce_folds_in_index_order_from_self() {
        // Rows 0 and 2 of a [3, 2] table; row 0 twice, once by a negative index.
        let x = f32s(&[3, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let idx = Value::Tensor(i64s(&[3, 2], &[0, 0, 2, 2, -3, -3]));
        let src = f32s(&[3, 2], &[2.0, -1.0, 10.0, 0.5, 3.0, 7.0]);
        let run = |reduce: &str| {
            let args = [
                x.clone(),
                Value::Int(0),
                idx.clone(),
                src.clone(),
                Value::Str(reduce.into()),
                Value::Bool(true),
            ];
            f32_values(&run1("aten.scatter_reduce.two", &args, unknown()).unwrap())
        };
        assert_eq!(run("prod"), vec![6.0, -14.0, 3.0, 4.0, 50.0, 3.0]);
        assert_eq!(run("amax"), vec![3.0, 7.0, 3.0, 4.0, 10.0, 6.0]);
        assert_eq!(run("amin"), vec![1.0, -1.0, 3.0, 4.0, 5.0, 0.5]);
        assert_eq!(run("sum"), vec![6.0, 8.0, 3.0, 4.0, 15.0, 6.5]);
        let args = [
            x.clone(),
            Value::Int(0),
            Value::Tensor(i64s(&[1, 2], &[3, 0])),
            src.clone(),
            Value::Str("amax".into()),
            Value::Bool(true),
        ];
        assert!(run1("aten.scatter_reduce.two", &args, unknown()).is_err());
    }

    #[test]
    fn gather_along_a_dimension() {
        let x = f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let idx = Value::Tensor(i64s(&[2, 2], &[0, 0, 1, 0]));
        let args = [x.clone(), Value::Int(1), idx, Value::Bool(false)];
        let t = run1("aten.gather", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![1.0, 1.0, 4.0, 3.0]);
        let bad = Value::Tensor(i64s(&[1, 1], &[2]));
        assert!(
            run(
                "aten.gather",
                &[x, Value::Int(0), bad, Value::Bool(false)],
                &[unknown()]
            )
            .is_err()
        );
    }

    #[test]
    fn index_put_writes_rows() {
        let x = f32s(&[3, 2], &[0.0; 6]);
        let rows = Value::TensorList(vec![i64s(&[2], &[2, -3])]);
        let values = f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
        let args = [x.clone(), rows.clone(), values.clone(), Value::Bool(false)];
        let t = run1("aten.index_put", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![3.0, 4.0, 0.0, 0.0, 1.0, 2.0]);
        let both = Value::TensorList(vec![i64s(&[2], &[0, 0]), i64s(&[2], &[1, 1])]);
        let args = [x.clone(), both, f32s(&[1], &[5.0]), Value::Bool(true)];
        let t = run1("aten.index_put", &args, unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![0.0, 10.0, 0.0, 0.0, 0.0, 0.0]);
        let out_of_range = Value::TensorList(vec![i64s(&[1], &[3])]);
        assert!(
            run(
                "aten.index_put",
                &[x, out_of_range, values, Value::Bool(false)],
                &[unknown()]
            )
            .is_err()
        );
    }
}
