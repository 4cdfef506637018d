//! Each op's symbolic rule: what names its outputs' dimensions and elements carry,
//! from its inputs'. Only exact facts: where an op could give either of two names (two
//! different names broadcast against each other), it says nothing and the output gets
//! a fresh name. Ops without a rule here get fresh names for what the concrete rules
//! left unknown.

use super::dim::{SymDim, product};
use super::{Guess, SymValue};
use crate::import::shape_inference::ctx::Ctx;
use crate::import::shape_inference::dims;

/// Ops whose first output has their first input's shape.
const SAME_SHAPE: &[&str] = &[
    "Abs",
    "BatchNormalization",
    "BiasGelu",
    "Cast",
    "CastLike",
    "Ceil",
    "Celu",
    "Clip",
    "Cos",
    "CumSum",
    "DequantizeLinear",
    "Dropout",
    "DynamicQuantizeLinear",
    "Elu",
    "Erf",
    "Exp",
    "FastGelu",
    "Floor",
    "Gelu",
    "HardSigmoid",
    "HardSwish",
    "Hardmax",
    "Identity",
    "InstanceNormalization",
    "IsInf",
    "IsNaN",
    "LayerNormalization",
    "LeakyRelu",
    "Log",
    "LogSoftmax",
    "LpNormalization",
    "MeanVarianceNormalization",
    "Mish",
    "Neg",
    "Not",
    "QuickGelu",
    "QuantizeLinear",
    "RMSNormalization",
    "Reciprocal",
    "Relu",
    "Round",
    "RotaryEmbedding",
    "ScatterElements",
    "ScatterND",
    "Selu",
    "Shrink",
    "Sigmoid",
    "Sign",
    "SimplifiedLayerNormalization",
    "Sin",
    "SkipLayerNormalization",
    "SkipSimplifiedLayerNormalization",
    "Softmax",
    "Softplus",
    "Softsign",
    "Sqrt",
    "Tan",
    "Tanh",
    "ThresholdedRelu",
    "Trilu",
];

/// Element-wise ops of several inputs, which broadcast.
const BROADCAST: &[&str] = &[
    "Add",
    "And",
    "BiasAdd",
    "BitShift",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "Div",
    "Equal",
    "Greater",
    "GreaterOrEqual",
    "Less",
    "LessOrEqual",
    "Max",
    "Mean",
    "Min",
    "Mod",
    "Mul",
    "Or",
    "PRelu",
    "Pow",
    "Sub",
    "Sum",
    "Where",
    "Xor",
];

const REDUCTIONS: &[&str] = &[
    "ArgMax",
    "ArgMin",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSum",
    "ReduceSumSquare",
];

