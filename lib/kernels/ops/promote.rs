//! torch's type promotion, for results whose type the IR leaves unknown. Operands
//! rank in three classes: tensors with dimensions, 0-d tensors, and plain scalars. A
//! lower class only changes the result when it is of a higher category (bool < integer
//! < float), and a scalar then contributes its category's default type (i64, f32).

use crate::kernels::tensor::dtype::DType;

/// One operand's part in promotion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    /// A tensor of this element type and rank.
    Tensor(DType, usize),
    Int,
    Float,
    Bool,
}

#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Category {
    Bool,
    Int,
    Float,
}

fn category(d: DType) -> Category {
    if d == DType::Bool {
        Category::Bool
    } else if d.is_float() {
        Category::Float
    } else {
        Category::Int
    }
}

/// The type that holds values of both `a` and `b`, as `torch.promote_types` says.
pub fn promote_types(a: DType, b: DType) -> DType {
    let (a, b) = (a.storage(), b.storage());
    if a == b {
        return a;
    }
    match (category(a), category(b)) {
        (Category::Bool, _) => b,
        (_, Category::Bool) => a,
        (Category::Float, Category::Float) => {
            if a == DType::F64 || b == DType::F64 {
                DType::F64
            } else if a == DType::F32 || b == DType::F32 {
                DType::F32
            } else {
                // f16 with bf16: neither holds the other.
                DType::F32
            }
        }
        (Category::Float, _) => a,
        (_, Category::Float) => b,
        _ => promote_ints(a, b),
    }
}

fn is_signed(d: DType) -> bool {
    matches!(d, DType::I8 | DType::I16 | DType::I32 | DType::I64)
}

/// Two different integer types: the wider when both have the same signedness, else
/// the signed one if it is wider, else a signed type twice the unsigned one's size.
fn promote_ints(a: DType, b: DType) -> DType {
    let wider = |x: DType, y: DType| if x.size() >= y.size() { x } else { y };
    match (is_signed(a), is_signed(b)) {
        (true, true) | (false, false) => wider(a, b),
        (sa, _) => {
            let (signed, unsigned) = if sa { (a, b) } else { (b, a) };
            if signed.size() > unsigned.size() {
                signed
            } else {
                match unsigned.size() {
                    1 => DType::I16,
                    2 => DType::I32,
                    _ => DType::I64,
                }
            }
        }
    }
}

/// Combines the result of a higher class with that of a lower one.
fn combine(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    match (higher, lower) {
        (Some(h), Some(l)) => {
            if category(h) == Category::Float {
                Some(h)
            } else if h == DType::Bool || category(l) == Category::Float {
                Some(promote_types(h, l))
            } else {
                Some(h)
            }
        }
        (h, l) => h.or(l),
    }
}

/// The result type of an op over `operands`, as `torch.result_type` gives it.
pub fn result_type(operands: &[Operand]) -> Option<DType> {
    let fold = |acc: Option<DType>, d: DType| Some(acc.map_or(d, |a| promote_types(a, d)));
    let (mut dims, mut zero, mut wrapped) = (None, None, None);
    for op in operands {
        match *op {
            Operand::Tensor(d, rank) if rank > 0 => dims = fold(dims, d),
            Operand::Tensor(d, _) => zero = fold(zero, d),
            Operand::Int => wrapped = fold(wrapped, DType::I64),
            Operand::Float => wrapped = fold(wrapped, DType::F32),
            Operand::Bool => wrapped = fold(wrapped, DType::Bool),
        }
    }
    combine(dims, combine(zero, wrapped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Operand::*;

    #[test]
    fn dtypes_promote_like_torch() {
        assert_eq!(promote_types(DType::U8, DType::I8), DType::I16);
        assert_eq!(promote_types(DType::I32, DType::I64), DType::I64);
        assert_eq!(promote_types(DType::I32, DType::U8), DType::I32);
        assert_eq!(promote_types(DType::I64, DType::F16), DType::F16);
        assert_eq!(promote_types(DType::F16, DType::BF16), DType::F32);
        assert_eq!(promote_types(DType::Bool, DType::U8), DType::U8);
    }

    #[test]
    fn lower_classes_only_raise_the_category() {
        let t = |d, r| Tensor(d, r);
        // si32 - si32 stays si32.
        assert_eq!(
            result_type(&[t(DType::I32, 2), t(DType::I32, 2)]),
            Some(DType::I32)
        );
        // An int tensor and a float scalar give the default float type.
        assert_eq!(result_type(&[t(DType::I32, 1), Float]), Some(DType::F32));
        // An int scalar does not widen an int tensor.
        assert_eq!(result_type(&[t(DType::U8, 1), Int]), Some(DType::U8));
        // A 0-d f64 tensor does not widen an f32 tensor, but does widen an int one.
        assert_eq!(
            result_type(&[t(DType::F32, 1), t(DType::F64, 0)]),
            Some(DType::F32)
        );
        assert_eq!(
            result_type(&[t(DType::I32, 1), t(DType::F64, 0)]),
            Some(DType::F64)
        );
        assert_eq!(
            result_type(&[t(DType::I8, 0), t(DType::I32, 0)]),
            Some(DType::I32)
        );
        assert_eq!(result_type(&[Bool, Int]), Some(DType::I64));
    }
}
