//! The kernels of the `qlower.` ops that `fuse-for-cpu` writes, by op name. The plan
//! looks an op up here and nowhere else: what runs is what the IR says.

use crate::dialect::qlower;
use crate::kernels::linalg::{attention, nbits};
use crate::kernels::ops::elementwise_chain;
use crate::kernels::ops::pool;
use crate::kernels::ops::rotary_embedding;
use crate::kernels::ops::{embed_layer_norm, gather_block_quantized, skip_norm};
use crate::kernels::quantized::{
    dynamic_linear, lookup_table, qlinear, qlinear_binary, qlinear_concat, qlinear_pool,
    qlinear_softmax, quantized_operands,
};
use crate::kernels::{Kernel, Prepare};

/// A fused op's kernel, and how the plan specialises it to constant weights.
pub struct FusedKernel {
    pub kernel: Kernel,
    pub prepare: Option<Prepare>,
}

/// The kernel that runs the `qlower.` op `name`.
pub fn lookup(name: &str) -> Option<FusedKernel> {
    let (kernel, prepare): (Kernel, Option<Prepare>) = match name {
        qlower::ATTENTION => (attention::attention, None),
        qlower::ROTARY_EMBEDDING => (rotary_embedding::rotary_embedding, None),
        qlower::GATHER_BLOCK_QUANTIZED => (gather_block_quantized::gather_block_quantized, None),
        qlower::EMBED_LAYER_NORM => (embed_layer_norm::embed_layer_norm, None),
        qlower::SKIP_LAYER_NORM => (skip_norm::skip_layer_norm, None),
        qlower::RMS_NORM => (skip_norm::rms_norm, None),
        qlower::QLINEAR_CONV => (qlinear::qlinear_conv, Some(qlinear::prepare_conv)),
        qlower::QLINEAR_MATMUL => (qlinear::qlinear_matmul, Some(qlinear::prepare_matmul)),
        qlower::DEQUANTIZED_CONV => (
            quantized_operands::dequantized_conv,
            Some(quantized_operands::prepare_dequantized_conv),
        ),
        qlower::DEQUANTIZED_MATMUL => (
            quantized_operands::dequantized_matmul,
            Some(quantized_operands::prepare_dequantized_matmul),
        ),
        qlower::DEQUANTIZED_MM => (
            quantized_operands::dequantized_mm,
            Some(quantized_operands::prepare_dequantized_mm),
        ),
        qlower::QLINEAR_ADD => (qlinear_binary::qlinear_add, None),
        qlower::QLINEAR_ADD_AS_UINT8 => (qlinear_binary::qlinear_add_as_uint8, None),
        qlower::QLINEAR_MUL => (qlinear_binary::qlinear_mul, None),
        qlower::QLINEAR_MUL_AS_UINT8 => (qlinear_binary::qlinear_mul_as_uint8, None),
        qlower::QLINEAR_SOFTMAX => (qlinear_softmax::softmax, None),
        qlower::QLINEAR_SOFTMAX_AS_UINT8 => (qlinear_softmax::softmax_as_uint8, None),
        qlower::QGLOBAL_AVG_POOL => (qlinear_pool::global_average, None),
        qlower::QAVG_POOL => (qlinear_pool::requantize_average, None),
        qlower::QAVG_POOL_OVER_INPUTS => (qlinear_pool::average_over_inputs, None),
        qlower::QLINEAR_CAT => (qlinear_concat::qlinear_cat, None),
        qlower::QMAX_POOL => (pool::quantized_max_pool, None),
        qlower::DYNAMIC_CONV => (
            dynamic_linear::dynamic_conv,
            Some(dynamic_linear::prepare_dynamic_conv),
        ),
        qlower::DYNAMIC_MATMUL => (
            dynamic_linear::dynamic_matmul,
            Some(dynamic_linear::prepare_dynamic_matmul),
        ),
        qlower::QLINEAR_LOOKUP => (lookup_table::qlinear_lookup, None),
        qlower::DEQUANTIZED_LOOKUP => (lookup_table::dequantized_lookup, None),
        qlower::MATMUL_NBITS => (
            nbits::matmul_nbits_kernel,
            Some(nbits::prepare_matmul_nbits),
        ),
        qlower::ELEMENTWISE_CHAIN => (
            elementwise_chain::elementwise_chain,
            Some(elementwise_chain::prepare),
        ),
        _ => return None,
    };
    Some(FusedKernel { kernel, prepare })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_qlower_op_has_a_kernel_and_nothing_else_does() {
        for name in qlower::ALL {
            assert!(lookup(name).is_some(), "{name}");
        }
        assert!(lookup("qlower.unknown").is_none());
        assert!(lookup("torch.aten.convolution").is_none());
    }
}
