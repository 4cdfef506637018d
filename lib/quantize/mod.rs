//! Post-training quantization of float ONNX models (`qlower quantize`).
//!
//! Both modes edit the `ModelProto` and write it back with prost:
//! - dynamic: float weights of MatMul, Gemm and Conv are stored quantized and read
//!   through a DequantizeLinear; activations go through DynamicQuantizeLinear and a
//!   DequantizeLinear (the QDQ form), so the scale is computed at run time;
//! - static: the float model runs on qlower's own CPU backend over calibration
//!   samples, and activations get QuantizeLinear/DequantizeLinear pairs with the
//!   calibrated parameters, biases int32 with scale x_scale·w_scale.
//!
//! - weight-only (`--weight-type int4`): MatMul weights as 4-bit blocks of a
//!   com.microsoft MatMulNBits, activations left float (`weight_only`).
//!
//! A quantized weight keeps its original name as the output of its DequantizeLinear,
//! so every reader (the quantized op, an op left in float, a graph output) sees the
//! same dequantized tensor, with the per-channel `axis` on its one DequantizeLinear.

mod bias_choice;
mod bias_correction;
mod calibrate;
mod constant_weights;
mod dynamic;
pub mod encode;
mod entropy;
mod graph_edit;
mod histogram;
mod mse_range;
pub mod params;
mod qoperator;
mod range_choice;
mod range_options;
mod ranges;
pub mod report;
mod scale_search;
mod smooth_quant;
mod static_qdq;
mod targets;
mod weight_only;
mod weights;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use crate::onnx::proto::ModelProto;
use crate::onnx::validate::ValidModel;
use crate::op_tables::op_tables;
use crate::opset_upgrade;
pub use params::QType;
pub use range_options::{BiasCorrection, RangeOptions, WeightRange};
pub use smooth_quant::SmoothOptions;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    Dynamic,
    Static,
    /// MatMul weights to int4 MatMulNBits (`--weight-type int4`); nothing else changes.
    WeightOnly,
}

/// `--calibrate-method`: ONNX Runtime's `CalibrationMethod`s, and `mse`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CalibrateMethod {
    /// The smallest and largest values seen.
    Minmax,
    /// A percentile of magnitudes (`--percentile`).
    Percentile,
    /// The range of least KL divergence between the histogram and its quantized form.
    Entropy,
    /// ORT's histogram-span method: [-absmax, absmax] for two-sided tensors, the rule
    /// (which tensors, if any) chosen by error on left-out calibration samples.
    Distribution,
    /// The range of least expected squared error on the actual integer grid.
    Mse,
}

/// `--format`: ONNX Runtime's `QuantFormat`. QDQ writes QuantizeLinear/DequantizeLinear
/// around float ops; QOperator writes the integer ops (QLinearConv, MatMulInteger, ...),
/// converted from the QDQ form by `qoperator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum QuantFormat {
    Qdq,
    Qoperator,
}

/// `--weight-type`: the integer types of `QType`, and int4, which selects the
/// weight-only mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WeightType {
    U8,
    I8,
    U16,
    I16,
    Int4,
}

/// The mode and weight type that `--mode`, `--weight-type` and `--block-size` ask for
/// (int4 implies the weight-only mode), refusing combinations that contradict.
pub fn mode_of(
    mode: Option<Mode>,
    weight_type: WeightType,
    block_size: Option<usize>,
) -> Result<(Mode, QType)> {
    let qtype = match weight_type {
        WeightType::U8 => QType::U8,
        WeightType::I8 => QType::I8,
        WeightType::U16 => QType::U16,
        WeightType::I16 => QType::I16,
        WeightType::Int4 => {
            return match mode {
                None | Some(Mode::WeightOnly) => Ok((Mode::WeightOnly, QType::I8)),
                Some(_) => {
                    bail!("--weight-type int4 is weight-only (MatMulNBits): leave out --mode")
                }
            };
        }
    };
    if block_size.is_some() {
        bail!("--block-size applies to --weight-type int4 only");
    }
    match mode {
        Some(Mode::WeightOnly) => bail!("--mode weight-only needs --weight-type int4"),
        Some(mode) => Ok((mode, qtype)),
        None => bail!("--mode dynamic or --mode static is required (or --weight-type int4)"),
    }
}

