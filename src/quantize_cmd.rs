//! `qlower quantize`: post-training quantization of a float ONNX model.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;

use qlower::onnx::load::load_model;
use qlower::quantize::{
    self, BiasCorrection, CalibrateMethod, Mode, QType, QuantFormat, RangeOptions, WeightRange,
    WeightType, encode, report,
};

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
    /// Op types to leave in float, comma-separated (ORT's `op_types_to_exclude`).
    #[arg(long, value_delimiter = ',', value_name = "OPS")]
    exclude_op_types: Vec<String>,
    /// Tensors (activations or weights) to quantize to 16 bits, comma-separated:
    /// uint16/int16 activations (the activation type's signedness), int16 weights.
    #[arg(long = "keep-16bit", value_delimiter = ',', value_name = "NAMES")]
    keep_16bit: Vec<String>,
    /// Tensors (activations or weights) to leave in float, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    keep_float: Vec<String>,
    /// After quantizing (static mode), compare the model with the float one over the
    /// calibration samples and print where the error comes from: on standard error,
    /// or into FILE with `--report=FILE`.
    #[arg(long, value_name = "FILE", num_args = 0..=1, require_equals = true, default_missing_value = "-")]
    report: Option<PathBuf>,
    /// Write the report as JSON instead of a table.
    #[arg(long, requires = "report")]
    report_json: bool,
    /// Check the report's 16-bit suggestions: keep each in turn, quantize again and
    /// run, and keep those that raise the outputs' SQNR (one quantization per
    /// suggestion).
    #[arg(long, requires = "report")]
    verify_suggestions: bool,
    /// Weights on 7 bits (int8 [-64, 64], uint8 [0, 127]), ONNX Runtime's
    /// `reduce_range`, for CPUs without VNNI whose u8·s8 pair sums saturate at 16 bits.
    #[arg(long)]
    reduce_range: bool,
    /// `qdq`: QuantizeLinear/DequantizeLinear around float ops; `qoperator`: ONNX
    /// Runtime's QOperator ops (QLinearConv, QLinearMatMul, QGemm, MatMulInteger, ...).
    /// `--quant-format` is ORT's name for it.
    #[arg(long, alias = "quant-format", value_enum, default_value_t = QuantFormat::Qdq)]
    format: QuantFormat,
    #[command(flatten)]
    range: RangeArgs,
    /// SmoothQuant (ORT's SmoothQuant): divide each MatMul/Gemm activation channel by
    /// s = max|x|^α / max|w|^(1-α) and multiply the weight rows by s before quantizing;
    /// static mode.
    #[arg(long)]
    smooth_quant: bool,
    /// SmoothQuant's α in [0, 1] (ORT's SmoothQuantAlpha); by default chosen on the
    /// calibration samples among 0.3 to 0.8, or no smoothing, by output error.
    #[arg(long, value_name = "A", requires = "smooth_quant")]
    smooth_quant_alpha: Option<f32>,
    /// Always insert a Mul by 1/s rather than folding it into a LayerNormalization
    /// producer (ORT's SmoothQuantFolding=False).
    #[arg(long, requires = "smooth_quant")]
    no_smooth_quant_folding: bool,
    /// Also write the smoothed float model (before quantization) to FILE.
    #[arg(long, value_name = "FILE", requires = "smooth_quant")]
    save_smoothed: Option<PathBuf>,
}

/// How ranges and weight scales are chosen (ONNX Runtime's calibration options where
/// it has them).
#[derive(Args)]
struct RangeArgs {
    /// Min-max ranges as the moving average of each sample's (ORT's CalibMovingAverage).
    #[arg(long)]
    moving_average: bool,
    /// The moving average's constant, in [0, 1] (default 0.01; CalibMovingAverageConstant).
    #[arg(long, value_name = "C")]
    averaging_constant: Option<f32>,
    /// Percentile of magnitudes kept by `--calibrate-method percentile` (default 99.999).
    #[arg(long, value_name = "P")]
    percentile: Option<f64>,
    /// Bins of the histogram methods' histograms (default 2048; entropy 128, as ORT, which
    /// with 128 quantized bins leaves one window: raise it for a real search).
    #[arg(long, value_name = "N")]
    num_bins: Option<usize>,
    /// Levels of the entropy method's quantized histogram (default 128, as ORT).
    #[arg(long, value_name = "N")]
    num_quantized_bins: Option<usize>,
    /// Correct each quantized Conv and Gemm bias, and the constant bias Added to a
    /// quantized MatMul's output, by the output shift that quantizing its weight causes
    /// on the calibration samples. `auto` (the default) corrects when that lowers the
    /// error on left-out calibration samples; the bare flag means `on`.
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        num_args = 0..=1,
        default_value_t = BiasCorrection::Auto,
        default_missing_value = "on"
    )]
    bias_correction: BiasCorrection,
    /// How weight scales are chosen: `minmax` (ORT's) or `mse` (least squared error per
    /// channel, symmetric weights).
    #[arg(long, value_enum, default_value_t = WeightRange::Minmax)]
    weight_range: WeightRange,
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
        exclude_op_types: args.exclude_op_types,
        keep_16bit: args.keep_16bit,
        keep_float: args.keep_float,
        block_size: args.block_size.unwrap_or(32),
        range: RangeOptions {
            moving_average: args.range.moving_average,
            averaging_constant: args.range.averaging_constant,
            percentile: args.range.percentile,
            num_bins: args.range.num_bins,
            num_quantized_bins: args.range.num_quantized_bins,
            bias_correction: args.range.bias_correction,
            weight_range: args.range.weight_range,
        },
        reduce_range: args.reduce_range,
        format: args.format,
        smooth_quant: args.smooth_quant.then_some(quantize::SmoothOptions {
            alpha: args.smooth_quant_alpha,
            no_folding: args.no_smooth_quant_folding,
            save_smoothed: args.save_smoothed,
        }),
    };
    // Flags are checked before the model is read, so a bad command line fails fast.
    options.check()?;
    if args.report.is_some() && options.mode != Mode::Static {
        bail!("--report needs --mode static: it compares over the calibration samples");
    }
    if args.report.is_some() && options.format == QuantFormat::Qoperator {
        bail!(
            "--report needs --format qdq: it finds each quantized tensor through its \
             DequantizeLinear, which the QOperator ops replace"
        );
    }
    let model = load_model(&args.model)?;
    let (quantized, notes) = quantize::quantize_and_report(model, &options)?;
    encode::write(&quantized, &args.output)?;
    for note in notes {
        eprintln!("qlower quantize: {note}");
    }
    let (Some(to), Some(dir)) = (&args.report, &options.calibration) else {
        return Ok(());
    };
    // The model is read again rather than kept: quantizing consumes it.
    let float = load_model(&args.model)?;
    let quantized = load_model(&args.output)?;
    let mut report = report::compare_with_samples(&float, &quantized, dir)?;
    if args.verify_suggestions {
        report::verify_suggestions(&float, &options, &mut report, dir)?;
    }
    let text = crate::compare_cmd::render(&report, args.report_json, None);
    if to.as_os_str() == "-" {
        eprint!("{text}");
        Ok(())
    } else {
        qlower::output::write_output(to, &text)
    }
}
