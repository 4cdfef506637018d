//! End-to-end tests of `qlower quantize` against ONNX Runtime: `check.py` builds float
//! CNN and MLP models, quantizes them in dynamic and static modes, and checks the
//! output with onnx.checker, ONNX Runtime (accuracy against the float model, static
//! minmax parameters against ORT's `quantize_static`) and `qlower run`. See
//! `tools/quantize/check.py`.

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
