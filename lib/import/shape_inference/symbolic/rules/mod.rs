//! Each op's symbolic rule: what names its outputs' dimensions and elements carry,
//! from its inputs'. Only exact facts: where an op could give either of two names (two
//! different names broadcast against each other), it says nothing and the output gets
//! a fresh name. Ops without a rule here get fresh names for what the concrete rules
//! left unknown.

mod layers;
mod vectors;

use super::dim::{SymDim, product};
use super::{Guess, SymValue};
use crate::import::shape_inference::ctx::Ctx;
use layers::{gemm, leading, matmul, recurrent, reduce, resize, split, transpose, windowed};
use vectors::{
    concat, expand, flatten, gather, gather_nd, range, reshape, shape_of, slice, squeeze, unsqueeze,
};

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
        "GatherND" => one(gather_nd(ctx, &at(0), &at(1))),
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
        "Resize" => one(resize(ctx, inputs)),
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
