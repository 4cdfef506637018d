//! Blocked QuantizeLinear and DequantizeLinear (opset 21 `block_size`): along `axis`,
//! every `block_size` consecutive elements share one scale and zero point, and the
//! parameters have x's rank with `ceil(K / block_size)` along the axis.
//!
//! torch has no blocked quantized type, so the form is a per-channel one: the axis is
//! moved last and x is viewed as `[M * blocks, block_size]` (M the product of the other
//! dimensions; a last partial block is padded with zeros and cut off again), where each
//! row is one block and so one channel of axis 0. Its parameters, moved and flattened
//! the same way, are that channel's: DequantizeLinear is
//! `_make_per_channel_quantized_tensor(rows, scales, zero_points, 0)` + `dequantize.self`,
//! QuantizeLinear the per-axis arithmetic of `quant_params`. The quantization stays
//! explicit, with torch's own ops, and every row keeps its exact scale and zero point.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::{Binder, tensor_type_of};
use super::quant_params::{self, QuantParams, normalize_axis};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

/// How x and its parameters are viewed as rows of one block each.
struct Blocks {
    /// x's dimensions, static.
    dims: Vec<i64>,
    axis: usize,
    block: i64,
    /// Blocks along the axis: `ceil(K / block)`.
    count: i64,
}

impl Blocks {
    /// The axis moved last.
    fn perm(&self) -> Vec<i64> {
        let rank = self.dims.len();
        (0..rank)
            .filter(|&d| d != self.axis)
            .chain([self.axis])
            .map(|d| d as i64)
            .collect()
    }

    fn inverse_perm(&self) -> Vec<i64> {
        let perm = self.perm();
        let mut inverse = vec![0; perm.len()];
        for (i, &p) in perm.iter().enumerate() {
            inverse[p as usize] = i as i64;
        }
        inverse
    }

    /// The other dimensions, in order, then the axis padded to whole blocks.
    fn moved_dims(&self, axis_len: i64) -> Vec<i64> {
        let mut dims: Vec<i64> = (0..self.dims.len())
            .filter(|&d| d != self.axis)
            .map(|d| self.dims[d])
            .collect();
        dims.push(axis_len);
        dims
    }

    fn rows(&self) -> i64 {
        self.moved_dims(self.count).iter().product()
    }

    fn padded(&self) -> i64 {
        self.count * self.block
    }
}

/// Reads the blocked layout of x and its parameters, refusing what ONNX does not allow.
fn blocks(b: &Binder, x_type: &TensorType, scale_input: usize, data_name: &str) -> Result<Blocks> {
    let block = b.int("block_size", 0)?;
    let Some(dims) = x_type.static_dims() else {
        bail!(
            "blocked quantization needs {data_name}'s dimensions at compile time, but it is {x_type}"
        );
    };
    // Refuses sizes whose product overflows, so the row counts below cannot.
    crate::onnx::tensor::element_count(&dims)?;
    let axis = normalize_axis(b.int("axis", 1)?, x_type, data_name)? as usize;
    let k = dims[axis];
    // ceil(k / block) without overflow for any block_size a model holds.
    let count = if k == 0 { 0 } else { (k - 1) / block + 1 };
    let scale_type = b.input_type(scale_input, "scale")?;
    let mut want = dims.clone();
    want[axis] = count;
    if scale_type.static_dims().as_ref() != Some(&want) {
        bail!(
            "blocked quantization with block_size {block} along axis {axis} needs a scale of \
             shape {want:?}, but it is {scale_type}"
        );
    }
    if dims.contains(&0) {
        bail!("blocked quantization of an empty tensor ({x_type})");
    }
    Ok(Blocks {
        dims,
        axis,
        // A block longer than the axis is one block of the axis: padding x to the
        // block's length would only add zeros to cut off again.
        block: block.min(k),
        count,
    })
}

/// `v` (x's rank, `axis_len` along the axis) with the axis moved last, viewed as
/// `rows_shape`: `[rows]` for the parameters, `[rows, block]` for x.
fn to_rows<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    v: Value<'c, 'a>,
    dtype: DType,
    blocks: &Blocks,
    axis_len: i64,
    rows_shape: &[i64],
) -> Result<Value<'c, 'a>> {
    let moved = blocks.moved_dims(axis_len);
    let v = permute(t, v, &blocks.perm(), &TensorType::known(dtype, &moved))?;
    // Parameters have one entry per block; only x can end in a partial block.
    let v = if rows_shape.len() == 1 || axis_len == blocks.padded() {
        v
    } else {
        // The last block is partial: zeros fill it, and are cut off again afterwards.
        let pad = t.int_list(&[0, blocks.padded() - axis_len])?;
        let mut padded = moved.clone();
        if let Some(last) = padded.last_mut() {
            *last = blocks.padded();
        }
        let zero = if dtype.is_float() {
            t.float(0.0)?
        } else {
            t.int(0)?
        };
        t.aten_tensor(
            "constant_pad_nd",
            &[v, pad, zero],
            &TensorType::known(dtype, &padded),
        )?
    };
    let shape = t.int_list(rows_shape)?;
    t.aten_tensor(
        "reshape",
        &[v, shape],
        &TensorType::known(dtype, rows_shape),
    )
}

