//! `qlower.attention`: `softmax(cap((q · kᵀ) ∘ scale) + mask, -1) · v` in f32, one
//! (batch, head) matrix at a time, `cap(x)` being `c · tanh(x / c)` when a soft cap
//! `c` is given and `x` otherwise. Unfused, each step was a pass over every head's
//! `[M, N]` scores: a fresh tensor, a kernel split over the pool by itself. Here each
//! task keeps its scores in scratch and runs its whole chain, and the tasks are the
//! heads.
//!
//! It gives the unfused ops' bytes: each product is the same `sgemm` call on the same
//! `[M, K] · [K, N]` and `[M, N] · [N, D]` matrices (whose result does not depend on
//! the thread count), the scale and mask are the same f32 operations in the same
//! order, and the softmax is `norm::softmax_group`.

use anyhow::{Result, bail};
use rayon::prelude::*;

use super::sgemm::{self, Matrix, Threads};
use crate::kernels::isa::Isa;
use crate::kernels::ops::norm::softmax_group;
use crate::kernels::ops::vector_math::SOFTMAX_ROWS;
use crate::kernels::ops::vector_math::{Func, map_on};
use crate::kernels::tensor::layout::{
    broadcast_shapes, broadcast_strides, result_count, step_offsets,
};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, args};

/// How the scores are scaled before the mask is added.
#[derive(Clone, Copy)]
enum Scale {
    None,
    Multiply(f32),
    Divide(f32),
}