/// The guesses for the node's outputs, in order; fewer than its outputs where the rest
/// are unknown.
pub(super) fn guess(ctx: &Ctx, domain: &str, inputs: &[Option<&SymValue>]) -> Vec<Guess> {
    let at = |i: usize| input(ctx, inputs, i);
    let op = ctx.node.op_type;
    if !(domain.is_empty() || domain == "com.microsoft") {
        return Vec::new();
    }
    let one = |dims: Option<Vec<Option<SymDim>>>| {
        vec![Guess {
            dims,
            elements: None,
        }]
    };
    match op {
        _ if SAME_SHAPE.contains(&op) => {
            let elements = match op {
                "Cast" | "Identity" => at(0).elements().map(known),
                "Neg" => at(0)
                    .elements()
                    .map(|e| e.iter().map(|x| SymDim::constant(0).sub(x)).collect()),
                _ => None,
            };
            vec![Guess {
                dims: at(0).dims().map(known),
                elements,
            }]
        }
        _ if BROADCAST.contains(&op) => broadcast_op(ctx, op, inputs),
        "Shape" => shape_of(ctx, &at(0)),
        "Size" => vec![Guess {
            dims: Some(Vec::new()),
            elements: at(0)
                .dims()
                .and_then(|d| product(&d))
                .map(|n| vec![Some(n)]),
        }],
        "Gather" => gather(ctx, &at(0), &at(1)),
        "Concat" => concat(ctx, inputs),
        "Unsqueeze" => unsqueeze(ctx, &at(0)),
        "Squeeze" => squeeze(ctx, &at(0)),
        "Reshape" => reshape(ctx, &at(0), &at(1)),
        "Flatten" => one(flatten(ctx, &at(0))),
        "Transpose" => one(transpose(ctx, &at(0))),
        "MatMul" | "MatMulInteger" => one(matmul(&at(0), &at(1))),
        "Gemm" => one(gemm(ctx, &at(0), &at(1))),
        "Expand" => one(expand(&at(0), &at(1))),
        "ConstantOfShape" => one(at(0).elements().map(known)),
        "Range" => range(ctx, &at(1)),
        _ if REDUCTIONS.contains(&op) => one(reduce(ctx, &at(0))),
        "Slice" => slice(ctx, inputs),
        "Split" => split(ctx, &at(0)),
        "LSTM" | "GRU" | "RNN" => at(0).dims().map(|d| recurrent(ctx, &d)).unwrap_or_default(),
        // The batch, the rest from the concrete rules.
        "ConvTranspose" | "GlobalAveragePool" | "GlobalMaxPool" => {
            one(at(0).dims().map(|d| leading(&d, 1, d.len())))
        }
        "Conv" | "ConvInteger" | "QLinearConv" | "MaxPool" | "AveragePool" | "LpPool" => {
            one(at(0).dims().map(|d| windowed(ctx, &d)))
        }
        // [batch, sequence, hidden]: the two leading dimensions of the query (or of the
        // token ids).
        "Attention"
        | "MultiHeadAttention"
        | "GroupQueryAttention"
        | "QAttention"
        | "EmbedLayerNormalization"
        | "QEmbedLayerNormalization" => one(at(0).dims().map(|d| leading(&d, 2, 3))),
        _ => Vec::new(),
    }
}

struct Input<'a> {
    value: Option<&'a SymValue>,
}

fn input<'a>(ctx: &Ctx, inputs: &[Option<&'a SymValue>], i: usize) -> Input<'a> {
    Input {
        value: inputs.get(i).copied().flatten().filter(|_| ctx.present(i)),
    }
}

impl Input<'_> {
    fn dims(&self) -> Option<Vec<SymDim>> {
        self.value?.dims.clone()
    }
    fn elements(&self) -> Option<Vec<SymDim>> {
        self.value?.elements.clone()
    }
}

fn known(v: Vec<SymDim>) -> Vec<Option<SymDim>> {
    v.into_iter().map(Some).collect()
}

/// The size two broadcast dimensions give, when one name settles it: equal, or one of
/// them a constant (a 1 yields to the other; any other constant is the size, since the
/// other must be 1 or it).
fn broadcast_pair(a: &SymDim, b: &SymDim) -> Option<SymDim> {
    match (a.as_constant(), b.as_constant()) {
        _ if a == b => Some(a.clone()),
        (Some(1), _) => Some(b.clone()),
        (_, Some(1)) => Some(a.clone()),
        (Some(_), _) => Some(a.clone()),
        (_, Some(_)) => Some(b.clone()),
        _ => None,
    }
}

fn broadcast_dims(shapes: &[Vec<Option<SymDim>>]) -> Vec<Option<SymDim>> {
    let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
    (0..rank)
        .map(|a| {
            let mut acc: Option<Option<SymDim>> = None;
            for s in shapes {
                // Right-aligned: shorter shapes have leading 1s.
                let Some(i) = (a + s.len()).checked_sub(rank) else {
                    continue;
                };
                let d = s.get(i).cloned().flatten();
                acc = Some(match (acc, d) {
                    (None, d) => d,
                    (Some(Some(x)), Some(y)) => broadcast_pair(&x, &y),
                    _ => None,
                });
            }
            acc.flatten()
        })
        .collect()
}

