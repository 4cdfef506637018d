//! Float attention as one kernel: the chain every exporter and qlower's own attention
//! lowerings write,
//!
//! ```text
//! matmul(softmax.int(where.ScalarOther?(keep,
//!     add.Tensor?(cap?(div|mul?(matmul(q, kᵀ), scale)), mask), fill), -1, none), v)
//! cap(x) = mul(tanh(div.Scalar(x, c)), c)          (a soft cap, c one float constant)
//! ```
//!
//! becomes `qlower.attention(q, kᵀ, v, scale, divide, mask, keep, fill, c)`, whose kernel keeps each
//! head's scores in scratch and gives the same bytes (`kernels::linalg::attention`).
//! Every intermediate must have the chain as its one reader, and all of it is f32 of
//! one rank; the two soft cap constants must be equal and positive; the scale is a float or a one-element tensor, the mask added with alpha 1
//! on either side.

use std::collections::HashMap;

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use super::{Fusion, Operand, key};
use crate::dialect::qlower;
use crate::dialect::types::TensorType;
use crate::ir::matchers::{constant_float, constant_int, defining, is_one, named, op_name};
use crate::kernels::tensor::value::Value;
use crate::onnx::dtype::DType;

/// The fusion rooted at the matmul `pv` of the probabilities by v.
pub fn match_attention<'c: 'a, 'a>(
    pv: OperationRef<'c, 'a>,
    uses: &HashMap<usize, usize>,
) -> Option<Fusion<'c, 'a>> {
    let only_reader = |v: MlirValue| uses.get(&key(v)) == Some(&1);
    let rank = f32_rank(pv.result(0).ok()?.into())?;
    let (probs, v) = (pv.operand(0).ok()?, pv.operand(1).ok()?);
    if rank < 3 || f32_rank(v)? != rank || f32_rank(probs)? != rank || !only_reader(probs) {
        return None;
    }
    let softmax = named(probs, "torch.aten.softmax.int")?;
    let dim = constant_int(softmax.operand(1).ok()?)?;
    if (dim != -1 && dim != rank as i64 - 1) || !is_none(softmax.operand(2).ok()?) {
        return None;
    }
    let mut logits = softmax.operand(0).ok()?;
    if f32_rank(logits)? != rank || !only_reader(logits) {
        return None;
    }
    // The attention lowerings' mask of allowed keys: where(keep, scores, lowest).
    let mut keep = None;
    if let Some(w) = named(logits, "torch.aten.where.ScalarOther") {
        let (cond, fill) = (w.operand(0).ok()?, w.operand(2).ok()?);
        constant_float(fill)?;
        let cond_type = TensorType::parse(&cond.r#type().to_string())?;
        if cond_type.dtype != Some(DType::Bool) || cond_type.shape?.len() > rank {
            return None;
        }
        logits = w.operand(1).ok()?;
        if f32_rank(logits)? != rank || !only_reader(logits) {
            return None;
        }
        keep = Some((cond, fill));
    }
    let ((scores, softcap), mask) = match named(logits, "torch.aten.add.Tensor") {
        Some(add) if is_one(add.operand(2).ok()?) => {
            let (a, b) = (add.operand(0).ok()?, add.operand(1).ok()?);
            match capped_scores(a, rank, &only_reader) {
                Some(s) => (s, Some(b)),
                None => (capped_scores(b, rank, &only_reader)?, Some(a)),
            }
        }
        _ => (capped_scores(logits, rank, &only_reader)?, None),
    };
    if let Some(m) = mask
        && f32_rank(m)? > rank
    {
        return None;
    }
    let (q, kt) = (scores.qk.operand(0).ok()?, scores.qk.operand(1).ok()?);
    if f32_rank(q)? != rank || f32_rank(kt)? != rank {
        return None;
    }
    let (scale, divide) = match scores.scale {
        Some((s, divide)) => (Operand::Ir(s), divide),
        None => (Operand::Const(Value::None), false),
    };
    Some(Fusion {
        op: qlower::ATTENTION,
        operands: vec![
            Operand::Ir(q),
            Operand::Ir(kt),
            Operand::Ir(v),
            scale,
            Operand::Const(Value::Bool(divide)),
            mask.map_or(Operand::Const(Value::None), Operand::Ir),
            keep.map_or(Operand::Const(Value::None), |(k, _)| Operand::Ir(k)),
            keep.map_or(Operand::Const(Value::None), |(_, f)| Operand::Ir(f)),
            softcap.map_or(Operand::Const(Value::None), Operand::Ir),
        ],
    })
}

/// `x` as scaled scores, soft-capped (`c · tanh(s / c)`, returning the `c` operand) or
/// not.
fn capped_scores<'c: 'a, 'a>(
    x: MlirValue<'c, 'a>,
    rank: usize,
    only_reader: &impl Fn(MlirValue) -> bool,
) -> Option<(Scores<'c, 'a>, Option<MlirValue<'c, 'a>>)> {
    if let Some((inner, cap)) = soft_cap(x, rank, only_reader) {
        return Some((scaled_scores(inner, rank, only_reader)?, Some(cap)));
    }
    Some((scaled_scores(x, rank, only_reader)?, None))
}

