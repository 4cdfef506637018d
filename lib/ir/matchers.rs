//! Reading the IR around a value: the op that defines it, and the constants that
//! `torch.constant.*` ops hold. Used by passes and by the plan's pattern matching.

use melior::ir::Value;
use melior::ir::attribute::{BoolAttribute, FloatAttribute, IntegerAttribute, StringAttribute};
use melior::ir::operation::{OperationLike, OperationRef, OperationResult};

/// The op whose result `v` is; `None` for block arguments.
pub fn defining<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    OperationResult::try_from(v).ok().map(|r| r.owner())
}

pub fn op_name(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// The op defining `v`, if it is named `name`.
pub fn named<'c: 'a, 'a>(v: Value<'c, 'a>, name: &str) -> Option<OperationRef<'c, 'a>> {
    defining(v).filter(|op| op.name().as_string_ref().as_str() == Ok(name))
}

/// The value of a `torch.constant.int` defining `v`.
pub fn constant_int(v: Value) -> Option<i64> {
    let op = named(v, "torch.constant.int")?;
    IntegerAttribute::try_from(op.attribute("value").ok()?)
        .ok()
        .map(|i| i.value())
}

/// The value of a `torch.constant.bool` defining `v`.
pub fn constant_bool(v: Value) -> Option<bool> {
    let op = named(v, "torch.constant.bool")?;
    BoolAttribute::try_from(op.attribute("value").ok()?)
        .ok()
        .map(|b| b.value())
}

/// The value of a `torch.constant.str` defining `v`.
pub fn constant_str(v: Value) -> Option<String> {
    let op = named(v, "torch.constant.str")?;
    StringAttribute::try_from(op.attribute("value").ok()?)
        .ok()
        .map(|s| s.value().to_string())
}

/// Whether `v` is a constant 1, int or float: an add's or sub's alpha that scales
/// nothing.
pub fn is_one(v: Value) -> bool {
    constant_int(v) == Some(1) || constant_float(v) == Some(1.0)
}

/// The value of a `torch.constant.float` defining `v`.
pub fn constant_float(v: Value) -> Option<f64> {
    let op = named(v, "torch.constant.float")?;
    FloatAttribute::try_from(op.attribute("value").ok()?)
        .ok()
        .map(|f| f.value())
}
