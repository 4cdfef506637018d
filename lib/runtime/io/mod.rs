//! Tensor files: NumPy `.npy` (read and write) and ONNX `TensorProto` `.pb` (read), as
//! used by ONNX's test data.

pub mod npy;
pub mod pb;

use std::path::Path;

use anyhow::{Result, bail};

use super::tensor::Tensor;

/// Reads a tensor from `path`, choosing the format by extension.
pub fn read_tensor(path: &Path) -> Result<Tensor> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("npy") => npy::read(path),
        Some("pb") => pb::read(path),
        _ => bail!("'{}' is neither .npy nor .pb", path.display()),
    }
}
