//! Differential tests against ONNX Runtime: `run.py` generates random quantized models
//! (QLinearConv, QDQ Conv and MatMul, dynamic quantization), runs them with ONNX Runtime and
//! with the `qlower` binary, and compares the outputs; a subset also goes through
//! `qlower MODEL --emit fused -o X.mlir` and `qlower run X.mlir`, and every QLinearConv and
//! QDQ case through `--emit torch` (unfused), whose outputs must be byte-identical to the
//! fused run's. See `tools/differential/run.py`.

use std::path::PathBuf;
use std::process::Command;

const QLOWER: &str = env!("CARGO_BIN_EXE_qlower");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn qlower_agrees_with_onnx_runtime() {
    let root = PathBuf::from(ROOT);
    let python = root.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing; run tools/setup.sh to create the test oracles' venv",
        python.display()
    );
    let script = root.join("tools/differential/run.py");
    let out = Command::new(&python)
        .arg(&script)
        .args(["--qlower", QLOWER, "--cases", "200", "--seed", "1"])
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    if !stderr.trim().is_empty() {
        eprintln!("{stderr}");
    }
    assert!(
        out.status.success(),
        "qlower disagrees with ONNX Runtime ({}); the report is above",
        stdout.lines().last().unwrap_or("no summary")
    );
}

/// ONNX Runtime's QOperator format: one random model per com.microsoft op, small CNN and
/// MLP models quantized by ONNX Runtime, and the ResNet-18-shaped model of
/// `make_resnet18.py`. See `tools/differential/qoperator.py`.
#[test]
fn qoperator_models_agree_with_onnx_runtime() {
    let root = PathBuf::from(ROOT);
    let python = root.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing; run tools/setup.sh to create the test oracles' venv",
        python.display()
    );
    let script = root.join("tools/differential/qoperator.py");
    let out = Command::new(&python)
        .arg(&script)
        .args([
            "--qlower", QLOWER, "--per-op", "6", "--seed", "1", "--resnet",
        ])
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    if !stderr.trim().is_empty() {
        eprintln!("{stderr}");
    }
    assert!(
        out.status.success(),
        "qlower disagrees with ONNX Runtime on QOperator models ({}); the report is above",
        stdout.lines().last().unwrap_or("no summary")
    );
}
