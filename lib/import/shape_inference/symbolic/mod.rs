//! Symbolic dimensions: sizes known only at run time carried by name through shape
//! inference, as tract's `TDim` does. A graph input `input_ids: [batch, seq]` gives
//! `[batch, seq]` → `[batch, seq, 384]` → `[batch, 12, seq, 32]` down an encoder,
//! where the torch types can only say `[?,?,384]` and `[?,12,?,32]`.
//!
//! The names serve two ends. A dimension that the polynomials prove constant becomes
//! known in the type even though the concrete rules lost it: a Reshape to `[0, 0, 12,
//! -1]` of `[b, s, 384]` has a last dimension of `b*s*384 / (b*s*12)` = 32, which
//! `?`-arithmetic cannot see. And `qlower shapes` prints every value's shape with the
//! names, as users of dynamic models ask for.
//!
//! It runs beside the concrete rules, after them, and trusts them: a dimension they
//! know is taken as it is; only the ones they leave unknown take a name, from the ops'
//! own symbolic rules (`rules.rs`) or, failing those, a fresh one (`?1`, `?2`, …) that
//! equals nothing else. So a dimension only ever becomes known from exact arithmetic.

mod dim;
mod rules;

pub use dim::SymDim;

use super::ctx::Ctx;
use super::{Inferred, fold};
use crate::dialect::types::{Dim, TensorType};

/// What is known symbolically about one value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SymValue {
    /// One entry per dimension, when the rank is known.
    pub dims: Option<Vec<SymDim>>,
    /// The elements of an integer tensor of rank 0 or 1 (a shape vector), when its
    /// length is known.
    pub elements: Option<Vec<SymDim>>,
}

impl SymValue {
    /// A value whose dimensions are the declared ones, each unknown dimension by the
    /// name the model gives it (`dim_param`) or a fresh one.
    pub fn declared(ty: &TensorType, names: Option<&[Option<String>]>, fresh: &mut Fresh) -> Self {
        let dims = ty.shape.as_ref().map(|shape| {
            shape
                .iter()
                .enumerate()
                .map(
                    |(i, d)| match (d, names.and_then(|n| n.get(i)).cloned().flatten()) {
                        (Some(n), _) => SymDim::constant(*n),
                        (None, Some(name)) if !name.is_empty() => SymDim::symbol(&name),
                        (None, _) => fresh.name(),
                    },
                )
                .collect()
        });
        SymValue {
            dims,
            elements: None,
        }
    }

    /// A constant's dimensions, and its elements when it is a small integer vector.
    pub fn constant(ty: &TensorType, value: &crate::onnx::tensor::TensorData) -> Self {
        let dims = ty
            .shape
            .as_ref()
            .map(|s| s.iter().map(|d| SymDim::constant(d.unwrap_or(0))).collect());
        let elements = fold::small(value)
            .filter(|v| v.dims.len() <= 1)
            .and_then(fold::decode_ints)
            .map(|v| v.into_iter().map(SymDim::constant).collect());
        SymValue { dims, elements }
    }

    /// Takes the sizes `ty` knows (a declared type can know more than the rules).
    pub fn agree_with(&mut self, ty: &TensorType) {
        let Some(shape) = ty.shape.as_ref() else {
            return;
        };
        match self.dims.as_mut() {
            Some(dims) if dims.len() == shape.len() => {
                for (d, s) in dims.iter_mut().zip(shape) {
                    if let Some(n) = s {
                        *d = SymDim::constant(*n);
                    }
                }
            }
            _ => self.dims = None,
        }
    }

