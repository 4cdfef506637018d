//! NonZero and NonMaxSuppression, whose results hold as many rows as the data selects:
//! their first (NMS) or last (NonZero) dimension stays `?` in the IR and the kernel
//! decides it at run time, as Range's length is.

use anyhow::{Result, bail};
use melior::ir::Value;
use melior::ir::attribute::StringAttribute;

use super::Lowerings;
use super::binder::Binder;
use super::shape_util::{dims_of, typed};
use crate::dialect::builder::TorchBuilder;
use crate::dialect::qlower;
use crate::onnx::attributes::Attributes as _;
use crate::onnx::dtype::DType;

pub fn register(r: &mut Lowerings) {
    r.on_op("NonZero", 9, non_zero);
    r.on_op("NonMaxSuppression", 10, non_max_suppression);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

/// As torch-mlir: `aten.nonzero` gives one row `[n, rank]` per element, and ONNX wants
/// the indices as columns, so a transpose follows.
fn non_zero<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    let x = b.input(0, "X")?;
    let rank = dims_of(&b.input_type(0, "X")?, "X")?.len();
    let result = b.result_type(0)?;
    if result.dtype != Some(DType::I64) {
        bail!("the result is {result}, but NonZero gives int64 indices");
    }
    let rows = typed(&result, vec![None, Some(rank as i64)]);
    let v = t.aten_tensor("nonzero", &[x], &rows)?;
    let (zero, one) = (t.int(0)?, t.int(1)?);
    Ok(vec![t.aten_tensor(
        "transpose.int",
        &[v, zero, one],
        &result,
    )?])
}

/// One `qlower.non_max_suppression` (see `dialect::qlower` for why no torch op): the
/// five inputs, none for each optional one left out, then `center_point_box`.
fn non_max_suppression<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    for (i, name) in [(0, "boxes"), (1, "scores")] {
        let ty = b.input_type(i, name)?;
        if ty.dtype != Some(DType::F32) {
            bail!("input '{name}' is {ty}, but must be a float tensor");
        }
        if ty.shape.as_ref().is_some_and(|s| s.len() != 3) {
            bail!("input '{name}' is {ty}, but must have rank 3");
        }
    }
    let inputs = [
        (2, "max_output_boxes_per_class", DType::I64),
        (3, "iou_threshold", DType::F32),
        (4, "score_threshold", DType::F32),
    ];
    for (i, name, want) in inputs {
        if !b.has_input(i) {
            continue;
        }
        let ty = b.input_type(i, name)?;
        if ty.dtype != Some(want) {
            bail!("input '{name}' is {ty}, but must hold one {want}");
        }
        if ty
            .shape
            .as_ref()
            .and_then(|s| super::shape_util::product(s))
            .is_some_and(|n| n > 1)
        {
            bail!("input '{name}' is {ty}, but must hold one value");
        }
    }
    let center = b.int("center_point_box", 0)?;
    if center != 0 && center != 1 {
        bail!("attribute 'center_point_box' is {center}, but must be 0 or 1");
    }
    let mut operands = vec![b.input(0, "boxes")?, b.input(1, "scores")?];
    for i in 2..5 {
        operands.push(match b.optional_input(i) {
            Some(v) => v,
            None => t.none()?,
        });
    }
    operands.push(t.int(center)?);
    let result = b.result_type(0)?;
    if result.dtype != Some(DType::I64) {
        bail!("the result is {result}, but NonMaxSuppression gives int64 indices");
    }
    let ty = t.tensor_type(&result)?;
    let name = StringAttribute::new(t.context(), qlower::NON_MAX_SUPPRESSION).into();
    let op = t.op("torch.operator", &operands, &[ty], &[("name", name)])?;
    Ok(vec![op.result(0)?.into()])
}
