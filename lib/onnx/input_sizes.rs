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

/// `model` compiled for inputs of fixed sizes (`qlower --input-shape`), as a user who
/// ships one shape asks for: each named input must exist and have the given rank, and
/// a dimension the model already fixes must agree. Dynamic dimensions become the given
/// sizes, so shape conditions (an exported squeeze's If) are known at import.
pub fn with_fixed_input_sizes(
    model: &ValidModel,
    sizes: &[(String, Vec<usize>)],
) -> Result<ValidModel> {
    let graph = model.graph();
    for (name, dims) in sizes {
        let Some(input) = graph.input.iter().find(|i| &i.name == name) else {
            let names: Vec<&str> = graph.input.iter().map(|i| i.name.as_str()).collect();
            anyhow::bail!(
                "--input-shape: the model has no input named '{name}' (its inputs: {})",
                names.join(", ")
            );
        };
        let declared = match input.r#type.as_ref().and_then(|t| t.value.as_ref()) {
            Some(TypeValue::TensorType(t)) => t.shape.as_ref().map(|s| &s.dim),
            _ => anyhow::bail!("--input-shape: input '{name}' is not a tensor"),
        };
        let Some(declared) = declared else {
            continue;
        };
        if declared.len() != dims.len() {
            anyhow::bail!(
                "--input-shape: input '{name}' has rank {}, but {} sizes were given",
                declared.len(),
                dims.len()
            );
        }
        for (axis, (d, &n)) in declared.iter().zip(dims).enumerate() {
            if let Some(DimValue::DimValue(fixed)) = d.value
                && fixed >= 0
                && fixed as usize != n
            {
                anyhow::bail!(
                    "--input-shape: input '{name}' has size {fixed} on axis {axis}, not {n}"
                );
            }
        }
    }
    with_input_sizes(model, sizes, model.dir.clone())
}

/// Parses `NAME=D0xD1x...` (`x` or `,` between sizes; nothing after `=` for a scalar).
pub fn parse_input_shape(s: &str) -> std::result::Result<(String, Vec<usize>), String> {
    let Some((name, dims)) = s.split_once('=').filter(|(n, _)| !n.is_empty()) else {
        return Err(format!(
            "'{s}' is not NAME=D0xD1x... (e.g. input=1x3x224x224)"
        ));
    };
    let dims = dims.trim();
    if dims.is_empty() {
        return Ok((name.to_string(), Vec::new()));
    }
    dims.split(['x', ','])
        .map(|d| {
            d.trim()
                .parse::<usize>()
                .map_err(|_| format!("'{s}': '{d}' is not a size (a whole number)"))
        })
        .collect::<std::result::Result<Vec<_>, _>>()
        .map(|v| (name.to_string(), v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_shapes_parse_with_x_or_commas() {
        assert_eq!(
            parse_input_shape("input=1x576"),
            Ok(("input".to_string(), vec![1, 576]))
        );
        assert_eq!(
            parse_input_shape("x=1,3, 224,224"),
            Ok(("x".to_string(), vec![1, 3, 224, 224]))
        );
        assert_eq!(parse_input_shape("sr="), Ok(("sr".to_string(), vec![])));
        assert!(parse_input_shape("=1x2").is_err());
        assert!(parse_input_shape("x=1x-2").is_err());
        assert!(parse_input_shape("x").is_err());
    }
}
