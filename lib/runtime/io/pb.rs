//! ONNX `TensorProto` files (`input_0.pb` in ONNX test data), decoded with the same
//! code as initializers, and written for the outputs `.npy` cannot hold (float8).

use std::path::Path;

use anyhow::{Context, Result};
use prost::Message;

use crate::kernels::tensor::Tensor;
use crate::onnx::proto::TensorProto;
use crate::onnx::tensor;

/// `t` as a serialized `TensorProto` named `name`, its elements in `raw_data` (what
/// `onnx.numpy_helper.to_array` and ONNX Runtime read back).
pub fn encode(t: &Tensor, name: &str) -> Vec<u8> {
    let data = t.to_tensor_data();
    TensorProto {
        dims: data.dims,
        data_type: data.dtype.to_onnx(),
        name: name.to_string(),
        raw_data: data.bytes,
        ..Default::default()
    }
    .encode_to_vec()
}

pub fn read(path: &Path) -> Result<Tensor> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))?;
    let proto = TensorProto::decode(bytes.as_slice())
        .map_err(|e| anyhow::anyhow!("'{}' is not a valid TensorProto ({e})", path.display()))?;
    let data =
        tensor::decode(&proto, path.parent()).with_context(|| format!("'{}'", path.display()))?;
    Tensor::from_tensor_data(&data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::tensor::Data;
    use crate::kernels::tensor::float8::Float8;

    #[test]
    fn float8_tensors_round_trip_through_a_file() {
        let t = Tensor::new(vec![3], Data::F8(Float8::E5M2, vec![0x3C, 0xFC, 0x7B])).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("y.pb");
        std::fs::write(&path, encode(&t, "y")).unwrap();
        assert_eq!(read(&path).unwrap(), t);
    }
}
