//! Clip and Pad before opset 11 took their bounds, pads and fill value as attributes;
//! from 11 they are inputs. A bound or fill value must have the data's element type,
//! so the converter needs to know it and refuses the node when it does not.

use anyhow::Result;

use super::axes::output_base;
use super::edit::{At, Edit, set_input};
use crate::onnx::attributes::Attributes;
use crate::onnx::dtype::DType;
use crate::onnx::proto::NodeProto;

fn data_type(edit: &Edit, at: &At) -> Result<DType> {
    let x = at.input(0)?;
    edit.facts.ty(x).and_then(|t| t.dtype).ok_or_else(|| {
        at.fail(format!(
            "the element type of '{x}' is unknown, and the converted op needs a constant of \
             that type"
        ))
    })
}

fn scalar(edit: &mut Edit, at: &At, base: &str, dtype: DType, value: f64) -> Result<String> {
    edit.float_scalar(base, dtype, value)
        .ok_or_else(|| at.fail(format!("element type {dtype} is not a float type")))
}

/// Clip-6: `min` and `max` attributes (defaults: the type's limits) → inputs 1 and 2.
pub fn clip(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let min = at.read(|n| n.optional_float("min"))?;
    let max = at.read(|n| n.optional_float("max"))?;
    let mut node = at.without(&["min", "max"]);
    node.input.truncate(1);
    if min.is_none() && max.is_none() {
        return Ok(Some(vec![node]));
    }
    let dtype = data_type(edit, at)?;
    let base = output_base(at);
    if let Some(min) = min {
        let name = scalar(edit, at, &format!("{base}_min"), dtype, min)?;
        set_input(&mut node, 1, &name);
    }
    if let Some(max) = max {
        let name = scalar(edit, at, &format!("{base}_max"), dtype, max)?;
        set_input(&mut node, 2, &name);
    }
    Ok(Some(vec![node]))
}

/// Pad-2: `pads` (required) → input 1, `value` (default 0) → input 2.
pub fn pad(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let pads = at
        .optional_ints("pads")?
        .ok_or_else(|| at.fail("the 'pads' attribute is missing"))?;
    let value = at.read(|n| n.float("value", 0.0))?;
    let mode = at.string("mode", "constant")?;
    let mut node = at.without(&["pads", "value"]);
    node.input.truncate(1);
    let base = output_base(at);
    let pads = edit.int64s(&format!("{base}_pads"), &pads, false);
    set_input(&mut node, 1, &pads);
    // The fill value only matters in constant mode, and 0 is the input's default.
    if mode == "constant" && value != 0.0 {
        let dtype = data_type(edit, at)?;
        let name = scalar(edit, at, &format!("{base}_value"), dtype, value)?;
        set_input(&mut node, 2, &name);
    }
    Ok(Some(vec![node]))
}