/// Everything `qlower quantize` was asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    pub mode: Mode,
    pub per_channel: bool,
    pub calibration: Option<PathBuf>,
    pub calibrate_method: Option<CalibrateMethod>,
    pub activation_type: QType,
    pub weight_type: QType,
    pub activation_symmetric: bool,
    /// Symmetric weights; int8 weights are always symmetric, as in ORT.
    pub weight_symmetric: bool,
    pub activation_restricted_asymmetric: bool,
    /// Op types to quantize; empty means MatMul, Gemm and Conv.
    pub op_types: Vec<String>,
    pub exclude_nodes: Vec<String>,
    /// Op types whose nodes stay float (ORT's `op_types_to_exclude`).
    pub exclude_op_types: Vec<String>,
    /// Tensors (activations or weights) quantized to 16 bits whatever the types
    /// (ORT's `TensorQuantOverrides` with a 16-bit `quant_type`); static mode.
    pub keep_16bit: Vec<String>,
    /// Tensors left float; static mode.
    pub keep_float: Vec<String>,
    /// Weight-only mode's block size along K.
    pub block_size: usize,
    /// How ranges and weight scales are chosen (calibration options, bias correction).
    pub range: RangeOptions,
    /// Weights on one bit fewer (ORT's `reduce_range`, `QType::codes`).
    pub reduce_range: bool,
    /// QDQ pairs, or the QOperator ops they convert to.
    pub format: QuantFormat,
    /// `--smooth-quant`: activation outliers moved into the weights before quantizing.
    pub smooth_quant: Option<SmoothOptions>,
}

impl Options {
    /// The command's defaults: per tensor, uint8 activations, int8 weights, asymmetric
    /// activations, every supported op type.
    pub fn with_defaults(mode: Mode) -> Options {
        Options {
            mode,
            per_channel: false,
            calibration: None,
            calibrate_method: None,
            activation_type: QType::U8,
            weight_type: QType::I8,
            activation_symmetric: false,
            weight_symmetric: false,
            activation_restricted_asymmetric: false,
            op_types: Vec::new(),
            exclude_nodes: Vec::new(),
            exclude_op_types: Vec::new(),
            keep_16bit: Vec::new(),
            keep_float: Vec::new(),
            block_size: 32,
            range: RangeOptions::default(),
            reduce_range: false,
            format: QuantFormat::Qdq,
            smooth_quant: None,
        }
    }
}

/// Op types that carry a weight this tool quantizes.
pub const WEIGHT_OPS: &[&str] = &["Conv", "MatMul", "Gemm"];

/// Op types that static mode can wrap in Q/DQ on their activations alone.
pub const ACTIVATION_OPS: &[&str] = &[
    "Relu",
    "Add",
    "Mul",
    "MaxPool",
    "AveragePool",
    "GlobalAveragePool",
    "Sigmoid",
    "Flatten",
    "Reshape",
    "Transpose",
    "Concat",
];

