//! Real models that public PyPI packages ship (a Whisper-style QDQ encoder, OCR models, a
//! YOLOX-style and a YOLOv8 detector) and a T5-style encoder that a committed script
//! builds, in their shipped form and quantized here by ONNX Runtime's own tool, each
//! compiled once and the `.mlir` run with `qlower run` (at two sequence lengths or batch
//! sizes where the manifest asks), against ONNX Runtime in exact mode. The packages are
//! downloaded with `pip download --no-deps` into `target/real_models` (or
//! `$QLOWER_MODEL_CACHE`); no model is committed. The (model, form) pairs listed in
//! `tools/real_models/expected_pass.txt` must pass; the others are reported with the
//! error that stops them. See `tools/real_models/run.py`.

#[path = "../oracle_script.rs"]
mod oracle_script;

use oracle_script::{QLOWER, run_oracle_script};

#[test]
fn real_models_agree_with_onnx_runtime() {
    run_oracle_script(
        "tools/real_models/run.py",
        &["--qlower", QLOWER],
        "a real model that must pass disagrees with ONNX Runtime or fails",
    );
}
