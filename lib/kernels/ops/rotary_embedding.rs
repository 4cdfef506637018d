//! `qlower.rotary_embedding`: the first `rotary_dim` features of each row of x rotated
//! in pairs by the angles of its position, the rest copied. Unfused, the rotation was
//! two slices (or a reshape and two selects), four products, a difference, a sum and
//! a concatenation (or a stack and a reshape): nine tensors written and read again.
//! Here each output element is written once.
//!
//! It gives the unfused ops' bytes: each half is `x1·cos − x2·sin` and
//! `x2·cos + x1·sin`, each product and the sum or difference one f32 operation
//! rounded on its own, as `mul.Tensor`, `sub.Tensor` and `add.Tensor` (alpha 1) round
//! them (products and sums are commutative in IEEE arithmetic, so the operand order
//! the lowering chose does not matter).

use anyhow::{Result, bail};
use rayon::prelude::*;

use crate::kernels::tensor::layout::{broadcast_strides, step_offsets};
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, args};

/// Below this many elements the pool's hand-off costs more than the rotation.
const PARALLEL_ELEMENTS: usize = 1 << 15;

/// Operands: x (f32 `[lead…, H]`), cos and sin (f32, each broadcasting to
/// `[lead…, rotary_dim / 2]`), rotary_dim (even, at most H), interleaved (pairs
/// `(2i, 2i + 1)`, else `(i, i + rotary_dim / 2)`), then a permutation of x's axes
/// that keeps the last one last (or none): x is read as `permute(x, perm)`, whose
/// shape the result and `lead…` have.
pub fn rotary_embedding(c: &Call) -> Result<Vec<Value>> {
    let (x, xs) = args::f32_tensor(c, 0, "x")?;
    let (cos, cos_values) = args::f32_tensor(c, 1, "cos")?;
    let (sin, sin_values) = args::f32_tensor(c, 2, "sin")?;
    let rotary = args::int(c, 3)?;
    let interleaved = args::boolean(c, 4)?;
    let perm = match args::opt(c, 5) {
        None | Some(Value::None) => None,
        Some(_) => Some(args::ints(c, 5)?),
    };
    let Some(&head) = x.shape.last() else {
        bail!("x must have at least one axis, but is a scalar");
    };
    let rotary = match usize::try_from(rotary) {
        Ok(r) if r > 0 && r % 2 == 0 && r <= head => r,
        _ => bail!("rotary_dim {rotary} must be even, positive and at most the head size {head}"),
    };
    let half = rotary / 2;
    let (shape, source_rows) = read_order(&x.shape, perm)?;
    let lead = &shape[..shape.len() - 1];
    let angles_shape = [lead, &[half]].concat();
    let table = |t: &Tensor, what: &str| -> Result<Table> {
        let Ok(steps) = broadcast_strides(&t.shape, &angles_shape) else {
            bail!(
                "{what} {:?} does not broadcast to the angles {angles_shape:?} of x {:?}",
                t.shape,
                shape
            );
        };
        Ok(Table {
            starts: step_offsets(lead, &steps[..lead.len()]),
            along: steps[lead.len()],
        })
    };
    let (cos_at, sin_at) = (table(cos, "cos")?, table(sin, "sin")?);
    let mut out = vec![0.0f32; xs.len()];
    if out.is_empty() {
        return args::ret(c, Tensor::new(shape, Data::F32(out))?);
    }
    let rotate_row = |row: usize, y: &mut [f32]| {
        let from = source_rows[row];
        y.copy_from_slice(&xs[from..from + head]);
        let (cos_row, sin_row) = (cos_at.starts[row], sin_at.starts[row]);
        let contiguous = (
            cos_values.get(cos_row..cos_row + half),
            sin_values.get(sin_row..sin_row + half),
        );
        if let ((Some(cs), Some(ss)), false, 1, 1) =
            (contiguous, interleaved, cos_at.along, sin_at.along)
        {
            // Split halves over contiguous angles: slices zipped, so the loop vectorizes.
            let (x1s, rest) = y.split_at_mut(half);
            let pairs = x1s.iter_mut().zip(rest.iter_mut()).zip(cs.iter().zip(ss));
            for ((x1, x2), (&c, &s)) in pairs {
                let (a, b) = (*x1, *x2);
                *x1 = a * c - b * s;
                *x2 = b * c + a * s;
            }
            return;
        }
        for i in 0..half {
            let c = cos_values[cos_row + i * cos_at.along];
            let s = sin_values[sin_row + i * sin_at.along];
            let (at1, at2) = if interleaved {
                (2 * i, 2 * i + 1)
            } else {
                (i, i + half)
            };
            let (x1, x2) = (y[at1], y[at2]);
            y[at1] = x1 * c - x2 * s;
            y[at2] = x2 * c + x1 * s;
        }
    };
    // One task per slice of the last two axes: a (batch, head) matrix of [S, H] for
    // x [B, N, S, H], a (batch, token) one of [N, H] for x [B, S, N, H].
    let slice_rows = lead.last().map_or(1, |&r| r.max(1));
    let task = |(t, slice): (usize, &mut [f32])| {
        for (r, y) in slice.chunks_mut(head).enumerate() {
            rotate_row(t * slice_rows + r, y);
        }
    };
    let slices = out.len() / (slice_rows * head);
    if slices > 1 && out.len() >= PARALLEL_ELEMENTS && rayon::current_num_threads() > 1 {
        out.par_chunks_mut(slice_rows * head)
            .enumerate()
            .for_each(task);
    } else {
        out.chunks_mut(slice_rows * head).enumerate().for_each(task);
    }
    args::ret(c, Tensor::new(shape, Data::F32(out))?)
}