impl Options {
    /// Refuses contradictory or mode-inapplicable flags before anything is read.
    pub fn check(&self) -> Result<()> {
        self.range.check(self.mode, self.calibrate_method)?;
        if let Some(smooth) = &self.smooth_quant {
            if self.mode != Mode::Static {
                bail!(
                    "--smooth-quant needs --mode static: it measures activations on the calibration samples"
                );
            }
            smooth.check()?;
        }
        if self.activation_symmetric && self.activation_restricted_asymmetric {
            bail!(
                "--activation-symmetric and --activation-restricted-asymmetric exclude each other"
            );
        }
        match self.mode {
            Mode::WeightOnly => {
                let ignored = [
                    (self.per_channel, "--per-channel"),
                    (self.calibration.is_some(), "--calibration"),
                    (self.calibrate_method.is_some(), "--calibrate-method"),
                    (self.activation_symmetric, "--activation-symmetric"),
                    (
                        self.activation_restricted_asymmetric,
                        "--activation-restricted-asymmetric",
                    ),
                    (self.activation_type != QType::U8, "--activation-type"),
                    (!self.op_types.is_empty(), "--op-types"),
                    (!self.exclude_nodes.is_empty(), "--exclude-nodes"),
                    (!self.exclude_op_types.is_empty(), "--exclude-op-types"),
                    (!self.keep_16bit.is_empty(), "--keep-16bit"),
                    (!self.keep_float.is_empty(), "--keep-float"),
                    (self.reduce_range, "--reduce-range"),
                    (self.format != QuantFormat::Qdq, "--format"),
                ];
                if let Some((_, flag)) = ignored.iter().find(|(set, _)| *set) {
                    bail!(
                        "{flag} does not apply to --weight-type int4, which quantizes MatMul \
                         weights only (symmetric, blocked) and leaves activations float"
                    );
                }
                return weight_only::check_block_size(self.block_size);
            }
            Mode::Static => {
                if self.calibration.is_none() {
                    bail!("--mode static needs --calibration DIR (a folder of .npz samples)");
                }
            }
            Mode::Dynamic => {
                let static_only = [
                    (self.calibration.is_some(), "--calibration"),
                    (self.calibrate_method.is_some(), "--calibrate-method"),
                    (self.activation_symmetric, "--activation-symmetric"),
                    (
                        self.activation_restricted_asymmetric,
                        "--activation-restricted-asymmetric",
                    ),
                    (self.activation_type == QType::I8, "--activation-type i8"),
                    (self.activation_type == QType::U16, "--activation-type u16"),
                    (self.activation_type == QType::I16, "--activation-type i16"),
                    (self.weight_type == QType::U16, "--weight-type u16"),
                    (self.weight_type == QType::I16, "--weight-type i16"),
                    (!self.keep_16bit.is_empty(), "--keep-16bit"),
                    (!self.keep_float.is_empty(), "--keep-float"),
                ];
                if let Some((_, flag)) = static_only.iter().find(|(set, _)| *set) {
                    bail!(
                        "{flag} applies to --mode static only: dynamic mode quantizes activations \
                         at run time with DynamicQuantizeLinear (uint8)"
                    );
                }
            }
        }
        if let Some(both) = self.keep_16bit.iter().find(|t| self.keep_float.contains(t)) {
            bail!("'{both}' is in both --keep-16bit and --keep-float");
        }
        for op in &self.op_types {
            let known = WEIGHT_OPS.contains(&op.as_str())
                || (self.mode == Mode::Static && ACTIVATION_OPS.contains(&op.as_str()));
            if !known {
                let mut list: Vec<&str> = WEIGHT_OPS.to_vec();
                if self.mode == Mode::Static {
                    list.extend(ACTIVATION_OPS);
                }
                bail!(
                    "--op-types: '{op}' cannot be quantized in {} mode (supported: {})",
                    match self.mode {
                        Mode::Dynamic => "dynamic",
                        _ => "static",
                    },
                    list.join(", ")
                );
            }
        }
        Ok(())
    }

    /// The 16-bit type of the same signedness as the activation type, for
    /// `--keep-16bit` activations.
    fn wide_activation_type(&self) -> QType {
        match self.activation_type {
            QType::U8 | QType::U16 => QType::U16,
            QType::I8 | QType::I16 => QType::I16,
        }
    }

    fn weight_symmetric(&self) -> bool {
        self.weight_symmetric || matches!(self.weight_type, QType::I8 | QType::I16)
    }
}

/// Quantizes `model` as `options` say and returns the new model.
pub fn quantize(model: ValidModel, options: &Options) -> Result<ModelProto> {
    quantize_and_report(model, options).map(|(model, _)| model)
}

/// The opset per-channel weights need: DequantizeLinear's `axis` came with 13.
pub const PER_CHANNEL_OPSET: i64 = 13;

