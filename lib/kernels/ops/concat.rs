//! Joining tensors along a dimension (`cat`, `stack`) and cutting one into pieces
//! (`split_with_sizes`, `split.Tensor`), whose results are tensor lists.

use std::sync::Arc;

use anyhow::{Result, bail};

use super::promote::{Operand, result_type};
use super::select::pieces;
use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::data::{cast, concat as concat_data, gather_spans};
use crate::kernels::tensor::layout::result_count;
use crate::kernels::tensor::value::Value;
use crate::kernels::{Call, Kernel, args};

pub fn lookup(op: &str) -> Option<Kernel> {
    Some(match op {
        "aten.cat" | "aten.concat" => cat,
        "aten.stack" => stack,
        "aten.split_with_sizes" => split_with_sizes,
        "aten.split.Tensor" => split_tensor,
        _ => return None,
    })
}

/// Fails unless tensor `i`, `part`, has `first`'s rank and, outside `dim`, its sizes.
pub(crate) fn check_joins(i: usize, part: &Tensor, first: &Tensor, dim: usize) -> Result<()> {
    let fits = part.rank() == first.rank()
        && part
            .shape
            .iter()
            .zip(&first.shape)
            .enumerate()
            .all(|(d, (a, b))| d == dim || a == b);
    if !fits {
        bail!(
            "tensor {i} has shape {:?}, which does not join {:?} along dimension {dim}",
            part.shape,
            first.shape
        );
    }
    Ok(())
}

/// `parts` joined along `dim`; every part has the first's rank and, outside `dim`,
/// its sizes. Parts of different types are converted to the result type; quantized
/// parts must all share the same parameters, which the result keeps.
fn join(c: &Call, parts: &[&Tensor], dim: usize) -> Result<Tensor> {
    let Some(first) = parts.first() else {
        bail!("nothing to join");
    };
    for (i, p) in parts.iter().enumerate() {
        check_joins(i, p, first, dim)?;
        if p.quant != first.quant {
            bail!("tensor {i} is quantized differently from tensor 0");
        }
    }
    let operands: Vec<Operand> = parts
        .iter()
        .map(|p| Operand::Tensor(p.dtype(), 1))
        .collect();
    let dtype = match args::declared_dtype(c) {
        Some(d) => d,
        None => result_type(&operands).unwrap_or(first.dtype()),
    };
    let converted: Vec<_> = parts.iter().map(|p| cast(&p.data, dtype)).collect();
    let refs: Vec<_> = converted.iter().collect();
    let all = concat_data(&refs).ok_or_else(|| anyhow::anyhow!("parts of different types"))?;

    let outer: usize = first.shape[..dim].iter().product();
    let inner: usize = first.shape[dim + 1..].iter().product();
    let sizes: Vec<usize> = parts.iter().map(|p| p.shape[dim]).collect();
    let total: usize = sizes.iter().sum();
    // Where each part starts in `all`.
    let mut starts = Vec::with_capacity(parts.len());
    let mut at = 0;
    for p in parts {
        starts.push(at);
        at += p.len();
    }
    let mut shape = first.shape.clone();
    shape[dim] = total;
    result_count(&shape)?;
    let mut spans = Vec::with_capacity(outer * sizes.len());
    for o in 0..outer {
        for (k, &size) in sizes.iter().enumerate() {
            spans.push((starts[k] + o * size * inner, size * inner));
        }
    }
    let mut t = Tensor::new(shape, gather_spans(&all, &spans))?;
    t.quant = first.quant.clone();
    Ok(t)
}

fn cat(c: &Call) -> Result<Vec<Value>> {
    let list = c.arg(0)?.as_tensor_list()?;
    for t in list {
        args::check_consistent(t)?;
    }
    // torch skips 1-D empty tensors, which once stood for "nothing" in cat.
    let parts: Vec<&Tensor> = list
        .iter()
        .map(Arc::as_ref)
        .filter(|t| t.shape != [0])
        .collect();
    let Some(first) = parts.first() else {
        return match list.first() {
            Some(t) => args::ret(c, Tensor::clone(t)),
            None => bail!("cat of an empty list"),
        };
    };
    if first.rank() == 0 {
        bail!("cat of 0-d tensors");
    }
    let dim = args::dim(args::int(c, 1)?, first.rank())?;
    args::ret(c, join(c, &parts, dim)?)
}

/// The tensors joined along a new dimension `dim`.
fn stack(c: &Call) -> Result<Vec<Value>> {
    let list = c.arg(0)?.as_tensor_list()?;
    let Some(first) = list.first() else {
        bail!("stack of an empty list");
    };
    let dim = args::dim(args::int(c, 1)?, first.rank() + 1)?;
    let mut lifted = Vec::with_capacity(list.len());
    for t in list {
        args::check_consistent(t)?;
        if t.shape != first.shape {
            bail!("stack of shapes {:?} and {:?}", first.shape, t.shape);
        }
        let mut shape = t.shape.clone();
        shape.insert(dim, 1);
        let mut l = Tensor::new(shape, t.data.clone())?;
        l.quant = super::shape::keep_quant(t, |a| Some(if a >= dim { a + 1 } else { a }))?;
        lifted.push(l);
    }
    let refs: Vec<&Tensor> = lifted.iter().collect();
    args::ret(c, join(c, &refs, dim)?)
}