/// Operands: q `[batch…, M, K]`, kᵀ `[batch…, K, N]`, v `[batch…, N, D]` (f32, batch
/// dimensions broadcasting), scale (a float, a one-element f32 tensor, or none),
/// whether the scores are divided by it (else multiplied), an f32 mask (or none)
/// broadcasting to the scores `[batch…, M, N]`, added after the scale, then a boolean
/// mask of the scores to keep (or none, broadcasting likewise) and the float that
/// replaces the others (`where(keep, scores, fill)`), then the soft cap (a float, or
/// none), applied between the scale and the mask.
pub fn attention(c: &Call) -> Result<Vec<Value>> {
    let (q, kt, v) = (
        args::f32_tensor(c, 0, "q")?,
        args::f32_tensor(c, 1, "k transposed")?,
        args::f32_tensor(c, 2, "v")?,
    );
    let scale = match args::opt(c, 3) {
        None => Scale::None,
        Some(Value::Float(s)) => scale_of(*s as f32, args::boolean(c, 4)?),
        Some(_) => match &args::tensor(c, 3)?.data {
            Data::F32(s) if s.len() == 1 => scale_of(s[0], args::boolean(c, 4)?),
            _ => bail!("the scale must be a float or a one-element f32 tensor"),
        },
    };
    let mask = match args::opt_tensor(c, 5)? {
        None => None,
        Some(t) => match &t.data {
            Data::F32(m) => Some((t, m.as_slice())),
            _ => bail!("the mask must be f32, but is {}", t.dtype()),
        },
    };
    let keep = match args::opt_tensor(c, 6)? {
        None => None,
        Some(t) => match &t.data {
            Data::Bool(k) => Some((t, k.as_slice(), args::float(c, 7)? as f32)),
            _ => bail!("the scores to keep must be boolean, but are {}", t.dtype()),
        },
    };
    let softcap = match args::opt(c, 8) {
        None => None,
        Some(Value::Float(cap)) if *cap > 0.0 => Some(*cap as f32),
        Some(other) => bail!("the soft cap must be a positive float, but is {other:?}"),
    };
    let rank = q.0.rank();
    if rank < 2 || kt.0.rank() != rank || v.0.rank() != rank {
        bail!(
            "q, kᵀ and v must have one rank of at least 2, but are {:?}, {:?} and {:?}",
            q.0.shape,
            kt.0.shape,
            v.0.shape
        );
    }
    let (m, k) = (q.0.shape[rank - 2], q.0.shape[rank - 1]);
    let n = kt.0.shape[rank - 1];
    let d = v.0.shape[rank - 1];
    if kt.0.shape[rank - 2] != k || v.0.shape[rank - 2] != n {
        bail!(
            "q {:?}, kᵀ {:?} and v {:?} do not chain",
            q.0.shape,
            kt.0.shape,
            v.0.shape
        );
    }
    let mut batch = broadcast_shapes(&q.0.shape[..rank - 2], &kt.0.shape[..rank - 2])?;
    batch = broadcast_shapes(&batch, &v.0.shape[..rank - 2])?;
    let batches = result_count(&batch)?;
    let scores_shape = [batch.as_slice(), &[m, n]].concat();
    let rows_of = |t: &Tensor, what: &str| ScoreRows::new(&t.shape, &scores_shape, rank, what);
    let mask = match mask {
        None => None,
        Some((t, values)) => Some((rows_of(t, "the mask")?, values)),
    };
    let keep = match keep {
        None => None,
        Some((t, values, fill)) => Some((rows_of(t, "the scores to keep")?, values, fill)),
    };
    let starts = |t: &Tensor| -> Result<Vec<usize>> {
        let steps = broadcast_strides(&t.shape[..rank - 2], &batch)?;
        let per = t.shape[rank - 2] * t.shape[rank - 1];
        Ok(step_offsets(&batch, &steps)
            .into_iter()
            .map(|o| o * per)
            .collect())
    };
    let (q_at, kt_at, v_at) = (starts(q.0)?, starts(kt.0)?, starts(v.0)?);
    let shape = [batch.as_slice(), &[m, d]].concat();
    let mut out = vec![0.0f32; result_count(&shape)?];
    if out.is_empty() {
        return args::ret(c, Tensor::new(shape, Data::F32(out))?);
    }
    // A thread's score and probability buffers serve all its heads: the product
    // writes every score and the softmax every probability, so they are not cleared
    // again per head.
    let buffers = || (vec![0.0f32; m * n], vec![0.0f32; m * n]);
    let head = |(scores, probs): &mut (Vec<f32>, Vec<f32>), (b, y): (usize, &mut [f32])| -> bool {
        let view = |data, rows, cols| Matrix {
            data,
            rows,
            cols,
            row_stride: cols,
        };
        let (Some(qb), Some(ktb), Some(vb)) = (
            q.1.get(q_at[b]..q_at[b] + m * k),
            kt.1.get(kt_at[b]..kt_at[b] + k * n),
            v.1.get(v_at[b]..v_at[b] + n * d),
        ) else {
            return false;
        };
        if !sgemm::multiply(view(qb, m, k), view(ktb, k, n), scores, n, Threads::One) {
            return false;
        }
        let mut capped = vec![0.0f32; if softcap.is_some() { n } else { 0 }];
        for (i, s) in scores.chunks_mut(n).enumerate() {
            let mask_row = match &mask {
                Some((rows, values)) => match rows.row(b, i) {
                    (at, 0) => MaskRow::Same(values[at]),
                    (at, _) => MaskRow::Values(&values[at..at + n]),
                },
                None => MaskRow::None,
            };
            match softcap {
                None => match scale {
                    Scale::None => add_mask(s, mask_row, |x| x),
                    Scale::Multiply(f) => add_mask(s, mask_row, |x| x * f),
                    Scale::Divide(f) => add_mask(s, mask_row, |x| x / f),
                },
                Some(cap) => {
                    // The unfused ops' steps: scale, divide by the cap, tanh, multiply
                    // by the cap, add the mask; each rounded to f32.
                    match scale {
                        Scale::None => s.iter_mut().for_each(|x| *x /= cap),
                        Scale::Multiply(f) => s.iter_mut().for_each(|x| *x = *x * f / cap),
                        Scale::Divide(f) => s.iter_mut().for_each(|x| *x = *x / f / cap),
                    }
                    map_on(Isa::best(), Func::Tanh, s, &mut capped);
                    s.copy_from_slice(&capped);
                    add_mask(s, mask_row, |x| x * cap);
                }
            }
            if let Some((rows, values, fill)) = &keep {
                let (at, along) = rows.row(b, i);
                for (j, x) in s.iter_mut().enumerate() {
                    if !values[at + j * along] {
                        *x = *fill;
                    }
                }
            }
        }
        // The rows' softmax a group at a time, whose chains overlap.
        let group = n * SOFTMAX_ROWS;
        for (s, p) in scores.chunks(group).zip(probs.chunks_mut(group)) {
            softmax_group(s, p, n);
        }
        sgemm::multiply(view(probs, m, n), view(vb, n, d), y, d, Threads::One)
    };
    let fine = if batches > 1 && rayon::current_num_threads() > 1 {
        out.par_chunks_mut(m * d)
            .enumerate()
            .map_init(buffers, head)
            .all(|ok| ok)
    } else {
        let mut own = buffers();
        out.chunks_mut(m * d).enumerate().all(|h| head(&mut own, h))
    };
    if !fine {
        bail!("internal error: an attention operand is shorter than its shape");
    }
    args::ret(c, Tensor::new(shape, Data::F32(out))?)
}

