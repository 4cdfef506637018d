//! Expand and Tile: a tensor stretched to a shape, or repeated along each axis. The
//! shape and the repeats are often computed from another tensor's sizes, so they may be
//! known only at run time; they are then read with `item` into a `!torch.list<int>`.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::runtime_ints::int_entries;
use super::shape_util::{dims_of, size_of};
use crate::dialect::builder::TorchBuilder;

pub fn register(r: &mut Lowerings) {
    r.on_op("Expand", 8, expand);
    r.on_op("Tile", 6, tile);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// `aten.broadcast_to(input, sizes)`. ONNX broadcasts both ways (a 1 in `shape` keeps
/// the input's dimension), torch only one way, so the sizes are the result's when the
/// type knows them all, else each is `shape[k]`, or the input's size where `shape[k]`
/// is 1:
/// `s + (s == 1) * (size - 1)`. The kernel refuses sizes that do not broadcast.
fn expand<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let x_dims = dims_of(&b.input_type(0, "input")?, "input")?;
    let result = b.result_type(0)?;
    let out_dims = dims_of(&result, "the result")?;
    if let Some(sizes) = result.static_dims() {
        let list = t.int_list(&sizes)?;
        return Ok(vec![t.aten_tensor("broadcast_to", &[x, list], &result)?]);
    }
    let shape = int_entries(b, t, 1, "shape")?;
    let rank = out_dims.len();
    if rank != shape.len().max(x_dims.len()) {
        bail!(
            "the result has rank {rank}, but input 'shape' has {} entries and input 'input' \
             rank {}",
            shape.len(),
            x_dims.len()
        );
    }
    let int = t.torch_type("int")?;
    let mut sizes = Vec::with_capacity(rank);
    for (k, d) in out_dims.iter().enumerate() {
        let s = k
            .checked_sub(rank - shape.len())
            .and_then(|j| shape.get(j).copied());
        let in_dim = k.checked_sub(rank - x_dims.len());
        sizes.push(match (d, s, in_dim) {
            (Some(d), _, _) => t.int(*d)?,
            (None, Some(s), None) => s,
            (None, None, Some(j)) => size_of(t, x, j)?,
            // A known 1 in the input broadcasts to whatever the shape says.
            (None, Some(s), Some(j)) if x_dims[j] == Some(1) => s,
            (None, Some(s), Some(j)) => {
                let one = t.int(1)?;
                let is_one = t.aten("eq.int", &[s, one], t.torch_type("bool")?)?;
                let flag = t.aten("Int.bool", &[is_one], int)?;
                let size = size_of(t, x, j)?;
                let grow = t.aten("sub.int", &[size, one], int)?;
                let extra = t.aten("mul.int", &[flag, grow], int)?;
                t.aten("add.int", &[s, extra], int)?
            }
            (None, None, None) => bail!("internal error: dimension {k} has no source"),
        });
    }
    let list = t.list(&sizes, "int")?;
    Ok(vec![t.aten_tensor("broadcast_to", &[x, list], &result)?])
}

/// `aten.tile(input, repeats)`: one repeat count per dimension of the input, as ONNX
/// requires (torch would also take fewer).
fn tile<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let rank = dims_of(&b.input_type(0, "input")?, "input")?.len();
    if let Some(r) = b.constant_input(1).and_then(|d| d.to_i64_vec())
        && let Some(bad) = r.iter().find(|&&v| v < 0)
    {
        bail!("input 'repeats' holds {bad}, but repeats must be 0 or more");
    }
    let repeats = int_entries(b, t, 1, "repeats")?;
    if repeats.len() != rank {
        bail!(
            "input 'repeats' has {} entries, but input 'input' has rank {rank}",
            repeats.len()
        );
    }
    let list = t.list(&repeats, "int")?;
    let result = b.result_type(0)?;
    Ok(vec![t.aten_tensor("tile", &[x, list], &result)?])
}
