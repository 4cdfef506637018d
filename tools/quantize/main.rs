//! End-to-end tests of `qlower quantize` against ONNX Runtime: `check.py` builds float
//! CNN and MLP models, quantizes them in dynamic and static modes, and checks the
//! output with onnx.checker, ONNX Runtime (accuracy against the float model, static
//! minmax parameters against ORT's `quantize_static`) and `qlower run`. See
//! `tools/quantize/check.py`.

use std::path::PathBuf;
use std::process::Command;

const QLOWER: &str = env!("CARGO_BIN_EXE_qlower");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn quantized_models_agree_with_onnx_runtime() {
    let root = PathBuf::from(ROOT);
    let python = root.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing; run tools/setup.sh to create the test oracles' venv",
        python.display()
    );
    let script = root.join("tools/quantize/check.py");
    let out = Command::new(&python)
        .arg(&script)
        .args(["--qlower", QLOWER])
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    if !out.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    }
    assert!(
        out.status.success(),
        "qlower quantize failed its checks ({}); the report is above",
        stdout.lines().last().unwrap_or("no summary")
    );
}
