//! DepthToSpace and SpaceToDepth, lowered as torch-mlir does: a reshape that splits the
//! moving dimensions into blocks, a permute that moves the blocks across, and a reshape
//! that merges them again. Only data moves, so the backend's reshape and permute kernels
//! run them and no kernel of their own is needed.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::shape_util::{dims_of, size_of, typed};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::Dim;
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("DepthToSpace", 1, depth_to_space);
    r.on_op("SpaceToDepth", 1, space_to_depth);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// A dimension of the reshapes: known at compile time, or computed at run time from the
/// input's sizes (a detector's batch or image size left symbolic).
#[derive(Clone, Copy)]
struct Size<'c, 'a> {
    known: Dim,
    value: Option<Value<'c, 'a>>,
}

impl<'c, 'a> Size<'c, 'a> {
    fn of(t: &TorchBuilder<'c, 'a>, x: Value<'c, 'a>, dims: &[Dim], i: usize) -> Result<Self> {
        Ok(match dims[i] {
            Some(d) => Self::known(d),
            None => Size {
                known: None,
                value: Some(size_of(t, x, i)?),
            },
        })
    }

    fn known(d: i64) -> Self {
        Size {
            known: Some(d),
            value: None,
        }
    }

    /// `self` times (or divided by) `by`, folded when `self` is known.
    fn scaled(self, t: &TorchBuilder<'c, 'a>, by: i64, divide: bool) -> Result<Self> {
        if let Some(d) = self.known {
            let v = if divide {
                Some(d / by)
            } else {
                d.checked_mul(by)
            };
            let Some(v) = v else {
                bail!("dimension {d} times blocksize {by} overflows");
            };
            return Ok(Self::known(v));
        }
        let (Some(v), by_value) = (self.value, t.int(by)?) else {
            bail!("internal: a run-time size without a value");
        };
        let int = t.torch_type("int")?;
        let value = if divide {
            t.aten("floordiv.int", &[v, by_value], int)?
        } else {
            t.aten("mul.int", &[v, by_value], int)?
        };
        Ok(Size {
            known: None,
            value: Some(value),
        })
    }

    fn value(self, t: &TorchBuilder<'c, 'a>) -> Result<Value<'c, 'a>> {
        match (self.value, self.known) {
            (Some(v), _) => Ok(v),
            (None, Some(d)) => t.int(d),
            (None, None) => bail!("internal: a size with neither a value nor a constant"),
        }
    }
}

/// The input, its four sizes and the blocksize, after the checks both ops share (the
/// shape rule has already checked divisibility of the sizes it knows).
fn read<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
) -> Result<(Value<'c, 'a>, Vec<Size<'c, 'a>>, i64)> {
    let x = b.input(0, "input")?;
    let dims = dims_of(&b.input_type(0, "input")?, "input")?;
    if dims.len() != 4 {
        bail!("input 'input' has rank {}, but needs rank 4", dims.len());
    }
    let Some(bs) = b.optional_int("blocksize")? else {
        bail!("missing required attribute 'blocksize'");
    };
    // The square must fit too: the channel split multiplies by it.
    if bs < 1 || bs.checked_mul(bs).is_none() {
        bail!("attribute 'blocksize' is {bs}, but must be at least 1 and its square an int64");
    }
    let sizes = (0..4)
        .map(|i| Size::of(t, x, &dims, i))
        .collect::<Result<Vec<_>>>()?;
    Ok((x, sizes, bs))
}

/// `aten.reshape` of `x` to `sizes`, typed with what is known of them.
fn reshape<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    sizes: &[Size<'c, 'a>],
) -> Result<Value<'c, 'a>> {
    let like = b.input_type(0, "input")?;
    let ty = typed(&like, sizes.iter().map(|s| s.known).collect());
    let list = sizes
        .iter()
        .map(|s| s.value(t))
        .collect::<Result<Vec<_>>>()?;
    let list = t.list(&list, "int")?;
    t.aten_tensor("reshape", &[x, list], &ty)
}

/// `aten.permute` of a 6-D `x` whose sizes are `sizes`.
fn permute<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    x: Value<'c, 'a>,
    sizes: &[Size<'c, 'a>],
    perm: &[usize],
) -> Result<Value<'c, 'a>> {
    let like = b.input_type(0, "input")?;
    let ty = typed(&like, perm.iter().map(|&p| sizes[p].known).collect());
    let list = t.int_list(&perm.iter().map(|&p| p as i64).collect::<Vec<_>>())?;
    t.aten_tensor("permute", &[x, list], &ty)
}

/// DepthToSpace: the channels split as `[bs, bs, c']` (DCR, the default: depth, column,
/// row) or `[c', bs, bs]` (CRD), and the two block dimensions move behind height and
/// width.
fn depth_to_space<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, s, bs) = read(b, t)?;
    let mode = b.string("mode", "DCR")?;
    let c = s[1].scaled(t, bs * bs, true)?;
    let block = Size::known(bs);
    let (split, perm) = match mode.as_str() {
        "DCR" => ([s[0], block, block, c, s[2], s[3]], [0, 3, 4, 1, 5, 2]),
        "CRD" => ([s[0], c, block, block, s[2], s[3]], [0, 1, 4, 2, 5, 3]),
        other => bail!("attribute 'mode' is '{other}', but must be 'DCR' or 'CRD'"),
    };
    let v = reshape(b, t, x, &split)?;
    let v = permute(b, t, v, &split, &perm)?;
    let merged = [
        s[0],
        c,
        s[2].scaled(t, bs, false)?,
        s[3].scaled(t, bs, false)?,
    ];
    let result = b.result_type(0)?;
    let list = merged
        .iter()
        .map(|m| m.value(t))
        .collect::<Result<Vec<_>>>()?;
    let list = t.list(&list, "int")?;
    Ok(vec![t.aten_tensor("reshape", &[v, list], &result)?])
}

/// SpaceToDepth: height and width split as `[h', bs]` and `[w', bs]`, and the two block
/// dimensions move in front of the channels (DCR, the default) or behind them (CRD,
/// from SpaceToDepth-28): DepthToSpace's orders, reversed.
fn space_to_depth<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, s, bs) = read(b, t)?;
    let perm = match b.string("mode", "DCR")?.as_str() {
        "DCR" => [0, 3, 5, 1, 2, 4],
        "CRD" => [0, 1, 3, 5, 2, 4],
        other => bail!("attribute 'mode' is '{other}', but must be 'DCR' or 'CRD'"),
    };
    let (h, w) = (s[2].scaled(t, bs, true)?, s[3].scaled(t, bs, true)?);
    let block = Size::known(bs);
    let split = [s[0], s[1], h, block, w, block];
    let v = reshape(b, t, x, &split)?;
    let v = permute(b, t, v, &split, &perm)?;
    let merged = [s[0], s[1].scaled(t, bs * bs, false)?, h, w];
    let result = b.result_type(0)?;
    let list = merged
        .iter()
        .map(|m| m.value(t))
        .collect::<Result<Vec<_>>>()?;
    let list = t.list(&list, "int")?;
    Ok(vec![t.aten_tensor("reshape", &[v, list], &result)?])
}
