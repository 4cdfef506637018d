//! `qlower.gather_block_quantized`: rows of a block-quantized uint8 table picked by
//! index and dequantized, only those rows. Unfused, the lowering of com.microsoft
//! GatherBlockQuantized (`conversion::gather_block_quantized`) gathered the packed
//! rows, scales and zero points, widened the codes to int32, split nibbles with a
//! remainder, a floor division and a stack, subtracted the zero points, converted to
//! f32 and multiplied by the scales: about ten tensors per call. Here each output
//! element is written once.
//!
//! It gives the unfused ops' bytes: `(code − zero_point)` is exact in i32, its
//! conversion to f32 and the one product by the f32 scale round as `to.dtype` and
//! `mul.Tensor` do (a float16 or bfloat16 scale widens to f32 exactly, as the
//! lowering's `to.dtype` does).

use anyhow::{Result, bail};
use rayon::prelude::*;

use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor, bounded_count};
use crate::kernels::{Call, args};

/// Below this many output elements the pool's hand-off costs more than the work.
const PARALLEL_ELEMENTS: usize = 1 << 15;

/// Operands: data (uint8 `[R, W]`, `8 / bits` codes a byte, the low nibble first),
/// indices (integers of any shape, each in `0..R`), scales (`[R, blocks]` of f32,
/// f16 or bf16), zero points (uint8 `[R, ≥ blocks · bits / 8]` packed as data, or
/// none: the middle code, 8 or 128), bits (4 or 8), block_size. The result is f32
/// `indices.shape + [W · 8 / bits]`.
pub fn gather_block_quantized(c: &Call) -> Result<Vec<Value>> {
    let data = args::tensor(c, 0)?;
    let indices = args::tensor(c, 1)?;
    let scales = args::tensor(c, 2)?;
    let zero_points = args::opt_tensor(c, 3)?;
    let bits = args::int(c, 4)?;
    let block = args::int(c, 5)?;
    let layout = Layout::of(data, bits, block)?;
    let Data::U8(codes) = &data.data else {
        bail!("data must be a uint8 table, but is {}", data.dtype());
    };
    if data.quant.is_some() || !indices.data.dtype().is_integer() || indices.quant.is_some() {
        bail!(
            "data must be plain uint8 and the indices integers, but are {} and {}",
            data.dtype(),
            indices.dtype()
        );
    }
    let scale_rows = ScaleRows::of(scales, layout.blocks)?;
    let zero_point_rows = match zero_points {
        Some(zp) => Some(ZeroPointRows::of(zp, &layout)?),
        None => None,
    };
    let rows = data.shape[0];
    let picked = indices
        .data
        .to_i64()
        .into_iter()
        .map(|i| match usize::try_from(i) {
            Ok(p)
                if p < rows
                    && p < scale_rows.rows
                    && zero_point_rows.as_ref().is_none_or(|z| p < z.rows) =>
            {
                Ok(p)
            }
            _ => bail!("index {i} is out of range for a table of {rows} rows"),
        })
        .collect::<Result<Vec<_>>>()?;
    let mut shape = indices.shape.clone();
    shape.push(layout.columns);
    let mut out = vec![0.0f32; bounded_count(&shape)?];
    if out.is_empty() {
        return args::ret(c, Tensor::new(shape, Data::F32(out))?);
    }
    let middle = 1i32 << (layout.bits - 1);
    let row_of = |(k, y): (usize, &mut [f32])| {
        let r = picked[k];
        let packed = &codes[r * layout.width..][..layout.width];
        for (b, y) in y.chunks_exact_mut(layout.block).enumerate() {
            let zero_point = zero_point_rows.as_ref().map_or(middle, |z| z.at(r, b));
            let scale = scale_rows.at(r, b);
            let first = b * layout.block;
            for (j, y) in y.iter_mut().enumerate() {
                let code = layout.code(packed, first + j);
                *y = (code - zero_point) as f32 * scale;
            }
        }
    };
    if out.len() >= PARALLEL_ELEMENTS && rayon::current_num_threads() > 1 {
        out.par_chunks_mut(layout.columns)
            .enumerate()
            .for_each(row_of);
    } else {
        out.chunks_mut(layout.columns).enumerate().for_each(row_of);
    }
    args::ret(c, Tensor::new(shape, Data::F32(out))?)
}

