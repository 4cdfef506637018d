//! A model whose graph has an If, compiled for the sizes of the inputs it is run with.
//!
//! Exporters write `squeeze(dim)` as `If(Equal(size, 1), Squeeze, Identity)`: the
//! branches give values of different ranks, and which one runs depends on a size. With
//! the sizes known, the import computes such a condition and keeps only the taken
//! branch (`import/control_flow.rs`); without them, the If's result has no rank, and
//! the ops after it cannot be lowered. `qlower run` compiles for one set of inputs, so
//! it gives their sizes; an If on a value (Silero VAD's sample rate) still runs as an If.

use std::path::PathBuf;

use anyhow::Result;

use super::proto::tensor_shape_proto::dimension::Value as DimValue;
use super::proto::type_proto::Value as TypeValue;
use super::validate::{ValidModel, validate};

/// Whether the main graph has an If, whose branches' types may depend on sizes.
pub fn has_if(model: &ValidModel) -> bool {
    model
        .graph()
        .node
        .iter()
        .any(|n| n.op_type == "If" && super::validate::canonical_domain(&n.domain).is_empty())
}

/// `model` with the graph inputs named in `sizes` declared with those dimensions.
/// An input whose declared rank differs is left as it is (the run refuses it with its
/// own message), and so is a declared dimension that is already a number.
pub fn with_input_sizes(
    model: &ValidModel,
    sizes: &[(String, Vec<usize>)],
    dir: Option<PathBuf>,
) -> Result<ValidModel> {
    let mut proto = model.proto.clone();
    if let Some(graph) = proto.graph.as_mut() {
        for input in &mut graph.input {
            let Some((_, dims)) = sizes.iter().find(|(n, _)| n == &input.name) else {
                continue;
            };
            let Some(TypeValue::TensorType(t)) =
                input.r#type.as_mut().and_then(|t| t.value.as_mut())
            else {
                continue;
            };
            let Some(shape) = t.shape.as_mut() else {
                continue;
            };
            if shape.dim.len() != dims.len() {
                continue;
            }
            for (d, &n) in shape.dim.iter_mut().zip(dims) {
                if !matches!(d.value, Some(DimValue::DimValue(_))) {
                    d.value = i64::try_from(n).ok().map(DimValue::DimValue);
                }
            }
        }
    }
    let mut sized = validate(proto, dir)?;
    sized.sized_for_run = true;
    Ok(sized)
}
