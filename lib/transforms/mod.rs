//! Simplifications of the lowered IR that never fold quantization away:
//! `fold-constants`, `canonicalize-quant` and `dce`; and the fusions, which keep
//! quantization explicit: `fuse-quantized-ops` and `fuse-for-cpu`. Every one of them
//! reads the Q/DQ set from `dialect::qdq`.

mod canonicalize_quant;
mod constants;
mod cpu_fusion;
mod dce;
pub mod downstream;
mod expand_recurrent;
mod fold_constants;
mod fold_onnx;
pub mod fuse_quantized_ops;
mod inline_constant_if;
mod limits;
mod merge;
mod permute_axes;
mod propagate_permutes;
mod side_effects;
mod walk;

pub use canonicalize_quant::{canonicalize_quant, collapse_quant_round_trips};
pub use cpu_fusion::{
    compose_lookups, fuse_elementwise_chains, fuse_for_cpu, fuse_gelu, sink_dequantize,
};
pub use dce::dce;
pub use expand_recurrent::expand_recurrent;
pub use fold_constants::fold_constants;
pub use inline_constant_if::inline_constant_if;
pub use limits::{DEFAULT_MAX_ELEMENTS, FoldLimits};
pub use propagate_permutes::propagate_permutes;
pub use side_effects::is_pure;

use walk::op_names;