/// Rows of x's block layout (dtype `dtype`) back in x's shape.
fn from_rows<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    rows: Value<'c, 'a>,
    dtype: DType,
    blocks: &Blocks,
) -> Result<Value<'c, 'a>> {
    let padded = blocks.moved_dims(blocks.padded());
    let shape = t.int_list(&padded)?;
    let mut v = t.aten_tensor(
        "reshape",
        &[rows, shape],
        &TensorType::known(dtype, &padded),
    )?;
    let k = blocks.dims[blocks.axis];
    if k != blocks.padded() {
        let last = padded.len() as i64 - 1;
        let mut cut = padded.clone();
        if let Some(last) = cut.last_mut() {
            *last = k;
        }
        let (dim, start, end, step) = (t.int(last)?, t.int(0)?, t.int(k)?, t.int(1)?);
        v = t.aten_tensor(
            "slice.Tensor",
            &[v, dim, start, end, step],
            &TensorType::known(dtype, &cut),
        )?;
    }
    let ty = TensorType::known(dtype, &blocks.dims);
    permute(t, v, &blocks.inverse_perm(), &ty)
}

/// `permute`, left out when the axis is already the last one.
fn permute<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    v: Value<'c, 'a>,
    perm: &[i64],
    ty: &TensorType,
) -> Result<Value<'c, 'a>> {
    if perm.iter().enumerate().all(|(i, &p)| p == i as i64) {
        return Ok(v);
    }
    let perm = t.int_list(perm)?;
    t.aten_tensor("permute", &[v, perm], ty)
}

/// The parameters as one scale and zero point per row.
fn row_params<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    blocks: &Blocks,
    scale_input: usize,
    storage: DType,
) -> Result<QuantParams<'c, 'a>> {
    let rows = blocks.rows();
    let scale = b.input(scale_input, "scale")?;
    let scale_type = tensor_type_of(scale)?;
    let scale_dtype = scale_type.dtype.unwrap_or(DType::F32);
    let scale = to_rows(t, scale, scale_dtype, blocks, blocks.count, &[rows])?;
    let zero_point = match b.optional_input(scale_input + 1) {
        Some(z) => Some(to_rows(t, z, storage, blocks, blocks.count, &[rows])?),
        None => None,
    };
    Ok(QuantParams {
        scale,
        scale_type: TensorType::known(scale_dtype, &[rows]),
        zero_point,
        storage,
        axis: Some(0),
        length: rows as usize,
    })
}

/// Blocked DequantizeLinear of `x` (integers of `storage`) to f32.
pub fn dequantize_blocked<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    storage: DType,
) -> Result<Value<'c, 'a>> {
    through_rows(
        b,
        t,
        x,
        x_type,
        storage,
        (storage, DType::F32),
        quant_params::dequantize,
    )
}

/// Blocked QuantizeLinear of the f32 tensor `x` to integers of `storage`.
pub fn quantize_blocked<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    storage: DType,
) -> Result<Value<'c, 'a>> {
    through_rows(
        b,
        t,
        x,
        x_type,
        storage,
        (DType::F32, storage),
        quant_params::quantize,
    )
}

type RowOp<'c, 'a> = fn(
    &TorchBuilder<'c, 'a>,
    Value<'c, 'a>,
    &TensorType,
    &QuantParams<'c, 'a>,
) -> Result<Value<'c, 'a>>;

/// `x` (of dtype `from`) viewed as one row per block, `op` applied with each row's
/// parameters as a channel of axis 0, and the result (of dtype `to`) put back in x's
/// shape.
fn through_rows<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    x_type: &TensorType,
    storage: DType,
    (from, to): (DType, DType),
    op: RowOp<'c, 'a>,
) -> Result<Value<'c, 'a>> {
    let blocks = blocks(b, x_type, 1, "x")?;
    let p = row_params(b, t, &blocks, 1, storage)?;
    p.check_supported()?;
    let shape = [blocks.rows(), blocks.block];
    let rows = to_rows(t, x, from, &blocks, blocks.dims[blocks.axis], &shape)?;
    let y = op(t, rows, &TensorType::known(from, &shape), &p)?;
    from_rows(t, y, to, &blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_moves_last_and_back() {
        let b = Blocks {
            dims: vec![2, 5, 3],
            axis: 1,
            block: 2,
            count: 3,
        };
        assert_eq!(b.perm(), vec![0, 2, 1]);
        assert_eq!(b.inverse_perm(), vec![0, 2, 1]);
        assert_eq!(b.moved_dims(6), vec![2, 3, 6]);
        assert_eq!(b.rows(), 18);
        assert_eq!(b.padded(), 6);
        let b = Blocks {
            dims: vec![4, 2, 3],
            axis: 0,
            block: 4,
            count: 1,
        };
        assert_eq!(b.perm(), vec![1, 2, 0]);
        assert_eq!(b.inverse_perm(), vec![2, 0, 1]);
    }
}
