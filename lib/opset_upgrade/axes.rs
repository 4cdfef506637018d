//! Ops whose axes (or split sizes) moved from an attribute to an int64 input: Squeeze,
//! Unsqueeze, ReduceSum and Split at opset 13, the other Reduce ops at 18. The values
//! are the same; only where they live changes. Split at 18 also needs its output count
//! spelled out (`num_outputs`) when no sizes are given.

use anyhow::Result;

use super::edit::{At, Edit, int_attribute, set_attribute, set_input};
use crate::onnx::proto::NodeProto;

/// Moves the INTS attribute `attribute` to input `position`. A missing attribute is an
/// error when `required`, otherwise the input stays absent (the op's default).
pub fn to_input(
    edit: &mut Edit,
    at: &At,
    attribute: &str,
    position: usize,
    required: bool,
) -> Result<Option<Vec<NodeProto>>> {
    let values = at.optional_ints(attribute)?;
    let mut node = at.without(&[attribute]);
    match values {
        // An empty list meant "every axis" (Squeeze, the Reduce ops), as no input does.
        Some(values) if values.is_empty() && !required => {}
        Some(values) => {
            let base = format!("{}_{attribute}", output_base(at));
            let name = edit.int64s(&base, &values, false);
            if node.input.len() > position && !node.input[position].is_empty() {
                return Err(at.fail(format!(
                    "has both an '{attribute}' attribute and input {position}"
                )));
            }
            set_input(&mut node, position, &name);
        }
        None if required => {
            return Err(at.fail(format!("the '{attribute}' attribute is missing")));
        }
        None => {
            // Nothing moved; the node itself is valid at the new opset unchanged.
            return Ok(None);
        }
    }
    Ok(Some(vec![node]))
}

pub fn split(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let moved = to_input(edit, at, "split", 1, false)?;
    let sized = moved.is_some() || at.node.input.get(1).is_some_and(|s| !s.is_empty());
    if edit.target < 18 || sized {
        return Ok(moved);
    }
    // Split-18 wants either sizes or `num_outputs`; equal parts were implied before.
    let mut node = at.node.clone();
    let count = node.output.len() as i64;
    set_attribute(&mut node, int_attribute("num_outputs", count));
    Ok(Some(vec![node]))
}

/// A readable base for new initializer names: the node's name or first output.
pub fn output_base(at: &At) -> String {
    if !at.node.name.is_empty() {
        at.node.name.clone()
    } else {
        at.node.output.first().cloned().unwrap_or_default()
    }
}