    /// `[batch,seq,384]`; `*` when the rank is unknown.
    pub fn display_dims(&self) -> String {
        match &self.dims {
            Some(d) => format!(
                "[{}]",
                d.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            None => "*".to_string(),
        }
    }
}

/// Names for dimensions no rule and no model names: `?1`, `?2`, …
#[derive(Debug, Default)]
pub struct Fresh {
    issued: usize,
}

impl Fresh {
    pub fn name(&mut self) -> SymDim {
        self.issued += 1;
        SymDim::symbol(&format!("?{}", self.issued))
    }
}

/// The symbolic value of each output of the node `ctx` describes, given its inputs'
/// (`inputs[i]`, `None` where unknown or left out) and what the concrete rules
/// `inferred` found, which it never contradicts.
pub fn infer(
    ctx: &Ctx,
    domain: &str,
    inputs: &[Option<&SymValue>],
    inferred: &[Inferred],
    fresh: &mut Fresh,
) -> Vec<SymValue> {
    let guesses = rules::guess(ctx, domain, inputs);
    inferred
        .iter()
        .enumerate()
        .map(|(i, inf)| complete(inf, guesses.get(i), fresh))
        .collect()
}

/// What the op's own symbolic rule says of one output, each dimension or element
/// named, or `None` where it does not know.
#[derive(Clone, Debug, Default)]
pub(super) struct Guess {
    pub dims: Option<Vec<Option<SymDim>>>,
    pub elements: Option<Vec<Option<SymDim>>>,
}

fn complete(inf: &Inferred, guess: Option<&Guess>, fresh: &mut Fresh) -> SymValue {
    let guessed_dims = guess.and_then(|g| g.dims.as_ref());
    let rank = inf
        .ty
        .shape
        .as_ref()
        .map(Vec::len)
        .or(guessed_dims.map(Vec::len));
    let dims = rank.map(|r| {
        (0..r)
            .map(|a| {
                let known = inf
                    .ty
                    .shape
                    .as_ref()
                    .and_then(|s| s.get(a).copied().flatten());
                let named = guessed_dims
                    .filter(|g| g.len() == r)
                    .and_then(|g| g.get(a).cloned().flatten());
                match (known, named) {
                    (Some(n), _) => SymDim::constant(n),
                    (None, Some(d)) => d,
                    (None, None) => fresh.name(),
                }
            })
            .collect::<Vec<_>>()
    });
    let elements = element_count(&inf.ty, dims.as_deref()).map(|n| {
        let known = inf.value.as_ref().and_then(fold::decode_ints);
        let guessed = guess
            .and_then(|g| g.elements.as_ref())
            .filter(|g| g.len() == n);
        let partial = inf.partial.as_ref().filter(|p| p.len() == n);
        (0..n)
            .map(|i| {
                if let Some(v) = known.as_ref().and_then(|k| k.get(i)) {
                    return SymDim::constant(*v);
                }
                if let Some(Some(v)) = partial.and_then(|p| p.get(i)) {
                    return SymDim::constant(*v);
                }
                guessed
                    .and_then(|g| g.get(i).cloned().flatten())
                    .unwrap_or_else(|| fresh.name())
            })
            .collect()
    });
    SymValue { dims, elements }
}

/// How many elements an integer value of rank 0 or 1 has, when small and known.
fn element_count(ty: &TensorType, dims: Option<&[SymDim]>) -> Option<usize> {
    if !ty.dtype.is_some_and(fold::is_int) {
        return None;
    }
    match dims? {
        [] => Some(1),
        [n] => usize::try_from(n.as_constant()?)
            .ok()
            .filter(|&n| n <= fold::LIMIT),
        _ => None,
    }
}

/// Makes known in `inferred` what `sym` proves constant and the concrete rules left
/// unknown: dimensions, and the elements of a shape vector (all of them known makes its
/// value known, so the concrete rules of later ops fold it).
pub fn sharpen(inferred: &mut Inferred, sym: &SymValue) {
    if let (Some(shape), Some(dims)) = (inferred.ty.shape.as_mut(), sym.dims.as_ref())
        && shape.len() == dims.len()
    {
        for (d, s) in shape.iter_mut().zip(dims) {
            if d.is_none() {
                *d = s.as_constant().filter(|&n| n >= 0);
            }
        }
    }
    if inferred.value.is_some() {
        return;
    }
    let Some(elements) = sym.elements.as_ref() else {
        return;
    };
    let merged: Vec<Dim> = elements
        .iter()
        .enumerate()
        .map(|(i, s)| {
            inferred
                .partial
                .as_ref()
                .and_then(|p| p.get(i).copied().flatten())
                .or_else(|| s.as_constant())
        })
        .collect();
    if merged.iter().any(Option::is_some) {
        *inferred = std::mem::take(inferred).with_elements(Some(merged));
    }
}

#[cfg(test)]
mod tests;
