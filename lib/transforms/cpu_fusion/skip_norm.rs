//! Normalizations over the last axis, with the residual sum before them, as one
//! `qlower.skip_layer_norm` or `qlower.rms_norm` (`kernels::ops::skip_norm`, the
//! unfused ops' bytes):
//!
//! ```text
//! sum   = add(add(a, b), c) | add(a, b)        (alpha 1; the inner add read once)
//! root  = layer_norm(sum, [H], gamma, beta, eps)           → skip_layer_norm
//!
//! x     = a sum as above, or any f32 tensor
//! sq    = mul(x, x) | pow(x, 2)
//! ms    = mean.dim(sq, [last], keepdim)
//! r     = sqrt(add.Scalar(ms, eps) | add(ms, eps literal))
//! root  = mul(div(x, r), gamma) | mul(gamma, div(x, r))     → rms_norm
//! ```
//!
//! The forms com.microsoft's SkipLayerNormalization, (Skip)SimplifiedLayerNormalization
//! and ONNX's RMSNormalization lower to, and the RMS norm T5 and LLaMA exports write
//! out. Every intermediate must be read only inside the pattern; the sum may also be
//! read after the root (the residual stream), and the fused op then returns it too.
//! `b` and `c` are the sum's shape or one row (a bias); the terms keep their order, so
//! each f32 add rounds, and picks a NaN, as the unfused one does.

use std::collections::HashMap;

use melior::ir::Value as MlirValue;
use melior::ir::operation::{OperationLike, OperationRef};

use super::elementwise::users_after;
use super::{Fusion, Match, Operand, key};
use crate::dialect::qlower;
use crate::dialect::types::tensor_type_of_value;
use crate::ir::matchers::{
    constant_bool, constant_float, constant_int, defining, is_one, named, op_name,
};
use crate::kernels::tensor::value::Value;
use crate::onnx::dtype::DType;
use crate::runtime::ir_values::constant_value;

/// The shape of an f32 tensor with a known last dimension, and that dimension.
fn f32_rows(v: MlirValue) -> Option<(Vec<Option<i64>>, i64)> {
    let t = tensor_type_of_value(v)?;
    if t.dtype != Some(DType::F32) {
        return None;
    }
    let shape = t.shape?;
    let last = (*shape.last()?)?;
    Some((shape, last))
}

/// Whether the alpha of `add` (operand 2) is 1.
fn alpha_one(add: OperationRef) -> bool {
    add.operand(2).is_ok_and(is_one)
}

/// The terms `(a, b, c)` of `sum`, an f32 `add.Tensor` of the shape `shape`: `a` of
/// that shape, `b` and `c` of it or one row.
fn terms<'c: 'a, 'a>(
    sum: MlirValue<'c, 'a>,
    uses: &HashMap<usize, usize>,
) -> Option<[Operand<'c, 'a>; 3]> {
    let add = named(sum, "torch.aten.add.Tensor").filter(|a| alpha_one(*a))?;
    let (shape, n) = f32_rows(sum)?;
    let whole_or_row = |v: MlirValue| {
        let (s, last) = f32_rows(v)?;
        let row = last == n && s.iter().rev().skip(1).all(|d| *d == Some(1));
        (s == shape || row).then_some(())
    };
    let (p, q) = (add.operand(0).ok()?, add.operand(1).ok()?);
    whole_or_row(q)?;
    let inner = named(p, "torch.aten.add.Tensor").filter(|i| {
        alpha_one(*i)
            && uses.get(&key(p)) == Some(&1)
            && f32_rows(p).is_some_and(|(s, _)| s == shape)
    });
    let (a, b, c) = match inner {
        Some(i) => (i.operand(0).ok()?, i.operand(1).ok()?, Operand::Ir(q)),
        None => (p, q, Operand::Const(Value::None)),
    };
    (f32_rows(a)?.0 == shape).then_some(())?;
    whole_or_row(b)?;
    Some([Operand::Ir(a), Operand::Ir(b), c])
}

/// The values the fused op also returns: `sum` when it is read `inside` times within
/// the pattern and otherwise only after `root`; `None` when something else reads it
/// before.
fn also_returned<'c: 'a, 'a>(
    root: OperationRef<'c, 'a>,
    sum: MlirValue<'c, 'a>,
    inside: usize,
    uses: &HashMap<usize, usize>,
) -> Option<Vec<MlirValue<'c, 'a>>> {
    let readers = uses.get(&key(sum)).copied().unwrap_or(0);
    if readers == inside {
        return Some(Vec::new());
    }
    (readers == inside + users_after(root, sum).len()).then(|| vec![sum])
}

