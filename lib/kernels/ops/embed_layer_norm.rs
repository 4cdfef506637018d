//! `qlower.embed_layer_norm`: the embedding block of BERT-class encoders
//! (com.microsoft EmbedLayerNormalization and QEmbedLayerNormalization, lowered by
//! `conversion::embed_layer_norm`): rows of two or three tables picked by id, summed,
//! and layer-normalized over the hidden axis. Unfused, each table was an
//! `index_select` and a reshape (a dequantize after them for 8-bit tables), the sum
//! one `add.Tensor` a table, and the norm `layer_norm`: every term written out at the
//! full `[B, S, H]` and read again. Here each row is summed and normalized in cache.
//!
//! It gives the unfused ops' bytes: each 8-bit row is dequantized by `dequantize`'s
//! own loops (`quant::dequantize_span`), the terms are added in the lowering's order
//! `(t₀ + t₁) + t₂`, each sum one f32 addition (IEEE addition is commutative, so which
//! operand of each `add.Tensor` a term was does not matter), and the rows are
//! normalized by `layer_norm`'s f32 path (`layer_norm::normalize_f32_rows`).

use anyhow::{Result, bail};
use rayon::prelude::*;

use super::layer_norm::{ROWS, affine, normalize_f32_rows};
use crate::kernels::quantized::quant::dequantize_span;
use crate::kernels::tensor::layout::{broadcast_shapes, broadcast_strides, step_offsets};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor, bounded_count};
use crate::kernels::{Call, args};

/// Operands: gamma and beta (f32, the hidden size, or none), epsilon, then one pair
/// a term: a table (`[V, H]`, f32 or 8-bit quantized per tensor) and the ids of its
/// rows (integers, each in `0..V`; their shapes broadcast to the rows' `lead` shape),
/// or rows already gathered (f32 `[dims…, H]`, broadcasting to them: position rows
/// fold-constants computed) and none.
/// Results: the normalized sum `lead + [H]` and, when declared, the sum itself.
pub fn embed_layer_norm(c: &Call) -> Result<Vec<Value>> {
    let term_operands = c.args.len().saturating_sub(3);
    if term_operands == 0 || !term_operands.is_multiple_of(2) {
        bail!(
            "{} operands: expected gamma, beta, epsilon and (table, ids) pairs",
            c.args.len()
        );
    }
    let eps = args::float(c, 2)?;
    let mut terms = Vec::with_capacity(term_operands / 2);
    for k in 0..term_operands / 2 {
        let table = args::tensor(c, 3 + 2 * k)?;
        let ids = args::opt_tensor(c, 4 + 2 * k)?;
        terms.push(match ids {
            Some(ids) => Term::of(table, ids, k)?,
            None => Term::dense(table, k)?,
        });
    }
    let hidden = terms[0].hidden;
    if let Some(t) = terms.iter().find(|t| t.hidden != hidden) {
        bail!(
            "the tables' rows differ in length: {hidden} and {} (table {})",
            t.hidden,
            t.which
        );
    }
    let mut lead: Vec<usize> = Vec::new();
    for t in &terms {
        lead = broadcast_shapes(&lead, &t.ids_shape)?;
    }
    for t in &mut terms {
        let steps = broadcast_strides(&t.ids_shape, &lead)?;
        t.rows = step_offsets(&lead, &steps)
            .into_iter()
            .map(|at| t.picks.get(at).copied().unwrap_or(0))
            .collect();
    }
    let gamma = affine(c, 0, &[hidden], "gamma")?;
    let beta = affine(c, 1, &[hidden], "beta")?;
    let affine_pair = (gamma.as_deref(), beta.as_deref());
    let mut shape = lead.clone();
    shape.push(hidden);
    let count = bounded_count(&shape)?;
    let mut y = vec![0.0f32; count];
    let keep_sum = c.results.len() > 1;
    let mut sum = vec![0.0f32; if keep_sum { count } else { 0 }];
    if count > 0 {
        let chunk = ROWS * hidden;
        let run = |k: usize, y: &mut [f32], s: &mut [f32]| {
            let mut scratch = vec![0.0f32; hidden];
            for (r, out) in s.chunks_exact_mut(hidden).enumerate() {
                let row = k * ROWS + r;
                terms[0].row(row, out)?;
                for t in &terms[1..] {
                    t.row(row, &mut scratch)?;
                    for (o, v) in out.iter_mut().zip(&scratch) {
                        *o += *v;
                    }
                }
            }
            let (mut means, mut rstds) = ([0.0; ROWS], [0.0; ROWS]);
            normalize_f32_rows(s, hidden, eps, affine_pair, y, &mut means, &mut rstds);
            Ok::<(), anyhow::Error>(())
        };
        if keep_sum {
            y.par_chunks_mut(chunk)
                .zip(sum.par_chunks_mut(chunk))
                .enumerate()
                .try_for_each(|(k, (y, s))| run(k, y, s))?;
        } else {
            y.par_chunks_mut(chunk)
                .enumerate()
                .try_for_each(|(k, y)| run(k, y, &mut vec![0.0f32; y.len()]))?;
        }
    }
    let mut results = args::ret(c, Tensor::new(shape.clone(), Data::F32(y))?)?;
    if keep_sum {
        let sum = Tensor::new(shape, Data::F32(sum))?;
        if let Some(ty) = args::declared(c, 1) {
            args::check_declared(ty, &sum)?;
        }
        results.push(Value::tensor(sum));
    }
    Ok(results)
}

