//! Differential tests against ONNX Runtime: `run.py` generates random quantized models
//! (QLinearConv, QDQ Conv and MatMul, dynamic quantization), runs them with ONNX Runtime and
//! with the `qlower` binary, and compares the outputs; a subset also goes through
//! `qlower MODEL --emit fused|backend -o X.mlir` and `qlower run X.mlir`, and every QLinearConv and
//! QDQ case through `--emit torch` (unfused), whose outputs must be byte-identical to the
//! fused run's. See `tools/differential/run.py`.

#[path = "../oracle_script.rs"]
mod oracle_script;

use oracle_script::{QLOWER, run_oracle_script};

#[test]
fn qlower_agrees_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/run.py",
        &["--qlower", QLOWER, "--cases", "200", "--seed", "1"],
        "qlower disagrees with ONNX Runtime",
    );
}

/// ONNX Runtime's QOperator format: one random model per com.microsoft op, QLinearAdd and
/// QLinearMul on every pair of 8-bit values (which must agree exactly), small CNN and MLP
/// models quantized by ONNX Runtime, and the ResNet-18-shaped model of
/// `make_resnet18.py`. See `tools/differential/qoperator.py`.
#[test]
fn qoperator_models_agree_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/qoperator.py",
        &[
            "--qlower", QLOWER, "--per-op", "6", "--seed", "1", "--resnet",
        ],
        "qlower disagrees with ONNX Runtime on QOperator models",
    );
}
