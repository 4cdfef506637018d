//! Pad: `constant_pad_nd` for constant padding, `aten.pad` for the reflect, edge
//! and wrap modes, as torch-mlir lowers it. torch lists pads from the last dimension
//! backwards, `[begin_last, end_last, begin_last-1, ...]`; ONNX lists every begin,
//! then every end.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use super::runtime_ints::int_entries;
use super::shape_util::{
    as_result, await_constant, const_ints, dims_of, normalize_axes, optional_const_ints,
    str_constant,
};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("Pad", 1, pad_v1);
    r.on_op("Pad", 11, pad);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// Where the padding value comes from.
enum Fill<'c, 'a> {
    Known(f64),
    /// A one-element tensor read at run time.
    Tensor(Value<'c, 'a>),
}

/// Pad-1 and -2: pads (`paddings` in Pad-1) and the value are attributes.
fn pad_v1<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let name = if b.opset < 2 { "paddings" } else { "pads" };
    let Some(pads) = b.optional_ints(name)? else {
        bail!("missing required attribute '{name}'");
    };
    let value = b.float("value", 0.0)?;
    lower_pad(b, t, pads, None, Fill::Known(value))
}

/// Which axes the pads are for (Pad-18's `axes` input).
enum PadAxes<'c, 'a> {
    /// Every axis, in order, or the listed ones.
    Known(Option<Vec<i64>>),
    /// Read from a tensor at run time.
    RunTime(Vec<Value<'c, 'a>>),
}

/// Pad-11 and later: pads, the constant value and (from Pad-18) the axes are inputs.
/// Constant pads and axes are folded into the torch op; either known only at run time
/// is read with `item` (see `pad_at_run_time`).
fn pad<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    await_constant(b, 1, "pads")?;
    await_constant(b, 3, "axes")?;
    let axes = if b.has_input(3) && b.constant_input(3).is_none() {
        PadAxes::RunTime(int_entries(b, t, 3, "axes")?)
    } else {
        PadAxes::Known(optional_const_ints(b, 3, "axes")?)
    };
    await_constant(b, 2, "constant_value")?;
    let fill = match (b.optional_input(2), b.constant_input(2)) {
        (None, _) => Fill::Known(0.0),
        (Some(_), Some(c)) => match c.to_f64_vec().as_deref() {
            Some([v]) => Fill::Known(*v),
            _ => bail!("constant_value must hold one element"),
        },
        (Some(v), None) => {
            let ty = b.input_type(2, "constant_value")?;
            if let Some(dims) = ty.static_dims()
                && dims.iter().product::<i64>() != 1
            {
                bail!("constant_value must hold one element, but is {ty}");
            }
            Fill::Tensor(v)
        }
    };
    match axes {
        PadAxes::Known(axes) if b.constant_input(1).is_some() => {
            let pads = const_ints(b, 1, "pads")?;
            lower_pad(b, t, pads, axes, fill)
        }
        axes => pad_at_run_time(b, t, axes, fill),
    }
}

/// Padding whose pads or axes are known only at run time (pads computed from another
/// tensor's sizes, as a ResNet exported with NHWC input has): `constant_pad_nd` (or
/// `aten.pad` in the other modes) with every dimension's begin and end as `!torch.int`s.
/// Negative pads crop, as in ONNX; the kernel refuses a crop larger than the dimension.
fn pad_at_run_time<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    axes: PadAxes<'c, 'a>,
    fill: Fill<'c, 'a>,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    let rank = dims_of(&x_type, "data")?.len();
    let result = b.result_type(0)?;
    let mode = b.string("mode", "constant")?;
    let torch_mode = torch_mode(b, &mode)?;
    let pads = int_entries(b, t, 1, "pads")?;
    let (begins, ends) = match axes {
        PadAxes::Known(axes) => spread_pads(&pads, axes.as_deref(), rank, t.int(0)?)?,
        PadAxes::RunTime(axes) => {
            check_pad_count(pads.len(), axes.len())?;
            spread_run_time_pads(t, &pads, &axes, rank)?
        }
    };
    let list: Vec<_> = (0..rank).rev().flat_map(|i| [begins[i], ends[i]]).collect();
    let list = t.list(&list, "int")?;
    // The other modes pad every dimension the list covers; the kernel refuses pads the
    // mode cannot take (negative, or wider than a reflected dimension) when it runs.
    if let Some(torch_mode) = torch_mode {
        let mode = str_constant(t, torch_mode)?;
        let none = t.none()?;
        return Ok(vec![t.aten_tensor(
            "pad",
            &[x, list, mode, none],
            &result,
        )?]);
    }
    let value = fill_value(t, fill, &x_type)?;
    Ok(vec![t.aten_tensor(
        "constant_pad_nd",
        &[x, list, value],
        &result,
    )?])
}