/// One table and the rows it gives.
struct Term<'t> {
    table: &'t Tensor,
    which: usize,
    hidden: usize,
    ids_shape: Vec<usize>,
    /// The row each id picks, in the ids' order.
    picks: Vec<usize>,
    /// The row each output row adds, once the ids are broadcast.
    rows: Vec<usize>,
}

impl<'t> Term<'t> {
    fn of(table: &'t Tensor, ids: &Tensor, which: usize) -> Result<Term<'t>> {
        let &[vocabulary, hidden] = table.shape.as_slice() else {
            bail!("table {which} must be 2-D, but has shape {:?}", table.shape);
        };
        let readable = matches!(
            (&table.data, &table.quant),
            (Data::F32(_), None)
                | (
                    Data::U8(_) | Data::I8(_),
                    Some(crate::kernels::tensor::Quant::PerTensor { .. })
                )
        );
        if !readable {
            bail!(
                "table {which} must be f32 or 8-bit quantized per tensor, but is {}",
                table.dtype()
            );
        }
        if !ids.data.dtype().is_integer() || ids.quant.is_some() {
            bail!(
                "the ids of table {which} must be integers, but are {}",
                ids.dtype()
            );
        }
        let picks = ids
            .data
            .to_i64()
            .into_iter()
            .map(|i| match usize::try_from(i) {
                Ok(p) if p < vocabulary => Ok(p),
                _ => bail!("id {i} is out of range for table {which} of {vocabulary} rows"),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Term {
            table,
            which,
            hidden,
            ids_shape: ids.shape.clone(),
            picks,
            rows: Vec::new(),
        })
    }

    /// Rows given as they are: `[dims…, H]`, each of `dims` one id.
    fn dense(rows: &'t Tensor, which: usize) -> Result<Term<'t>> {
        let (Some((&hidden, dims)), Data::F32(_), None) =
            (rows.shape.split_last(), &rows.data, &rows.quant)
        else {
            bail!(
                "rows {which} must be an f32 tensor of at least one axis, but are {} of shape {:?}",
                rows.dtype(),
                rows.shape
            );
        };
        Ok(Term {
            table: rows,
            which,
            hidden,
            ids_shape: dims.to_vec(),
            picks: (0..dims.iter().product()).collect(),
            rows: Vec::new(),
        })
    }

    /// The table row that output row `row` adds, as f32, into `out`.
    fn row(&self, row: usize, out: &mut [f32]) -> Result<()> {
        let Some(&r) = self.rows.get(row) else {
            bail!("row {row} is beyond the ids of table {}", self.which);
        };
        let at = r * self.hidden;
        match (&self.table.data, &self.table.quant) {
            (Data::F32(v), None) => out.copy_from_slice(&v[at..at + self.hidden]),
            (data, Some(quant)) => dequantize_span(data, at, out, quant)?,
            _ => bail!("table {} is neither f32 nor quantized", self.which),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::kernels::tensor::Quant;
    use crate::kernels::tensor::dtype::DType;
    use crate::kernels::testing::*;

    fn fused(args: &[Value], results: usize) -> Result<Vec<Arc<Tensor>>> {
        let declared = vec![unknown(); results];
        let out = embed_layer_norm(&Call {
            args,
            results: &declared,
        })?;
        out.into_iter()
            .map(|v| match v {
                Value::Tensor(t) => Ok(t),
                other => bail!("{other:?}"),
            })
            .collect()
    }

    fn op(name: &str, args: &[Value]) -> Value {
        Value::Tensor(run1(name, args, unknown()).unwrap())
    }

    fn values(seed: u64, shape: &[usize]) -> Value {
        let n: usize = shape.iter().product();
        let v: Vec<f32> = test_bytes(seed, n * 2)
            .chunks_exact(2)
            .map(|b| (f32::from(u16::from_le_bytes([b[0], b[1]])) / 16384.0) - 2.0)
            .collect();
        f32s(shape, &v)
    }

    fn quantized(seed: u64, shape: &[usize], signed: bool) -> Value {
        let n: usize = shape.iter().product();
        let bytes = test_bytes(seed, n);
        let (data, zero_point) = if signed {
            (Data::I8(bytes.iter().map(|&b| b as i8).collect()), -3)
        } else {
            (Data::U8(bytes), 131)
        };
        let mut t = Tensor::new(shape.to_vec(), data).unwrap();
        t.quant = Some(Quant::PerTensor {
            scale: 0.0173,
            zero_point,
        });
        Value::tensor(t)
    }

    fn ids(seed: u64, shape: &[usize], below: usize) -> Value {
        let n: usize = shape.iter().product();
        let v = test_bytes(seed, n)
            .iter()
            .map(|&b| (b as usize % below) as i32)
            .collect();
        tensor(shape, Data::I32(v))
    }

    fn dims(v: &Value) -> Vec<i64> {
        v.as_tensor()
            .unwrap()
            .shape
            .iter()
            .map(|&d| d as i64)
            .collect()
    }

    /// The ops `conversion::embed_layer_norm` writes after sink-dequantize, one by one:
    /// rows gathered, reshaped to the ids' shape, dequantized when quantized, added
    /// left to right, normalized.
    fn unfused(
        terms: &[(Value, Value)],
        gamma: &Value,
        beta: &Value,
        eps: f64,
    ) -> (Vec<f32>, Vec<f32>) {
        let mut sum: Option<Value> = None;
        for (table, ids) in terms {
            if matches!(ids, Value::None) {
                sum = Some(match sum {
                    None => table.clone(),
                    Some(s) => op("aten.add.Tensor", &[s, table.clone(), Value::Int(1)]),
                });
                continue;
            }
            let wide = op(
                "aten.to.dtype",
                &[
                    ids.clone(),
                    Value::Int(DType::I64.torch_scalar_type()),
                    Value::Bool(false),
                    Value::Bool(false),
                    Value::None,
                ],
            );
            let flat = op("aten.reshape", &[wide, ints(&[-1])]);
            let rows = op("aten.index_select", &[table.clone(), Value::Int(0), flat]);
            let mut shape = dims(ids);
            shape.push(dims(table)[1]);
            let mut rows = op("aten.reshape", &[rows, ints(&shape)]);
            if table.as_tensor().unwrap().quant.is_some() {
                rows = op("aten.dequantize.self", &[rows]);
            }
            sum = Some(match sum {
                None => rows,
                Some(s) => op("aten.add.Tensor", &[s, rows, Value::Int(1)]),
            });
        }
        let sum = sum.unwrap();
        let hidden = *dims(&sum).last().unwrap();
        let y = op(
            "aten.layer_norm",
            &[
                sum.clone(),
                ints(&[hidden]),
                gamma.clone(),
                beta.clone(),
                Value::Float(eps),
                Value::Bool(false),
            ],
        );
        (
            f32_values(y.as_tensor().unwrap()),
            f32_values(sum.as_tensor().unwrap()),
        )
    }

    #[test]
    fn fused_embedding_norm_gives_the_bytes_of_the_unfused_ops() {
        // (batch, sequence, hidden, segments, quantized tables, positions per batch):
        // float and 8-bit tables (uint8 and int8), two and three terms, positions
        // [S] broadcast over the batch or given per token, and one big enough for
        // several tasks of the pool.
        let cases = [
            (2, 5, 32, true, false, false),
            (2, 5, 32, false, false, false),
            (1, 7, 48, true, true, false),
            (3, 4, 16, false, true, true),
            (2, 9, 20, true, false, true),
            (4, 128, 96, true, true, false),
        ];
        for (i, &(b, s, h, segments, quantize, per_token)) in cases.iter().enumerate() {
            let seed = i as u64 * 10;
            let (vocab, positions) = (50, 160);
            let table = |k: u64, rows: usize| {
                if quantize {
                    quantized(seed + k, &[rows, h], k % 2 == 1)
                } else {
                    values(seed + k, &[rows, h])
                }
            };
            let mut terms = vec![(table(1, vocab), ids(seed + 2, &[b, s], vocab))];
            let position_ids = if per_token {
                ids(seed + 4, &[b, s], positions)
            } else {
                tensor(&[s], Data::I64((0..s as i64).collect()))
            };
            terms.push((table(3, positions), position_ids));
            if i == 4 {
                // Position rows folded to a constant: [1, S, H] given as they are.
                terms[1] = (values(seed + 9, &[1, s, h]), Value::None);
            }
            if segments {
                terms.push((table(5, 2), ids(seed + 6, &[b, s], 2)));
            }
            let (gamma, beta) = (values(seed + 7, &[h]), values(seed + 8, &[h]));
            let eps = if i % 2 == 0 { 1e-12 } else { 1e-5 };
            let (want_y, want_sum) = unfused(&terms, &gamma, &beta, eps);
            let mut args = vec![gamma, beta, Value::Float(eps)];
            for (t, ids) in terms {
                args.extend([t, ids]);
            }
            let out = fused(&args, 2).unwrap();
            assert_eq!(out[0].shape, vec![b, s, h], "case {i}");
            assert_same_f32_bits(&f32_values(&out[0]), &want_y, &format!("case {i} norm"));
            assert_same_f32_bits(&f32_values(&out[1]), &want_sum, &format!("case {i} sum"));
            let alone = fused(&args, 1).unwrap();
            assert_eq!(alone.len(), 1);
            assert_same_f32_bits(&f32_values(&alone[0]), &want_y, &format!("case {i} alone"));
        }
    }

    #[test]
    fn operands_that_do_not_fit_are_errors() {
        let run = |word_ids: Value, position: Value, gamma_len: usize| {
            fused(
                &[
                    values(1, &[gamma_len]),
                    Value::None,
                    Value::Float(1e-5),
                    values(2, &[10, 8]),
                    word_ids,
                    position,
                    tensor(&[3], Data::I64(vec![0, 1, 2])),
                ],
                1,
            )
        };
        let good = || tensor(&[2, 3], Data::I64(vec![0, 1, 2, 3, 4, 9]));
        assert!(run(good(), values(3, &[4, 8]), 8).is_ok());
        assert!(run(tensor(&[1], Data::I64(vec![10])), values(3, &[4, 8]), 8).is_err());
        assert!(run(tensor(&[1], Data::I64(vec![-1])), values(3, &[4, 8]), 8).is_err());
        assert!(
            run(
                tensor(&[2, 2], Data::I64(vec![0; 4])),
                values(3, &[4, 8]),
                8
            )
            .is_err()
        );
        assert!(run(good(), values(3, &[4, 6]), 8).is_err());
        assert!(run(good(), values(3, &[4, 8]), 6).is_err());
        assert!(run(good(), tensor(&[4, 8], Data::U8(vec![0; 32])), 8).is_err());
        assert!(fused(&[Value::None, Value::None, Value::Float(1e-5)], 1).is_err());
    }
}
