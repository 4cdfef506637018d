//! ONNX `TensorProto` files (`input_0.pb` in ONNX test data), decoded with the same
//! code as initializers.

use std::path::Path;

use anyhow::{Context, Result};
use prost::Message;

use crate::kernels::tensor::Tensor;
use crate::onnx::proto::TensorProto;
use crate::onnx::tensor;

pub fn read(path: &Path) -> Result<Tensor> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))?;
    let proto = TensorProto::decode(bytes.as_slice())
        .map_err(|e| anyhow::anyhow!("'{}' is not a valid TensorProto ({e})", path.display()))?;
    let data =
        tensor::decode(&proto, path.parent()).with_context(|| format!("'{}'", path.display()))?;
    Tensor::from_tensor_data(&data)
}
