//! Partly known values: the elements of a small integer tensor of rank 0 or 1 of which
//! only some are known at import time. Exporters size a reshape with a shape vector
//! computed at run time, `Concat(Shape(x)[0:1], [400, 6, 64])`; when x has a dynamic
//! batch, that vector is `[?, 400, 6, 64]`, and its known elements still give the
//! Reshape result `[?, 400, 6, 64]`. Downstream compilers need those sizes: with
//! smart-turn's attention reshapes typed `[?,?,?]`, IREE 3.13 wrote an ill-typed
//! `linalg.transpose` for the permute after them.
//!
//! Rules carry these elements beside the fully known `value` (`Inferred::partial`);
//! a vector whose elements all become known turns into a `value`, so the rules of the
//! fully known path take over from there.

use super::ctx::Ctx;
use super::{Inferred, dims, fold, int_arith};
use crate::dialect::types::Dim;

impl Ctx<'_> {
    /// The elements of input `i`, each known or not, when it is an integer tensor of
    /// rank 0 or 1 and known length: from its value, else from its partial value, else
    /// all unknown (a dynamic dimension taken by Shape is still one element).
    pub fn elements(&self, i: usize) -> Option<Vec<Dim>> {
        let input = self.input(i)?;
        if let Some(v) = input.value {
            let v = fold::small(v).filter(|v| v.dims.len() <= 1)?;
            return Some(fold::decode_ints(v)?.into_iter().map(Some).collect());
        }
        if !fold::is_int(input.ty.dtype?) {
            return None;
        }
        let count = match input.ty.shape.as_deref()? {
            [] => 1,
            [Some(n)] => usize::try_from(*n).ok().filter(|&n| n <= fold::LIMIT)?,
            _ => return None,
        };
        match input.partial {
            Some(p) if p.len() == count => Some(p.to_vec()),
            Some(_) => None,
            None => Some(vec![None; count]),
        }
    }
}

impl Inferred {
    /// Records `elements` as this result's value when all are known, else as its
    /// partial value. Nothing is recorded unless the result is an integer tensor of
    /// rank 0 or 1 with exactly that many elements, or when its value is already known;
    /// a known element the element type cannot hold becomes unknown rather than wrap.
    pub(super) fn with_elements(mut self, elements: Option<Vec<Dim>>) -> Inferred {
        let Some(elements) = elements else {
            return self;
        };
        if self.value.is_some() {
            return self;
        }
        let Some(dtype) = self.ty.dtype.filter(|&d| fold::is_int(d)) else {
            return self;
        };
        let Some(shape) = self.ty.shape.as_deref().and_then(dims::known) else {
            return self;
        };
        if shape.len() > 1
            || elements.len() > fold::LIMIT
            || fold::count_of(&shape) != Some(elements.len())
        {
            return self;
        }
        let elements: Vec<Dim> = elements
            .into_iter()
            .map(|e| e.filter(|&v| int_arith::fits(dtype, v)))
            .collect();
        if let Some(all) = dims::known(&elements) {
            self.value = fold::encode_ints(dtype, shape, &all);
        } else if elements.iter().any(Option::is_some) {
            self.partial = Some(elements);
        }
        self
    }
}

/// Element-wise Add, Sub, Mul or Div of two element vectors that broadcast (equal
/// lengths, or one of length 1): an element is known where both operands' are and
/// the integer result is exact (`int_arith`'s rules).
pub(super) fn binary(op: &str, a: &[Dim], b: &[Dim]) -> Option<Vec<Dim>> {
    if !matches!(op, "Add" | "Sub" | "Mul" | "Div") {
        return None;
    }
    let f = int_arith::binary_fn(op)?;
    let n = match (a.len(), b.len()) {
        (x, y) if x == y => x,
        (1, y) => y,
        (x, 1) => x,
        _ => return None,
    };
    let at = |v: &[Dim], i: usize| -> Option<Dim> {
        if v.len() == 1 {
            v.first().copied()
        } else {
            v.get(i).copied()
        }
    };
    (0..n)
        .map(|i| match (at(a, i)?, at(b, i)?) {
            (Some(x), Some(y)) => Some(f(x, y)),
            _ => Some(None),
        })
        .collect()
}

/// The elements at `indices` (negative ones count from the back), as Gather along
/// axis 0 of a vector and Slice pick them; `None` when an index is out of range.
pub(super) fn pick(elements: &[Dim], indices: impl IntoIterator<Item = i64>) -> Option<Vec<Dim>> {
    let len = dims::rank_i64(elements.len());
    indices
        .into_iter()
        .map(|i| {
            let i = if i < 0 { i.checked_add(len)? } else { i };
            elements.get(usize::try_from(i).ok()?).copied()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::test_util::ty;
    use super::*;
    use crate::onnx::dtype::DType;

    fn vector(dtype: DType, n: i64) -> Inferred {
        Inferred::of(Some(dtype), ty(dtype, &[n]).shape)
    }

    #[test]
    fn fully_known_elements_become_a_value_and_partial_ones_stay_partial() {
        let done = vector(DType::I64, 2).with_elements(Some(vec![Some(3), Some(4)]));
        assert_eq!(done.partial, None);
        assert_eq!(
            done.value.as_ref().and_then(fold::decode_ints),
            Some(vec![3, 4])
        );
        let part = vector(DType::I64, 2).with_elements(Some(vec![None, Some(4)]));
        assert_eq!(part.value, None);
        assert_eq!(part.partial, Some(vec![None, Some(4)]));
        // Nothing known, the wrong count, or a float result: nothing recorded.
        let none = vector(DType::I64, 2).with_elements(Some(vec![None, None]));
        assert_eq!(none.partial, None);
        let wrong = vector(DType::I64, 3).with_elements(Some(vec![None, Some(4)]));
        assert_eq!(wrong.partial, None);
        let float = vector(DType::F32, 2).with_elements(Some(vec![None, Some(4)]));
        assert_eq!(float.partial, None);
    }

    #[test]
    fn an_element_the_type_cannot_hold_becomes_unknown() {
        let i8s = vector(DType::I8, 2).with_elements(Some(vec![None, Some(300)]));
        assert_eq!(i8s.partial, None);
        let i8s = vector(DType::I8, 3).with_elements(Some(vec![None, Some(300), Some(5)]));
        assert_eq!(i8s.partial, Some(vec![None, None, Some(5)]));
    }

    #[test]
    fn arithmetic_broadcasts_and_keeps_unknowns() {
        let a = [None, Some(400), Some(6)];
        assert_eq!(
            binary("Mul", &a, &[Some(2)]),
            Some(vec![None, Some(800), Some(12)])
        );
        assert_eq!(
            binary("Div", &a, &[Some(4), Some(0), Some(3)]),
            Some(vec![None, None, Some(2)])
        );
        assert_eq!(binary("Add", &a, &[Some(1), Some(2)]), None);
        assert_eq!(binary("Equal", &a, &[Some(1)]), None);
    }

    #[test]
    fn picks_count_negative_indices_from_the_back() {
        let a = [None, Some(6), Some(400), Some(64)];
        assert_eq!(pick(&a, [0, -1]), Some(vec![None, Some(64)]));
        assert_eq!(pick(&a, [4]), None);
        assert_eq!(pick(&a, [i64::MIN]), None);
    }
}
