//! BatchNormalization in inference mode: `torch.aten.batch_norm` with `training = false`,
//! normalizing with the given running mean and variance.

use anyhow::{Result, bail};
use melior::ir::Value;

use super::Lowerings;
use super::binder::Binder;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::types::TensorType;
use crate::onnx::attributes::Attributes as _;

pub fn register(r: &mut Lowerings) {
    r.on_op("BatchNormalization", 1, batch_norm);
}

/// The per-channel inputs, in operand order, by their ONNX names.
const CHANNEL_INPUTS: [&str; 4] = ["scale", "B", "input_mean", "input_var"];

fn batch_norm<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Result<Vec<Value<'c, 'a>>> {
    if b.int("training_mode", 0)? != 0 {
        bail!("training_mode = 1 is not supported: only inference is");
    }
    // Before opset 9, `spatial = 0` asked for statistics per activation, not per channel.
    if b.opset < 9 && b.int("spatial", 1)? == 0 {
        bail!("attribute 'spatial' = 0 (statistics per activation) is not supported");
    }
    // Before opset 14 the extra outputs (running and saved statistics) exist only in
    // training; inference may declare them but must not read them.
    for i in 1..b.result_count() {
        if b.is_result_used(i) {
            bail!("output {i} (a training statistic) is used, but only inference is supported");
        }
    }
    let x = b.input(0, "X")?;
    let x_type = b.input_type(0, "X")?;
    let Some(dtype) = x_type.dtype else {
        bail!("X has an unknown element type");
    };
    if !dtype.is_float() {
        bail!("X must be a float tensor, but is {x_type}");
    }
    if x_type.rank().is_some_and(|r| r < 2) {
        bail!("X is {x_type}, but needs a rank of at least 2 (N, C, ...)");
    }
    let channels = x_type.shape.as_ref().and_then(|s| s[1]);
    let mut params = Vec::with_capacity(CHANNEL_INPUTS.len());
    for (i, name) in CHANNEL_INPUTS.iter().enumerate() {
        let v = b.input(i + 1, name)?;
        let ty = b.input_type(i + 1, name)?;
        check_channel_input(&ty, name, channels)?;
        params.push((v, ty));
    }
    let momentum = b.float("momentum", 0.9)?;
    let epsilon = b.float("epsilon", 1e-5)?;
    let result = b.result_type(0)?;

    // Opset 15 lets the parameters have their own float types; torch wants X's.
    let mut operands = vec![x];
    for (v, ty) in params {
        operands.push(match ty.dtype {
            Some(d) if d != dtype => super::quantization::cast(t, v, &ty.with_dtype(dtype))?,
            _ => v,
        });
    }
    let no = t.bool(false)?;
    operands.extend([no, t.float(momentum)?, t.float(epsilon)?, no]);
    let y = t.aten_tensor("batch_norm", &operands, &result)?;
    // The other outputs have no uses (checked above): any value stands in for them.
    Ok(vec![y; b.result_count()])
}

fn check_channel_input(ty: &TensorType, name: &str, channels: Option<i64>) -> Result<()> {
    if !ty.dtype.is_none_or(|d| d.is_float()) {
        bail!("{name} must be a float tensor, but is {ty}");
    }
    match ty.shape.as_deref() {
        None => Ok(()),
        Some([n]) => match (n, channels) {
            (Some(n), Some(c)) if *n != c => {
                bail!("{name} has {n} elements but X has {c} channels")
            }
            _ => Ok(()),
        },
        Some(_) => bail!("{name} must be 1-D (one value per channel), but is {ty}"),
    }
}
