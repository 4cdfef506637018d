//! Real models that public PyPI packages ship (a Whisper-style QDQ encoder, OCR models, a
//! YOLOX-style and a YOLOv8 detector) and a T5-style encoder that a committed script
//! builds, in their shipped form and quantized here by ONNX Runtime's own tool, each
//! compiled once and the `.mlir` run with `qlower run` (at two sequence lengths or batch
//! sizes where the manifest asks), against ONNX Runtime in exact mode. The packages are
//! downloaded with `pip download --no-deps` into `target/real_models` (or
//! `$QLOWER_MODEL_CACHE`); no model is committed. The (model, form) pairs listed in
//! `tools/real_models/expected_pass.txt` must pass; the others are reported with the
//! error that stops them. See `tools/real_models/run.py`. The detectors' boxes after their
//! packages' own post-processing must be ONNX Runtime's (`detectors.py`), and
//! `qlower quantize` must be as accurate as ONNX Runtime's `quantize_static` on the same
//! calibration data (`quantizer_accuracy.py`). An int4 decoder in ONNX Runtime GenAI's
//! form decodes greedily with its key/value cache as ONNX Runtime does (`genai_decode.py`).

#[path = "../oracle_script.rs"]
mod oracle_script;

use std::sync::Mutex;

use oracle_script::{QLOWER, run_oracle_script};

/// The tests each keep the CPU busy for minutes; run side by side, they would only
/// slow each other and ONNX Runtime's timings.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn real_models_agree_with_onnx_runtime() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    run_oracle_script(
        "tools/real_models/run.py",
        &["--qlower", QLOWER],
        "a real model that must pass disagrees with ONNX Runtime or fails",
    );
}

#[test]
fn qlower_quantize_is_as_accurate_as_onnx_runtimes_quantizer() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    run_oracle_script(
        "tools/real_models/quantizer_accuracy.py",
        &["--qlower", QLOWER],
        "qlower quantize is less accurate than ONNX Runtime's quantize_static on a real model",
    );
}

/// An int4 decoder in ONNX Runtime GenAI's form (MatMulNBits, GroupQueryAttention with
/// rotary embedding and a key/value cache, (Skip)SimplifiedLayerNormalization), built by
/// `make_genai_decoder.py`, compiled once and decoded greedily through `qlower run`:
/// prefill and every decode step match ONNX Runtime on the same inputs, and the two
/// greedy token sequences are the same, at batch 1 and 2. See
/// `tools/real_models/genai_decode.py`.
#[test]
fn an_int4_genai_decoder_decodes_as_onnx_runtime_does() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for batch in ["1", "2"] {
        run_oracle_script(
            "tools/real_models/genai_decode.py",
            &["--qlower", QLOWER, "--batch", batch, "--tokens", "10"],
            "the int4 GenAI-form decoder does not decode as ONNX Runtime does",
        );
    }
}

/// A BERT/MiniLM-class sentence encoder (`make_bert.py`: symbolic batch and sequence,
/// padding mask, mean and GatherND last-token pooling) in six deployed forms (float,
/// int8 weights behind Cast and Mul, ONNX Runtime's quantize_dynamic and quantize_static,
/// its transformer optimizer's fused form, and that quantized dynamically), each compiled
/// once and run at (batch, sequence) (1, 5), (3, 128) and (2, 17). See
/// `tools/real_models/bert_forms.py`.
#[test]
fn a_bert_class_encoder_runs_in_every_deployed_form_at_any_batch_and_length() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    run_oracle_script(
        "tools/real_models/bert_forms.py",
        &["--qlower", QLOWER],
        "a form of the BERT-class encoder disagrees with ONNX Runtime",
    );
}