/// Where a row's codes and blocks lie.
struct Layout {
    bits: u32,
    /// Bytes a row.
    width: usize,
    /// Codes a row.
    columns: usize,
    block: usize,
    blocks: usize,
}

impl Layout {
    fn of(data: &Tensor, bits: i64, block: i64) -> Result<Layout> {
        let bits = match bits {
            4 => 4,
            8 => 8,
            _ => bail!("bits must be 4 or 8, but is {bits}"),
        };
        let &[_, width] = data.shape.as_slice() else {
            bail!("data must be a 2-D table, but has shape {:?}", data.shape);
        };
        let columns = width * (8 / bits as usize);
        let block = match usize::try_from(block) {
            Ok(b) if b > 0 && columns.is_multiple_of(b) => b,
            _ => bail!("block_size {block} does not divide the table's {columns} columns"),
        };
        Ok(Layout {
            bits,
            width,
            columns,
            block,
            blocks: columns / block,
        })
    }

    /// Code `j` of a row's `packed` bytes.
    #[inline(always)]
    fn code(&self, packed: &[u8], j: usize) -> i32 {
        if self.bits == 8 {
            return i32::from(packed[j]);
        }
        let byte = packed[j / 2];
        i32::from(if j.is_multiple_of(2) {
            byte & 15
        } else {
            byte >> 4
        })
    }
}

/// Each row's scales, read where they lie (the table is not copied: a decode step
/// reads one row of it).
struct ScaleRows<'t> {
    values: &'t Data,
    rows: usize,
    width: usize,
}

impl<'t> ScaleRows<'t> {
    fn of(scales: &'t Tensor, blocks: usize) -> Result<ScaleRows<'t>> {
        let (&[rows, width], None) = (scales.shape.as_slice(), &scales.quant) else {
            bail!(
                "scales must be [rows, {blocks}], but are {:?}",
                scales.shape
            );
        };
        if width != blocks {
            bail!(
                "scales must be [rows, {blocks}], but are {:?}",
                scales.shape
            );
        }
        if !matches!(scales.data, Data::F32(_) | Data::F16(_) | Data::BF16(_)) {
            bail!(
                "scales must be f32, f16 or bf16, but are {}",
                scales.dtype()
            );
        }
        Ok(ScaleRows {
            values: &scales.data,
            rows,
            width,
        })
    }

    /// The scale as f32: narrower floats widen exactly.
    fn at(&self, row: usize, block: usize) -> f32 {
        let i = row * self.width + block;
        match self.values {
            Data::F32(v) => v[i],
            Data::F16(v) => v[i].to_f32(),
            Data::BF16(v) => v[i].to_f32(),
            _ => f32::NAN,
        }
    }
}

/// Each row's zero points, packed as the data.
struct ZeroPointRows<'t> {
    packed: &'t [u8],
    rows: usize,
    width: usize,
    bits: u32,
}

