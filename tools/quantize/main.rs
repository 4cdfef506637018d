//! End-to-end tests of `qlower quantize` against ONNX Runtime: `check.py` builds float
//! CNN and MLP models, quantizes them in dynamic and static modes, and checks the
//! output with onnx.checker, ONNX Runtime (accuracy against the float model, static
//! minmax parameters against ORT's `quantize_static`) and `qlower run`. See
//! `tools/quantize/check.py`. `int4_accuracy.py` holds `--weight-type int4` to ONNX
//! Runtime's MatMulNBits quantizer. `report.py` checks `quantize --report` and
//! `--keep-16bit`.
//! `opset_upgrade.py` checks the opset converter (`qlower upgrade-opset`, and
//! `quantize --per-channel` on old models) against ONNX Runtime run on the models before
//! and after conversion.

#[path = "../oracle_script.rs"]
mod oracle_script;

use oracle_script::{QLOWER, run_oracle_script};

#[test]
fn quantized_models_agree_with_onnx_runtime() {
    run_oracle_script(
        "tools/quantize/check.py",
        &["--qlower", QLOWER],
        "qlower quantize failed its checks",
    );
}

/// `qlower quantize --weight-type int4` on the decoder of
/// `tools/real_models/make_decoder.py` is at least as accurate against the float model
/// as ONNX Runtime's MatMulNBits quantizer, symmetric and asymmetric, at block sizes 32,
/// 64 and 128, and its model runs in qlower as in ONNX Runtime. See
/// `tools/quantize/int4_accuracy.py`.
#[test]
fn int4_weights_are_as_accurate_as_onnx_runtimes_quantizer() {
    run_oracle_script(
        "tools/quantize/int4_accuracy.py",
        &["--qlower", QLOWER, "--blocks", "32,64,128"],
        "qlower quantize --weight-type int4 is less accurate than ONNX Runtime's",
    );
}

/// `qlower quantize --report --report-json` on a generated CNN with spiky inputs lists
/// every quantized tensor worst first with finite SQNRs and suggests the input for 16
/// bits; one SQNR equals NumPy's on ONNX Runtime's intermediate tensors; re-quantizing
/// with `--keep-16bit` of the suggestions gives a model ONNX Runtime runs, whose error
/// against the float model is lower. See `tools/quantize/report.py`.
#[test]
fn report_suggestions_lower_the_error() {
    run_oracle_script(
        "tools/quantize/report.py",
        &["--qlower", QLOWER],
        "qlower quantize --report or --keep-16bit failed its checks",
    );
}

/// `qlower upgrade-opset` on small models at opsets 7 to 12 (Softmax family on every
/// axis, Split, Squeeze, Unsqueeze, Reduce*, Clip, Pad, Slice, TopK, Upsample,
/// Resize-10, BatchNormalization, Dropout, Scatter): each result passes onnx.checker's
/// full check and gives ONNX Runtime's outputs of the old model; unconvertible nodes are
/// refused by name. See `tools/quantize/opset_upgrade.py`.
#[test]
fn opset_upgrade_keeps_onnx_runtimes_results() {
    run_oracle_script(
        "tools/quantize/opset_upgrade.py",
        &["--qlower", QLOWER],
        "a model converted by qlower upgrade-opset disagrees with the original",
    );
}

/// `qlower quantize --format qoperator` on a ResNet-18-shaped CNN, an MLP with Gemm and
/// MatMul and the real ppocr-cls: ONNX Runtime runs the QOperator models, `qlower run`
/// equals its exact mode, the graph holds QLinearConv/QLinearMatMul/QGemm (dynamic:
/// ConvInteger/MatMulInteger) with no Q/DQ pair around them, and the error against the
/// float model is within 1.25x of the QDQ form's and of ORT's quantizer's in the same
/// format; `--reduce-range` weights are within int8 [-64, 64] with ORT's scales. See
/// `tools/quantize/forms.py`.
#[test]
fn qoperator_and_reduced_range_forms_agree_with_onnx_runtime() {
    run_oracle_script(
        "tools/quantize/forms.py",
        &["--qlower", QLOWER],
        "qlower quantize --format qoperator or --reduce-range failed its checks",
    );
}

/// `qlower quantize --smooth-quant` on the BERT-class encoder of
/// `tools/real_models/make_bert.py`, plain and with outlier LayerNormalization channels:
/// the smoothed float model gives the float model's outputs within 1e-5 relative L2, the
/// quantized error on held-out inputs is not raised by smoothing, and `--bias-correction`
/// corrects the constant biases Added after MatMuls. See `tools/quantize/smooth_quant.py`.
#[test]
fn smooth_quant_is_exact_in_float_and_does_not_raise_the_error() {
    run_oracle_script(
        "tools/quantize/smooth_quant.py",
        &["--qlower", QLOWER],
        "qlower quantize --smooth-quant or MatMul+Add --bias-correction failed its checks",
    );
}
