//! Upsample (deprecated at 10) and Resize-10 become Resize with roi and scales inputs.
//!
//! Before opset 11 the output coordinate maps back as x / scale ("asymmetric"), and
//! ONNX Runtime picks the nearest pixel by truncation when a dimension grows and by
//! `ceil` when it shrinks (its "simple" mode for Upsample and Resize-10). Resize-11 has
//! one `nearest_mode` for every dimension: `floor` when no dimension shrinks, `ceil`
//! when none grows (an unchanged dimension maps to whole pixels either way). A nearest
//! resize that grows some dimensions and shrinks others, or whose scales are not known
//! constants, has no single mode and is refused.

use anyhow::Result;

use super::axes::output_base;
use super::edit::{At, Edit, string_attribute};
use crate::onnx::attributes::Attributes;
use crate::onnx::proto::NodeProto;

/// Upsample-7 (`scales` attribute) and Upsample-9/10 (`scales` input).
pub fn upsample(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let x = at.input(0)?.to_string();
    let scales = if edit.source < 9 {
        let values = at
            .read(|n| n.optional_floats("scales"))?
            .ok_or_else(|| at.fail("the 'scales' attribute is missing"))?;
        if values.iter().any(|&s| s < 1.0) {
            return Err(at.fail("Upsample scales must be at least 1"));
        }
        let values: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        edit.floats(&format!("{}_scales", output_base(at)), &values)
    } else {
        at.input(1)?.to_string()
    };
    // Upsample never shrinks (ONNX Runtime refuses scales below 1), so truncation is floor.
    resize(at, &x, &scales, "floor")
}

/// Resize-10: (X, scales) → (X, roi = "", scales).
pub fn resize_10(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let x = at.input(0)?.to_string();
    let scales = at.input(1)?.to_string();
    let mode = at.string("mode", "nearest")?;
    let nearest = if mode == "nearest" {
        let values = edit
            .facts
            .value(&scales)
            .and_then(|v| v.to_f64_vec())
            .ok_or_else(|| {
                at.fail(
                    "nearest Resize-10 rounds by whether each dimension grows or shrinks; \
                     its scales are not constant, so no single nearest_mode matches",
                )
            })?;
        if values.iter().all(|&s| s >= 1.0) {
            "floor"
        } else if values.iter().all(|&s| s <= 1.0) {
            "ceil"
        } else {
            return Err(at.fail(
                "nearest Resize-10 that grows some dimensions and shrinks others rounds \
                 differently per dimension, which Resize-11 cannot express",
            ));
        }
    } else {
        "floor"
    };
    resize(at, &x, &scales, nearest)
}

fn resize(at: &At, x: &str, scales: &str, nearest_mode: &str) -> Result<Option<Vec<NodeProto>>> {
    let mode = at.string("mode", "nearest")?;
    if mode != "nearest" && mode != "linear" {
        return Err(at.fail(format!("mode '{mode}' is not nearest or linear")));
    }
    let mut node = at.without(&["scales", "mode"]);
    node.op_type = "Resize".to_string();
    node.input = vec![x.to_string(), String::new(), scales.to_string()];
    node.attribute.push(string_attribute("mode", &mode));
    node.attribute.push(string_attribute(
        "coordinate_transformation_mode",
        "asymmetric",
    ));
    if mode == "nearest" {
        node.attribute
            .push(string_attribute("nearest_mode", nearest_mode));
    }
    Ok(Some(vec![node]))
}
