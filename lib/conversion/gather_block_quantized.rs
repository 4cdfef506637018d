//! com.microsoft GatherBlockQuantized, the int4/int8 embedding table of LLMs that ONNX
//! Runtime GenAI's builder writes: rows of a block-quantized table gathered, then
//! dequantized, `(q − zero_point) · scale` per block of `block_size` along the last
//! axis. The gather comes first, so only the rows read are unpacked and dequantized.
//!
//! The table is uint8: with `bits` 4 two values per byte, the low nibble first; with 8
//! one. Zero points are stored the same way per block (default 8 for 4 bits, 128 for 8).
//! Supported: gather_axis 0 of a 2-D table, quantize_axis its last, a column count that
//! is a multiple of block_size; other forms are refused by name.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::typed_ops::{Ops, Size, Tensor, optional, tensor};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_domain_op(
        "com.microsoft",
        "GatherBlockQuantized",
        1,
        gather_block_quantized,
    );
}

/// The values of the uint8 `packed` `[N, W]` as int32 `[N, W · 8 / bits]`.
fn unpack<'c, 'a>(
    o: &Ops<'_, 'c, 'a>,
    packed: &Tensor<'c, 'a>,
    bits: i64,
) -> Result<Tensor<'c, 'a>> {
    let wide = o.cast(packed, DType::I32)?;
    if bits == 8 {
        return Ok(wide);
    }
    let low = o.scalar("remainder.Scalar", &wide, o.t.int(16)?)?;
    let ty = TensorType::new(DType::I32, wide.dims.clone());
    let high = o.t.aten_tensor(
        "div.Scalar_mode",
        &[wide.value, o.t.int(16)?, o.t.str("floor")?],
        &ty,
    )?;
    let high = Tensor {
        value: high,
        dims: wide.dims.clone(),
        dtype: DType::I32,
    };
    let pairs = o.stack_last(&[&low, &high])?;
    let width = wide.dims[1].map(|w| 2 * w);
    let columns = match width {
        Some(w) => o.int(w)?,
        None => bail!("the packed width must be known at compile time"),
    };
    o.reshape(&pairs, &[o.size(&wide, 0)?, columns])
}

fn gather_block_quantized<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>> {
    let o = Ops::new(t);
    let data = tensor(b, 0, "data")?;
    let indices = tensor(b, 1, "indices")?;
    let scales = tensor(b, 2, "scales")?;
    if data.dtype != DType::U8 {
        bail!(
            "data of {:?} is not supported (uint8, 4 or 8 bits a value)",
            data.dtype
        );
    }
    let bits = b.int("bits", 4)?;
    if bits != 4 && bits != 8 {
        bail!("bits must be 4 or 8, but is {bits}");
    }
    if data.rank() != 2 || b.int("gather_axis", 0)? != 0 {
        bail!("only gather_axis 0 of a 2-D table is supported");
    }
    let quantize_axis = b.int("quantize_axis", 1)?;
    if quantize_axis != 1 && quantize_axis != -1 {
        bail!("only quantize_axis 1 (the last) is supported, not {quantize_axis}");
    }
    let block = b.int("block_size", 128)?;
    if block < 16 || block & (block - 1) != 0 {
        bail!("block_size must be a power of 2 of at least 16, but is {block}");
    }
    let per_byte = 8 / bits;
    let Some(columns) = data.dims[1].map(|w| w * per_byte) else {
        bail!("the table's width must be known at compile time");
    };
    if columns % block != 0 {
        bail!("the table's {columns} columns are not a multiple of block_size {block}");
    }
    let blocks = columns / block;
    if scales.rank() != 2 || scales.dims[1].is_some_and(|n| n != blocks) {
        bail!("scales must be [rows, {blocks}], but are {:?}", scales.dims);
    }

    // The rows read, flattened: [N].
    let flat = o.flatten(&o.cast(&indices, DType::I64)?)?;
    let rows = |x: &Tensor<'c, 'a>| o.index_select(x, 0, &flat);

    let codes = unpack(&o, &rows(&data)?, bits)?;
    let zero_points = match optional(b, 3, "zero_points")? {
        None => None,
        Some(zp) => {
            if zp.dtype != DType::U8 || zp.rank() != 2 {
                bail!("zero_points must be 2-D uint8 like data");
            }
            let unpacked = unpack(&o, &rows(&zp)?, bits)?;
            if unpacked.dims[1] != Some(blocks) {
                if unpacked.dims[1].is_some_and(|w| w < blocks) {
                    bail!("zero_points hold fewer than {blocks} blocks a row");
                }
                Some(o.slice(&unpacked, 1, 0, blocks)?)
            } else {
                Some(unpacked)
            }
        }
    };
    let n = o.size(&codes, 0)?;
    let grouped = o.reshape(&codes, &[n, o.int(blocks)?, o.int(block)?])?;
    // Without zero points every block's is the middle code, 8 or 128.
    let centered = match zero_points {
        Some(zp) => o.sub(&grouped, &o.unsqueeze(&zp, 2)?)?,
        None => o.scalar("sub.Scalar", &grouped, t.int(1 << (bits - 1))?)?,
    };
    let centered = o.cast(&centered, DType::F32)?;
    let scale = o.unsqueeze(&o.cast(&rows(&scales)?, DType::F32)?, 2)?;
    let values = o.mul(&centered, &scale)?;
    let values = o.reshape(&values, &[n, o.int(columns)?])?;
    let mut shape: Vec<Size> = o.sizes(&indices, 0..indices.rank())?;
    shape.push(o.int(columns)?);
    let y = o.reshape(&values, &shape)?;
    let result = b.result_type(0)?;
    let y = match result.dtype {
        Some(d) if d != DType::F32 => o.cast(&y, d)?,
        _ => y,
    };
    Ok(vec![y.value])
}
