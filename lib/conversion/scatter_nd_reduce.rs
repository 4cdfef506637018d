//! ScatterND with `reduction` mul, max or min, which torch's `index_put` cannot express
//! (it only writes or adds): the leading `k` axes of `data` that each index tuple
//! addresses become one axis of `P` rows of `S` elements, each tuple one row number
//! (negative entries counted from the end), and `scatter_reduce.two` along that axis
//! folds every update row into its row, in index order, starting from `data`'s own
//! values (`include_self`), then the result takes `data`'s shape again.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::Binder;
use super::typed_ops::{Ops, Size, Tensor, tensor};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::dtype::DType;

/// torch's name of ONNX's `reduction`, for the reductions `index_put` cannot do.
pub fn torch_reduction(onnx: &str) -> Option<&'static str> {
    match onnx {
        "mul" => Some("prod"),
        "max" => Some("amax"),
        "min" => Some("amin"),
        _ => None,
    }
}

pub fn scatter_nd_reduce<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    reduce: &str,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    let (data, indices, updates) = (
        tensor(b, 0, "data")?,
        tensor(b, 1, "indices")?,
        tensor(b, 2, "updates")?,
    );
    if indices.dtype != DType::I64 {
        bail!("input 'indices' is {}, expected INT64", indices.dtype);
    }
    let Some(Some(k)) = indices.dims.last().copied() else {
        bail!("input 'indices' must have a last dimension known at compile time");
    };
    let rank = data.rank();
    if k < 1 || k as usize > rank {
        bail!("input 'indices' addresses {k} dimensions, but data has rank {rank}");
    }
    // Sizes unknown at compile time are read from data at run time.
    let dims = o.sizes(&data, 0..rank)?;
    let (lead, tail) = dims.split_at(k as usize);
    let rows = o.product(lead)?;
    let row_size = o.product(tail)?;
    let table = o.reshape(&data, &[rows, row_size])?;

    // The row of each index tuple: Σ_j wrap(index_j) · stride_j, where stride_j is the
    // product of the lead sizes after j.
    let last = indices.rank() as i64 - 1;
    let mut row: Option<Tensor> = None;
    for (j, size) in lead.iter().enumerate() {
        let stride = o.product(&lead[j + 1..])?;
        let entry = o.select(&indices, last, j as i64)?;
        let negative = o.compare_scalar("lt.Scalar", &entry, o.t.int(0)?)?;
        let wrapped = o.scalar("add.Scalar", &entry, size.value)?;
        let entry = o.where_self(&negative, &wrapped, &entry)?;
        let scaled = o.scalar("mul.Scalar", &entry, stride.value)?;
        row = Some(match row {
            Some(r) => o.add(&r, &scaled)?,
            None => scaled,
        });
    }
    let Some(row) = row else {
        bail!("input 'indices' addresses no dimension");
    };
    let count = o.product(&o.sizes(&row, 0..row.rank())?)?;
    let row = o.unsqueeze(&o.reshape(&row, &[count])?, 1)?;
    let index = expand(&o, &row, count, row_size)?;
    let values = o.reshape(&updates, &[count, row_size])?;
    let operands = [
        table.value,
        o.t.int(0)?,
        index.value,
        values.value,
        o.t.str(reduce)?,
        o.t.bool(true)?,
    ];
    let ty = TensorType::new(data.dtype, table.dims.clone());
    let value = o.t.aten_tensor("scatter_reduce.two", &operands, &ty)?;
    let reduced = Tensor {
        value,
        dims: table.dims,
        dtype: data.dtype,
    };
    Ok(vec![o.reshape(&reduced, &dims)?.value])
}

/// `[N, 1]` repeated to `[N, columns]`.
fn expand<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    x: &Tensor<'c, 'a>,
    count: Size<'c, 'a>,
    columns: Size<'c, 'a>,
) -> Result<Tensor<'c, 'a>> {
    let sizes = o.t.list(&[count.value, columns.value], "int")?;
    let dims = vec![count.known, columns.known];
    let ty = TensorType::new(x.dtype, dims.clone());
    let value =
        o.t.aten_tensor("expand", &[x.value, sizes, o.t.bool(false)?], &ty)?;
    Ok(Tensor {
        value,
        dims,
        dtype: x.dtype,
    })
}
