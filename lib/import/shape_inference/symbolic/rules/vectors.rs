//! The rules of ops that move or compute shape vectors and sizes: Shape, Gather,
//! GatherND, Concat, Unsqueeze, Squeeze, Reshape, Flatten, Expand, Range and Slice.

use super::super::dim::{SymDim, product};
use super::super::{Guess, SymValue};
use super::{Input, broadcast_dims, input, known};
use crate::import::shape_inference::ctx::Ctx;
use crate::import::shape_inference::dims;

pub(super) fn shape_of(ctx: &Ctx, x: &Input) -> Vec<Guess> {
    let Some(d) = x.dims() else {
        return Vec::new();
    };
    let rank = dims::rank_i64(d.len());
    let clamp = |v: i64| {
        let v = if v < 0 { v.saturating_add(rank) } else { v };
        usize::try_from(v.clamp(0, rank)).unwrap_or(0)
    };
    let (start, end) = if ctx.opset >= 15 {
        let start = ctx.attrs().int("start", 0).unwrap_or(0);
        let end = ctx.attrs().int("end", rank).unwrap_or(rank);
        (clamp(start), clamp(end))
    } else {
        (0, d.len())
    };
    let picked = d.get(start..end.max(start)).map(<[SymDim]>::to_vec);
    vec![Guess {
        dims: picked
            .as_ref()
            .map(|p| vec![Some(SymDim::constant(dims::rank_i64(p.len())))]),
        elements: picked.map(known),
    }]
}

pub(super) fn gather(ctx: &Ctx, data: &Input, indices: &Input) -> Vec<Guess> {
    let axis_attr = ctx.attrs().int("axis", 0).unwrap_or(0);
    let (Some(d), Some(idx_dims)) = (data.dims(), indices.dims()) else {
        return Vec::new();
    };
    let Ok(axis) = dims::axis(axis_attr, d.len(), "axis") else {
        return Vec::new();
    };
    let out: Vec<Option<SymDim>> = d[..axis]
        .iter()
        .chain(&idx_dims)
        .chain(d.get(axis + 1..).unwrap_or_default())
        .cloned()
        .map(Some)
        .collect();
    // Picking from a shape vector with constant indices.
    let elements = match (data.elements(), ctx.ints(1)) {
        (Some(e), Some(ix)) if d.len() == 1 => ix
            .iter()
            .map(|&i| {
                let n = dims::rank_i64(e.len());
                let i = if i < 0 { i.checked_add(n)? } else { i };
                e.get(usize::try_from(i).ok()?).cloned()
            })
            .collect::<Option<Vec<_>>>()
            .map(known),
        _ => None,
    };
    vec![Guess {
        dims: Some(out),
        elements,
    }]
}

pub(super) fn concat(ctx: &Ctx, inputs: &[Option<&SymValue>]) -> Vec<Guess> {
    let count = ctx.input_slots();
    let parts: Option<Vec<Vec<SymDim>>> =
        (0..count).map(|i| input(ctx, inputs, i).dims()).collect();
    let Some(parts) = parts.filter(|p| !p.is_empty()) else {
        return Vec::new();
    };
    let rank = parts[0].len();
    if parts.iter().any(|p| p.len() != rank) {
        return Vec::new();
    }
    let axis_attr = ctx.attrs().int("axis", 0).unwrap_or(0);
    let Ok(axis) = dims::axis(axis_attr, rank, "axis") else {
        return Vec::new();
    };
    let out: Vec<Option<SymDim>> = (0..rank)
        .map(|a| {
            let column: Vec<&SymDim> = parts.iter().map(|p| &p[a]).collect();
            if a == axis {
                column
                    .iter()
                    .try_fold(SymDim::constant(0), |acc, d| acc.add(d))
            } else {
                agreed(&column)
            }
        })
        .collect();
    let elements: Option<Vec<SymDim>> = (rank == 1)
        .then(|| {
            (0..count)
                .map(|i| input(ctx, inputs, i).elements())
                .collect::<Option<Vec<_>>>()
                .map(|v| v.concat())
        })
        .flatten();
    vec![Guess {
        dims: Some(out),
        elements: elements.map(known),
    }]
}

/// The size dimensions that must be equal have: a constant among them (the names then
/// stand for it), or the one name they all are.
fn agreed(column: &[&SymDim]) -> Option<SymDim> {
    if let Some(c) = column.iter().find(|d| d.as_constant().is_some()) {
        return Some((*c).clone());
    }
    let first = column.first()?;
    column.iter().all(|d| d == first).then(|| (*first).clone())
}

/// Axes from the attribute (before opset 13) or the constant second input.
fn axes_of(ctx: &Ctx, since_input: i64) -> Option<Vec<i64>> {
    if ctx.opset >= since_input {
        if ctx.present(1) { ctx.ints(1) } else { None }
    } else {
        ctx.attrs().optional_ints("axes").ok().flatten()
    }
}

