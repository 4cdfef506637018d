//! Ops that run along one dimension, each line of it on its own: `cumsum(self, dim,
//! dtype?)` and `topk(self, k, dim, largest, sorted)`. A tensor of shape
//! `outer × size × inner` has `outer·inner` lines of `size` elements, `inner` apart.

use anyhow::{Result, bail};

use crate::kernels::tensor::data::{Prec, from_f64, from_i64, is_float};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.cumsum" => cumsum,
        "aten.topk" => topk,
        _ => return None,
    })
}

/// `(outer, size, inner)` of `shape` around dimension `dim`.
fn split(shape: &[usize], dim: usize) -> (usize, usize, usize) {
    let outer = shape.get(..dim).unwrap_or(&[]).iter().product();
    let size = shape.get(dim).copied().unwrap_or(1);
    let inner = shape.get(dim + 1..).unwrap_or(&[]).iter().product();
    (outer, size, inner)
}

fn plain(t: &Tensor) -> Result<()> {
    if t.quant.is_some() {
        bail!("this op takes plain values, not a quantized tensor");
    }
    Ok(())
}

/// Running sums in index order, rounding to the result type after every addition
/// (integers wrap); the result type is `dtype`, else as declared, else the input's
/// with integers widened to i64 as torch does.
fn cumsum(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    plain(x)?;
    let dim = args::dim(args::int(c, 1)?, x.rank().max(1))?;
    let dtype = match args::opt(c, 2) {
        Some(_) => args::dtype_code(c, 2)?,
        None => match args::declared_dtype(c) {
            Some(d) => d,
            None if !is_float(x.data.dtype()) => DType::I64,
            None => x.data.dtype(),
        },
    };
    let (outer, size, inner) = split(&x.shape, dim);
    let data = if is_float(dtype) {
        let p = Prec(dtype);
        let mut v = x.data.to_f64();
        for o in 0..outer {
            for i in 0..inner {
                let mut acc = 0.0;
                for k in 0..size {
                    let at = (o * size + k) * inner + i;
                    acc = p.round(acc + p.round(v[at]));
                    v[at] = acc;
                }
            }
        }
        from_f64(dtype, &v)
    } else {
        let mut v = x.data.to_i64();
        for o in 0..outer {
            for i in 0..inner {
                let mut acc = 0i64;
                for k in 0..size {
                    let at = (o * size + k) * inner + i;
                    acc = acc.wrapping_add(v[at]);
                    v[at] = acc;
                }
            }
        }
        from_i64(dtype, &v)
    };
    args::ret(c, Tensor::new(x.shape.clone(), data)?)
}

/// The `k` largest (or smallest) elements of each line and their indices. Sorted or
/// not, they come in order of value; equal values keep their index order, and NaN
/// counts as larger than every number, as in torch.
fn topk(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    plain(x)?;
    let k = args::size(args::int(c, 1)?, "k")?;
    let dim = args::dim(args::int(c, 2)?, x.rank().max(1))?;
    let largest = args::boolean(c, 3)?;
    let (outer, size, inner) = split(&x.shape, dim);
    if k > size {
        bail!("k is {k}, more than the {size} elements along dimension {dim}");
    }
    let mut shape = x.shape.clone();
    if let Some(s) = shape.get_mut(dim) {
        *s = k;
    }
    let n = outer * k * inner;
    let mut picked = vec![0usize; n];
    let mut indices = vec![0i64; n];
    let v = x.data.to_f64();
    let ints = (!is_float(x.data.dtype())).then(|| x.data.to_i64());
    let mut order: Vec<usize> = Vec::with_capacity(size);
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| (o * size + j) * inner + i;
            order.clear();
            order.extend(0..size);
            order.sort_by(|&a, &b| {
                let ord = match &ints {
                    Some(w) => w[at(a)].cmp(&w[at(b)]),
                    None => v[at(a)].total_cmp(&v[at(b)]),
                };
                let ord = if largest { ord.reverse() } else { ord };
                ord.then(a.cmp(&b))
            });
            for (r, &j) in order.iter().take(k).enumerate() {
                let out = (o * k + r) * inner + i;
                picked[out] = at(j);
                indices[out] = j as i64;
            }
        }
    }
    let values = Tensor::new(
        shape.clone(),
        crate::kernels::tensor::data::gather(&x.data, &picked),
    )?;
    if let Some(ty) = args::declared(c, 0) {
        args::check_declared(ty, &values)?;
    }
    let indices = Tensor::new(shape, Data::I64(indices))?;
    if let Some(ty) = args::declared(c, 1) {
        args::check_declared(ty, &indices)?;
    }
    Ok(vec![Value::tensor(values), Value::tensor(indices)])
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    #[test]
    fn running_sums_along_a_dimension() {
        let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let t = run1(
            "aten.cumsum",
            &[x.clone(), Value::Int(1), Value::None],
            unknown(),
        )
        .unwrap();
        assert_eq!(f32_values(&t), vec![1.0, 3.0, 6.0, 4.0, 9.0, 15.0]);
        let t = run1("aten.cumsum", &[x, Value::Int(0), Value::None], unknown()).unwrap();
        assert_eq!(f32_values(&t), vec![1.0, 2.0, 3.0, 5.0, 7.0, 9.0]);
        let t = run1(
            "aten.cumsum",
            &[i32s(&[3], &[1, 2, 3]), Value::Int(-1), Value::None],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.data, Data::I64(vec![1, 3, 6]));
    }

    #[test]
    fn top_k_values_and_indices() {
        let x = f32s(&[2, 4], &[1.0, 4.0, 4.0, 2.0, -1.0, f32::NAN, 0.0, 3.0]);
        let args = [
            x.clone(),
            Value::Int(2),
            Value::Int(1),
            Value::Bool(true),
            Value::Bool(true),
        ];
        let out = run("aten.topk", &args, &[unknown(), unknown()]).unwrap();
        let v = f32_values(out[0].as_tensor().unwrap());
        assert_eq!(v[..2], [4.0, 4.0]);
        assert!(v[2].is_nan());
        assert_eq!(v[3], 3.0);
        assert_eq!(
            out[1].as_tensor().unwrap().data,
            Data::I64(vec![1, 2, 1, 3])
        );
        let args = [
            x.clone(),
            Value::Int(1),
            Value::Int(1),
            Value::Bool(false),
            Value::Bool(true),
        ];
        let out = run("aten.topk", &args, &[unknown(), unknown()]).unwrap();
        assert_eq!(out[1].as_tensor().unwrap().data, Data::I64(vec![0, 0]));
        let args = [
            x,
            Value::Int(5),
            Value::Int(1),
            Value::Bool(true),
            Value::Bool(true),
        ];
        assert!(run("aten.topk", &args, &[unknown(), unknown()]).is_err());
    }
}
