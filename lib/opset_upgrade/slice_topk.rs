//! Slice and TopK before opset 10 took `starts`/`ends`/`axes` and `k` as attributes;
//! from 10 they are int64 inputs with the same meaning.

use anyhow::Result;

use super::axes::output_base;
use super::edit::{At, Edit, set_input};
use crate::onnx::proto::NodeProto;

pub fn slice(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let required = |name: &str| {
        at.optional_ints(name)?
            .ok_or_else(|| at.fail(format!("the '{name}' attribute is missing")))
    };
    let starts = required("starts")?;
    let ends = required("ends")?;
    if starts.len() != ends.len() {
        return Err(at.fail(format!(
            "'starts' has {} values and 'ends' {}",
            starts.len(),
            ends.len()
        )));
    }
    let axes = at.optional_ints("axes")?;
    let mut node = at.without(&["starts", "ends", "axes"]);
    node.input.truncate(1);
    let base = output_base(at);
    let starts = edit.int64s(&format!("{base}_starts"), &starts, false);
    let ends = edit.int64s(&format!("{base}_ends"), &ends, false);
    set_input(&mut node, 1, &starts);
    set_input(&mut node, 2, &ends);
    if let Some(axes) = axes {
        let axes = edit.int64s(&format!("{base}_axes"), &axes, false);
        set_input(&mut node, 3, &axes);
    }
    Ok(Some(vec![node]))
}

pub fn top_k(edit: &mut Edit, at: &At) -> Result<Option<Vec<NodeProto>>> {
    let k = at
        .read(|n| crate::onnx::attributes::Attributes::optional_int(n, "k"))?
        .ok_or_else(|| at.fail("the 'k' attribute is missing"))?;
    let mut node = at.without(&["k"]);
    node.input.truncate(1);
    let k = edit.int64s(&format!("{}_k", output_base(at)), &[k], false);
    set_input(&mut node, 1, &k);
    Ok(Some(vec![node]))
}
