//! The `model` argument: a path, the model's bytes, or an `onnx.ModelProto`.

use std::path::PathBuf;

use bytes::Bytes;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;

use qlower_core::onnx::input_sizes::with_fixed_input_sizes;
use qlower_core::onnx::load::{load_model, load_model_bytes};
use qlower_core::onnx::validate::ValidModel;
use qlower_core::pipeline::{plan_model, plan_onnx};
use qlower_core::runtime::plan::Plan;

/// Where a model comes from. Bytes are the Python object's own buffer, shared with the
/// decoded model's initializers, not copied.
pub enum Source {
    Path(PathBuf),
    Bytes(Bytes),
}

impl Source {
    /// Reads `model`: `bytes` (or a `bytearray`), an object with `SerializeToString()`
    /// (`onnx.ModelProto`, without depending on `onnx`), or a `str` / `os.PathLike`.
    pub fn of(model: &Bound<'_, PyAny>) -> PyResult<Source> {
        if let Ok(bytes) = model.extract::<PyBackedBytes>() {
            return Ok(Source::Bytes(Bytes::from_owner(bytes)));
        }
        if model.hasattr("SerializeToString")? {
            let serialized = model.call_method0("SerializeToString")?;
            let bytes = serialized.extract::<PyBackedBytes>().map_err(|_| {
                PyTypeError::new_err("model.SerializeToString() did not return bytes")
            })?;
            return Ok(Source::Bytes(Bytes::from_owner(bytes)));
        }
        if let Ok(path) = model.extract::<PathBuf>() {
            return Ok(Source::Path(path));
        }
        Err(PyTypeError::new_err(format!(
            "model must be a path, bytes or an onnx.ModelProto, not {}",
            model.get_type().name()?
        )))
    }

    /// The ONNX model, loaded and validated (a path's external data is found next to it).
    pub fn load(self) -> anyhow::Result<ValidModel> {
        match self {
            Source::Path(path) => load_model(&path),
            Source::Bytes(bytes) => load_model_bytes(bytes),
        }
    }

    /// The model planned for the CPU backend, as `qlower run` plans it (an `.mlir` path
    /// is MLIR printed by qlower), and the ONNX model when it is one. `input_shapes`
    /// fixes inputs' sizes, as `qlower --input-shape` does (ONNX models only).
    pub fn plan(
        self,
        input_shapes: &[(String, Vec<usize>)],
    ) -> anyhow::Result<(Plan, Option<ValidModel>)> {
        match self {
            Source::Path(path) if path.extension().is_some_and(|e| e == "mlir") => {
                if !input_shapes.is_empty() {
                    anyhow::bail!(
                        "input_shapes applies to ONNX models; '{}' is MLIR, whose shapes \
                         are already fixed",
                        path.display()
                    );
                }
                Ok((plan_model(&path)?, None))
            }
            source => {
                let mut model = source.load()?;
                if !input_shapes.is_empty() {
                    model = with_fixed_input_sizes(&model, input_shapes)?;
                }
                Ok((plan_onnx(&model)?, Some(model)))
            }
        }
    }
}