fn broadcast_op(ctx: &Ctx, op: &str, inputs: &[Option<&SymValue>]) -> Vec<Guess> {
    let at = |i: usize| input(ctx, inputs, i);
    let count = ctx.input_slots();
    let shapes: Option<Vec<Vec<Option<SymDim>>>> =
        (0..count).map(|i| at(i).dims().map(known)).collect();
    let dims = shapes.map(|s| broadcast_dims(&s));
    // Integer arithmetic on shape vectors: `Shape(x)[1] * 12`, `seq - 1`.
    let elements = match op {
        "Add" | "Sub" | "Mul" | "Div" if count == 2 => {
            elementwise(at(0).elements(), at(1).elements(), |a, b| match op {
                "Add" => a.add(b),
                "Sub" => a.sub(b),
                "Mul" => a.mul(b),
                _ => a.div_exact(b),
            })
        }
        _ => None,
    };
    vec![Guess { dims, elements }]
}

fn elementwise(
    a: Option<Vec<SymDim>>,
    b: Option<Vec<SymDim>>,
    f: impl Fn(&SymDim, &SymDim) -> Option<SymDim>,
) -> Option<Vec<Option<SymDim>>> {
    let (a, b) = (a?, b?);
    let n = a.len().max(b.len());
    if !(a.len() == n || a.len() == 1) || !(b.len() == n || b.len() == 1) {
        return None;
    }
    let pick = |v: &[SymDim], i: usize| v.get(if v.len() == 1 { 0 } else { i }).cloned();
    Some((0..n).map(|i| f(&pick(&a, i)?, &pick(&b, i)?)).collect())
}