/// `quantize`, also returning what the user should be told (a line each, printed by
/// the command line on stderr and raised by Python as warnings):
/// - how the model's opset was raised. Per-channel weights need DequantizeLinear's
///   `axis`, so a model older than opset 13 is first converted to 13 (`opset_upgrade`);
///   ONNX Runtime's quantizer instead quantizes such a model per tensor without saying so;
/// - that nothing could be quantized, when no Conv, MatMul or Gemm has a constant float
///   weight (at the top level: nodes inside If subgraphs are not quantized). The model
///   is then returned unchanged, as ONNX Runtime's quantizer writes it, instead of
///   being refused.
pub fn quantize_and_report(
    model: ValidModel,
    options: &Options,
) -> Result<(ModelProto, Vec<String>)> {
    options.check()?;
    let mut notes = Vec::new();
    let graph = model
        .proto
        .graph
        .as_ref()
        .context("the model has no graph")?;
    if options.mode != Mode::WeightOnly && !targets::has_weights(graph, options)? {
        let nested = graph.node.iter().any(|n| {
            n.attribute
                .iter()
                .any(|a| a.g.is_some() || !a.graphs.is_empty())
        });
        notes.push(format!(
            "nothing to quantize: no Conv, MatMul or Gemm node{} has a float \
             initializer or Constant as its weight; the model is written unchanged",
            if nested {
                " outside the model's subgraphs (whose nodes are not quantized)"
            } else {
                ""
            }
        ));
        return Ok((model.proto, notes));
    }
    let model = if options.per_channel
        && options.mode != Mode::WeightOnly
        && model.default_opset() < PER_CHANNEL_OPSET
    {
        let opset = model.default_opset();
        let (model, done) = opset_upgrade::upgrade(model, PER_CHANNEL_OPSET, &op_tables().shapes)
            .with_context(|| {
            format!(
                "the model imports default opset {opset}, and per-channel weights need \
                 opset {PER_CHANNEL_OPSET}; converting it failed"
            )
        })?;
        if done.changed() {
            notes.push(format!(
                "raised the default opset {done} so that weights are quantized per channel"
            ));
        }
        model
    } else {
        model
    };
    let model = match &options.smooth_quant {
        Some(smooth) => smooth_quant::smooth(model, options, smooth)?,
        None => model,
    };
    let quantized = match options.mode {
        Mode::Dynamic => dynamic::quantize(model, options),
        Mode::Static => static_qdq::quantize(model, options),
        Mode::WeightOnly => weight_only::quantize(model, options.block_size),
    }?;
    let quantized = match options.format {
        QuantFormat::Qdq => quantized,
        QuantFormat::Qoperator => qoperator::convert(quantized)?,
    };
    Ok((quantized, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(mode: Mode) -> Options {
        Options::with_defaults(mode)
    }

    #[test]
    fn symmetric_and_restricted_exclude_each_other() {
        let mut o = options(Mode::Static);
        o.calibration = Some(PathBuf::from("calib"));
        o.activation_symmetric = true;
        o.activation_restricted_asymmetric = true;
        let e = o.check().unwrap_err().to_string();
        assert!(e.contains("exclude each other"), "{e}");
    }

    #[test]
    fn static_needs_calibration_and_dynamic_refuses_it() {
        assert!(options(Mode::Static).check().is_err());
        let mut o = options(Mode::Dynamic);
        o.calibration = Some(PathBuf::from("calib"));
        assert!(o.check().is_err());
        let mut o = options(Mode::Dynamic);
        o.activation_type = QType::I8;
        assert!(o.check().is_err());
        assert!(options(Mode::Dynamic).check().is_ok());
    }

    #[test]
    fn activation_op_types_are_for_static_mode() {
        let mut o = options(Mode::Dynamic);
        o.op_types = vec!["Relu".into()];
        assert!(o.check().is_err());
        let mut o = options(Mode::Static);
        o.calibration = Some(PathBuf::from("calib"));
        o.op_types = vec!["Conv".into(), "Relu".into()];
        assert!(o.check().is_ok());
    }
}
