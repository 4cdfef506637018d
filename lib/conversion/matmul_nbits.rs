//! com.microsoft MatMulNBits: `Y = A · dequant(B)ᵀ (+ bias)`, B an [N, K] weight of
//! `bits`-bit codes packed low-first along K, in blocks of `block_size` codes that share
//! one scale and zero point (`(code - zero_point) · scale`; the zero point defaults to
//! `2^(bits-1)`).
//!
//! The lowering keeps the quantization explicit in the blocked form of
//! `blocked_quant.rs`: the codes, unpacked once here (B is a constant weight), are
//! `[N · k_blocks, block_size]` rows of one block each, every row a channel of a
//! per-channel quantized tensor (`_make_per_channel_quantized_tensor` +
//! `dequantize.self`); the rows are put back as [N, K], transposed and multiplied.
//! Codes are at most 8 bits, so `!torch.quint8` holds them exactly. Float zero points
//! (same type as the scales) have no integer form: the rows dequantize with zero point
//! 0 and `zero_point · scale` is subtracted from each.
//!
//! `g_idx` (act-order) names the block of each column of K. When every block holds
//! `block_size` columns (as GPTQ's act-order writes), sorting K by block makes the
//! blocks contiguous: the codes are reordered here and A's columns with `index_select`,
//! which leaves the product unchanged.
//!
//! `accuracy_level` only lets ONNX Runtime quantize A to int8 per block (level 4); qlower
//! computes in f32 at every level, so it is then at least as accurate as ONNX Runtime.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::quant_params::{QuantParams, dequantize};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;
use crate::onnx::tensor::TensorData;

pub fn register(r: &mut Lowerings) {
    r.on_domain_op("com.microsoft", "MatMulNBits", 1, matmul_nbits);
}

/// The attributes, checked against each other.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Layout {
    pub k: usize,
    pub n: usize,
    pub bits: usize,
    pub block: usize,
}

impl Layout {
    pub fn k_blocks(&self) -> usize {
        self.k.div_ceil(self.block)
    }

    pub fn blob_size(&self) -> usize {
        self.block * self.bits / 8
    }

    /// Bytes of packed zero points per column of N.
    pub fn zero_point_bytes(&self) -> usize {
        (self.k_blocks() * self.bits).div_ceil(8)
    }

    /// Code `i` of a low-first packed run of `bits`-bit codes.
    pub fn code(&self, packed: &[u8], i: usize) -> u8 {
        let bit = i * self.bits;
        let mask = ((1u16 << self.bits) - 1) as u8;
        (packed[bit / 8] >> (bit % 8)) & mask
    }

    fn default_zero_point(&self) -> u8 {
        1 << (self.bits - 1)
    }
}