fn shape_of(ctx: &Ctx, x: &Input) -> Vec<Guess> {
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

fn gather(ctx: &Ctx, data: &Input, indices: &Input) -> Vec<Guess> {
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

fn concat(ctx: &Ctx, inputs: &[Option<&SymValue>]) -> Vec<Guess> {
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

fn unsqueeze(ctx: &Ctx, x: &Input) -> Vec<Guess> {
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

fn squeeze(ctx: &Ctx, x: &Input) -> Vec<Guess> {
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

fn reshape(ctx: &Ctx, data: &Input, target: &Input) -> Vec<Guess> {
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

fn flatten(ctx: &Ctx, x: &Input) -> Option<Vec<Option<SymDim>>> {
    let d = x.dims()?;
    let axis = ctx.attrs().int("axis", 1).ok()?;
    let r = dims::rank_i64(d.len());
    let axis = if axis < 0 { axis.checked_add(r)? } else { axis };
    let axis = usize::try_from(axis).ok().filter(|&a| a <= d.len())?;
    Some(vec![product(&d[..axis]), product(&d[axis..])])
}

fn transpose(ctx: &Ctx, x: &Input) -> Option<Vec<Option<SymDim>>> {
    let d = x.dims()?;
    let perm = match ctx.attrs().optional_ints("perm").ok()? {
        Some(p) => p,
        None => (0..dims::rank_i64(d.len())).rev().collect(),
    };
    if perm.len() != d.len() {
        return None;
    }
    perm.iter()
        .map(|&p| {
            usize::try_from(p)
                .ok()
                .and_then(|p| d.get(p).cloned())
                .map(Some)
        })
        .collect()
}

fn matmul(a: &Input, b: &Input) -> Option<Vec<Option<SymDim>>> {
    let (a, b) = (a.dims()?, b.dims()?);
    let (a1, b1) = (a.len() == 1, b.len() == 1);
    let a = if a1 {
        vec![SymDim::constant(1), a[0].clone()]
    } else {
        a
    };
    let b = if b1 {
        vec![b[0].clone(), SymDim::constant(1)]
    } else {
        b
    };
    let (ra, rb) = (a.len(), b.len());
    if ra < 2 || rb < 2 {
        return None;
    }
    let batch = broadcast_dims(&[known(a[..ra - 2].to_vec()), known(b[..rb - 2].to_vec())]);
    let mut out = batch;
    if !a1 {
        out.push(Some(a[ra - 2].clone()));
    }
    if !b1 {
        out.push(Some(b[rb - 1].clone()));
    }
    Some(out)
}

fn gemm(ctx: &Ctx, a: &Input, b: &Input) -> Option<Vec<Option<SymDim>>> {
    let (a, b) = (a.dims()?, b.dims()?);
    if a.len() != 2 || b.len() != 2 {
        return None;
    }
    let ta = ctx.attrs().int("transA", 0).ok()? != 0;
    let tb = ctx.attrs().int("transB", 0).ok()? != 0;
    let m = if ta { &a[1] } else { &a[0] };
    let n = if tb { &b[0] } else { &b[1] };
    Some(vec![Some(m.clone()), Some(n.clone())])
}

fn expand(x: &Input, shape: &Input) -> Option<Vec<Option<SymDim>>> {
    let (d, target) = (x.dims()?, shape.elements()?);
    Some(broadcast_dims(&[known(d), known(target)]))
}

/// `Range(start, limit, 1)` has `limit - start` elements when the limit is a size.
fn range(ctx: &Ctx, limit: &Input) -> Vec<Guess> {
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

fn reduce(ctx: &Ctx, x: &Input) -> Option<Vec<Option<SymDim>>> {
    let d = x.dims()?;
    let op = ctx.node.op_type;
    let keep = ctx.attrs().int("keepdims", 1).ok()? != 0;
    if op == "ArgMax" || op == "ArgMin" {
        let axis = dims::axis(ctx.attrs().int("axis", 0).ok()?, d.len(), "axis").ok()?;
        return Some(reduced(&d, &[axis], keep));
    }
    // ReduceSum takes its axes as an input from opset 13, the others from 18.
    let since = if op == "ReduceSum" { 13 } else { 18 };
    let axes = if ctx.opset >= since {
        if ctx.present(1) {
            Some(ctx.ints(1)?)
        } else {
            None
        }
    } else {
        ctx.attrs().optional_ints("axes").ok()?
    };
    let axes = match axes {
        Some(a) if !a.is_empty() => dims::axes(&a, d.len(), "axes").ok()?,
        _ if ctx.attrs().int("noop_with_empty_axes", 0).ok()? != 0 => {
            return Some(known(d));
        }
        _ => (0..d.len()).collect(),
    };
    Some(reduced(&d, &axes, keep))
}

fn reduced(d: &[SymDim], axes: &[usize], keep: bool) -> Vec<Option<SymDim>> {
    d.iter()
        .enumerate()
        .filter_map(|(a, x)| match (axes.contains(&a), keep) {
            (true, true) => Some(Some(SymDim::constant(1))),
            (true, false) => None,
            (false, _) => Some(Some(x.clone())),
        })
        .collect()
}

/// Only what slicing cannot change: the axes it does not touch, axes it takes whole
/// (start 0, step 1, end past any size), and a shape vector cut at constant bounds.
fn slice(ctx: &Ctx, inputs: &[Option<&SymValue>]) -> Vec<Guess> {
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

/// Every output keeps the input's shape but along the split axis.
fn split(ctx: &Ctx, x: &Input) -> Vec<Guess> {
    let Some(d) = x.dims() else {
        return Vec::new();
    };
    let Ok(axis) = dims::axis(ctx.attrs().int("axis", 0).unwrap_or(0), d.len(), "axis") else {
        return Vec::new();
    };
    let mut out = known(d);
    out[axis] = None;
    vec![
        Guess {
            dims: Some(out),
            elements: None,
        };
        ctx.outputs()
    ]
}

/// The first `n` of `d`, in an output of rank `rank` whose other sizes the concrete
/// rules give.
fn leading(d: &[SymDim], n: usize, rank: usize) -> Vec<Option<SymDim>> {
    (0..rank)
        .map(|a| (a < n).then(|| d.get(a).cloned()).flatten())
        .collect()
}

/// A convolution's or pool's output: the batch, the channels from the concrete rules,
/// and each spatial size where stride 1 makes it a polynomial, `in + pads - dilation *
/// (kernel - 1)` (a stride above 1 floors a quotient, which names cannot carry).
fn windowed(ctx: &Ctx, d: &[SymDim]) -> Vec<Option<SymDim>> {
    let mut out = leading(d, 1, d.len());
    let spatial = d.len().saturating_sub(2);
    let weight = match ctx.node.op_type {
        "QLinearConv" => 3,
        _ => 1,
    };
    let kernel = match ctx.attrs().optional_ints("kernel_shape").ok().flatten() {
        Some(k) => Some(k),
        None if ctx.node.op_type.contains("Conv") => ctx
            .shape(weight)
            .and_then(|s| s.get(2..).map(<[_]>::to_vec))
            .and_then(|k| k.into_iter().collect::<Option<Vec<i64>>>()),
        None => None,
    };
    let Some(kernel) = kernel.filter(|k| k.len() == spatial) else {
        return out;
    };
    let attr = |name: &str, fill: i64, len: usize| {
        ctx.attrs()
            .optional_ints(name)
            .ok()
            .flatten()
            .unwrap_or_else(|| vec![fill; len])
    };
    let strides = attr("strides", 1, spatial);
    let dilations = attr("dilations", 1, spatial);
    let auto_pad = ctx.attrs().string("auto_pad", "NOTSET").unwrap_or_default();
    let pads = match auto_pad.as_str() {
        "NOTSET" => attr("pads", 0, 2 * spatial),
        "VALID" => vec![0; 2 * spatial],
        // With stride 1, SAME keeps every size.
        _ => {
            if strides.iter().all(|&s| s == 1) {
                for a in 0..spatial {
                    out[a + 2] = Some(d[a + 2].clone());
                }
            }
            return out;
        }
    };
    if strides.len() != spatial || dilations.len() != spatial || pads.len() != 2 * spatial {
        return out;
    }
    for a in 0..spatial {
        if strides[a] != 1 {
            continue;
        }
        let shrink = kernel[a]
            .checked_sub(1)
            .and_then(|k| dilations[a].checked_mul(k))
            .and_then(|k| pads[a].checked_add(pads[a + spatial])?.checked_sub(k));
        out[a + 2] = shrink.and_then(|c| d[a + 2].add(&SymDim::constant(c)));
    }
    out
}

/// A recurrent layer's outputs Y, Y_h (and LSTM's Y_c): the sequence and batch sizes of
/// X, the directions and hidden size from the concrete rules.
fn recurrent(ctx: &Ctx, x: &[SymDim]) -> Vec<Guess> {
    let [a, b, _] = x else {
        return Vec::new();
    };
    let batch_first = ctx.attrs().int("layout", 0).unwrap_or(0) != 0;
    // X is [seq, batch, input], or [batch, seq, input] with layout 1.
    let (seq, batch) = if batch_first { (b, a) } else { (a, b) };
    let (seq, batch) = (Some(seq.clone()), Some(batch.clone()));
    let y = if batch_first {
        vec![batch.clone(), seq, None, None]
    } else {
        vec![seq, None, batch.clone(), None]
    };
    let state = if batch_first {
        vec![batch, None, None]
    } else {
        vec![None, batch, None]
    };
    let guess = |dims| Guess {
        dims: Some(dims),
        elements: None,
    };
    vec![guess(y), guess(state.clone()), guess(state)]
}
