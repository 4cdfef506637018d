//! The `qlower` Python module: compile a quantized ONNX model to MLIR text, run it on
//! qlower's CPU backend with NumPy arrays in and out, quantize a float model. Every call
//! that compiles, runs or quantizes releases the GIL while it works.

mod arrays;
mod error;
mod model;
mod session;

use std::ffi::CString;
use std::path::PathBuf;

use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use qlower_core::ir::context::new_context;
use qlower_core::pipeline::{Emit, Options, Target};
use qlower_core::quantize as ptq;
use qlower_core::quantize::{
    BiasCorrection, CalibrateMethod, Mode, QType, QuantFormat, RangeOptions, WeightRange,
    WeightType, encode,
};

use crate::error::{QlowerError, choice, qlower_error};
use crate::model::Source;
use crate::session::{NodeArg, Session};

/// Compiles `model` (a path, bytes or an `onnx.ModelProto`) and returns the MLIR text of
/// the form `emit` names (`import`, `torch`, `fused`, `backend`), as `qlower MODEL
/// --emit EMIT [--target TARGET]` prints it. `target` (`"iree"` or `"torch-mlir"`,
/// torch form only) writes what that compiler lowers. Ops left without a lowering are
/// a `UserWarning`, or an error with `strict=True`.
#[pyfunction]
#[pyo3(signature = (model, emit="torch", target=None, strict=false))]
fn compile(
    py: Python<'_>,
    model: &Bound<'_, PyAny>,
    emit: &str,
    target: Option<&str>,
    strict: bool,
) -> PyResult<String> {
    let emit: Emit = choice("emit", emit)?;
    let target: Option<Target> = target.map(|t| choice("target", t)).transpose()?;
    let source = Source::of(model)?;
    let (text, warnings) = py
        .detach(|| -> anyhow::Result<(String, Vec<String>)> {
            let model = source.load()?;
            let context = new_context();
            let options = Options {
                strict,
                target,
                ..Options::default()
            };
            let compiled = qlower_core::pipeline::compile(&context, &model, emit, options)?;
            drop(model);
            Ok((
                compiled.module.as_operation().to_string(),
                compiled.warnings,
            ))
        })
        .map_err(qlower_error)?;
    for w in warnings {
        let message = CString::new(w.replace('\0', " "))?;
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 1)?;
    }
    Ok(text)
}

/// `bias_correction=`: True and False as the bare flag and `off`, or a mode's name.
#[derive(FromPyObject)]
enum BiasArg {
    Flag(bool),
    Name(String),
}

