//! `fuse-gelu`: the GELUs exporters write out op by op become one `torch.aten.gelu`,
//! which the CPU runs as one function of x (`vector_math::erf::gelu`,
//! `vector_math::exp::gelu_tanh`) instead of five to nine steps, as ONNX Runtime's
//! Gelu and FastGelu fusions do. Two forms, each with its constants to float rounding
//! and its products in any order and association:
//! - erf: `x · (1 + erf(x / √2)) · 0.5` (or `x · 1/√2` inside, or `0.5·x` outside);
//! - tanh: `x · (1 + tanh(√(2/π) · (x + 0.044715 · x³))) · 0.5`, x³ as `pow(x, 3)` or
//!   `x · x · x`.
//!
//! The fused function is the formula's value rounded about once, so it lies nearer the
//! float64 value of the ops than their f32 steps do (which lose all digits of
//! `1 + tanh` for large negative x). Every intermediate value must have no reader
//! outside the pattern and the result must have x's type; otherwise the ops stay. Runs
//! on the CPU route after the quantized fusions, on float ops only: a GELU between a
//! dequantize and a quantize has already become a lookup table of the ops as written.

use std::collections::HashMap;

use anyhow::Result;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Module, Type, Value as MlirValue, ValueLike};
use melior::{Context, IrRewriter};

use super::key;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::tensor_type_of_value;
use crate::ir::matchers::{constant_float, constant_int, defining, is_one, op_name};
use crate::kernels::tensor::dtype::DType;
use crate::runtime::ir_values::constant_value;
use crate::transforms::walk::{module_blocks, operations};

const SQRT_2: f64 = std::f64::consts::SQRT_2;
const FRAC_1_SQRT_2: f64 = std::f64::consts::FRAC_1_SQRT_2;
/// √(2/π).
const TANH_SCALE: f64 = 0.797_884_560_802_865_4;
const CUBIC: f64 = 0.044715;

/// The readers of every value of the module, by the value's key.
type Users<'c, 'a> = HashMap<usize, Vec<OperationRef<'c, 'a>>>;

/// Runs the pass over `module`; returns how many GELUs it fused.
pub fn fuse_gelu(context: &Context, module: &mut Module) -> Result<usize> {
    let mut users: Users = HashMap::new();
    for block in module_blocks(module) {
        for o in operations(block) {
            for v in o.operands() {
                users.entry(key(v)).or_default().push(o);
            }
        }
    }
    let mut matches = Vec::new();
    for block in module_blocks(module) {
        for o in operations(block) {
            if let Some(m) = find(o, &users) {
                matches.push(m);
            }
        }
    }
    let rewriter = IrRewriter::new(context);
    let mut replacements = Vec::with_capacity(matches.len());
    for m in &matches {
        rewriter
            .as_rewriter_base()
            .set_insertion_point_before(m.root);
        let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), m.root.location());
        let approximate = b.str(if m.tanh { "tanh" } else { "none" })?;
        let types: Vec<Type> = m.root.results().map(|r| r.r#type()).collect();
        let gelu = b.op("torch.aten.gelu", &[m.x, approximate], &types, &[])?;
        replacements.push(gelu.results().map(Into::into).collect::<Vec<MlirValue>>());
    }
    // Replaced after every new op exists: a GELU of another GELU reads the first one's
    // root, which then becomes that root's replacement (replacing as we went would
    // leave the second reading an erased value).
    for (m, results) in matches.iter().zip(&replacements) {
        rewriter
            .as_rewriter_base()
            .replace_op_with_values(m.root, results);
    }
    Ok(matches.len())
}

/// A GELU found: the op whose result it is, its input, and its form.
struct Gelu<'c, 'a> {
    root: OperationRef<'c, 'a>,
    x: MlirValue<'c, 'a>,
    tanh: bool,
}