/// Reads and checks K, N, bits and block_size.
pub(crate) fn layout(b: &Binder) -> Result<Layout> {
    let k = b.int("K", 0)?;
    let n = b.int("N", 0)?;
    let bits = b.int("bits", 4)?;
    let block = b.int("block_size", 0)?;
    if !matches!(bits, 4 | 8) {
        bail!("bits {bits} is not supported (4 and 8 are)");
    }
    if !(16..=256).contains(&block) || block.count_ones() != 1 {
        bail!("block_size {block} is not supported (a power of two from 16 to 256 is)");
    }
    // Bounds that keep every product below exact and allocatable; real weights are far
    // smaller.
    const MAX_DIM: i64 = 1 << 24;
    for (name, v) in [("K", k), ("N", n)] {
        if !(1..=MAX_DIM).contains(&v) {
            bail!("attribute {name} is {v}, but must be between 1 and {MAX_DIM}");
        }
    }
    Ok(Layout {
        k: k as usize,
        n: n as usize,
        bits: bits as usize,
        block: block as usize,
    })
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

fn matmul_nbits<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let l = layout(b)?;
    let a = b.input(0, "A")?;
    let a_type = b.input_type(0, "A")?;
    if a_type.dtype != Some(DType::F32) {
        bail!("A must be FLOAT, but is {a_type}");
    }
    match a_type.shape.as_ref().and_then(|s| s.last().copied()) {
        Some(Some(k)) if k != l.k as i64 => {
            bail!("A's last dimension is {k}, but attribute K is {}", l.k)
        }
        None => bail!("A must have rank 1 or more, but is {a_type}"),
        _ => {}
    }
    let rows = l.n * l.k_blocks();
    let Some(packed) = b.constant_input(1) else {
        bail!(
            "input B must be a constant initializer (its packed codes are unpacked at compile time)"
        );
    };
    if packed.dtype != DType::U8 {
        bail!("B must be UINT8, but is {}", packed.dtype);
    }
    if packed.bytes.len() != rows * l.blob_size() {
        bail!(
            "B has {} bytes, but N={} × k_blocks={} × blob_size={} is {}",
            packed.bytes.len(),
            l.n,
            l.k_blocks(),
            l.blob_size(),
            rows * l.blob_size()
        );
    }
    let scales = b.input(2, "scales")?;
    let scale_type = b.input_type(2, "scales")?;
    if scale_type.dtype != Some(DType::F32) {
        bail!("scales must be FLOAT, but is {scale_type}");
    }
    match scale_type.static_dims() {
        Some(d) if d.iter().product::<i64>() == rows as i64 => {}
        _ => bail!("scales must have N × k_blocks = {rows} elements, but is {scale_type}"),
    }
    let order = column_order(b, &l)?;
    let codes = unpack_codes(&packed.bytes, &l, order.as_deref());
    let zero_points = zero_points(b, &l)?;

    let rows_i = rows as i64;
    let block = l.block as i64;
    let scale_rows = t.aten_tensor(
        "reshape",
        &[scales, t.int_list(&[rows_i])?],
        &TensorType::known(DType::F32, &[rows_i]),
    )?;
    let code_rows_type = TensorType::known(DType::U8, &[rows_i, block]);
    let code_rows = t.literal(&TensorData {
        dtype: DType::U8,
        dims: vec![rows_i, block],
        bytes: codes.into(),
    })?;
    let (zero_point, float_zero_point) = match zero_points {
        ZeroPoints::Codes(z) => (z, None),
        ZeroPoints::Float(z) => (vec![0; rows], Some(z)),
    };
    let p = QuantParams {
        scale: scale_rows,
        scale_type: TensorType::known(DType::F32, &[rows_i]),
        zero_point: Some(t.literal(&TensorData {
            dtype: DType::U8,
            dims: vec![rows_i],
            bytes: zero_point.into(),
        })?),
        storage: DType::U8,
        axis: Some(0),
        length: rows,
    };
    let float_rows_type = code_rows_type.with_dtype(DType::F32);
    let mut w = dequantize(t, code_rows, &code_rows_type, &p)?;
    if let Some(z) = float_zero_point {
        // (code - z)·s = code·s - z·s, with z·s one offset per row.
        let column = TensorType::known(DType::F32, &[rows_i, 1]);
        let z = t.aten_tensor("reshape", &[z, t.int_list(&[rows_i, 1])?], &column)?;
        let s = t.aten_tensor("reshape", &[scale_rows, t.int_list(&[rows_i, 1])?], &column)?;
        let offset = t.aten_tensor("mul.Tensor", &[z, s], &column)?;
        let one = t.int(1)?;
        w = t.aten_tensor("sub.Tensor", &[w, offset, one], &float_rows_type)?;
    }
    let (n, k) = (l.n as i64, l.k as i64);
    let padded = (l.k_blocks() * l.block) as i64;
    let mut w = t.aten_tensor(
        "reshape",
        &[w, t.int_list(&[n, padded])?],
        &TensorType::known(DType::F32, &[n, padded]),
    )?;
    if padded != k {
        let (dim, start, end, step) = (t.int(1)?, t.int(0)?, t.int(k)?, t.int(1)?);
        w = t.aten_tensor(
            "slice.Tensor",
            &[w, dim, start, end, step],
            &TensorType::known(DType::F32, &[n, k]),
        )?;
    }
    let w = t.aten_tensor(
        "transpose.int",
        &[w, t.int(0)?, t.int(1)?],
        &TensorType::known(DType::F32, &[k, n]),
    )?;
    let a = match order {
        Some(order) => {
            let mut permuted = a_type.clone();
            if let Some(Some(last)) = permuted.shape.as_mut().and_then(|s| s.last_mut()) {
                *last = k;
            }
            let index = t.literal(&TensorData {
                dtype: DType::I64,
                dims: vec![k],
                bytes: order
                    .iter()
                    .flat_map(|&c| (c as i64).to_le_bytes())
                    .collect::<Vec<u8>>()
                    .into(),
            })?;
            t.aten_tensor("index_select", &[a, t.int(-1)?, index], &permuted)?
        }
        None => a,
    };
    let result = b.result_type(0)?.with_dtype(DType::F32);
    let mut y = t.aten_tensor("matmul", &[a, w], &result)?;
    if let Some(bias) = b.optional_input(5) {
        let bias_type = b.input_type(5, "bias")?;
        if bias_type.dtype != Some(DType::F32) || bias_type.static_dims() != Some(vec![n]) {
            bail!("bias must be FLOAT of shape [{n}], but is {bias_type}");
        }
        let one = t.int(1)?;
        y = t.aten_tensor("add.Tensor", &[y, bias, one], &result)?;
    }
    Ok(vec![y])
}

/// The codes as `[N · k_blocks, block]` rows, K's columns taken in `order` when given,
/// the last partial block filled with zeros (cut off after dequantizing).
pub(crate) fn unpack_codes(packed: &[u8], l: &Layout, order: Option<&[usize]>) -> Vec<u8> {
    let padded = l.k_blocks() * l.block;
    let column_bytes = l.k_blocks() * l.blob_size();
    let mut codes = vec![0u8; l.n * padded];
    for n in 0..l.n {
        let column = &packed[n * column_bytes..(n + 1) * column_bytes];
        let out = &mut codes[n * padded..n * padded + l.k];
        for (p, code) in out.iter_mut().enumerate() {
            let k = order.map_or(p, |o| o[p]);
            *code = l.code(column, k);
        }
    }
    codes
}

