//! Concatenation of 8-bit per-tensor quantized tensors, requantized to one scale and
//! zero point: the kernel of `qlower.qlinear_cat`, which stands for
//! `quantize_per_tensor(cat([dequantize(q₁), …]))` (a QDQ Concat, or QLinearConcat).
//! Each part's bytes map through the 256-entry table of the unfused dequantize and
//! quantize (`quant::requantize_table`), so the result is theirs byte for byte; a part
//! whose table is the identity (its parameters are the result's) is copied.

use anyhow::{Result, bail};
use rayon::prelude::*;

use super::lookup_table::look_up_row;
use super::quant::requantize_table;
use crate::kernels::ops::concat::check_joins;
use crate::kernels::split::{Cost, task_len};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor, checked_count};
use crate::kernels::{Call, args};

/// One part: its bytes, how many bytes it adds to each row of the result, and its
/// table (`None` to copy).
struct Part<'a> {
    bytes: &'a [u8],
    width: usize,
    table: Option<[u8; 256]>,
}

/// Operands: dim, y_scale, y_zero_point, then the parts (8-bit tensors quantized per
/// tensor, all of one type). The result carries y_scale and y_zero_point.
pub fn qlinear_cat(c: &Call) -> Result<Vec<Value>> {
    let y = (args::float(c, 1)?, args::int(c, 2)?);
    let tensors = (3..c.args.len())
        .map(|i| args::tensor(c, i))
        .collect::<Result<Vec<&Tensor>>>()?;
    let Some(first) = tensors.first() else {
        bail!("qlinear_cat of no tensors");
    };
    if first.rank() == 0 {
        bail!("qlinear_cat of 0-d tensors");
    }
    let dim = args::dim(args::int(c, 0)?, first.rank())?;
    let dtype = match first.data {
        Data::U8(_) => DType::QUInt8,
        Data::I8(_) => DType::QInt8,
        _ => bail!("qlinear_cat of {} tensors: 8-bit ones only", first.dtype()),
    };
    let inner: usize = first.shape[dim + 1..].iter().product();
    let mut parts = Vec::with_capacity(tensors.len());
    for (i, t) in tensors.iter().enumerate() {
        check_joins(i, t, first, dim)?;
        let Some(Quant::PerTensor { scale, zero_point }) = t.quant else {
            bail!("tensor {i} is not quantized per tensor");
        };
        let bytes: &[u8] = match &t.data {
            Data::U8(v) if dtype == DType::QUInt8 => v,
            // SAFETY: i8 and u8 have one size and alignment, and every bit pattern is
            // valid for both.
            Data::I8(v) if dtype == DType::QInt8 => unsafe {
                std::slice::from_raw_parts(v.as_ptr() as *const u8, v.len())
            },
            other => bail!(
                "tensor {i} holds {}, tensor 0 {}",
                other.dtype(),
                first.dtype()
            ),
        };
        let table = requantize_table(dtype, (scale, zero_point), y)?;
        let identity = table.iter().enumerate().all(|(b, &v)| usize::from(v) == b);
        parts.push(Part {
            bytes,
            width: t.shape[dim] * inner,
            table: (!identity).then_some(table),
        });
    }
    let mut shape = first.shape.clone();
    shape[dim] = tensors.iter().map(|t| t.shape[dim]).sum();
    let total = checked_count(&shape)?;
    let mut out = vec![0u8; total];
    let row: usize = parts.iter().map(|p| p.width).sum();
    if row > 0 {
        let per_task = task_len(total, Cost::Move, 1);
        out.par_chunks_mut(per_task)
            .enumerate()
            .for_each(|(k, chunk)| fill(&parts, row, k * per_task, chunk));
    }
    let data = match dtype {
        DType::QUInt8 => Data::U8(out),
        _ => Data::I8(out.into_iter().map(|b| b as i8).collect()),
    };
    let mut t = Tensor::new(shape, data)?;
    t.quant = Some(Quant::PerTensor {
        scale: y.0,
        zero_point: y.1,
    });
    args::ret(c, t)
}

