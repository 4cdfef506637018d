//! The forms downstream compilers lower, written by `--target iree|torch-mlir` after
//! the canonical pipeline (never by default). Each is a named pass; each file says
//! which limit of torch-mlir or IREE it works around. All keep the quantization
//! explicit and compute the same values.
//! - `decompose-quantize-per-channel`: per-axis quantization as ONNX's arithmetic
//!   (neither compiler lowers `quantize_per_channel`).
//! - `slice-strided-pointwise-conv`: a strided 1×1 convolution of a dequantized tensor
//!   slices the integers first (IREE overflows its stack on the strided form).
//! - `pool-unsigned-as-float`: a max pool of `ui8` integers pools their f32 values
//!   (torch-mlir compares integers as signed).
//! - `materialize-returned-uint8`: a returned `uint8` literal becomes a quantization of
//!   a float literal (torch-mlir's canonicalizer mistypes a returned `uint8` literal).

mod decompose_quantize_per_channel;
mod returned_uint8;
mod strided_pointwise_conv;
mod unsigned_max_pool;

use anyhow::Result;
use melior::Context;
use melior::ir::Module;

use crate::rewrite::{Rule, apply_rules};

pub use returned_uint8::materialize_returned_uint8;

pub fn decompose_quantize_per_channel(context: &Context, module: &mut Module) -> Result<()> {
    let rules: Vec<Rule> = vec![(
        decompose_quantize_per_channel::ROOT,
        decompose_quantize_per_channel::GENERATED.to_vec(),
        Box::new(decompose_quantize_per_channel::rewrite),
    )];
    apply_rules(context, module, rules)
}

pub fn slice_strided_pointwise_conv(context: &Context, module: &mut Module) -> Result<()> {
    let rules: Vec<Rule> = vec![(
        strided_pointwise_conv::ROOT,
        strided_pointwise_conv::GENERATED.to_vec(),
        Box::new(strided_pointwise_conv::rewrite),
    )];
    apply_rules(context, module, rules)
}

pub fn pool_unsigned_as_float(context: &Context, module: &mut Module) -> Result<()> {
    let rules: Vec<Rule> = unsigned_max_pool::ROOTS
        .into_iter()
        .map(|root| -> Rule {
            (
                root,
                unsigned_max_pool::GENERATED.to_vec(),
                Box::new(unsigned_max_pool::rewrite),
            )
        })
        .collect();
    apply_rules(context, module, rules)
}