/// The shape x is read in (permuted by `perm`), and where in x each of its rows
/// starts.
fn read_order(x: &[usize], perm: Option<&[i64]>) -> Result<(Vec<usize>, Vec<usize>)> {
    let rank = x.len();
    let mut strides = vec![1usize; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * x[i + 1];
    }
    let axes: Vec<usize> = match perm {
        None => (0..rank).collect(),
        Some(p) => {
            let axes: Vec<usize> = p.iter().filter_map(|&a| usize::try_from(a).ok()).collect();
            let mut sorted = axes.clone();
            sorted.sort_unstable();
            if axes.len() != rank
                || sorted.iter().enumerate().any(|(i, &a)| a != i)
                || axes.last() != Some(&(rank - 1))
            {
                bail!(
                    "{p:?} is not a permutation of the {rank} axes of x keeping the last one last"
                );
            }
            axes
        }
    };
    let shape: Vec<usize> = axes.iter().map(|&a| x[a]).collect();
    let steps: Vec<usize> = axes[..rank - 1].iter().map(|&a| strides[a]).collect();
    let rows = step_offsets(&shape[..rank - 1], &steps);
    Ok((shape, rows))
}

/// Where each row of x reads a cos or sin table broadcast to the angles.
struct Table {
    /// The offset of each row's first angle.
    starts: Vec<usize>,
    /// The step from one angle to the next (0 where the table broadcasts).
    along: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::testing::*;

    fn values(seed: u64, shape: &[usize]) -> Value {
        let n: usize = shape.iter().product();
        let v: Vec<f32> = test_bytes(seed, n * 2)
            .chunks_exact(2)
            .map(|b| (f32::from(u16::from_le_bytes([b[0], b[1]])) / 16384.0) - 2.0)
            .collect();
        f32s(shape, &v)
    }

    fn fused(args: &[Value]) -> Result<Vec<f32>> {
        let out = rotary_embedding(&Call {
            args,
            results: &[unknown()],
        })?;
        match &out[0] {
            Value::Tensor(t) => Ok(f32_values(t)),
            other => bail!("{other:?}"),
        }
    }

    fn op(name: &str, args: &[Value]) -> Value {
        Value::Tensor(run1(name, args, unknown()).unwrap())
    }

