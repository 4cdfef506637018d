//! GatherND when sizes are known only at run time: the same flat `index_select` as
//! `gather_nd`, with the strides, the negative-index wrap, the batch offsets and the
//! reshapes computed from `size.int` rather than written as literals. Only the ranks,
//! the length `k` of the index tuples (the last dimension of indices, which fixes the
//! result's rank) and `batch_dims` must be known at compile time.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::Binder;
use super::typed_ops::{Ops, Size, Tensor, tensor};
use crate::dialect::builder::TorchBuilder;
use crate::onnx::dtype::DType;

/// `data` gathered at the tuples of `indices` (int64), with `batch` leading batch
/// dimensions shared by both.
pub fn gather_nd_dynamic<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    batch: usize,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    let data = tensor(b, 0, "data")?;
    let indices = tensor(b, 1, "indices")?;
    let (r, q) = (data.rank(), indices.rank());
    let Some(k) = indices.dims.last().copied().flatten() else {
        bail!(
            "the last dimension of indices (the length of each index tuple) must be known at \
             compile time, since it fixes the rank of the result; indices are {}",
            b.input_type(1, "indices")?
        );
    };
    let k = usize::try_from(k).unwrap_or(usize::MAX);
    if batch >= q || batch >= r || k < 1 || k > r - batch {
        bail!(
            "indices of rank {q} with tuples of {k} and batch_dims {batch} do not fit data of \
             rank {r}"
        );
    }
    let addressed = o.sizes(&data, batch..batch + k)?;
    // Each tuple's position among the addressed dimensions, row-major, negative indices
    // wrapped first.
    let mut position: Option<Tensor> = None;
    for j in 0..k {
        let column = o.select(&indices, -1, j as i64)?;
        let negative = o.compare_scalar("lt.Scalar", &column, t.int(0)?)?;
        let wrapped = o.scalar("add.Scalar", &column, addressed[j].value)?;
        let column = o.where_self(&negative, &wrapped, &column)?;
        let stride = o.product(&addressed[j + 1..])?;
        let term = o.scalar("mul.Scalar", &column, stride.value)?;
        position = Some(match position {
            Some(p) => o.add(&p, &term)?,
            None => term,
        });
    }
    let Some(mut position) = position else {
        bail!("indices address no dimension");
    };
    if batch > 0 {
        // The batch's offset into the flattened batch and addressed dimensions.
        let batch_sizes = o.sizes(&indices, 0..batch)?;
        let batches = o.arange(o.product(&batch_sizes)?)?;
        let mut shape = batch_sizes;
        shape.extend(
            (batch..q - 1)
                .map(|_| o.int(1))
                .collect::<Result<Vec<_>>>()?,
        );
        let per_batch = o.product(&addressed)?;
        let offsets = o.scalar("mul.Scalar", &o.reshape(&batches, &shape)?, per_batch.value)?;
        position = o.add(&position, &offsets)?;
    }
    let tuple_sizes = o.sizes(&indices, 0..q - 1)?;
    let flat = o.reshape(&position, &[o.product(&tuple_sizes)?])?;
    let rest = o.sizes(&data, batch + k..r)?;
    let mut source_shape = vec![o.product(&o.sizes(&data, 0..batch + k)?)?];
    source_shape.extend(rest.iter().copied());
    let source = o.reshape(&data, &source_shape)?;
    let picked = o.index_select(&source, 0, &o.cast(&flat, DType::I64)?)?;
    let mut out_shape: Vec<Size> = tuple_sizes;
    out_shape.extend(rest);
    Ok(vec![o.reshape(&picked, &out_shape)?.value])
}
