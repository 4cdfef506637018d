//! Differential tests against ONNX Runtime in its exact mode (`session.x64quantprecision=1`,
//! see `tools/ort_oracle.py`): `run.py` generates random quantized models (QLinearConv,
//! QLinearMatMul, ConvInteger, MatMulInteger, QDQ Conv and MatMul, dynamic quantization),
//! runs them with ONNX Runtime and with the `qlower` binary, and compares the outputs; the
//! single integer ops are also compared byte for byte with an exact int64 NumPy reference
//! (`int_reference.py`), independent of ONNX Runtime; a subset also goes through
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
        &["--qlower", QLOWER, "--cases", "260", "--seed", "1"],
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

/// Full-range uint8 x int8 models where ONNX Runtime's default kernels saturate on CPUs
/// without VNNI: qlower and ORT's exact mode must equal the int64 reference everywhere, and
/// where the default mode saturates it must be shown to differ. On a VNNI CPU the script
/// says it has nothing to show, and passes. See `tools/differential/exactness.py`.
#[test]
fn qlower_is_exact_where_onnx_runtime_default_mode_saturates() {
    run_oracle_script(
        "tools/differential/exactness.py",
        &["--qlower", QLOWER],
        "qlower or ONNX Runtime's exact mode is not exact, or the difference is not shown",
    );
}

/// Random ONNX LSTM and GRU layers (every direction, sequence_lens, initial states,
/// peepholes, clip, other activations, input_forget, linear_before_reset, outputs left
/// out) and com.microsoft DynamicQuantizeLSTM with int8 or uint8 weights, against ONNX
/// Runtime. See `tools/differential/recurrent.py`.
#[test]
fn recurrent_layers_agree_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/recurrent.py",
        &["--qlower", QLOWER, "--cases", "60", "--seed", "1"],
        "qlower's recurrent layers disagree with ONNX Runtime",
    );
}

/// Blocked QuantizeLinear/DequantizeLinear (8- and 16-bit, every axis, partial last
/// blocks), 16-bit per-tensor and per-axis ones, a blocked int8 weight read by a
/// MatMul, and INT4/UINT4 weights (per tensor, per axis, blocked) read by a MatMul and
/// quantized round trips, against ONNX Runtime and a numpy reference of the ONNX
/// formulas. See
/// `tools/differential/quant_formats.py`.
#[test]
fn quantization_formats_agree_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/quant_formats.py",
        &["--qlower", QLOWER, "--cases", "60", "--seed", "3"],
        "qlower's blocked, 16-bit or 4-bit quantization disagrees with ONNX Runtime",
    );
}

/// com.microsoft MatMulNBits: MatMuls quantized by ONNX Runtime's MatMulNBits quantizer
/// (4-bit, blocks of 32/64/128, symmetric and asymmetric, accuracy levels 0 and 4) and
/// nodes with float zero points, act-order g_idx, a bias and 8-bit codes, against ONNX
/// Runtime and a float64 reference. See `tools/differential/matmul_nbits.py`.
#[test]
fn matmul_nbits_agrees_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/matmul_nbits.py",
        &["--qlower", QLOWER, "--cases", "40", "--seed", "1"],
        "qlower's MatMulNBits disagrees with ONNX Runtime",
    );
}

/// ONNX Runtime's transformer contrib ops (Gelu, BiasGelu, FastGelu, QuickGelu,
/// BiasAdd, SkipLayerNormalization, SimplifiedLayerNormalization,
/// SkipSimplifiedLayerNormalization) against ONNX Runtime and a float64 reference. See
/// `tools/differential/transformer_contrib.py`.
#[test]
fn transformer_contrib_ops_agree_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/transformer_contrib.py",
        &["--qlower", QLOWER, "--seed", "1"],
        "qlower's transformer contrib ops disagree with ONNX Runtime",
    );
}

/// Linear and cubic Resize of 3-D (N, C, L) data against ONNX Runtime (its 4-D cubic
/// Resize for the cubic cases, which it has no 3-D form of). See
/// `tools/differential/resize_1d.py`.
#[test]
fn resize_of_3d_data_agrees_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/resize_1d.py",
        &["--qlower", QLOWER, "--seed", "1"],
        "qlower's 3-D Resize disagrees with ONNX Runtime",
    );
}

/// Ops whose lowering reads sizes at run time (issue 32): models with symbolic input
/// dimensions, compiled once and run at two sizes, against ONNX Runtime. See
/// `tools/differential/runtime_sizes.py`.
#[test]
fn ops_sized_at_run_time_agree_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/runtime_sizes.py",
        &["--qlower", QLOWER, "--seed", "1"],
        "qlower disagrees with ONNX Runtime on an op sized at run time",
    );
}

/// ONNX Runtime's attention contrib ops (RotaryEmbedding, MultiHeadAttention,
/// GroupQueryAttention with a key/value cache) against ONNX Runtime and a float64
/// reference. See `tools/differential/attention.py`.
#[test]
fn attention_contrib_ops_agree_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/attention.py",
        &["--qlower", QLOWER, "--seed", "1"],
        "qlower's attention contrib ops disagree with ONNX Runtime",
    );
}

/// ONNX's own Attention and RotaryEmbedding (opsets 23 and 24: 3-D and 4-D inputs,
/// grouped heads, bool and float masks, causal, softcap, a past key/value, the
/// qk_matmul_output modes, nonpad_kv_seqlen; rotary with and without position_ids) against ONNX Runtime and a float64 reference. See
/// `tools/differential/onnx_attention.py`.
#[test]
fn onnx_attention_ops_agree_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/onnx_attention.py",
        &["--qlower", QLOWER, "--seed", "1"],
        "qlower's ONNX Attention or RotaryEmbedding disagrees with ONNX Runtime",
    );
}

/// GatherND over sizes known only at run time (batch_dims 0 to 2, negative indices),
/// each model compiled once and run at two sizes, against ONNX Runtime. See
/// `tools/differential/dynamic_gather_nd.py`.
#[test]
fn gather_nd_with_run_time_sizes_agrees_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/dynamic_gather_nd.py",
        &["--qlower", QLOWER],
        "GatherND with run-time sizes disagrees with ONNX Runtime",
    );
}

/// com.microsoft GatherBlockQuantized (4- and 8-bit uint8 tables, zero points given or
/// default, 1-D and 2-D indices) against ONNX Runtime and numpy. See
/// `tools/differential/gather_block_quantized.py`.
#[test]
fn gather_block_quantized_agrees_with_onnx_runtime() {
    run_oracle_script(
        "tools/differential/gather_block_quantized.py",
        &["--qlower", QLOWER],
        "GatherBlockQuantized disagrees with ONNX Runtime",
    );
}
