//! Kernels by op family: each file registers its torch op names in a `lookup` and
//! computes them on any dtype the lowering emits. `promote` and `zip` are the
//! elementwise machinery they share (torch's type promotion, broadcasting loops).

pub mod along;
pub mod arange;
pub mod arith;
pub mod cast;
pub mod clamp;
pub mod compare;
pub mod concat;
pub mod einsum;
pub mod elementwise_chain;
pub mod embed_layer_norm;
pub mod erf;
pub mod fill;
pub mod gather_block_quantized;
pub mod group_norm;
pub mod layer_norm;
pub mod logsumexp;
pub mod math;
mod max_pool_bytes;
mod max_pool_small;
pub mod nms;
pub mod nonzero;
pub mod norm;
pub mod pad;
pub mod pool;
mod promote;
pub mod recurrent;
pub mod reduce;
pub mod reduce_prod_norm;
pub mod resize;
mod resize_antialias;
mod resize_crop;
mod resize_cubic;
pub mod rotary_embedding;
mod row_reduce;
pub mod scalar;
pub mod scatter_gather;
pub mod select;
pub mod shape;
pub mod skip_norm;
pub mod smooth;
pub mod tile;
pub mod triangle;
pub mod trig;
pub mod unary;
pub mod vector_math;
mod zip;

pub(crate) use zip::with_avx2;