impl<'t> ZeroPointRows<'t> {
    fn of(zero_points: &'t Tensor, layout: &Layout) -> Result<ZeroPointRows<'t>> {
        let (Data::U8(packed), &[rows, width], None) = (
            &zero_points.data,
            zero_points.shape.as_slice(),
            &zero_points.quant,
        ) else {
            bail!(
                "zero points must be a 2-D uint8 table, but are {} of shape {:?}",
                zero_points.dtype(),
                zero_points.shape
            );
        };
        if width * (8 / layout.bits as usize) < layout.blocks {
            bail!(
                "zero points hold fewer than {} blocks a row: shape {:?}",
                layout.blocks,
                zero_points.shape
            );
        }
        Ok(ZeroPointRows {
            packed,
            rows,
            width,
            bits: layout.bits,
        })
    }

    fn at(&self, row: usize, block: usize) -> i32 {
        let bytes = &self.packed[row * self.width..][..self.width];
        if self.bits == 8 {
            return i32::from(bytes[block]);
        }
        let byte = bytes[block / 2];
        i32::from(if block.is_multiple_of(2) {
            byte & 15
        } else {
            byte >> 4
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use half::f16;

    use super::*;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::testing::*;

    fn fused(args: &[Value]) -> Result<Arc<Tensor>> {
        let out = gather_block_quantized(&Call {
            args,
            results: &[unknown()],
        })?;
        match out.into_iter().next() {
            Some(Value::Tensor(t)) => Ok(t),
            other => bail!("{other:?}"),
        }
    }

    fn op(name: &str, args: &[Value]) -> Value {
        Value::Tensor(run1(name, args, unknown()).unwrap())
    }

    fn dims(v: &Value) -> Vec<i64> {
        v.as_tensor()
            .unwrap()
            .shape
            .iter()
            .map(|&d| d as i64)
            .collect()
    }

    /// The lowering's int32 `[N, W · 8 / bits]` codes of packed `[N, W]` rows.
    fn unpack(packed: Value, bits: i64) -> Value {
        let wide = op(
            "aten.to.dtype",
            &[
                packed,
                Value::Int(DType::I32.torch_scalar_type()),
                Value::Bool(false),
                Value::Bool(false),
                Value::None,
            ],
        );
        if bits == 8 {
            return wide;
        }
        let [n, w] = dims(&wide)[..] else { panic!() };
        let low = op("aten.remainder.Scalar", &[wide.clone(), Value::Int(16)]);
        let high = op(
            "aten.div.Scalar_mode",
            &[wide, Value::Int(16), Value::Str("floor".into())],
        );
        let (Value::Tensor(low), Value::Tensor(high)) = (low, high) else {
            panic!()
        };
        let pairs = op(
            "aten.stack",
            &[Value::TensorList(vec![low, high]), Value::Int(2)],
        );
        op("aten.reshape", &[pairs, ints(&[n, 2 * w])])
    }

    /// The ops `conversion::gather_block_quantized` writes, run one by one.
    fn unfused(
        data: &Value,
        indices: &Value,
        scales: &Value,
        zp: Option<&Value>,
        bits: i64,
        block: i64,
    ) -> Vec<f32> {
        let flat = op("aten.reshape", &[indices.clone(), ints(&[-1])]);
        let rows = |t: &Value| {
            op(
                "aten.index_select",
                &[t.clone(), Value::Int(0), flat.clone()],
            )
        };
        let codes = unpack(rows(data), bits);
        let n = dims(&codes)[0];
        let columns = dims(&codes)[1];
        let blocks = columns / block;
        let grouped = op("aten.reshape", &[codes, ints(&[n, blocks, block])]);
        let centered = match zp {
            Some(zp) => {
                let mut unpacked = unpack(rows(zp), bits);
                if dims(&unpacked)[1] != blocks {
                    unpacked = op(
                        "aten.slice.Tensor",
                        &[
                            unpacked,
                            Value::Int(1),
                            Value::Int(0),
                            Value::Int(blocks),
                            Value::Int(1),
                        ],
                    );
                }
                let zp = op("aten.unsqueeze", &[unpacked, Value::Int(2)]);
                op("aten.sub.Tensor", &[grouped, zp, Value::Int(1)])
            }
            None => op(
                "aten.sub.Scalar",
                &[grouped, Value::Int(1 << (bits - 1)), Value::Int(1)],
            ),
        };
        let to_f32 = |t: Value| {
            op(
                "aten.to.dtype",
                &[
                    t,
                    Value::Int(DType::F32.torch_scalar_type()),
                    Value::Bool(false),
                    Value::Bool(false),
                    Value::None,
                ],
            )
        };
        let scale = op("aten.unsqueeze", &[to_f32(rows(scales)), Value::Int(2)]);
        let values = op("aten.mul.Tensor", &[to_f32(centered), scale]);
        let mut shape = dims(indices);
        shape.push(columns);
        let y = op("aten.reshape", &[values, ints(&shape)]);
        f32_values(y.as_tensor().unwrap())
    }

    fn u8s(seed: u64, shape: &[usize]) -> Value {
        tensor(shape, Data::U8(test_bytes(seed, shape.iter().product())))
    }

    fn scales(seed: u64, shape: &[usize], half: bool) -> Value {
        let v: Vec<f32> = test_bytes(seed, shape.iter().product())
            .iter()
            .map(|&b| (f32::from(b) + 1.0) / 997.0)
            .collect();
        if half {
            return tensor(
                shape,
                Data::F16(v.iter().map(|&s| f16::from_f32(s)).collect()),
            );
        }
        f32s(shape, &v)
    }

    #[test]
    fn fused_gather_gives_the_bytes_of_the_unfused_ops() {
        // (rows, columns, bits, block, zero point bytes a row (0: none), index shape,
        // half scales): both widths, with and without zero points, an odd block count
        // whose 4-bit zero points pad a nibble, and one big enough for the pool.
        type Case = (usize, usize, i64, i64, usize, Vec<usize>, bool);
        let cases: Vec<Case> = vec![
            (10, 64, 4, 16, 0, vec![5], false),
            (10, 64, 4, 32, 1, vec![2, 3], false),
            (7, 96, 4, 32, 2, vec![4], true),
            (9, 64, 8, 16, 0, vec![3, 2], false),
            (9, 64, 8, 16, 4, vec![1, 6], true),
            (12, 48, 8, 16, 5, vec![2, 2, 2], false),
            (300, 512, 4, 64, 4, vec![2, 40], false),
            (40, 256, 8, 128, 2, vec![1, 200], false),
        ];
        for (i, (rows, columns, bits, block, zp_width, index_shape, half)) in
            cases.into_iter().enumerate()
        {
            let seed = i as u64 * 10;
            let per_byte = 8 / bits as usize;
            let data = u8s(seed, &[rows, columns / per_byte]);
            let blocks = columns / block as usize;
            let scales = scales(seed + 1, &[rows, blocks], half);
            let zp = (zp_width > 0).then(|| u8s(seed + 2, &[rows, zp_width]));
            let picks: Vec<i64> = test_bytes(seed + 3, index_shape.iter().product())
                .iter()
                .map(|&b| i64::from(b) % rows as i64)
                .collect();
            let indices = tensor(&index_shape, Data::I64(picks.clone()));
            let want = unfused(&data, &indices, &scales, zp.as_ref(), bits, block);
            let args = [
                data.clone(),
                indices,
                scales.clone(),
                zp.clone().unwrap_or(Value::None),
                Value::Int(bits),
                Value::Int(block),
            ];
            let got = fused(&args).unwrap();
            let mut shape = index_shape.clone();
            shape.push(columns);
            assert_eq!(got.shape, shape, "case {i}");
            assert_same_f32_bits(&f32_values(&got), &want, &format!("case {i}"));
            // int32 indices read as their int64 casts.
            let narrow = tensor(
                &index_shape,
                Data::I32(picks.iter().map(|&p| p as i32).collect()),
            );
            let args = [
                data,
                narrow,
                scales,
                zp.unwrap_or(Value::None),
                Value::Int(bits),
                Value::Int(block),
            ];
            assert_same_f32_bits(
                &f32_values(&fused(&args).unwrap()),
                &want,
                &format!("case {i}, int32"),
            );
        }
    }

    #[test]
    fn operands_that_do_not_fit_are_errors() {
        let run = |bits: i64, block: i64, index: i64, scale_shape: &[usize], zp: Option<Value>| {
            fused(&[
                u8s(1, &[4, 8]),
                tensor(&[1], Data::I64(vec![index])),
                scales(2, scale_shape, false),
                zp.unwrap_or(Value::None),
                Value::Int(bits),
                Value::Int(block),
            ])
        };
        assert!(run(4, 16, 3, &[4, 1], None).is_ok());
        assert!(run(4, 16, 4, &[4, 1], None).is_err());
        assert!(run(4, 16, -1, &[4, 1], None).is_err());
        assert!(run(4, 16, 3, &[3, 1], None).is_err());
        assert!(run(4, 16, 0, &[4, 2], None).is_err());
        assert!(run(4, 5, 0, &[4, 1], None).is_err());
        assert!(run(2, 16, 0, &[4, 1], None).is_err());
        assert!(run(8, 8, 0, &[4, 1], Some(u8s(3, &[4, 1]))).is_ok());
        assert!(run(8, 4, 0, &[4, 2], Some(u8s(3, &[4, 1]))).is_err());
    }
}