/// Quantizes a float model (post-training), as `qlower quantize` does; the keywords are
/// its flags. Writes the model to `output` and returns None, or returns its bytes when
/// `output` is None.
#[pyfunction]
#[pyo3(signature = (
    model, output=None, *, mode=None, per_channel=false, calibration=None,
    calibrate_method=None, activation_type="u8", weight_type="i8", block_size=None,
    activation_symmetric=false, weight_symmetric=false,
    activation_restricted_asymmetric=false, op_types=None, exclude_nodes=None,
    exclude_op_types=None, keep_16bit=None, keep_float=None,
    moving_average=false, averaging_constant=None, percentile=None, num_bins=None,
    num_quantized_bins=None, bias_correction=None, weight_range="minmax",
    reduce_range=false, quant_format="qdq", smooth_quant=false, smooth_quant_alpha=None,
    smooth_quant_folding=true, save_smoothed=None,
))]
#[allow(clippy::too_many_arguments)]
fn quantize<'py>(
    py: Python<'py>,
    model: &Bound<'py, PyAny>,
    output: Option<PathBuf>,
    mode: Option<&str>,
    per_channel: bool,
    calibration: Option<PathBuf>,
    calibrate_method: Option<&str>,
    activation_type: &str,
    weight_type: &str,
    block_size: Option<usize>,
    activation_symmetric: bool,
    weight_symmetric: bool,
    activation_restricted_asymmetric: bool,
    op_types: Option<Vec<String>>,
    exclude_nodes: Option<Vec<String>>,
    exclude_op_types: Option<Vec<String>>,
    keep_16bit: Option<Vec<String>>,
    keep_float: Option<Vec<String>>,
    moving_average: bool,
    averaging_constant: Option<f32>,
    percentile: Option<f64>,
    num_bins: Option<usize>,
    num_quantized_bins: Option<usize>,
    bias_correction: Option<BiasArg>,
    weight_range: &str,
    reduce_range: bool,
    quant_format: &str,
    smooth_quant: bool,
    smooth_quant_alpha: Option<f32>,
    smooth_quant_folding: bool,
    save_smoothed: Option<PathBuf>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let weight_range: WeightRange = choice("weight_range", weight_range)?;
    let bias_correction = match bias_correction {
        None => BiasCorrection::Auto,
        Some(BiasArg::Flag(true)) => BiasCorrection::On,
        Some(BiasArg::Flag(false)) => BiasCorrection::Off,
        Some(BiasArg::Name(name)) => choice("bias_correction", &name)?,
    };
    // ORT spells it QuantFormat.QDQ / QuantFormat.QOperator: any case is taken.
    let format: QuantFormat = choice("quant_format", &quant_format.to_ascii_lowercase())?;
    let mode: Option<Mode> = mode.map(|m| choice("mode", m)).transpose()?;
    let weight_type: WeightType = choice("weight_type", weight_type)?;
    let activation_type: QType = choice("activation_type", activation_type)?;
    let calibrate_method: Option<CalibrateMethod> = calibrate_method
        .map(|m| choice("calibrate_method", m))
        .transpose()?;
    let source = Source::of(model)?;
    let (bytes, notes) = py
        .detach(|| -> anyhow::Result<(Option<Vec<u8>>, Vec<String>)> {
            let (mode, weight_type) = ptq::mode_of(mode, weight_type, block_size)?;
            let options = ptq::Options {
                mode,
                per_channel,
                calibration,
                calibrate_method,
                activation_type,
                weight_type,
                activation_symmetric,
                weight_symmetric,
                activation_restricted_asymmetric,
                op_types: op_types.unwrap_or_default(),
                exclude_nodes: exclude_nodes.unwrap_or_default(),
                exclude_op_types: exclude_op_types.unwrap_or_default(),
                keep_16bit: keep_16bit.unwrap_or_default(),
                keep_float: keep_float.unwrap_or_default(),
                block_size: block_size.unwrap_or(32),
                range: RangeOptions {
                    moving_average,
                    averaging_constant,
                    percentile,
                    num_bins,
                    num_quantized_bins,
                    bias_correction,
                    weight_range,
                },
                reduce_range,
                format,
                smooth_quant: smooth_quant.then_some(ptq::SmoothOptions {
                    alpha: smooth_quant_alpha,
                    no_folding: !smooth_quant_folding,
                    save_smoothed,
                }),
            };
            // Checked before the model is read, as the command line does.
            options.check()?;
            // The command line's stderr lines become warnings.
            let (quantized, notes) = ptq::quantize_and_report(source.load()?, &options)?;
            let bytes = match &output {
                Some(path) => encode::write(&quantized, path).map(|()| None),
                None => Ok(Some(encode::to_bytes(&quantized))),
            }?;
            Ok((bytes, notes))
        })
        .map_err(qlower_error)?;
    for note in notes {
        let message = CString::new(note.replace('\0', " "))?;
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 1)?;
    }
    Ok(bytes.map(|b| PyBytes::new(py, &b)))
}

#[pymodule]
fn qlower(m: &Bound<'_, PyModule>) -> PyResult<()> {
    qlower_core::rewrite::install_panic_hook();
    m.add("QlowerError", m.py().get_type::<QlowerError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(quantize, m)?)?;
    m.add_class::<Session>()?;
    m.add_class::<NodeArg>()?;
    Ok(())
}