pub(super) fn unsqueeze(ctx: &Ctx, x: &Input) -> Vec<Guess> {
    let (Some(d), Some(axes)) = (x.dims(), axes_of(ctx, 13)) else {
        return Vec::new();
    };
    let rank = d.len() + axes.len();
    let Ok(axes) = dims::axes(&axes, rank, "axes") else {
        return Vec::new();
    };
    let mut rest = d.into_iter();
    let out: Vec<Option<SymDim>> = (0..rank)
        .map(|a| {
            if axes.contains(&a) {
                Some(SymDim::constant(1))
            } else {
                rest.next()
            }
        })
        .collect();
    vec![Guess {
        dims: Some(out),
        elements: x.elements().map(known),
    }]
}

pub(super) fn squeeze(ctx: &Ctx, x: &Input) -> Vec<Guess> {
    let Some(d) = x.dims() else {
        return Vec::new();
    };
    let axes = match axes_of(ctx, 13) {
        Some(a) => match dims::axes(&a, d.len(), "axes") {
            Ok(a) => a,
            Err(_) => return Vec::new(),
        },
        // Without axes every 1 goes, and a named size might be 1.
        None if d.iter().all(|x| x.as_constant().is_some()) => (0..d.len())
            .filter(|&a| d[a].as_constant() == Some(1))
            .collect(),
        None => return Vec::new(),
    };
    let out: Vec<Option<SymDim>> = d
        .into_iter()
        .enumerate()
        .filter(|(a, _)| !axes.contains(a))
        .map(|(_, x)| Some(x))
        .collect();
    vec![Guess {
        dims: Some(out),
        elements: x.elements().map(known),
    }]
}

pub(super) fn reshape(ctx: &Ctx, data: &Input, target: &Input) -> Vec<Guess> {
    let target = match ctx.ints(1) {
        Some(t) => t.into_iter().map(SymDim::constant).collect(),
        None => match target.elements() {
            Some(t) => t,
            None => return Vec::new(),
        },
    };
    let allow_zero = ctx.opset >= 14 && ctx.attrs().int("allowzero", 0).unwrap_or(0) != 0;
    let input = data.dims();
    let mut out: Vec<Option<SymDim>> = Vec::with_capacity(target.len());
    let mut infer_at = None;
    for (i, t) in target.iter().enumerate() {
        match t.as_constant() {
            Some(0) if !allow_zero => out.push(input.as_ref().and_then(|d| d.get(i).cloned())),
            Some(-1) => {
                infer_at = Some(i);
                out.push(None);
            }
            Some(n) if n < 0 => return Vec::new(),
            // A name from a shape vector is a size, never the -1 or a 0 to copy.
            _ => out.push(Some(t.clone())),
        }
    }
    if let (Some(i), Some(input)) = (infer_at, input.as_ref()) {
        let others: Option<Vec<SymDim>> = out
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != i)
            .map(|(_, d)| d.clone())
            .collect();
        let whole = product(input);
        let quotient = others
            .and_then(|o| product(&o))
            .zip(whole)
            .and_then(|(o, w)| w.div_exact(&o));
        if let Some(slot) = out.get_mut(i) {
            *slot = quotient;
        }
    }
    vec![Guess {
        dims: Some(out),
        elements: data.elements().map(known),
    }]
}

pub(super) fn flatten(ctx: &Ctx, x: &Input) -> Option<Vec<Option<SymDim>>> {
    let d = x.dims()?;
    let axis = ctx.attrs().int("axis", 1).ok()?;
    let r = dims::rank_i64(d.len());
    let axis = if axis < 0 { axis.checked_add(r)? } else { axis };
    let axis = usize::try_from(axis).ok().filter(|&a| a <= d.len())?;
    Some(vec![product(&d[..axis]), product(&d[axis..])])
}

pub(super) fn expand(x: &Input, shape: &Input) -> Option<Vec<Option<SymDim>>> {
    let (d, target) = (x.dims()?, shape.elements()?);
    Some(broadcast_dims(&[known(d), known(target)]))
}

/// `Range(start, limit, 1)` has `limit - start` elements when the limit is a size.
pub(super) fn range(ctx: &Ctx, limit: &Input) -> Vec<Guess> {
    let (Some(start), Some(delta), Some(limit)) = (ctx.ints(0), ctx.ints(2), limit.elements())
    else {
        return Vec::new();
    };
    // Only from 0 by 1 to a size: the count is then exactly the limit, never clamped.
    match (&start[..], &delta[..], &limit[..]) {
        ([0], [1], [limit]) if limit.is_monomial() => vec![Guess {
            dims: Some(vec![Some(limit.clone())]),
            elements: None,
        }],
        _ => Vec::new(),
    }
}

