//! The lowering of com.microsoft (Q)EmbedLayerNormalization
//! (`conversion::embed_layer_norm`) as one `qlower.embed_layer_norm`:
//!
//! ```text
//! term(t, ids) = reshape(index_select(t, 0, flat), [dims of ids…, H])
//!                  flat = reshape(ids, [n]), or a 1-D index whose rows are reshaped
//!                  to [1…, n, H] (positions folded to a literal)
//!              | dequantize(reshape(index_select(q, 0, flat), …))
//!                  q an 8-bit table quantized per tensor (sink-dequantize's form)
//!              | an f32 literal (rows fold-constants gathered: static positions)
//! sum          = add(add(term₀, term₁), term₂) | add(term₀, term₁)
//! root         = layer_norm(sum, [H], gamma, beta, epsilon)
//! ```
//!
//! becomes `qlower.embed_layer_norm(gamma, beta, epsilon, table₀, ids₀, …)` (a
//! literal's ids none), at least one term a gather, whose
//! kernel gives the same bytes (`kernels::ops::embed_layer_norm`). The terms, their
//! reshapes and the inner sum must be read only by the chain; the sum may be read
//! elsewhere too (the op's third output) when every such reader comes after the
//! norm: the fused op then returns it as a second result.

use std::collections::HashMap;

use melior::ir::Value as MlirValue;
use melior::ir::operation::{OperationLike, OperationRef};

use super::elementwise::users_after;
use super::{Fusion, Match, Operand, key};
use crate::dialect::qlower;
use crate::dialect::types::tensor_type_of_value;
use crate::ir::matchers::{constant_float, constant_int, is_one, named};
use crate::kernels::tensor::value::Value;
use crate::onnx::dtype::DType;

/// The fusion rooted at `norm`, a `torch.aten.layer_norm`, if it normalizes the
/// lowering's sum of gathered rows.
pub fn match_layer_norm<'c: 'a, 'a>(
    norm: OperationRef<'c, 'a>,
    uses: &HashMap<usize, usize>,
) -> Option<Match<'c, 'a>> {
    let read_once = |v: MlirValue| uses.get(&key(v)) == Some(&1);
    let sum = norm.operand(0).ok()?;
    let hidden = f32_last_dim(sum)?;
    let normalized = named(norm.operand(1).ok()?, "torch.prim.ListConstruct")?;
    if normalized.operand_count() != 1 || constant_int(normalized.operand(0).ok()?)? != hidden {
        return None;
    }
    let outer = named(sum, "torch.aten.add.Tensor")?;
    let (p, q) = added(outer)?;
    let inner = |v: MlirValue<'c, 'a>| named(v, "torch.aten.add.Tensor").filter(|_| read_once(v));
    let values = match (inner(p), inner(q)) {
        (Some(add), None) => {
            let (a, b) = added(add)?;
            vec![a, b, q]
        }
        (None, Some(add)) => {
            let (a, b) = added(add)?;
            vec![a, b, p]
        }
        (None, None) => vec![p, q],
        (Some(_), Some(_)) => return None,
    };
    let mut operands = vec![
        Operand::Ir(norm.operand(2).ok()?),
        Operand::Ir(norm.operand(3).ok()?),
        Operand::Ir(norm.operand(4).ok()?),
    ];
    constant_float(norm.operand(4).ok()?)?;
    let mut gathers = 0;
    for v in values {
        if let Some((table, ids)) = term(v, hidden, uses) {
            operands.extend([Operand::Ir(table), Operand::Ir(ids)]);
            gathers += 1;
        } else if is_f32_literal(v, hidden) {
            operands.extend([Operand::Ir(v), Operand::Const(Value::None)]);
        } else {
            return None;
        }
    }
    // A norm of a sum of constants alone is no embedding.
    if gathers == 0 {
        return None;
    }
    // The sum's other readers, which the fused op's second result serves, must come
    // after the norm, where it goes.
    let readers = uses.get(&key(sum)).copied().unwrap_or(0);
    let later = users_after(norm, sum).len();
    let also = match readers {
        1 => Vec::new(),
        n if n == later + 1 => vec![sum],
        _ => return None,
    };
    Some(Match {
        fusion: Fusion {
            op: qlower::EMBED_LAYER_NORM,
            operands,
        },
        also,
    })
}

/// The operands of an `add.Tensor` of alpha 1.
fn added<'c: 'a, 'a>(add: OperationRef<'c, 'a>) -> Option<(MlirValue<'c, 'a>, MlirValue<'c, 'a>)> {
    if !is_one(add.operand(2).ok()?) {
        return None;
    }
    Some((add.operand(0).ok()?, add.operand(1).ok()?))
}