enum ZeroPoints<'c, 'a> {
    /// One integer code per row.
    Codes(Vec<u8>),
    /// The float zero points, as given.
    Float(Value<'c, 'a>),
}

fn zero_points<'c, 'a>(b: &Binder<'c, 'a>, l: &Layout) -> Result<ZeroPoints<'c, 'a>> {
    let rows = l.n * l.k_blocks();
    let Some(z) = b.optional_input(3) else {
        return Ok(ZeroPoints::Codes(vec![l.default_zero_point(); rows]));
    };
    let z_type = b.input_type(3, "zero_points")?;
    let count = z_type.static_dims().map(|d| d.iter().product::<i64>());
    match z_type.dtype {
        Some(DType::U8) => {
            let want = l.n * l.zero_point_bytes();
            if count != Some(want as i64) {
                bail!(
                    "packed zero_points must have N × ceil(k_blocks × bits / 8) = {want} \
                     bytes, but is {z_type}"
                );
            }
            let Some(data) = b.constant_input(3) else {
                bail!("packed zero_points must be a constant initializer");
            };
            let per_column = l.zero_point_bytes();
            Ok(ZeroPoints::Codes(
                (0..rows)
                    .map(|r| {
                        let (n, j) = (r / l.k_blocks(), r % l.k_blocks());
                        l.code(&data.bytes[n * per_column..(n + 1) * per_column], j)
                    })
                    .collect(),
            ))
        }
        Some(DType::F32) => {
            if count != Some(rows as i64) {
                bail!(
                    "float zero_points must have N × k_blocks = {rows} elements, but is {z_type}"
                );
            }
            Ok(ZeroPoints::Float(z))
        }
        _ => bail!("zero_points must be UINT8 (packed) or FLOAT, but is {z_type}"),
    }
}

/// K's columns sorted by their block when `g_idx` gives a non-trivial one; `None` when
/// the columns are already in block order.
fn column_order(b: &Binder, l: &Layout) -> Result<Option<Vec<usize>>> {
    if !b.has_input(4) {
        return Ok(None);
    }
    let Some(g) = b.constant_input(4) else {
        bail!("g_idx must be a constant initializer");
    };
    let Some(g) = (g.dtype == DType::I32).then(|| g.to_i64_vec()).flatten() else {
        bail!("g_idx must be INT32, but is {}", g.dtype);
    };
    if g.len() != l.k {
        bail!("g_idx has {} elements, but K is {}", g.len(), l.k);
    }
    let blocks = l.k_blocks() as i64;
    if let Some(bad) = g.iter().find(|&&v| !(0..blocks).contains(&v)) {
        bail!("g_idx holds block {bad}, outside 0..{blocks}");
    }
    let mut order: Vec<usize> = (0..l.k).collect();
    order.sort_by_key(|&c| g[c]);
    // The blocked form needs each block's columns to fill one row: block j must hold
    // exactly the columns j·block_size .. (j+1)·block_size of the sorted order.
    if order
        .iter()
        .enumerate()
        .any(|(p, &c)| g[c] != (p / l.block) as i64)
    {
        bail!(
            "g_idx must give each block exactly block_size={} columns",
            l.block
        );
    }
    let identity = order.iter().enumerate().all(|(p, &c)| p == c);
    Ok((!identity).then_some(order))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_unpack_low_nibble_first_and_pad_the_last_block() {
        let l = Layout {
            k: 20,
            n: 1,
            bits: 4,
            block: 16,
        };
        assert_eq!(
            (l.k_blocks(), l.blob_size(), l.zero_point_bytes()),
            (2, 8, 1)
        );
        let packed: Vec<u8> = (0..16u8).map(|i| (i % 16) | ((15 - i % 16) << 4)).collect();
        let codes = unpack_codes(&packed, &l, None);
        assert_eq!(codes.len(), 32);
        assert_eq!(&codes[..4], &[0, 15, 1, 14]);
        assert_eq!(&codes[16..20], &[8, 7, 9, 6]);
        assert!(codes[20..].iter().all(|&c| c == 0));
        let reversed: Vec<usize> = (0..20).rev().collect();
        let codes = unpack_codes(&packed, &l, Some(&reversed));
        assert_eq!(&codes[..2], &[6, 9]);
    }

    #[test]
    fn eight_bit_codes_are_whole_bytes() {
        let l = Layout {
            k: 16,
            n: 2,
            bits: 8,
            block: 16,
        };
        let packed: Vec<u8> = (0..32u8).collect();
        assert_eq!(unpack_codes(&packed, &l, None), packed);
        assert_eq!(l.default_zero_point(), 128);
    }
}