/// Where each row of the scores `[batch…, M, N]` reads a tensor broadcast to them
/// (the mask, the scores to keep).
struct ScoreRows {
    /// The offset of each batch index's first row.
    starts: Vec<usize>,
    /// The steps along M and along N (0 where the tensor broadcasts).
    row_step: usize,
    along: usize,
}

impl ScoreRows {
    fn new(shape: &[usize], scores: &[usize], rank: usize, what: &str) -> Result<ScoreRows> {
        let Ok(steps) = broadcast_strides(shape, scores) else {
            bail!("{what} {shape:?} does not broadcast to the scores {scores:?}");
        };
        Ok(ScoreRows {
            starts: step_offsets(&scores[..rank - 2], &steps[..rank - 2]),
            row_step: steps[rank - 2],
            along: steps[rank - 1],
        })
    }

    /// Where row `i` of batch index `b` starts, and the step along it.
    fn row(&self, b: usize, i: usize) -> (usize, usize) {
        (self.starts[b] + i * self.row_step, self.along)
    }
}

/// A row of the mask as the scores see it.
#[derive(Clone, Copy)]
enum MaskRow<'a> {
    None,
    /// One value for the whole row (the mask broadcasts along it).
    Same(f32),
    Values(&'a [f32]),
}

/// `scaled(x) + mask` over a row of scores, in place: two f32 operations rounded each,
/// as the unfused ops round them. One loop per case, so that each vectorizes.
#[inline(always)]
fn add_mask(row: &mut [f32], mask: MaskRow, scaled: impl Fn(f32) -> f32) {
    match mask {
        MaskRow::None => row.iter_mut().for_each(|x| *x = scaled(*x)),
        MaskRow::Same(m) => row.iter_mut().for_each(|x| *x = scaled(*x) + m),
        MaskRow::Values(m) => row
            .iter_mut()
            .zip(m)
            .for_each(|(x, &m)| *x = scaled(*x) + m),
    }
}