/// The pieces of `x` along `dim` with the given sizes, as one tensor-list result.
fn split_into(x: &Tensor, dim: usize, sizes: &[usize]) -> Result<Vec<Value>> {
    Ok(vec![Value::TensorList(
        pieces(x, dim, sizes)?.into_iter().map(Arc::new).collect(),
    )])
}

fn split_with_sizes(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    if x.rank() == 0 {
        bail!("split of a 0-d tensor");
    }
    let dim = args::dim(args::int(c, 2)?, x.rank())?;
    let sizes = args::ints(c, 1)?
        .iter()
        .map(|&s| args::size(s, "a split size"))
        .collect::<Result<Vec<_>>>()?;
    split_into(x, dim, &sizes)
}

/// Pieces of `split_size` along `dim`, the last one smaller.
fn split_tensor(c: &Call) -> Result<Vec<Value>> {
    let x = args::tensor(c, 0)?;
    if x.rank() == 0 {
        bail!("split of a 0-d tensor");
    }
    let dim = args::dim(args::int(c, 2)?, x.rank())?;
    let each = args::size(args::int(c, 1)?, "the split size")?;
    let size = x.shape[dim];
    if each == 0 && size > 0 {
        bail!("split size 0 for a dimension of size {size}");
    }
    let mut sizes = Vec::new();
    let mut left = size;
    while left > 0 {
        let s = each.min(left);
        sizes.push(s);
        left -= s;
    }
    if sizes.is_empty() {
        sizes.push(0);
    }
    split_into(x, dim, &sizes)
}

#[cfg(test)]
mod tests {
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::tensor::value::Value;
    use crate::kernels::testing::*;

    fn list(items: &[Value]) -> Value {
        Value::TensorList(
            items
                .iter()
                .map(|v| v.as_tensor().unwrap().clone())
                .collect(),
        )
    }

    #[test]
    fn cat_joins_along_a_dimension() {
        let a = f32s(&[2, 1], &[1.0, 2.0]);
        let b = f32s(&[2, 2], &[3.0, 4.0, 5.0, 6.0]);
        let t = run1(
            "aten.cat",
            &[list(&[a.clone(), b]), Value::Int(-1)],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.shape, vec![2, 3]);
        assert_eq!(f32_values(&t), vec![1.0, 3.0, 4.0, 2.0, 5.0, 6.0]);
        let empty = f32s(&[0], &[]);
        let t = run1(
            "aten.cat",
            &[list(&[empty, a.clone()]), Value::Int(0)],
            unknown(),
        )
        .unwrap();
        assert_eq!(t.shape, vec![2, 1]);
        let wrong = f32s(&[3, 1], &[0.0; 3]);
        assert!(
            run(
                "aten.cat",
                &[list(&[a, wrong]), Value::Int(1)],
                &[unknown()]
            )
            .is_err()
        );
    }

    #[test]
    fn cat_converts_to_the_result_type() {
        let a = i32s(&[1], &[1]);
        let b = f32s(&[1], &[0.5]);
        let t = run1("aten.cat", &[list(&[a, b]), Value::Int(0)], unknown()).unwrap();
        assert_eq!(t.data, Data::F32(vec![1.0, 0.5]));
        assert_eq!(t.dtype(), DType::F32);
    }

    #[test]
    fn stack_and_split() {
        let a = f32s(&[2], &[1.0, 2.0]);
        let b = f32s(&[2], &[3.0, 4.0]);
        let t = run1("aten.stack", &[list(&[a, b]), Value::Int(1)], unknown()).unwrap();
        assert_eq!(t.shape, vec![2, 2]);
        assert_eq!(f32_values(&t), vec![1.0, 3.0, 2.0, 4.0]);
        let x = f32s(&[5], &[0.0, 1.0, 2.0, 3.0, 4.0]);
        let out = run(
            "aten.split.Tensor",
            &[x.clone(), Value::Int(2), Value::Int(0)],
            &[],
        )
        .unwrap();
        let Value::TensorList(parts) = &out[0] else {
            panic!()
        };
        let sizes: Vec<_> = parts.iter().map(|p| p.shape[0]).collect();
        assert_eq!(sizes, vec![2, 2, 1]);
        let args = [x.clone(), ints(&[1, 4]), Value::Int(0)];
        let out = run("aten.split_with_sizes", &args, &[]).unwrap();
        let Value::TensorList(parts) = &out[0] else {
            panic!()
        };
        assert_eq!(f32_values(&parts[1]), vec![1.0, 2.0, 3.0, 4.0]);
        let args = [x, ints(&[1, 3]), Value::Int(0)];
        assert!(run("aten.split_with_sizes", &args, &[]).is_err());
    }
}
