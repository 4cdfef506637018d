//! Reads a model file and decodes it with prost.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use prost::Message;

use super::proto::ModelProto;
use super::validate::{self, ValidModel};

/// Decodes model bytes. The buffer is shared, not copied, by `raw_data` fields.
pub fn decode_model(bytes: Bytes) -> Result<ModelProto> {
    if bytes.is_empty() {
        bail!("file is empty, not an ONNX model");
    }
    ModelProto::decode(bytes).map_err(|e| anyhow::anyhow!("not a valid ONNX model ({e})"))
}

/// Reads, decodes and validates the model at `path`; external data is looked up next to it.
pub fn load_model(path: &Path) -> Result<ValidModel> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))?;
    let model =
        decode_model(Bytes::from(bytes)).with_context(|| format!("'{}'", path.display()))?;
    let dir: PathBuf = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    validate::validate(model, Some(dir))
}

/// Decodes and validates model bytes held in memory (no file, so external data cannot
/// be resolved). Initializers share the buffer, as with `decode_model`.
pub fn load_model_bytes(bytes: Bytes) -> Result<ValidModel> {
    validate::validate(decode_model(bytes)?, None)
}
