//! Writing a quantized model: prost encodes it, and `output::write_bytes` puts it in
//! place through a temporary file, so a failure leaves nothing behind.

use std::path::Path;

use anyhow::Result;
use prost::Message;

use crate::onnx::proto::ModelProto;
use crate::output::write_bytes;

/// Marks the model as produced by qlower; the graph is otherwise as the modes left it.
pub fn finish(mut model: ModelProto) -> Result<ModelProto> {
    model.producer_name = "qlower".to_string();
    model.producer_version = env!("CARGO_PKG_VERSION").to_string();
    Ok(model)
}

/// The model's protobuf bytes.
pub fn to_bytes(model: &ModelProto) -> Vec<u8> {
    model.encode_to_vec()
}

pub fn write(model: &ModelProto, dest: &Path) -> Result<()> {
    write_bytes(dest, &to_bytes(model))
}
