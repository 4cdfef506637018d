//! The private `qlower.` ops that `fuse-for-cpu` writes: each stands for one kernel of
//! the CPU backend, which runs it by name. Their operands are everything the kernel
//! reads, in the kernel's order, so the backend matches no patterns.

/// Requantized convolution: x, x_scale, x_zero_point, w, w_scale, w_zero_point,
/// bias (or none), bias_zero_point (or none), stride, padding, dilation, groups,
/// pads (or none), y_scale, y_zero_point.
pub const QLINEAR_CONV: &str = "qlower.qlinear_conv";
/// Requantized matmul: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
/// y_zero_point.
pub const QLINEAR_MATMUL: &str = "qlower.qlinear_matmul";
/// The float convolution of quantized operands (a fused accumulator used as floats):
/// the convolution's operands.
pub const DEQUANTIZED_CONV: &str = "qlower.dequantized_conv";
/// As `DEQUANTIZED_CONV`, for `torch.aten.matmul`.
pub const DEQUANTIZED_MATMUL: &str = "qlower.dequantized_matmul";
/// As `DEQUANTIZED_CONV`, for `torch.aten.mm`.
pub const DEQUANTIZED_MM: &str = "qlower.dequantized_mm";
/// QLinearAdd: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
/// y_zero_point.
pub const QLINEAR_ADD: &str = "qlower.qlinear_add";
/// QLinearAdd of int8 operands computed as uint8, as ONNX Runtime on x86-64 does.
pub const QLINEAR_ADD_AS_UINT8: &str = "qlower.qlinear_add_as_uint8";
/// QLinearMul; operands as `QLINEAR_ADD`.
pub const QLINEAR_MUL: &str = "qlower.qlinear_mul";
/// QLinearMul of int8 operands computed as uint8.
pub const QLINEAR_MUL_AS_UINT8: &str = "qlower.qlinear_mul_as_uint8";
/// QLinearSoftmax: x, x_scale, dim, y_scale, y_zero_point, y_dtype.
pub const QLINEAR_SOFTMAX: &str = "qlower.qlinear_softmax";
/// QLinearSoftmax of int8 operands computed as uint8.
pub const QLINEAR_SOFTMAX_AS_UINT8: &str = "qlower.qlinear_softmax_as_uint8";
/// QLinearGlobalAveragePool: x, x_scale, x_zero_point, dims, keepdim, y_scale,
/// y_zero_point.
pub const QGLOBAL_AVG_POOL: &str = "qlower.qglobal_avg_pool";
/// An average pool requantized after adding the zero point: the operands of the
/// `quantize_per_tensor` it replaces (the float pool, y_scale, y_zero_point, dtype).
pub const QAVG_POOL: &str = "qlower.qavg_pool";
/// An average pool over asymmetric padding that does not count it: padded x, kernel,
/// stride, padding, ceil_mode, padded ones, y_scale, y_zero_point, dtype, then per
/// view applied afterwards its name and its operands after the input.
pub const QAVG_POOL_OVER_INPUTS: &str = "qlower.qavg_pool_over_inputs";
/// `quantize_per_tensor(cat([dequantize(q₁), …], dim))` of 8-bit per-tensor quantized
/// parts of one type: dim, y_scale, y_zero_point, then the parts (each carries its own
/// scale and zero point).
pub const QLINEAR_CAT: &str = "qlower.qlinear_cat";
/// A max pool on the integers: x, kernel, stride, padding, dilation, ceil_mode,
/// y_scale, y_zero_point (or none, none: the result keeps x's parameters).
pub const QMAX_POOL: &str = "qlower.qmax_pool";
/// Dynamic quantization of a float input (DynamicQuantizeLinear: the scale and zero
/// point from its range), then ConvInteger with 8-bit weights, and the float
/// rescale `float(acc) · (x_scale · w_scale)` plus an optional per-channel bias: x,
/// w, w_zero_point, w_scale, bias (or none), stride, padding, dilation, groups, pads
/// (or none).
pub const DYNAMIC_CONV: &str = "qlower.dynamic_conv";
/// As `DYNAMIC_CONV` for MatMulInteger with a constant 2-D b: a, b, b_zero_point,
/// b_scale, bias (per column, or none).
pub const DYNAMIC_MATMUL: &str = "qlower.dynamic_matmul";
/// An element-wise float function of one 8-bit per-tensor quantized tensor,
/// requantized per tensor, as a table of its value at every input: x, table
/// ([channels, 256], row `c` indexed by x's bit pattern), axis (x's channel axis),
/// y_scale, y_zero_point.
pub const QLINEAR_LOOKUP: &str = "qlower.qlinear_lookup";
/// As `QLINEAR_LOOKUP` for a function whose float result is used as such: x, table
/// ([channels, 256] of f32), axis.
pub const DEQUANTIZED_LOOKUP: &str = "qlower.dequantized_lookup";