/// Writes the result's bytes from `start` on into `chunk`: row after row, each the
/// parts' slices of that row in order.
fn fill(parts: &[Part], row: usize, start: usize, chunk: &mut [u8]) {
    let (mut r, mut within) = (start / row, start % row);
    let mut done = 0;
    while done < chunk.len() {
        let mut offset = 0;
        for p in parts {
            if within >= offset + p.width {
                offset += p.width;
                continue;
            }
            let from = r * p.width + (within - offset);
            let len = (offset + p.width - within).min(chunk.len() - done);
            let (src, dst) = (&p.bytes[from..from + len], &mut chunk[done..done + len]);
            match &p.table {
                Some(table) => look_up_row(src, table, dst),
                None => dst.copy_from_slice(src),
            }
            done += len;
            within += len;
            offset += p.width;
            if done == chunk.len() {
                return;
            }
        }
        r += 1;
        within = 0;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::kernels::testing::*;

    fn fused(args: &[Value], dtype: DType) -> Result<Tensor> {
        let results = [of(dtype)];
        match qlinear_cat(&Call {
            args,
            results: &results,
        })?
        .pop()
        {
            Some(Value::Tensor(t)) => Ok(Tensor::clone(&t)),
            other => bail!("expected a tensor, got {other:?}"),
        }
    }

    /// The unfused ops on the same parts: dequantize each, cat, quantize.
    fn unfused(parts: &[Tensor], dim: i64, y: (f64, i64), dtype: DType) -> Arc<Tensor> {
        let floats: Vec<Arc<Tensor>> = parts
            .iter()
            .map(|p| {
                run1(
                    "aten.dequantize.self",
                    &[Value::tensor(p.clone())],
                    unknown(),
                )
                .unwrap()
            })
            .collect();
        let list = Value::TensorList(floats);
        let joined = run1("aten.cat", &[list, Value::Int(dim)], unknown()).unwrap();
        let args = [
            Value::Tensor(joined),
            Value::Float(y.0),
            Value::Int(y.1),
            Value::Int(dtype.torch_scalar_type()),
        ];
        run1("aten.quantize_per_tensor", &args, of(dtype)).unwrap()
    }

    fn part(shape: &[usize], seed: u32, scale: f64, zero_point: i64, signed: bool) -> Tensor {
        let n: usize = shape.iter().product();
        let bytes: Vec<u8> = (0..n as u32)
            .map(|i| (i.wrapping_mul(2654435761).wrapping_add(seed) >> 13) as u8)
            .collect();
        let data = if signed {
            Data::I8(bytes.into_iter().map(|b| b as i8).collect())
        } else {
            Data::U8(bytes)
        };
        let mut t = Tensor::new(shape.to_vec(), data).unwrap();
        t.quant = Some(Quant::PerTensor { scale, zero_point });
        t
    }

    #[test]
    fn equals_dequantize_cat_quantize() {
        for (signed, dtype) in [(false, DType::QUInt8), (true, DType::QInt8)] {
            let zp = |z: i64| if signed { z - 128 } else { z };
            for (dim, shapes) in [
                (1, [[1, 3, 70, 90], [1, 5, 70, 90], [1, 2, 70, 90]]),
                (0, [[2, 3, 4, 5], [1, 3, 4, 5], [3, 3, 4, 5]]),
                (-1, [[2, 3, 40, 1], [2, 3, 40, 7], [2, 3, 40, 300]]),
            ] {
                let parts = [
                    part(&shapes[0], 1, 0.05, zp(128), signed),
                    part(&shapes[1], 2, 0.0312, zp(3), signed),
                    part(&shapes[2], 3, 0.05, zp(128), signed),
                ];
                let y = (0.05, zp(128));
                let mut args = vec![Value::Int(dim), Value::Float(y.0), Value::Int(y.1)];
                args.extend(parts.iter().map(|p| Value::tensor(p.clone())));
                let fused = fused(&args, dtype).unwrap();
                let expected = unfused(&parts, dim, y, dtype);
                assert_eq!(fused.shape, expected.shape);
                assert_eq!(fused.data, expected.data, "{dtype} along {dim}");
                assert_eq!(fused.quant, expected.quant);
            }
        }
    }

    #[test]
    fn refuses_mismatched_parts() {
        let a = part(&[1, 2, 3], 1, 0.1, 0, false);
        let b = part(&[1, 2, 4], 2, 0.1, 0, false);
        let head = [Value::Int(0), Value::Float(0.1), Value::Int(0)];
        let with = |parts: &[&Tensor]| -> Vec<Value> {
            head.iter()
                .cloned()
                .chain(parts.iter().map(|&p| Value::tensor(p.clone())))
                .collect()
        };
        assert!(fused(&with(&[&a, &b]), DType::QUInt8).is_err());
        let mut raw = a.clone();
        raw.quant = None;
        assert!(fused(&with(&[&a, &raw]), DType::QUInt8).is_err());
        let signed = part(&[1, 2, 3], 1, 0.1, 0, true);
        assert!(fused(&with(&[&a, &signed]), DType::QUInt8).is_err());
        assert!(fused(&head, DType::QUInt8).is_err());
    }
}
