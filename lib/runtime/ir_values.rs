//! The one converter between the IR and the kernels' values: the declared type of an
//! IR value as a kernel sees it (`result_type`), and the value a constant op holds
//! (`constant_value`: `torch.constant.*` and `torch.vtensor.literal`). The planner reads
//! constants and result types through it, and so does constant folding, so a folded
//! value and a planned one are the same value.

use anyhow::{Result, anyhow, bail};
use melior::ir::attribute::{BoolAttribute, FloatAttribute, IntegerAttribute, StringAttribute};
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use crate::dialect::ops::dense_attribute_data;
use crate::dialect::types::TensorType;
use crate::ir::matchers::op_name;
use crate::kernels::ResultType;
use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::value::Value;

/// The declared type of a value, as the kernels see it.
pub fn result_type(v: MlirValue) -> Result<ResultType> {
    let text = v.r#type().to_string();
    if let Some(t) = TensorType::parse(&text) {
        return Ok(ResultType::Tensor(t));
    }
    Ok(match text.as_str() {
        "!torch.int" => ResultType::Int,
        "!torch.float" => ResultType::Float,
        "!torch.bool" => ResultType::Bool,
        "!torch.str" => ResultType::Str,
        "!torch.none" => ResultType::None,
        other => match other
            .strip_prefix("!torch.list<")
            .and_then(|r| r.strip_suffix('>'))
        {
            Some(elem) => ResultType::List(elem.to_string()),
            None => bail!("values of type {other} cannot be run"),
        },
    })
}

/// The value `op` holds when it is a constant (`torch.constant.*` or
/// `torch.vtensor.literal`); `None` for any other op, and an error for a constant op
/// that is malformed.
pub fn constant_value(op: OperationRef) -> Result<Option<Value>> {
    let name = op_name(op);
    let attr = || {
        op.attribute("value")
            .map_err(|_| anyhow!("{name} has no value"))
    };
    Ok(Some(match name.as_str() {
        "torch.constant.none" => Value::None,
        "torch.constant.int" => Value::Int(
            IntegerAttribute::try_from(attr()?)
                .map_err(|_| anyhow!("torch.constant.int needs an integer value"))?
                .value(),
        ),
        "torch.constant.float" => Value::Float(
            FloatAttribute::try_from(attr()?)
                .map_err(|_| anyhow!("torch.constant.float needs a float value"))?
                .value(),
        ),
        "torch.constant.bool" => Value::Bool(
            BoolAttribute::try_from(attr()?)
                .map_err(|_| anyhow!("torch.constant.bool needs a bool value"))?
                .value(),
        ),
        "torch.constant.str" => Value::Str(
            StringAttribute::try_from(attr()?)
                .map_err(|_| anyhow!("torch.constant.str needs a string value"))?
                .value()
                .to_string(),
        ),
        "torch.vtensor.literal" => {
            let ResultType::Tensor(ty) = result_type(op.result(0)?.into())? else {
                bail!("torch.vtensor.literal must produce a tensor");
            };
            let data = dense_attribute_data(attr()?, &ty)
                .ok_or_else(|| anyhow!("literal of type {ty} cannot be decoded"))?;
            Value::tensor(Tensor::from_tensor_data(&data)?)
        }
        _ => return Ok(None),
    }))
}