/// A float matmul with a block-quantized weight kept packed (com.microsoft
/// MatMulNBits' arithmetic, `kernels::linalg::nbits`): a, packed codes
/// `[N, k_blocks, block·bits/8]` (ONNX Runtime's layout, low-first), scales and zero
/// points `[N · k_blocks]`, K, bits.
pub const MATMUL_NBITS: &str = "qlower.matmul_nbits";
/// Float attention, `softmax(cap((q · kᵀ) ∘ scale) + mask, -1) · v` over f32 tensors with
/// batch dimensions: q, kᵀ, v, scale (a float or one-element tensor, or none),
/// divide (whether the scores are divided by the scale, else multiplied), mask (or
/// none, broadcasting to the scores, added), keep (a boolean tensor broadcasting to
/// the scores, or none), fill (the float that replaces the scores not kept, or
/// none) and softcap (a positive float `c`, or none: `cap(x) = c · tanh(x / c)`,
/// applied before the mask; absent means none).
pub const ATTENTION: &str = "qlower.attention";
/// Rotary position embedding (`kernels::ops::rotary_embedding`): x (f32 `[lead…, H]`),
/// cos and sin (f32, broadcasting to `[lead…, rotary / 2]`), rotary (the features
/// rotated, from the first), interleaved (pairs `(2i, 2i + 1)`, else `(i, i + rotary /
/// 2)`).
pub const ROTARY_EMBEDDING: &str = "qlower.rotary_embedding";
/// Rows of a block-quantized table gathered and dequantized, only those
/// (com.microsoft GatherBlockQuantized, `kernels::ops::gather_block_quantized`):
/// data (uint8 `[R, W]`, 4 or 8 bits a code, the low nibble first), indices, scales
/// (`[R, blocks]`), zero points (packed as data, or none), bits, block_size.
pub const GATHER_BLOCK_QUANTIZED: &str = "qlower.gather_block_quantized";
/// Rows of two or three tables summed and layer-normalized (com.microsoft
/// EmbedLayerNormalization and QEmbedLayerNormalization,
/// `kernels::ops::embed_layer_norm`): gamma, beta, epsilon, then (table, ids) per
/// term, a table f32 or 8-bit quantized per tensor, or (rows, none) for rows already
/// gathered. Results: the norm, and the sum when something else reads it.
pub const EMBED_LAYER_NORM: &str = "qlower.embed_layer_norm";
/// A layer norm over the last axis of a residual sum (com.microsoft
/// SkipLayerNormalization, a transformer block's `LayerNorm(x + residual)`,
/// `kernels::ops::skip_norm`): a, b (or none), c (or none), summed `(a + b) + c`,
/// then gamma (or none), beta (or none), epsilon. Results: the norm, and the sum when
/// something else reads it.
pub const SKIP_LAYER_NORM: &str = "qlower.skip_layer_norm";
/// An RMS norm over the last axis, of a residual sum or of one tensor
/// ((Skip)SimplifiedLayerNormalization, RMSNormalization, T5's and LLaMA's exported
/// norms, `kernels::ops::skip_norm`): a, b (or none), c (or none), gamma (or none),
/// epsilon, whether gamma is the first factor of its product. Results: the norm, and
/// the sum when something else reads it.
pub const RMS_NORM: &str = "qlower.rms_norm";
/// A chain of f32 element-wise ops run as one pass over memory
/// (`kernels::ops::elementwise_chain`): the program (a `!torch.str` of steps such as
/// `div $0 $1; erf $3`), then the chain's inputs.
pub const ELEMENTWISE_CHAIN: &str = "qlower.elementwise_chain";
/// Every `qlower.` op, for the backend's table and its coverage test.
pub const ALL: &[&str] = &[
    ATTENTION,
    ROTARY_EMBEDDING,
    GATHER_BLOCK_QUANTIZED,
    EMBED_LAYER_NORM,
    SKIP_LAYER_NORM,
    RMS_NORM,
    QLINEAR_CONV,
    QLINEAR_MATMUL,
    DEQUANTIZED_CONV,
    DEQUANTIZED_MATMUL,
    DEQUANTIZED_MM,
    QLINEAR_ADD,
    QLINEAR_ADD_AS_UINT8,
    QLINEAR_MUL,
    QLINEAR_MUL_AS_UINT8,
    QLINEAR_SOFTMAX,
    QLINEAR_SOFTMAX_AS_UINT8,
    QGLOBAL_AVG_POOL,
    QAVG_POOL,
    QAVG_POOL_OVER_INPUTS,
    QLINEAR_CAT,
    QMAX_POOL,
    DYNAMIC_CONV,
    DYNAMIC_MATMUL,
    QLINEAR_LOOKUP,
    DEQUANTIZED_LOOKUP,
    MATMUL_NBITS,
    ELEMENTWISE_CHAIN,
];

/// The recurrent layers, which torch's op set cannot express with ONNX's semantics
/// (sequence lengths, peepholes, clip, any activations, GRU's linear_before_reset 0,
/// dynamically quantized weights). Unlike the ops above they appear in the torch form,
/// so they are `torch.operator`s carrying these names, which torch-mlir-opt accepts;
/// the backend runs them by name. Operands are listed in `kernels::ops::recurrent`.
pub const LSTM: &str = "qlower.lstm";
/// ONNX GRU; see `LSTM`.
pub const GRU: &str = "qlower.gru";

/// ONNX NonMaxSuppression, which no torch op expresses (torchvision's `nms` has no
/// per-class limit, score threshold, centre-point boxes or flipped corners). Operands
/// are listed in `kernels::ops::nms`.
pub const NON_MAX_SUPPRESSION: &str = "qlower.non_max_suppression";

/// The `torch.operator` names above.
pub const PRIVATE_OPERATORS: &[&str] = &[LSTM, GRU, NON_MAX_SUPPRESSION];

/// Whether a `torch.operator` name is one of qlower's own ops (not an ONNX op left
/// unlowered).
pub fn is_private_operator(name: &str) -> bool {
    PRIVATE_OPERATORS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::PRIVATE_OPERATORS;

    /// The coverage scan of the lowering sees these only as `torch.operator`; the
    /// backend runs them by name, so each needs a kernel under that name.
    #[test]
    fn every_private_operator_has_a_kernel() {
        for name in PRIVATE_OPERATORS {
            assert!(
                crate::kernels::lookup(name).is_some(),
                "{name} has no kernel"
            );
        }
    }
}
