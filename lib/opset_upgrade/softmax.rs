//! Softmax, LogSoftmax and Hardmax. Before opset 13 they coerce the input to 2-D at
//! `axis` (default 1) and normalize over everything from `axis` on; from 13 they
//! normalize over the one axis `axis` (default -1). The two agree when `axis` is the
//! last axis. Otherwise the old meaning is written out: Flatten at `axis`, the op on
//! axis 1 of the 2-D result, and a Reshape back to the Shape of the input.

use anyhow::Result;

use super::edit::{At, Edit, int_attribute, set_attribute};
use crate::kernels::tensor::tensor_type::TensorType;
use crate::onnx::proto::NodeProto;

pub fn convert(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let axis = at.int("axis", 1)?;
    let x = at.input(0)?;
    let y = at.output(0)?.to_string();
    let rank = edit.facts.rank(x).map(|r| r as i64);
    if let Some(r) = rank
        && (axis < -r || axis >= r)
    {
        return Err(at.fail(format!("axis {axis} is out of range for rank {r}")));
    }
    // axis -1 is the last axis whatever the rank; so is rank - 1 when the rank is known.
    if axis == -1 || rank.is_some_and(|r| axis == r - 1) {
        let mut node = at.node.clone();
        set_attribute(&mut node, int_attribute("axis", -1));
        return Ok(Some(vec![node]));
    }
    let base = if at.node.name.is_empty() {
        at.node.op_type.to_lowercase()
    } else {
        at.node.name.clone()
    };
    let flat = edit.names.fresh(&format!("{base}_2d"));
    let normalized = edit.names.fresh(&format!("{base}_2d_out"));
    let shape = edit.names.fresh(&format!("{base}_shape"));
    let flatten = edit.node(
        "Flatten",
        &format!("{base}_flatten"),
        &[x],
        &[&flat],
        vec![int_attribute("axis", axis)],
    );
    let mut op = at.without(&["axis"]);
    op.input = vec![flat.clone()];
    op.output = vec![normalized.clone()];
    op.attribute.push(int_attribute("axis", 1));
    let shape_of = edit.node("Shape", &format!("{base}_shape"), &[x], &[&shape], vec![]);
    // From 14 a 0 in the shape copies the input's dimension unless `allowzero`; the
    // shape read here is the real one, so an empty dimension must stay 0.
    let allowzero = if edit.target >= 14 {
        vec![int_attribute("allowzero", 1)]
    } else {
        vec![]
    };
    let reshape = edit.node(
        "Reshape",
        &format!("{base}_reshape"),
        &[&normalized, &shape],
        &[&y],
        allowzero,
    );
    let dtype = edit.facts.ty(x).and_then(|t| t.dtype);
    let two_d = TensorType {
        dtype,
        shape: Some(vec![None, None]),
    };
    edit.facts.declare(&flat, two_d.clone());
    edit.facts.declare(&normalized, two_d);
    Ok(Some(vec![flatten, op, shape_of, reshape]))
}
