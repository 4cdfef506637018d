//! Named inputs matched to a plan's declared inputs: what `qlower run` does with its
//! `-i NAME=FILE` pairs and the Python binding with its feeds. The values' types and
//! shapes are checked by `Plan::check_inputs` (and again by `Plan::run`).

use anyhow::{Context, Result, bail};

use super::plan::{Plan, Port};
use crate::kernels::tensor::Tensor;

/// The tensors for `plan`'s inputs, in its order. Every given name must be one of the
/// plan's inputs, given once, and every input must be given; `read` makes each given
/// value its tensor (errors are prefixed with the input's name), and `how_to_give` ends
/// the message for a missing input ("give it with -i x=FILE").
pub fn bind_inputs<T>(
    plan: &Plan,
    given: Vec<(String, T)>,
    mut read: impl FnMut(&Port, T) -> Result<Tensor>,
    how_to_give: impl Fn(&Port) -> String,
) -> Result<Vec<Tensor>> {
    for (i, (name, _)) in given.iter().enumerate() {
        if !plan.inputs.iter().any(|p| &p.name == name) {
            let names: Vec<&str> = plan.inputs.iter().map(|p| p.name.as_str()).collect();
            bail!(
                "the model has no input named '{name}' (its inputs: {})",
                names.join(", ")
            );
        }
        if given[..i].iter().any(|(n, _)| n == name) {
            bail!("input '{name}' is given twice");
        }
    }
    let mut given: Vec<Option<(String, T)>> = given.into_iter().map(Some).collect();
    plan.inputs
        .iter()
        .map(|port| {
            let value = given
                .iter_mut()
                .find(|g| g.as_ref().is_some_and(|(n, _)| n == &port.name))
                .and_then(Option::take)
                .map(|(_, v)| v)
                .with_context(|| {
                    format!(
                        "missing input '{}' ({}); {}",
                        port.name,
                        port.ty,
                        how_to_give(port)
                    )
                })?;
            read(port, value).with_context(|| format!("input '{}'", port.name))
        })
        .collect()
}