/// Only what slicing cannot change: the axes it does not touch, axes it takes whole
/// (start 0, step 1, end past any size), and a shape vector cut at constant bounds.
pub(super) fn slice(ctx: &Ctx, inputs: &[Option<&SymValue>]) -> Vec<Guess> {
    let x = input(ctx, inputs, 0);
    let Some(d) = x.dims() else {
        return Vec::new();
    };
    let constants = |v: Option<Vec<i64>>| v.map(|v| v.into_iter().map(SymDim::constant).collect());
    // Bounds may be sizes computed at run time (`Shape(x)[1]`, its negation).
    let bound = |i: usize| constants(ctx.ints(i)).or_else(|| input(ctx, inputs, i).elements());
    let (starts, ends, axes, steps) = if ctx.opset >= 10 {
        let given = |i: usize| {
            if ctx.present(i) {
                Some(ctx.ints(i))
            } else {
                None
            }
        };
        (bound(1), bound(2), given(3), given(4))
    } else {
        let a = ctx.attrs();
        (
            constants(a.optional_ints("starts").ok().flatten()),
            constants(a.optional_ints("ends").ok().flatten()),
            match a.optional_ints("axes") {
                Ok(Some(v)) => Some(Some(v)),
                Ok(None) => None,
                Err(_) => Some(None),
            },
            None,
        )
    };
    let (Some(starts), Some(ends)) = (starts, ends) else {
        return Vec::new();
    };
    // Given but not constant: unknown. Left out: the first axes, one step each.
    let axes = match axes {
        Some(None) => return Vec::new(),
        Some(Some(a)) => a,
        None => (0..dims::rank_i64(starts.len())).collect(),
    };
    let steps = match steps {
        Some(None) => return Vec::new(),
        Some(Some(s)) => s,
        None => vec![1; starts.len()],
    };
    if starts.len() != ends.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Vec::new();
    }
    let Ok(axes) = dims::axes(&axes, d.len(), "axes") else {
        return Vec::new();
    };
    let mut out: Vec<Option<SymDim>> = known(d.clone());
    for (k, &a) in axes.iter().enumerate() {
        if !(steps[k] == 1 && takes_whole(&d[a], &starts[k], &ends[k])) {
            out[a] = None;
        }
    }
    let elements = match (x.elements(), &axes[..]) {
        (Some(e), [0]) if d.len() == 1 => starts[0]
            .as_constant()
            .zip(ends[0].as_constant())
            .and_then(|(b, f)| cut(&e, b, f, steps[0]))
            .map(known),
        _ => None,
    };
    vec![Guess {
        dims: Some(out),
        elements,
    }]
}

/// Whether `[start, end)` by step 1 is all of an axis of size `d`: from 0 or from `-d`,
/// to the size itself or past any size.
fn takes_whole(d: &SymDim, start: &SymDim, end: &SymDim) -> bool {
    // Ends at or past this take the axis to its end: no tensor is that long.
    const TO_END: i64 = i32::MAX as i64;
    let from_first =
        start.as_constant() == Some(0) || start.add(d).and_then(|x| x.as_constant()) == Some(0);
    let to_last = end.as_constant().is_some_and(|e| e >= TO_END)
        || end
            .sub(d)
            .and_then(|x| x.as_constant())
            .is_some_and(|x| x >= 0);
    from_first && to_last
}

/// `e[start:end:step]` with ONNX's clamping, on a vector of known length.
fn cut(e: &[SymDim], start: i64, end: i64, step: i64) -> Option<Vec<SymDim>> {
    let n = dims::rank_i64(e.len());
    if step == 0 {
        return None;
    }
    let resolve = |v: i64, lo: i64, hi: i64| {
        let v = if v < 0 { v.saturating_add(n) } else { v };
        v.clamp(lo, hi)
    };
    let mut out = Vec::new();
    if step > 0 {
        let (mut i, end) = (resolve(start, 0, n), resolve(end, 0, n));
        while i < end {
            out.push(e.get(usize::try_from(i).ok()?)?.clone());
            i = i.checked_add(step)?;
        }
    } else {
        let (mut i, end) = (resolve(start, -1, n - 1), resolve(end, -1, n - 1));
        while i > end {
            out.push(e.get(usize::try_from(i).ok()?)?.clone());
            i = i.checked_add(step)?;
        }
    }
    Some(out)
}

/// `indices[:-1] ++ data[batch_dims + k:]`, `k` the indices' last size.
pub(super) fn gather_nd(ctx: &Ctx, data: &Input, indices: &Input) -> Option<Vec<Option<SymDim>>> {
    let (d, idx) = (data.dims()?, indices.dims()?);
    let (last, lead) = idx.split_last()?;
    let k = usize::try_from(last.as_constant()?).ok()?;
    let b = usize::try_from(ctx.attrs().int("batch_dims", 0).ok()?).ok()?;
    let tail = d.get(b.checked_add(k)?..)?;
    Some(known(lead.iter().chain(tail).cloned().collect()))
}
