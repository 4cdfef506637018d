//! GatherND as a flat `index_select`: data's batch dimensions and the `k` dimensions the
//! indices address are flattened into one, each index tuple becomes its position in
//! that flattened dimension (`Σ index_j · stride_j`, negative indices wrapped first, plus
//! the batch's offset), and the selected slices are reshaped to
//! `indices.shape[:-1] + data.shape[batch_dims + k:]`. With every size known the strides
//! and offsets are literals; otherwise `gather_nd_dynamic` computes them at run time.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::gather_nd_dynamic::gather_nd_dynamic;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;
use crate::onnx::tensor::TensorData;

pub fn register(r: &mut Lowerings) {
    r.on_op("GatherND", 11, gather_nd);
}

fn gather_nd<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Result<Vec<Value<'c, 'a>>> {
    let data = b.input(0, "data")?;
    let data_type = b.input_type(0, "data")?;
    let indices = b.input(1, "indices")?;
    let indices_type = b.input_type(1, "indices")?;
    if indices_type.dtype != Some(DType::I64) {
        bail!("indices must be INT64, but are {indices_type}");
    }
    let Some(data_dtype) = data_type.dtype else {
        bail!("data has an unknown element type");
    };
    let batch = usize::try_from(b.int("batch_dims", 0)?)
        .map_err(|_| anyhow::anyhow!("attribute 'batch_dims' is negative"))?;
    let (Some(dims), Some(idx)) = (data_type.static_dims(), indices_type.static_dims()) else {
        return gather_nd_dynamic(b, t, batch);
    };
    let k = idx.last().copied().unwrap_or(0);
    let ku = usize::try_from(k).unwrap_or(usize::MAX);
    if batch >= idx.len() || batch >= dims.len() || ku < 1 || ku > dims.len() - batch {
        bail!(
            "indices {idx:?} with batch_dims {batch} do not fit data {dims:?}: the last \
             dimension of indices must be between 1 and the rank of data less batch_dims"
        );
    }
    if dims[..batch] != idx[..batch] {
        bail!("the first {batch} dimensions of data {dims:?} and indices {idx:?} must be equal");
    }
    let addressed = &dims[batch..batch + ku];
    let rest = &dims[batch + ku..];
    // Row-major strides of the addressed dimensions, in slices of `rest`.
    let mut strides = vec![1i64; ku];
    for j in (0..ku.saturating_sub(1)).rev() {
        strides[j] = product(&addressed[j + 1..])?;
    }
    let per_batch = product(addressed)?;
    let tuples = product(&idx[..idx.len() - 1])?;
    let batches = product(&dims[..batch])?;
    let source_rows = batches
        .checked_mul(per_batch)
        .ok_or_else(|| anyhow::anyhow!("data {dims:?} has more elements than can be addressed"))?;

    // Negative indices wrap: i + size where i < 0, per addressed dimension.
    let sizes = t.literal(&i64_tensor(&[k], addressed))?;
    let idx_t = TensorType::known(DType::I64, &idx);
    let zero = t.int(0)?;
    let one = t.int(1)?;
    let negative = t.aten_tensor(
        "lt.Scalar",
        &[indices, zero],
        &TensorType::known(DType::Bool, &idx),
    )?;
    let wrapped = t.aten_tensor("add.Tensor", &[indices, sizes, one], &idx_t)?;
    let indices = t.aten_tensor("where.self", &[negative, wrapped, indices], &idx_t)?;
    let strides = t.literal(&i64_tensor(&[k], &strides))?;
    let scaled = t.aten_tensor("mul.Tensor", &[indices, strides], &idx_t)?;
    let tuple_dims = idx[..idx.len() - 1].to_vec();
    let last = t.int_list(&[-1])?;
    let no = t.bool(false)?;
    let none = t.none()?;
    let position = t.aten_tensor(
        "sum.dim_IntList",
        &[scaled, last, no, none],
        &TensorType::known(DType::I64, &tuple_dims),
    )?;
    let flat_type = TensorType::known(DType::I64, &[tuples]);
    let flat_shape = t.int_list(&[tuples])?;
    let mut flat = t.aten_tensor("reshape", &[position, flat_shape], &flat_type)?;
    if batch > 0 {
        let bytes = (tuples as u64).saturating_mul(8);
        if bytes > crate::budget::max_tensor_bytes() {
            bail!(
                "indices {idx:?} need {} of batch offsets, over the {} budget (see \
                 --max-tensor-bytes)",
                crate::budget::show_bytes(bytes),
                crate::budget::show_bytes(crate::budget::max_tensor_bytes())
            );
        }
        // Each tuple's batch, as an offset into the flattened batch and addressed
        // dimensions.
        let per_tuple_batch = tuples / batches.max(1);
        let offsets: Vec<i64> = (0..tuples)
            .map(|i| i / per_tuple_batch.max(1) * per_batch)
            .collect();
        let offsets = t.literal(&i64_tensor(&[tuples], &offsets))?;
        flat = t.aten_tensor("add.Tensor", &[flat, offsets, one], &flat_type)?;
    }
    let mut source_dims = vec![source_rows];
    source_dims.extend(rest);
    let source_shape = t.int_list(&source_dims)?;
    let source = t.aten_tensor(
        "reshape",
        &[data, source_shape],
        &TensorType::known(data_dtype, &source_dims),
    )?;
    let mut picked_dims = vec![tuples];
    picked_dims.extend(rest);
    let picked = t.aten_tensor(
        "index_select",
        &[source, zero, flat],
        &TensorType::known(data_dtype, &picked_dims),
    )?;
    let mut out_dims = tuple_dims;
    out_dims.extend(rest);
    let out_shape = t.int_list(&out_dims)?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor(
        "reshape",
        &[picked, out_shape],
        &result,
    )?])
}

/// The product of sizes, refusing overflow (a model may declare any sizes, and a zero
/// elsewhere in the shape does not bound these partial products).
fn product(dims: &[i64]) -> Result<i64> {
    dims.iter().try_fold(1i64, |n, &d| {
        n.checked_mul(d).ok_or_else(|| {
            anyhow::anyhow!("sizes {dims:?} have more elements than can be addressed")
        })
    })
}

fn i64_tensor(dims: &[i64], values: &[i64]) -> TensorData {
    TensorData {
        dtype: DType::I64,
        dims: dims.to_vec(),
        bytes: values
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>()
            .into(),
    }
}