fn scale_of(s: f32, divide: bool) -> Scale {
    if divide {
        Scale::Divide(s)
    } else {
        Scale::Multiply(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::testing::*;

    /// Values in about [-2, 2): scores of every sign, and probabilities that round.
    fn values(seed: u64, shape: &[usize]) -> Value {
        let n: usize = shape.iter().product();
        let v: Vec<f32> = test_bytes(seed, n * 2)
            .chunks_exact(2)
            .map(|b| (f32::from(u16::from_le_bytes([b[0], b[1]])) / 16384.0) - 2.0)
            .collect();
        f32s(shape, &v)
    }

    fn fused(args: &[Value]) -> Vec<f32> {
        let out = attention(&Call {
            args,
            results: &[unknown()],
        })
        .unwrap();
        match &out[0] {
            Value::Tensor(t) => f32_values(t),
            other => panic!("{other:?}"),
        }
    }

    /// The unfused ops, as the lowering writes them.
    #[allow(clippy::too_many_arguments)]
    fn unfused(
        q: &Value,
        kt: &Value,
        v: &Value,
        scale: &Value,
        divide: bool,
        softcap: &Value,
        mask: &Value,
        keep: &Value,
    ) -> Vec<f32> {
        let mut x =
            Value::Tensor(run1("aten.matmul", &[q.clone(), kt.clone()], unknown()).unwrap());
        if !matches!(scale, Value::None) {
            let op = if divide {
                "aten.div.Tensor"
            } else {
                "aten.mul.Tensor"
            };
            x = Value::Tensor(run1(op, &[x, scale.clone()], unknown()).unwrap());
        }
        if !matches!(softcap, Value::None) {
            x = Value::Tensor(run1("aten.div.Scalar", &[x, softcap.clone()], unknown()).unwrap());
            x = Value::Tensor(run1("aten.tanh", &[x], unknown()).unwrap());
            x = Value::Tensor(run1("aten.mul.Scalar", &[x, softcap.clone()], unknown()).unwrap());
        }
        if !matches!(mask, Value::None) {
            x = Value::Tensor(
                run1(
                    "aten.add.Tensor",
                    &[x, mask.clone(), Value::Int(1)],
                    unknown(),
                )
                .unwrap(),
            );
        }
        if !matches!(keep, Value::None) {
            let args = [keep.clone(), x, Value::Float(f64::from(f32::MIN))];
            x = Value::Tensor(run1("aten.where.ScalarOther", &args, unknown()).unwrap());
        }
        let p = run1(
            "aten.softmax.int",
            &[x, Value::Int(-1), Value::None],
            unknown(),
        )
        .unwrap();
        f32_values(&run1("aten.matmul", &[Value::Tensor(p), v.clone()], unknown()).unwrap())
    }

    #[test]
    fn fused_attention_gives_the_bytes_of_the_unfused_ops() {
        // (batch dims of q, kᵀ, v; M, K, N, D; mask shape; scale)
        type Case = (
            Vec<usize>,
            usize,
            usize,
            usize,
            usize,
            Option<Vec<usize>>,
            Value,
            bool,
        );
        let cases: Vec<Case> = vec![
            (
                vec![2, 4],
                7,
                16,
                7,
                16,
                Some(vec![2, 1, 1, 7]),
                f32s(&[], &[4.0]),
                true,
            ),
            (vec![1, 3], 33, 8, 20, 5, None, Value::Float(0.125), false),
            (vec![3], 5, 4, 9, 6, Some(vec![5, 9]), Value::None, false),
            (
                vec![1, 2],
                128,
                32,
                128,
                32,
                Some(vec![1, 2, 128, 128]),
                f32s(&[1], &[0.17]),
                false,
            ),
            (
                vec![1, 6],
                300,
                64,
                300,
                64,
                Some(vec![300, 1]),
                f32s(&[], &[8.0]),
                true,
            ),
        ];
        for (i, (batch, m, k, n, d, mask, scale, divide)) in cases.into_iter().enumerate() {
            let shape = |a: usize, b: usize| [batch.as_slice(), &[a, b]].concat();
            let (q, kt, v) = (
                values(i as u64, &shape(m, k)),
                values(100 + i as u64, &shape(k, n)),
                values(200 + i as u64, &shape(n, d)),
            );
            let mask = mask.map_or(Value::None, |s| values(300 + i as u64, &s));
            // Every other case keeps a causal triangle of the scores, broadcast over
            // the batch as the attention lowerings write it.
            let (keep, fill) = if i % 2 == 0 {
                let keep: Vec<bool> = (0..m * n).map(|at| at % n <= at / n).collect();
                let shape = [vec![1; batch.len()], vec![m, n]].concat();
                (
                    tensor(&shape, Data::Bool(keep)),
                    Value::Float(f64::from(f32::MIN)),
                )
            } else {
                (Value::None, Value::None)
            };
            // The soft caps of Gemma 2 (50) and of the ONNX tests (2), and one that
            // is not an f32 (the kernel rounds it as the unfused ops do).
            for softcap in [
                Value::None,
                Value::Float(50.0),
                Value::Float(2.0),
                Value::Float(0.3),
            ] {
                let want = unfused(&q, &kt, &v, &scale, divide, &softcap, &mask, &keep);
                let args = [
                    q.clone(),
                    kt.clone(),
                    v.clone(),
                    scale.clone(),
                    Value::Bool(divide),
                    mask.clone(),
                    keep.clone(),
                    fill.clone(),
                    softcap.clone(),
                ];
                let got = fused(&args);
                assert_same_f32_bits(&got, &want, &format!("case {i}, softcap {softcap:?}"));
            }
        }
    }

    #[test]
    fn operands_that_do_not_chain_are_errors() {
        // kᵀ [2, 5, 6] does not take q's 4 columns; then the mask [2, 5, 6] does not
        // broadcast to the scores [2, 3, 6].
        let run = |kt: &[usize], mask: Value| {
            let (q, kt, v) = (values(1, &[2, 3, 4]), values(2, kt), values(3, &[2, 6, 2]));
            let none = Value::None;
            let args = [
                q,
                kt,
                v,
                none.clone(),
                Value::Bool(false),
                mask,
                none.clone(),
                none,
            ];
            attention(&Call {
                args: &args,
                results: &[unknown()],
            })
        };
        assert!(run(&[2, 5, 6], Value::None).is_err());
        assert!(run(&[2, 4, 6], Value::None).is_ok());
        assert!(run(&[2, 4, 6], values(4, &[2, 5, 6])).is_err());
    }
}
