//! Squeeze and Unsqueeze whose `axes` input is known only at run time. torch-mlir
//! needs the axes at compile time; here one axis is one torch op taking a `!torch.int`
//! (negative axes count from the back in both), and several Unsqueeze axes become a
//! `reshape` whose sizes are computed from the axes and the data's sizes.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::binder::Binder;
use super::runtime_ints::int_entries;
use super::shape_util::dims_of;
use crate::dialect::builder::TorchBuilder;

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// Squeeze by one run-time axis: `squeeze.dim`. Its kernel keeps a dimension that is
/// not 1, and the declared rank then refuses the result, naming the node.
pub fn squeeze_at_run_time<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let axes = int_entries(b, t, 1, "axes")?;
    let [axis] = axes[..] else {
        bail!(
            "input 'axes' is known only at run time and has {} entries; only one such axis \
             is supported",
            axes.len()
        );
    };
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor("squeeze.dim", &[x, axis], &result)?])
}

/// Unsqueeze by run-time axes: `unsqueeze` for one, else a `reshape` to the output's
/// sizes. ONNX counts the axes in the output's rank `R`; output position `p` is 1 when
/// an axis names it, else the data's dimension `p - (axes before p)`:
/// `hit + (1 - hit) * size(data, min(p - below, rank - 1))`, the `min` only keeping the
/// unused size read in range where `hit` is 1.
pub fn unsqueeze_at_run_time<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let rank = dims_of(&b.input_type(0, "data")?, "data")?.len();
    let axes = int_entries(b, t, 1, "axes")?;
    let result = b.result_type(0)?;
    if let [axis] = axes[..] {
        return Ok(vec![t.aten_tensor("unsqueeze", &[x, axis], &result)?]);
    }
    let out_rank = rank + axes.len();
    let int = t.torch_type("int")?;
    let boolean = t.torch_type("bool")?;
    let (zero, one) = (t.int(0)?, t.int(1)?);
    let r = t.int(out_rank as i64)?;
    let normalized = axes
        .iter()
        .map(|&a| {
            let negative = t.aten("lt.int", &[a, zero], boolean)?;
            let flag = t.aten("Int.bool", &[negative], int)?;
            let shift = t.aten("mul.int", &[flag, r], int)?;
            t.aten("add.int", &[a, shift], int)
        })
        .collect::<Result<Vec<_>>>()?;
    let mut sizes = Vec::with_capacity(out_rank);
    for p in 0..out_rank {
        let at = t.int(p as i64)?;
        let (mut below, mut hit) = (zero, zero);
        for &a in &normalized {
            let lt = t.aten("lt.int", &[a, at], boolean)?;
            let lt = t.aten("Int.bool", &[lt], int)?;
            below = t.aten("add.int", &[below, lt], int)?;
            let eq = t.aten("eq.int", &[a, at], boolean)?;
            let eq = t.aten("Int.bool", &[eq], int)?;
            hit = t.aten("add.int", &[hit, eq], int)?;
        }
        if rank == 0 {
            sizes.push(one);
            continue;
        }
        let index = t.aten("sub.int", &[at, below], int)?;
        let last = t.int(rank as i64 - 1)?;
        let index = t.op("torch.prim.min.int", &[index, last], &[int], &[])?;
        let size = t.aten("size.int", &[x, index.result(0)?.into()], int)?;
        let kept = t.aten("sub.int", &[one, hit], int)?;
        let size = t.aten("mul.int", &[kept, size], int)?;
        sizes.push(t.aten("add.int", &[hit, size], int)?);
    }
    let list = t.list(&sizes, "int")?;
    Ok(vec![t.aten_tensor("reshape", &[x, list], &result)?])
}
