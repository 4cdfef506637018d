//! Softmax and LogSoftmax. From opset 13 they normalize along `axis` (default -1).
//! Before it, ONNX coerces the input to 2-D at `axis` (default 1) and normalizes each
//! row, i.e. jointly over every dimension from `axis` on: that is lowered as flatten
//! those dimensions into one, normalize it, and unflatten it back.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::{Dim, TensorType};
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("Softmax", 1, softmax_coerced);
    r.on_op("Softmax", 13, softmax);
    r.on_op("LogSoftmax", 1, log_softmax_coerced);
    r.on_op("LogSoftmax", 13, log_softmax);
}

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>>;

fn softmax<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    normalize(b, t, "softmax.int", -1, false)
}

fn softmax_coerced<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    normalize(b, t, "softmax.int", 1, true)
}

fn log_softmax<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    normalize(b, t, "log_softmax.int", -1, false)
}

fn log_softmax_coerced<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Lowered<'c, 'a> {
    normalize(b, t, "log_softmax.int", 1, true)
}

fn normalize<'c, 'a>(
    b: &Binder<'c, 'a>,
    t: &TorchBuilder<'c, 'a>,
    aten: &str,
    default_axis: i64,
    coerced: bool,
) -> Lowered<'c, 'a> {
    let x = b.input(0, "input")?;
    let x_type = b.input_type(0, "input")?;
    let axis = b.int("axis", default_axis)?;
    let result = b.result_type(0)?;
    let Some(dims) = x_type.shape.clone() else {
        bail!("input has unknown rank, so attribute 'axis' cannot be resolved");
    };
    let rank = dims.len() as i64;
    if axis < -rank || axis >= rank {
        bail!("attribute 'axis' is {axis}, outside the range of input's rank {rank}");
    }
    let axis = if axis < 0 { axis + rank } else { axis };

    let none = t.none()?;
    // Normalizing the last dimension alone needs no flattening.
    if !coerced || axis == rank - 1 {
        let dim = t.int(axis)?;
        return Ok(vec![t.aten_tensor(aten, &[x, dim, none], &result)?]);
    }
    let split = axis as usize;
    let flat_type = TensorType {
        dtype: x_type.dtype,
        shape: Some(
            dims[..split]
                .iter()
                .copied()
                .chain(std::iter::once(product(&dims[split..])))
                .collect(),
        ),
    };
    let sizes = dims[split..]
        .iter()
        .enumerate()
        .map(|(i, d)| match d {
            Some(n) => t.int(*n),
            None => {
                let at = t.int(axis + i as i64)?;
                t.aten("size.int", &[x, at], t.torch_type("int")?)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    let sizes = t.list(&sizes, "int")?;
    let start = t.int(axis)?;
    let end = t.int(rank - 1)?;
    let flat = t.aten_tensor("flatten.using_ints", &[x, start, end], &flat_type)?;
    let normalized = t.aten_tensor(aten, &[flat, start, none], &flat_type)?;
    let y = t.aten_tensor("unflatten.int", &[normalized, start, sizes], &result)?;
    Ok(vec![y])
}

fn product(dims: &[Dim]) -> Dim {
    dims.iter()
        .try_fold(1i64, |acc, d| d.and_then(|d| acc.checked_mul(d)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flattened_size_is_known_only_when_every_size_is() {
        assert_eq!(product(&[Some(3), Some(4)]), Some(12));
        assert_eq!(product(&[]), Some(1));
        assert_eq!(product(&[Some(3), None]), None);
        assert_eq!(product(&[Some(i64::MAX), Some(2)]), None);
    }
}