/// torch's name for ONNX's padding `mode` (`None` for constant padding); wrap came
/// with Pad-19.
fn torch_mode(b: &Binder, mode: &str) -> Result<Option<&'static str>> {
    Ok(match mode {
        "constant" => None,
        "reflect" => Some("reflect"),
        "edge" => Some("replicate"),
        "wrap" if b.opset >= 19 => Some("circular"),
        other => {
            let wrap = if b.opset >= 19 { ", wrap" } else { "" };
            bail!("attribute 'mode' is '{other}'; expected constant, reflect, edge{wrap}")
        }
    })
}

fn check_pad_count(pads: usize, axes: usize) -> Result<()> {
    if pads != 2 * axes {
        bail!(
            "pads has {pads} entries, expected {} (two per padded axis)",
            2 * axes
        );
    }
    Ok(())
}

/// Every dimension's begin and end when the axes are read at run time: dimension `d`
/// takes the pads of the axis that names it, `sum_k [axis_k mod rank == d] * pad_k`
/// (ONNX leaves a repeated axis undefined). An axis outside `[-rank, rank)` stops the
/// run with an error naming the node, as a constant one stops the compile.
fn spread_run_time_pads<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    pads: &[Value<'c, 'a>],
    axes: &[Value<'c, 'a>],
    rank: usize,
) -> Result<(Vec<Value<'c, 'a>>, Vec<Value<'c, 'a>>)> {
    let int = t.torch_type("int")?;
    let boolean = t.torch_type("bool")?;
    let r = t.int(rank as i64)?;
    let low = t.int(-(rank as i64))?;
    let mut normalized = Vec::with_capacity(axes.len());
    for &a in axes {
        let message = format!("an entry of 'axes' is outside [-{rank}, {rank})");
        t.runtime_assert(t.aten("ge.int", &[a, low], boolean)?, &message)?;
        t.runtime_assert(t.aten("lt.int", &[a, r], boolean)?, &message)?;
        normalized.push(t.aten("remainder.int", &[a, r], int)?);
    }
    let side = |offset: usize| -> Result<Vec<Value<'c, 'a>>> {
        (0..rank)
            .map(|d| {
                let d_value = t.int(d as i64)?;
                let mut sum = t.int(0)?;
                for (k, &n) in normalized.iter().enumerate() {
                    let hit = t.aten("eq.int", &[n, d_value], boolean)?;
                    let hit = t.aten("Int.bool", &[hit], int)?;
                    let pad = t.aten("mul.int", &[hit, pads[k + offset]], int)?;
                    sum = t.aten("add.int", &[sum, pad], int)?;
                }
                Ok(sum)
            })
            .collect()
    };
    let begins = side(0)?;
    let ends = side(axes.len())?;
    Ok((begins, ends))
}

fn lower_pad<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    pads: Vec<i64>,
    axes: Option<Vec<i64>>,
    fill: Fill<'c, 'a>,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "data")?;
    let x_type = b.input_type(0, "data")?;
    let dims = dims_of(&x_type, "data")?;
    let result = b.result_type(0)?;
    let mode = b.string("mode", "constant")?;
    let (begins, ends) = spread_pads(&pads, axes.as_deref(), dims.len(), 0)?;
    let torch_mode = torch_mode(b, &mode)?;
    check_sizes(&dims, &begins, &ends, &mode)?;
    if begins.iter().chain(&ends).all(|&p| p == 0) {
        return Ok(vec![as_result(t, x, &x_type, &result)?]);
    }
    let Some(torch_mode) = torch_mode else {
        let list = t.int_list(&torch_order(&begins, &ends, dims.len()))?;
        let value = fill_value(t, fill, &x_type)?;
        return Ok(vec![t.aten_tensor(
            "constant_pad_nd",
            &[x, list, value],
            &result,
        )?]);
    };
    let covered = covered_dims(&begins, &ends, &mode)?;
    let list = t.int_list(&torch_order(&begins, &ends, covered))?;
    let mode = str_constant(t, torch_mode)?;
    let none = t.none()?;
    Ok(vec![t.aten_tensor(
        "pad",
        &[x, list, mode, none],
        &result,
    )?])
}

/// Per-dimension begins and ends from ONNX's pads over `axes` (all by default).
/// `zero` fills the dimensions no axis names: 0, or a `!torch.int` 0 for pads read at
/// run time.
fn spread_pads<T: Copy>(
    pads: &[T],
    axes: Option<&[i64]>,
    rank: usize,
    zero: T,
) -> Result<(Vec<T>, Vec<T>)> {
    let axes = match axes {
        Some(a) => normalize_axes(a, rank, "axes")?,
        None => (0..rank).collect(),
    };
    check_pad_count(pads.len(), axes.len())?;
    let (mut begins, mut ends) = (vec![zero; rank], vec![zero; rank]);
    for (k, &a) in axes.iter().enumerate() {
        begins[a] = pads[k];
        ends[a] = pads[k + axes.len()];
    }
    Ok((begins, ends))
}