/// `layer_norm(a + b (+ c), [H], gamma, beta, eps)` as `qlower.skip_layer_norm`.
pub fn match_layer_norm<'c: 'a, 'a>(
    norm: OperationRef<'c, 'a>,
    uses: &HashMap<usize, usize>,
) -> Option<Match<'c, 'a>> {
    let sum = norm.operand(0).ok()?;
    let (_, n) = f32_rows(sum)?;
    let normalized = named(norm.operand(1).ok()?, "torch.prim.ListConstruct")?;
    if normalized.operand_count() != 1 || constant_int(normalized.operand(0).ok()?)? != n {
        return None;
    }
    let eps = norm.operand(4).ok()?;
    constant_float(eps)?;
    let [a, b, c] = terms(sum, uses)?;
    let also = also_returned(norm, sum, 1, uses)?;
    let operands = vec![
        a,
        b,
        c,
        Operand::Ir(norm.operand(2).ok()?),
        Operand::Ir(norm.operand(3).ok()?),
        Operand::Ir(eps),
    ];
    Some(Match {
        fusion: Fusion {
            op: qlower::SKIP_LAYER_NORM,
            operands,
        },
        also,
    })
}

/// An f32 constant of one element (a rank-0 literal), as f64.
fn one_f32(v: MlirValue) -> Option<f64> {
    if tensor_type_of_value(v)?.dtype != Some(DType::F32) {
        return None;
    }
    match constant_value(defining(v)?).ok().flatten()? {
        Value::Tensor(t) => match t.data.to_f64()[..] {
            [e] => Some(e),
            _ => None,
        },
        _ => None,
    }
}

/// `mul(div(x, sqrt(mean(x·x) + eps)), gamma)` (either factor order) as
/// `qlower.rms_norm`, `x` a residual sum or any f32 tensor.
pub fn match_rms_norm<'c: 'a, 'a>(
    mul: OperationRef<'c, 'a>,
    uses: &HashMap<usize, usize>,
) -> Option<Match<'c, 'a>> {
    let once = |v: MlirValue| uses.get(&key(v)) == Some(&1);
    let (p, q) = (mul.operand(0).ok()?, mul.operand(1).ok()?);
    let (div, gamma, gamma_first) = match (
        named(p, "torch.aten.div.Tensor"),
        named(q, "torch.aten.div.Tensor"),
    ) {
        (Some(d), _) if once(p) => (d, q, false),
        (_, Some(d)) if once(q) => (d, p, true),
        _ => return None,
    };
    let (x, root) = (div.operand(0).ok()?, div.operand(1).ok()?);
    let (shape, n) = f32_rows(x)?;
    if f32_rows(mul.result(0).ok()?.into())?.0 != shape {
        return None;
    }
    let (gamma_shape, g) = f32_rows(gamma)?;
    if g != n || gamma_shape.iter().rev().skip(1).any(|d| *d != Some(1)) {
        return None;
    }
    let sqrt = named(root, "torch.aten.sqrt").filter(|_| once(root))?;
    let shifted = sqrt.operand(0).ok()?;
    let add = match op_name(defining(shifted)?).as_str() {
        "torch.aten.add.Scalar" | "torch.aten.add.Tensor" if once(shifted) => defining(shifted)?,
        _ => return None,
    };
    if !alpha_one(add) {
        return None;
    }
    let eps_value = add.operand(1).ok()?;
    let eps = constant_float(eps_value).or_else(|| one_f32(eps_value))?;
    let mean = add.operand(0).ok()?;
    let reduce = named(mean, "torch.aten.mean.dim").filter(|_| once(mean))?;
    let dims = named(reduce.operand(1).ok()?, "torch.prim.ListConstruct")?;
    let rank = shape.len() as i64;
    let last = dims.operand_count() == 1
        && matches!(constant_int(dims.operand(0).ok()?), Some(d) if d == -1 || d == rank - 1);
    let plain = constant_bool(reduce.operand(2).ok()?) == Some(true)
        && named(reduce.operand(3).ok()?, "torch.constant.none").is_some();
    if !last || !plain {
        return None;
    }
    let squares = reduce.operand(0).ok()?;
    let sq = defining(squares).filter(|_| once(squares))?;
    let squared = match op_name(sq).as_str() {
        "torch.aten.mul.Tensor" => sq.operand(0).ok()? == x && sq.operand(1).ok()? == x,
        "torch.aten.pow.Tensor_Tensor" => one_f32(sq.operand(1).ok()?) == Some(2.0),
        "torch.aten.pow.Tensor_Scalar" => {
            let e = sq.operand(1).ok()?;
            constant_float(e).or_else(|| constant_int(e).map(|i| i as f64)) == Some(2.0)
        }
        _ => false,
    };
    if !squared || sq.operand(0).ok()? != x {
        return None;
    }
    // x is read by the squares (twice through mul(x, x)) and the division.
    let inside = if op_name(sq) == "torch.aten.mul.Tensor" {
        3
    } else {
        2
    };
    // A sum something reads before the norm stays its own op; the norm then reads it.
    let summed = terms(x, uses).and_then(|t| Some((t, also_returned(mul, x, inside, uses)?)));
    let ([a, b, c], also) = summed.unwrap_or_else(|| {
        let none = || Operand::Const(Value::None);
        ([Operand::Ir(x), none(), none()], Vec::new())
    });
    let operands = vec![
        a,
        b,
        c,
        Operand::Ir(gamma),
        Operand::Const(Value::Float(eps)),
        Operand::Const(Value::Bool(gamma_first)),
    ];
    Some(Match {
        fusion: Fusion {
            op: qlower::RMS_NORM,
            operands,
        },
        also,
    })
}