/// The GELU whose `erf` or `tanh` is `anchor`, if the ops around it are one.
fn find<'c: 'a, 'a>(anchor: OperationRef<'c, 'a>, users: &Users<'c, 'a>) -> Option<Gelu<'c, 'a>> {
    let tanh = match op_name(anchor).as_str() {
        "torch.aten.tanh" => true,
        "torch.aten.erf" => false,
        _ => return None,
    };
    if anchor.operand_count() != 1 {
        return None;
    }
    let inner = anchor.operand(0).ok()?;
    let x = if tanh {
        tanh_argument(inner, users)?
    } else {
        erf_argument(inner, users)?
    };
    let x_type = tensor_type_of_value(x)?;
    if x_type.dtype != Some(DType::F32) {
        return None;
    }
    // 1 + f(…), then the product of it, x and 0.5 in any grouping.
    let shifted = only_user(anchor.result(0).ok()?.into(), users)?;
    let (a, b) = sum(shifted)?;
    let f: MlirValue = anchor.result(0).ok()?.into();
    if !((a == f && is_near(b, 1.0)) || (b == f && is_near(a, 1.0))) {
        return None;
    }
    let w: MlirValue = shifted.result(0).ok()?.into();
    let first = only_user(w, users)?;
    let other = other_factor(first, w)?;
    let root = if other == x {
        let second = only_user(first.result(0).ok()?.into(), users)?;
        scaled(second, first.result(0).ok()?.into(), 0.5)?;
        second
    } else if is_near(other, 0.5) {
        let second = only_user(first.result(0).ok()?.into(), users)?;
        (other_factor(second, first.result(0).ok()?.into())? == x).then_some(())?;
        second
    } else {
        let half = defining(other)?;
        (single_use(other, users) && scaled(half, x, 0.5).is_some()).then_some(())?;
        first
    };
    let result: MlirValue = root.result(0).ok()?.into();
    (result.r#type() == x.r#type()).then_some(Gelu { root, x, tanh })
}

/// x from `x / √2` or `x · (1/√2)`.
fn erf_argument<'c: 'a, 'a>(
    u: MlirValue<'c, 'a>,
    users: &Users<'c, 'a>,
) -> Option<MlirValue<'c, 'a>> {
    if !single_use(u, users) {
        return None;
    }
    let op = defining(u)?;
    if let Some((a, b)) = quotient(op) {
        return is_near(b, SQRT_2).then_some(a);
    }
    times_constant(op, FRAC_1_SQRT_2)
}

/// x from `√(2/π) · (x + 0.044715 · x³)`.
fn tanh_argument<'c: 'a, 'a>(
    u: MlirValue<'c, 'a>,
    users: &Users<'c, 'a>,
) -> Option<MlirValue<'c, 'a>> {
    if !single_use(u, users) {
        return None;
    }
    let t = times_constant(defining(u)?, TANH_SCALE)?;
    if !single_use(t, users) {
        return None;
    }
    let (a, b) = sum(defining(t)?)?;
    [(a, b), (b, a)].into_iter().find_map(|(x, m)| {
        if !single_use(m, users) {
            return None;
        }
        let p = times_constant(defining(m)?, CUBIC)?;
        (single_use(p, users) && is_cube(p, x, users)).then_some(x)
    })
}

/// Whether `p` is `pow(x, 3)`, `(x · x) · x` or `x · (x · x)`.
fn is_cube(p: MlirValue, x: MlirValue, users: &Users) -> bool {
    let Some(op) = defining(p) else {
        return false;
    };
    let name = op_name(op);
    if name == "torch.aten.pow.Tensor_Tensor" || name == "torch.aten.pow.Tensor_Scalar" {
        return op.operand_count() == 2
            && op.operand(0).is_ok_and(|b| b == x)
            && op.operand(1).is_ok_and(|e| is_near(e, 3.0));
    }
    let Some((a, b)) = product(op) else {
        return false;
    };
    let square = |s: MlirValue| {
        single_use(s, users)
            && defining(s)
                .and_then(product)
                .is_some_and(|(c, d)| c == x && d == x)
    };
    (a == x && square(b)) || (b == x && square(a))
}