/// What the modes allow: constant padding may be negative (it crops) but not below
/// an empty axis; reflect needs pads below the size, wrap at most the size, and edge
/// a non-empty axis to copy from.
fn check_sizes(dims: &[Dim], begins: &[i64], ends: &[i64], mode: &str) -> Result<()> {
    for (i, d) in dims.iter().enumerate() {
        let (p, q) = (begins[i], ends[i]);
        if mode != "constant" && (p < 0 || q < 0) {
            bail!("negative pads are only supported in constant mode (dimension {i})");
        }
        let Some(d) = *d else { continue };
        if d.saturating_add(p).saturating_add(q) < 0 {
            bail!("pads {p} and {q} leave dimension {i} (size {d}) with a negative size");
        }
        let padded = p > 0 || q > 0;
        let fits = match mode {
            "reflect" => p < d && q < d,
            "wrap" => p <= d && q <= d,
            "edge" => d > 0,
            _ => true,
        };
        if padded && !fits {
            bail!("{mode} padding of {p} and {q} does not fit dimension {i} of size {d}");
        }
    }
    Ok(())
}

/// How many trailing dimensions torch's pad list covers in the non-constant modes.
/// torch pads the last one to three dimensions of a tensor that has one or two more
/// in front (batch and channel), so the list reaches from the first padded dimension
/// to the end, and at least to the last rank-2 dimensions.
fn covered_dims(begins: &[i64], ends: &[i64], mode: &str) -> Result<usize> {
    let rank = begins.len();
    let first = (0..rank)
        .find(|&i| begins[i] != 0 || ends[i] != 0)
        .unwrap_or(rank);
    let covered = (rank - first).max(rank.saturating_sub(2));
    if covered >= rank {
        bail!(
            "{mode} padding of dimension 0 is not supported: torch pads only dimensions after the first"
        );
    }
    if covered > 3 {
        bail!("{mode} padding reaches {covered} dimensions; torch pads at most the last 3");
    }
    Ok(covered)
}

/// The last `covered` dimensions' pads, last dimension first.
fn torch_order(begins: &[i64], ends: &[i64], covered: usize) -> Vec<i64> {
    let rank = begins.len();
    (rank - covered..rank)
        .rev()
        .flat_map(|i| [begins[i], ends[i]])
        .collect()
}

/// The padding value as the torch scalar `constant_pad_nd` takes: an int for integer
/// and boolean data, a float otherwise.
fn fill_value<'c, 'a>(
    t: &TorchBuilder<'c, 'a>,
    fill: Fill<'c, 'a>,
    x_type: &TensorType,
) -> Result<Value<'c, 'a>> {
    let integral = x_type
        .dtype
        .is_some_and(|d| d.is_integer() || d == DType::Bool);
    match fill {
        Fill::Known(v) if integral => t.int(v as i64),
        Fill::Known(v) => t.float(v),
        Fill::Tensor(v) if integral => t.item_int(v),
        Fill::Tensor(v) => t.item_float(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_are_listed_last_dimension_first() {
        let (b, e) = spread_pads(&[0, 0, 1, 2, 0, 0, 3, 4], None, 4, 0).unwrap();
        assert_eq!(torch_order(&b, &e, 4), vec![2, 4, 1, 3, 0, 0, 0, 0]);
        let (b, e) = spread_pads(&[1, 2], Some(&[-1]), 3, 0).unwrap();
        assert_eq!((b.clone(), e.clone()), (vec![0, 0, 1], vec![0, 0, 2]));
        assert_eq!(covered_dims(&b, &e, "reflect").unwrap(), 1);
        assert!(spread_pads(&[1, 2, 3], None, 2, 0).is_err());
    }

    #[test]
    fn non_constant_modes_cover_what_torch_can_pad() {
        // NCHW padded in W only: torch's 2-D reflection pad over H and W.
        let (b, e) = spread_pads(&[0, 0, 0, 1, 0, 0, 0, 1], None, 4, 0).unwrap();
        assert_eq!(covered_dims(&b, &e, "reflect").unwrap(), 2);
        let (b, e) = spread_pads(&[1, 0, 1, 0], None, 2, 0).unwrap();
        assert!(covered_dims(&b, &e, "reflect").is_err());
        let dims = [Some(1), Some(3)];
        assert!(check_sizes(&dims, &[0, 3], &[0, 0], "reflect").is_err());
        assert!(check_sizes(&dims, &[0, 2], &[0, 0], "reflect").is_ok());
        assert!(check_sizes(&dims, &[0, -1], &[0, 0], "edge").is_err());
        assert!(check_sizes(&dims, &[0, -1], &[0, -1], "constant").is_ok());
        assert!(check_sizes(&dims, &[0, -2], &[0, -2], "constant").is_err());
    }
}
