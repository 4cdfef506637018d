//! `qlower quantize`: post-training quantization of a float ONNX model.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use qlower::onnx::load::load_model;
use qlower::quantize::{self, CalibrateMethod, Mode, QType, WeightType, encode};

#[derive(Args)]
pub struct QuantizeArgs {
    /// The float ONNX model.
    model: PathBuf,
    /// Where to write the quantized model.
    #[arg(short, long)]
    output: PathBuf,
    /// `dynamic`: activations quantized at run time; `static`: calibrated Q/DQ pairs;
    /// `weight-only`: implied by `--weight-type int4`.
    #[arg(long, value_enum)]
    mode: Option<Mode>,
    /// Quantize weights per output channel.
    #[arg(long)]
    per_channel: bool,
    /// Folder of calibration samples (`*.npz`, one per sample, keyed by input name).
    #[arg(long, value_name = "DIR")]
    calibration: Option<PathBuf>,
    /// How calibration turns observed values into a range (default: minmax).
    #[arg(long, value_enum)]
    calibrate_method: Option<CalibrateMethod>,
    /// Integer type of activations (16-bit ones in static mode only).
    #[arg(long, value_enum, default_value_t = QType::U8)]
    activation_type: QType,
    /// Integer type of weights (16-bit ones in static mode only; `int4`: weight-only
    /// MatMulNBits, symmetric, in blocks of `--block-size` along K).
    #[arg(long, value_enum, default_value_t = WeightType::I8)]
    weight_type: WeightType,
    /// Block size along K of `--weight-type int4` (a power of two from 16 to 256).
    #[arg(long, value_name = "N")]
    block_size: Option<usize>,
    /// Symmetric activation ranges.
    #[arg(long)]
    activation_symmetric: bool,
    /// Symmetric weight ranges (int8 weights are always symmetric).
    #[arg(long)]
    weight_symmetric: bool,
    /// uint8 activation zero points restricted to 0 (never negative) or 128.
    #[arg(long)]
    activation_restricted_asymmetric: bool,
    /// Op types to quantize, comma-separated (default: Conv,MatMul,Gemm).
    #[arg(long, value_delimiter = ',', value_name = "OPS")]
    op_types: Vec<String>,
    /// Names of nodes to leave in float, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    exclude_nodes: Vec<String>,
}

pub fn run(args: QuantizeArgs) -> Result<()> {
    let (mode, weight_type) = quantize::mode_of(args.mode, args.weight_type, args.block_size)?;
    let options = quantize::Options {
        mode,
        per_channel: args.per_channel,
        calibration: args.calibration,
        calibrate_method: args.calibrate_method,
        activation_type: args.activation_type,
        weight_type,
        activation_symmetric: args.activation_symmetric,
        weight_symmetric: args.weight_symmetric,
        activation_restricted_asymmetric: args.activation_restricted_asymmetric,
        op_types: args.op_types,
        exclude_nodes: args.exclude_nodes,
        block_size: args.block_size.unwrap_or(32),
    };
    // Flags are checked before the model is read, so a bad command line fails fast.
    options.check()?;
    let model = load_model(&args.model)?;
    let (quantized, upgrade) = quantize::quantize_and_report(model, &options)?;
    encode::write(&quantized, &args.output)?;
    if let Some(report) = upgrade.filter(|r| r.changed()) {
        eprintln!(
            "qlower quantize: raised the default opset {report} so that weights are quantized \
             per channel"
        );
    }
    Ok(())
}