/// `mul(tanh(div.Scalar(s, c)), c)` with one positive float constant `c`: `s` and `c`.
fn soft_cap<'c: 'a, 'a>(
    x: MlirValue<'c, 'a>,
    rank: usize,
    only_reader: &impl Fn(MlirValue) -> bool,
) -> Option<(MlirValue<'c, 'a>, MlirValue<'c, 'a>)> {
    if f32_rank(x)? != rank || !only_reader(x) {
        return None;
    }
    let outer = named(x, "torch.aten.mul.Scalar")?;
    let (t, cap) = (outer.operand(0).ok()?, outer.operand(1).ok()?);
    let tanh = named(t, "torch.aten.tanh")?;
    let divided = tanh.operand(0).ok()?;
    if f32_rank(t)? != rank || !only_reader(t) || !only_reader(divided) {
        return None;
    }
    let div = named(divided, "torch.aten.div.Scalar")?;
    let (c, inner_cap) = (constant_float(cap)?, constant_float(div.operand(1).ok()?)?);
    if c <= 0.0 || c != inner_cap || f32_rank(div.operand(0).ok()?)? != rank {
        return None;
    }
    Some((div.operand(0).ok()?, cap))
}

/// `q · kᵀ`, and the scale it is divided (`true`) or multiplied by.
struct Scores<'c, 'a> {
    qk: OperationRef<'c, 'a>,
    scale: Option<(MlirValue<'c, 'a>, bool)>,
}

/// `x` as `matmul(q, kᵀ)`, or that divided or multiplied by a scalar.
fn scaled_scores<'c: 'a, 'a>(
    x: MlirValue<'c, 'a>,
    rank: usize,
    only_reader: &impl Fn(MlirValue) -> bool,
) -> Option<Scores<'c, 'a>> {
    if f32_rank(x)? != rank || !only_reader(x) {
        return None;
    }
    let op = defining(x)?;
    let name = op_name(op);
    let (inner, scale) = match name.as_str() {
        "torch.aten.matmul" => {
            return Some(Scores {
                qk: op,
                scale: None,
            });
        }
        "torch.aten.div.Tensor" | "torch.aten.div.Scalar" => {
            (op.operand(0).ok()?, (op.operand(1).ok()?, true))
        }
        "torch.aten.mul.Tensor" | "torch.aten.mul.Scalar" => {
            let (a, b) = (op.operand(0).ok()?, op.operand(1).ok()?);
            if is_scalar(b) {
                (a, (b, false))
            } else {
                (b, (a, false))
            }
        }
        _ => return None,
    };
    if !is_scalar(scale.0) || f32_rank(inner)? != rank || !only_reader(inner) {
        return None;
    }
    let qk = named(inner, "torch.aten.matmul")?;
    Some(Scores {
        qk,
        scale: Some(scale),
    })
}

/// A `!torch.float` constant, or an f32 tensor of one element.
fn is_scalar(v: MlirValue) -> bool {
    if constant_float(v).is_some() {
        return true;
    }
    TensorType::parse(&v.r#type().to_string()).is_some_and(|t| {
        t.dtype == Some(DType::F32)
            && t.static_dims()
                .is_some_and(|d| d.iter().product::<i64>() == 1)
    })
}

/// The rank of an f32 tensor value.
fn f32_rank(v: MlirValue) -> Option<usize> {
    let t = TensorType::parse(&v.r#type().to_string())?;
    (t.dtype == Some(DType::F32)).then_some(t.shape?.len())
}

fn is_none(v: MlirValue) -> bool {
    v.r#type().to_string() == "!torch.none"
}
