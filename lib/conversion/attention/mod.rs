//! ONNX Runtime's attention contrib ops (com.microsoft) and ONNX's own Attention and
//! RotaryEmbedding (opset 23) as the torch ops they are made of: rotary embedding,
//! multi-head attention and grouped-query attention with a key/value cache, all
//! through one grouped scaled-dot-product core (`core`) and one rotation (`rotary`).

mod core;
mod gqa;
mod mha;
mod onnx_attention;
mod onnx_masks;
mod onnx_rotary;
mod packed;
mod rotary;

use super::Lowerings;

const DOMAIN: &str = "com.microsoft";

pub fn register(r: &mut Lowerings) {
    r.on_domain_op(DOMAIN, "RotaryEmbedding", 1, rotary::rotary_embedding);
    r.on_domain_op(DOMAIN, "MultiHeadAttention", 1, mha::multi_head_attention);
    r.on_domain_op(DOMAIN, "GroupQueryAttention", 1, gqa::group_query_attention);
    r.on_domain_op(DOMAIN, "Attention", 1, packed::attention);
    r.on_domain_op(DOMAIN, "QAttention", 1, packed::qattention);
    r.on_op("Attention", 23, onnx_attention::attention);
    r.on_op("RotaryEmbedding", 23, onnx_rotary::rotary_embedding);
}