/// The operands of a product (`mul.Tensor`, or `mul.Scalar` of a constant).
fn product<'c: 'a, 'a>(op: OperationRef<'c, 'a>) -> Option<(MlirValue<'c, 'a>, MlirValue<'c, 'a>)> {
    binary(
        op,
        &["torch.aten.mul.Tensor", "torch.aten.mul.Scalar"],
        false,
    )
}

/// The operands of a sum whose alpha is 1.
fn sum<'c: 'a, 'a>(op: OperationRef<'c, 'a>) -> Option<(MlirValue<'c, 'a>, MlirValue<'c, 'a>)> {
    binary(
        op,
        &["torch.aten.add.Tensor", "torch.aten.add.Scalar"],
        true,
    )
}

fn quotient<'c: 'a, 'a>(
    op: OperationRef<'c, 'a>,
) -> Option<(MlirValue<'c, 'a>, MlirValue<'c, 'a>)> {
    binary(
        op,
        &["torch.aten.div.Tensor", "torch.aten.div.Scalar"],
        false,
    )
}

fn binary<'c: 'a, 'a>(
    op: OperationRef<'c, 'a>,
    names: &[&str],
    alpha: bool,
) -> Option<(MlirValue<'c, 'a>, MlirValue<'c, 'a>)> {
    let name = op_name(op);
    if !names.contains(&name.as_str()) || op.operand_count() != 2 + usize::from(alpha) {
        return None;
    }
    if alpha && !op.operand(2).is_ok_and(is_one) {
        return None;
    }
    Some((op.operand(0).ok()?, op.operand(1).ok()?))
}

/// The other operand of `op`, a product with `v` as one operand.
fn other_factor<'c: 'a, 'a>(
    op: OperationRef<'c, 'a>,
    v: MlirValue<'c, 'a>,
) -> Option<MlirValue<'c, 'a>> {
    let (a, b) = product(op)?;
    match (a == v, b == v) {
        (true, _) => Some(b),
        (_, true) => Some(a),
        _ => None,
    }
}

/// `v` when `op` is `v · c` or `c · v` with the constant c near `want`.
fn scaled<'c: 'a, 'a>(op: OperationRef<'c, 'a>, v: MlirValue<'c, 'a>, want: f64) -> Option<()> {
    let other = other_factor(op, v)?;
    is_near(other, want).then_some(())
}

/// The non-constant operand of a product with a constant near `want`.
fn times_constant<'c: 'a, 'a>(op: OperationRef<'c, 'a>, want: f64) -> Option<MlirValue<'c, 'a>> {
    let (a, b) = product(op)?;
    if is_near(b, want) {
        Some(a)
    } else if is_near(a, want) {
        Some(b)
    } else {
        None
    }
}

/// Whether `v` is a constant scalar (a float or int, or a tensor of one element) equal
/// to `want` to f32 rounding, as exporters write these constants.
fn is_near(v: MlirValue, want: f64) -> bool {
    let value = constant_float(v)
        .or_else(|| constant_int(v).map(|i| i as f64))
        .or_else(|| {
            // One element by its type first: a large literal is never decoded here.
            let dims = tensor_type_of_value(v)?.static_dims()?;
            (dims.iter().product::<i64>() == 1).then_some(())?;
            let t = constant_value(defining(v)?).ok().flatten()?;
            let t = t.as_tensor().ok()?;
            let values = t.data.to_f64();
            (values.len() == 1).then(|| values[0])
        });
    value.is_some_and(|c| (c - want).abs() <= want.abs() * 1e-6)
}

fn single_use(v: MlirValue, users: &Users) -> bool {
    users.get(&key(v)).is_some_and(|u| u.len() == 1)
}

/// The one op reading `v`.
fn only_user<'c: 'a, 'a>(
    v: MlirValue<'c, 'a>,
    users: &Users<'c, 'a>,
) -> Option<OperationRef<'c, 'a>> {
    match users.get(&key(v))?.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}
