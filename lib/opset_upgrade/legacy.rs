//! Ops whose change between the source and target opsets is a rename or an attribute
//! that moved or lost its meaning: Scatter, Dropout, BatchNormalization, RoiAlign.

use anyhow::Result;

use super::axes::output_base;
use super::edit::{At, Edit, set_input, string_attribute};
use crate::onnx::attributes::Attributes;
use crate::onnx::proto::NodeProto;

/// Scatter (deprecated at 11) is ScatterElements under another name.
pub fn scatter(_edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let mut node = at.node.clone();
    node.op_type = "ScatterElements".to_string();
    Ok(Some(vec![node]))
}

/// Dropout: `ratio` became an input at 12 (and at inference, which is all a converted
/// model does without a `training_mode` input, Dropout is the identity, so its value
/// never changes a result). Before 10 the optional mask output had the data's type;
/// since 10 it is bool, so a mask that something reads is refused.
pub fn dropout(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let mut changed = false;
    let mut node = at.node.clone();
    if edit.source < 10
        && let Some(mask) = node.output.get(1).filter(|m| !m.is_empty())
    {
        if edit.is_read(mask) {
            return Err(at.fail(format!(
                "its mask '{mask}' is read, and the mask's type changed from the data's to \
                 bool at opset 10"
            )));
        }
        node.output.truncate(1);
        changed = true;
    }
    if edit.source < 12 {
        let ratio = at.read(|n| n.optional_float("ratio"))?;
        node.attribute.retain(|a| a.name != "ratio");
        if let Some(ratio) = ratio {
            let name = edit.floats_scalar(&format!("{}_ratio", output_base(at)), ratio as f32);
            set_input(&mut node, 1, &name);
        }
        changed |= ratio.is_some();
    }
    Ok(changed.then(|| vec![node]))
}

/// BatchNormalization: `spatial` (removed at 9) with value 0 means statistics per
/// element, not per channel, which later versions cannot say. From 14 the outputs after
/// Y exist only in training mode, so unread ones are dropped and read ones refused.
pub fn batch_norm(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let mut node = at.node.clone();
    let mut changed = false;
    if edit.source < 9 {
        if at.int("spatial", 1)? == 0 {
            return Err(
                at.fail("spatial=0 (statistics per element) has no equivalent from opset 9 on")
            );
        }
        changed |= node.attribute.iter().any(|a| a.name == "spatial");
        node.attribute.retain(|a| a.name != "spatial");
    }
    if edit.target >= 14 && node.output.len() > 1 {
        if let Some(read) = node.output[1..]
            .iter()
            .find(|o| !o.is_empty() && edit.is_read(o))
        {
            return Err(at.fail(format!(
                "its training output '{read}' is read; from opset 14 it exists only with \
                 training_mode=1"
            )));
        }
        node.output.truncate(1);
        changed = true;
    }
    Ok(changed.then(|| vec![node]))
}

/// RoiAlign-16 changed the default coordinate mode to half_pixel; older models meant
/// output_half_pixel, so that is written out.
pub fn roi_align(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    if edit.target < 16
        || at
            .node
            .attribute
            .iter()
            .any(|a| a.name == "coordinate_transformation_mode")
    {
        return Ok(None);
    }
    let mut node = at.node.clone();
    node.attribute.push(string_attribute(
        "coordinate_transformation_mode",
        "output_half_pixel",
    ));
    Ok(Some(vec![node]))
}