/// `v` as the f32 rows of a table picked by ids: the table and the ids.
fn term<'c: 'a, 'a>(
    v: MlirValue<'c, 'a>,
    hidden: i64,
    uses: &HashMap<usize, usize>,
) -> Option<(MlirValue<'c, 'a>, MlirValue<'c, 'a>)> {
    let read_once = |v: MlirValue| uses.get(&key(v)) == Some(&1);
    if f32_last_dim(v)? != hidden || !read_once(v) {
        return None;
    }
    let (rows, quantized) = match named(v, "torch.aten.dequantize.self") {
        Some(dq) => (dq.operand(0).ok()?, true),
        None => (v, false),
    };
    let reshape = named(rows, "torch.aten.reshape")?;
    let select = named(reshape.operand(0).ok()?, "torch.aten.index_select")?;
    let picked = reshape.operand(0).ok()?;
    if (quantized && !read_once(rows)) || !read_once(picked) {
        return None;
    }
    let (table, flat) = (select.operand(0).ok()?, select.operand(2).ok()?);
    let table_type = tensor_type_of_value(table)?;
    let readable = if quantized {
        matches!(table_type.dtype, Some(DType::QUInt8 | DType::QInt8))
            && named(table, "torch.aten._make_per_tensor_quantized_tensor").is_some()
    } else {
        table_type.dtype == Some(DType::F32)
    };
    let [_, Some(h)] = table_type.shape.as_deref()? else {
        return None;
    };
    if !readable || *h != hidden || constant_int(select.operand(1).ok()?)? != 0 {
        return None;
    }
    let sizes = named(reshape.operand(1).ok()?, "torch.prim.ListConstruct")?;
    let sizes: Vec<MlirValue> = sizes.operands().collect();
    let (last, lead) = sizes.split_last()?;
    if constant_int(*last)? != hidden {
        return None;
    }
    let ids = ids_of(flat, lead)?;
    tensor_type_of_value(ids)?
        .dtype?
        .is_integer()
        .then_some((table, ids))
}

/// The ids whose shape the rows' `lead` sizes are: `x` when `flat` flattens it and
/// the sizes are its dimensions; `flat` itself when the sizes are ones and then its
/// length (a broadcast of it).
fn ids_of<'c: 'a, 'a>(flat: MlirValue<'c, 'a>, lead: &[MlirValue]) -> Option<MlirValue<'c, 'a>> {
    if let Some(flatten) = named(flat, "torch.aten.reshape") {
        let x = flatten.operand(0).ok()?;
        let one = named(flatten.operand(1).ok()?, "torch.prim.ListConstruct")?;
        if one.operand_count() == 1 && is_dims_of(lead, x) {
            return Some(x);
        }
    }
    let (length, ones) = lead.split_last()?;
    let flat_dims = tensor_type_of_value(flat)?.shape?;
    let [Some(n)] = flat_dims.as_slice() else {
        return None;
    };
    (ones.iter().all(|&s| constant_int(s) == Some(1)) && constant_int(*length) == Some(*n))
        .then_some(flat)
}

/// Each size is `x`'s size on its axis: `size.int(x, i)`, or the constant of a
/// dimension the type states.
fn is_dims_of(sizes: &[MlirValue], x: MlirValue) -> bool {
    let Some(dims) = tensor_type_of_value(x).and_then(|t| t.shape) else {
        return false;
    };
    dims.len() == sizes.len()
        && sizes.iter().enumerate().all(|(i, &s)| {
            if let Some(size) = named(s, "torch.aten.size.int") {
                return size.operand(0).is_ok_and(|p| p == x)
                    && size
                        .operand(1)
                        .ok()
                        .and_then(constant_int)
                        .is_some_and(|d| d == i as i64);
            }
            constant_int(s).is_some_and(|c| dims[i] == Some(c))
        })
}

/// Whether `v` is an f32 literal of rows of `hidden` values (rows fold-constants
/// gathered from constant ids, the positions of a static sequence).
fn is_f32_literal(v: MlirValue, hidden: i64) -> bool {
    named(v, "torch.vtensor.literal").is_some() && f32_last_dim(v) == Some(hidden)
}

/// The last dimension of an f32 tensor, when the type states it.
fn f32_last_dim(v: MlirValue) -> Option<i64> {
    let t = tensor_type_of_value(v)?;
    if t.dtype != Some(DType::F32) {
        return None;
    }
    t.shape?.last().copied().flatten()
}