    /// The unfused ops, as `conversion::attention::rotary::rotate` writes them.
    fn unfused(
        x: &Value,
        shape: &[usize],
        cos: &Value,
        sin: &Value,
        rotary: usize,
        interleaved: bool,
    ) -> Vec<f32> {
        let last = shape.len() as i64 - 1;
        let (head, half) = (shape[shape.len() - 1], rotary / 2);
        let slice = |t: &Value, from: usize, to: usize| {
            op(
                "aten.slice.Tensor",
                &[
                    t.clone(),
                    Value::Int(last),
                    Value::Int(from as i64),
                    Value::Int(to as i64),
                    Value::Int(1),
                ],
            )
        };
        let part = if rotary < head {
            slice(x, 0, rotary)
        } else {
            x.clone()
        };
        let lead: Vec<i64> = shape[..shape.len() - 1].iter().map(|&d| d as i64).collect();
        let (x1, x2) = if interleaved {
            let sizes = [lead.as_slice(), &[half as i64, 2]].concat();
            let pairs = op("aten.reshape", &[part, ints(&sizes)]);
            let select = |i| {
                op(
                    "aten.select.int",
                    &[pairs.clone(), Value::Int(last + 1), Value::Int(i)],
                )
            };
            (select(0), select(1))
        } else {
            (slice(&part, 0, half), slice(&part, half, rotary))
        };
        let mul = |a: &Value, b: &Value| op("aten.mul.Tensor", &[a.clone(), b.clone()]);
        let first = op(
            "aten.sub.Tensor",
            &[mul(&x1, cos), mul(&x2, sin), Value::Int(1)],
        );
        let second = op(
            "aten.add.Tensor",
            &[mul(&x2, cos), mul(&x1, sin), Value::Int(1)],
        );
        let (Value::Tensor(first), Value::Tensor(second)) = (first, second) else {
            unreachable!()
        };
        let rotated = if interleaved {
            let pairs = op(
                "aten.stack",
                &[Value::TensorList(vec![first, second]), Value::Int(last + 1)],
            );
            let sizes = [lead.as_slice(), &[rotary as i64]].concat();
            op("aten.reshape", &[pairs, ints(&sizes)])
        } else {
            op(
                "aten.cat",
                &[Value::TensorList(vec![first, second]), Value::Int(last)],
            )
        };
        let y = if rotary < head {
            let (Value::Tensor(r), Value::Tensor(rest)) = (rotated, slice(x, rotary, head)) else {
                unreachable!()
            };
            op(
                "aten.cat",
                &[Value::TensorList(vec![r, rest]), Value::Int(last)],
            )
        } else {
            rotated
        };
        match y {
            Value::Tensor(t) => f32_values(&t),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fused_rotation_gives_the_bytes_of_the_unfused_ops() {
        // (x shape, cos/sin shape, rotary dim): 4-D [B, N, S, H] with the angles
        // broadcast over heads, the 3-D input's [B, S, N, H] with them broadcast over
        // the heads' axis, a partial rotation, and one big enough for the pool.
        let cases: Vec<(Vec<usize>, Vec<usize>, usize)> = vec![
            (vec![2, 4, 5, 8], vec![1, 1, 5, 4], 8),
            (vec![2, 5, 4, 8], vec![2, 5, 1, 4], 8),
            (vec![2, 5, 4, 8], vec![2, 5, 1, 2], 4),
            (vec![1, 3, 7, 16], vec![1, 1, 7, 3], 6),
            (vec![2, 8, 64, 64], vec![2, 1, 64, 32], 64),
            (vec![1, 70, 16, 128], vec![1, 70, 1, 32], 64),
        ];
        for (i, (shape, angles, rotary)) in cases.into_iter().enumerate() {
            for interleaved in [false, true] {
                let x = values(i as u64, &shape);
                let (cos, sin) = (
                    values(100 + i as u64, &angles),
                    values(200 + i as u64, &angles),
                );
                let want = unfused(&x, &shape, &cos, &sin, rotary, interleaved);
                let got = fused(&[
                    x,
                    cos,
                    sin,
                    Value::Int(rotary as i64),
                    Value::Bool(interleaved),
                    Value::None,
                ])
                .unwrap();
                assert_same_f32_bits(&got, &want, &format!("case {i} interleaved {interleaved}"));
            }
        }
    }

    #[test]
    fn a_permuted_read_gives_the_bytes_of_the_rotation_of_the_permuted_x() {
        // GroupQueryAttention's [B, S, N, H] read as [B, N, S, H], big enough for the
        // pool, and a partial rotation.
        let cases = [(vec![2, 40, 8, 64], 64), (vec![1, 6, 3, 10], 4)];
        for (i, (shape, rotary)) in cases.into_iter().enumerate() {
            let perm = [0i64, 2, 1, 3];
            let read: Vec<usize> = perm.iter().map(|&a| shape[a as usize]).collect();
            let angles = [read[0], 1, read[2], rotary / 2];
            let x = values(10 + i as u64, &shape);
            let (cos, sin) = (
                values(20 + i as u64, &angles),
                values(30 + i as u64, &angles),
            );
            let permuted = op("aten.permute", &[x.clone(), ints(&perm)]);
            let want = unfused(&permuted, &read, &cos, &sin, rotary, false);
            let args = [
                x,
                cos,
                sin,
                Value::Int(rotary as i64),
                Value::Bool(false),
                ints(&perm),
            ];
            assert_same_f32_bits(&fused(&args).unwrap(), &want, &format!("case {i}"));
        }
    }

    #[test]
    fn operands_that_do_not_fit_are_errors() {
        let run = |angles: &[usize], rotary: i64| {
            fused(&[
                values(1, &[2, 3, 8]),
                values(2, angles),
                values(3, angles),
                Value::Int(rotary),
                Value::Bool(false),
                Value::None,
            ])
        };
        let permuted = |perm: &[i64]| {
            let angles = [3, 2, 4];
            let args = [
                values(1, &[2, 3, 8]),
                values(2, &angles),
                values(3, &angles),
                Value::Int(8),
                Value::Bool(false),
                ints(perm),
            ];
            fused(&args)
        };
        assert!(permuted(&[1, 0, 2]).is_ok());
        assert!(permuted(&[0, 2, 1]).is_err());
        assert!(permuted(&[0, 0, 2]).is_err());
        assert!(permuted(&[1, 0]).is_err());
        assert!(run(&[2, 3, 4], 8).is_ok());
        assert!(run(&[2, 3, 4], 10).is_err());
        assert!(run(&[2, 3, 4], 7).is_err());
        assert!(run(&[2, 3, 4], 0).is_err());
        assert!(run(&[2, 3, 4], 6).is_err());
        assert!(run(&[3, 3, 4], 8).is_err());
    }
}
