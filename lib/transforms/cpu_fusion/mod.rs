//! `fuse-for-cpu`: rewrites each quantized pattern that the CPU backend runs as one
//! kernel into one explicit `qlower.` op (see `dialect::qlower`), whose operands are
//! everything that kernel reads. The backend then runs every op by its name, so the IR
//! shows what executes.
//!
//! One file per family: float attention, the matmul of a softmax of scaled and
//! masked scores by v (`attention`), the rotation of rotary position embeddings
//! (`rotary`), the dequantized rows of a block-quantized table
//! (`gather_block_quantized`), an embedding sum and its layer norm
//! (`embed_layer_norm`), convolutions and matmuls (`conv_matmul`), element-wise add,
//! mul and softmax (`elementwise`), average pools (`avg_pool`), max pools of quantized
//! or 8-bit integer tensors (`max_pool`), concatenations (`concat`), dynamically quantized convolutions and matmuls (`dynamic`), matmuls
//! with a blocked 4- or 8-bit weight (`nbits`), element-wise float functions of one
//! quantized tensor as lookup tables (`lookup_table`). Each matcher only reads the IR
//! and returns a `Fusion` or declines. `sink_dequantize` is the pass the CPU pipelines
//! run first: it moves quantized integers instead of dequantized floats, so that the
//! matchers see each dequantize next to what consumes it. `compose_lookups` runs after
//! it: a fused product or sum of a tensor and its own lookup becomes one lookup, a max
//! pool of an ascending float lookup pools the bytes first (`pooled_lookup`), and a
//! quantize of a float lookup becomes a byte lookup (`requantized_lookup`).
//!
//! Every match is found first, on the IR as the lowering wrote it, and only then are
//! the ops rewritten. Matchers read their neighbourhood: a QDQ convolution finds its
//! input's scale on the `quantize_per_tensor` another fusion replaces, and whether an
//! int8 operand is a lone Q/DQ pair depends on how many ops read it. Rewriting as the
//! matches are found would make those answers depend on the order the ops were
//! visited in. So this pass does not run on the greedy driver; it walks each block
//! once, and nothing in it can panic (the matchers decline with `None`).

mod attention;
mod avg_pool;
mod compose_lookups;
mod concat;
mod conv_matmul;
mod dynamic;
mod elementwise;
mod elementwise_chain;
mod embed_layer_norm;
mod gather_block_quantized;
mod gelu;
mod lookup_table;
mod max_pool;
mod nbits;
mod pooled_lookup;
mod redundant_clamp;
mod requantized_lookup;
mod rotary;
mod sink_dequantize;
mod skip_norm;

pub use compose_lookups::compose_lookups;
pub use elementwise_chain::fuse_elementwise_chains;
pub use gelu::fuse_gelu;
pub use sink_dequantize::sink_dequantize;

use std::collections::HashMap;

use anyhow::Result;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Module, Type, Value as MlirValue, ValueLike};
use melior::{Context, IrRewriter};

use super::constants::materialize;
use super::walk::{module_blocks, operations};
use crate::dialect::builder::TorchBuilder;
use crate::ir::matchers::op_name;
use crate::kernels::tensor::value::Value;

/// An operand of a fused op: an IR value, or a constant the matcher supplies (written
/// as a `torch.constant.*` or a constant list before the fused op).
#[derive(Clone)]
pub(super) enum Operand<'c, 'a> {
    Ir(MlirValue<'c, 'a>),
    Const(Value),
}

/// A match: the `qlower.` op that replaces the root, and its operands.
pub(super) struct Fusion<'c, 'a> {
    pub op: &'static str,
    pub operands: Vec<Operand<'c, 'a>>,
}

pub(super) fn key<'c>(v: impl ValueLike<'c>) -> usize {
    v.to_raw().ptr as usize
}

/// A fusion, and the values of the chain it replaces that ops outside it still read
/// (an embedding sum returned beside its norm): the fused op computes them too, as
/// its results after the root's, and they are replaced by those. Each is read only
/// after the root, where the fused op goes.
pub(super) struct Match<'c, 'a> {
    pub fusion: Fusion<'c, 'a>,
    pub also: Vec<MlirValue<'c, 'a>>,
}

impl<'c, 'a> From<Fusion<'c, 'a>> for Match<'c, 'a> {
    fn from(fusion: Fusion<'c, 'a>) -> Self {
        Match {
            fusion,
            also: Vec::new(),
        }
    }
}

/// Runs the fusion over `module`; returns how many ops it fused.
pub fn fuse_for_cpu(context: &Context, module: &mut Module) -> Result<usize> {
    let rewriter = IrRewriter::new(context);
    let mut fused = 0;
    for block in module_blocks(module) {
        let ops = operations(block);
        let mut uses: HashMap<usize, usize> = HashMap::new();
        for o in &ops {
            for v in o.operands() {
                *uses.entry(key(v)).or_default() += 1;
            }
        }
        let matches: Vec<(OperationRef, Match)> = ops
            .iter()
            .filter_map(|&o| find(o, &uses).map(|f| (o, f)))
            .collect();
        // Each fused op goes right before its root, reading the original values; the
        // roots are replaced afterwards, which redirects any fused op that read
        // another's root to that root's replacement.
        let mut replacements = Vec::with_capacity(matches.len());
        for (root, Match { fusion, also }) in &matches {
            rewriter
                .as_rewriter_base()
                .set_insertion_point_before(*root);
            let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), root.location());
            let operands = fusion
                .operands
                .iter()
                .map(|o| match o {
                    Operand::Ir(v) => Ok(*v),
                    Operand::Const(c) => materialize(&b, c),
                })
                .collect::<Result<Vec<_>>>()?;
            let types: Vec<Type> = root
                .results()
                .map(|r| r.r#type())
                .chain(also.iter().map(|v| v.r#type()))
                .collect();
            let op = b.op(fusion.op, &operands, &types, &[])?;
            let results: Vec<MlirValue> = op.results().map(Into::into).collect();
            replacements.push(results);
        }
        // The extra values first: one may be another match's root, whose replacement
        // would leave nothing to redirect.
        for ((root, m), results) in matches.iter().zip(&replacements) {
            let extra = results.iter().skip(root.result_count());
            for (&value, &result) in m.also.iter().zip(extra) {
                rewriter
                    .as_rewriter_base()
                    .replace_all_uses_with(value, result);
            }
        }
        for ((root, _), results) in matches.iter().zip(&replacements) {
            let own = &results[..root.result_count().min(results.len())];
            rewriter
                .as_rewriter_base()
                .replace_op_with_values(*root, own);
            fused += 1;
        }
    }
    Ok(fused)
}

/// The fusion rooted at `op`, if any: the op whose result the fused kernel computes.
fn find<'c: 'a, 'a>(
    op: OperationRef<'c, 'a>,
    uses: &HashMap<usize, usize>,
) -> Option<Match<'c, 'a>> {
    match op_name(op).as_str() {
        "torch.aten.layer_norm" => {
            return embed_layer_norm::match_layer_norm(op, uses)
                .or_else(|| skip_norm::match_layer_norm(op, uses));
        }
        "torch.aten.mul.Tensor" => {
            if let Some(m) = skip_norm::match_rms_norm(op, uses) {
                return Some(m);
            }
        }
        _ => {}
    }
    find_fusion(op, uses).map(Match::from)
}

/// The fusion rooted at `op` that replaces its results alone.
fn find_fusion<'c: 'a, 'a>(
    op: OperationRef<'c, 'a>,
    uses: &HashMap<usize, usize>,
) -> Option<Fusion<'c, 'a>> {
    match op_name(op).as_str() {
        "torch.aten.quantize_per_tensor" => conv_matmul::match_quantized(op)
            .or_else(|| elementwise::match_quantized(op))
            .or_else(|| avg_pool::match_quantized(op))
            .or_else(|| max_pool::match_quantized(op))
            .or_else(|| concat::match_quantized(op))
            .or_else(|| lookup_table::match_quantized(op)),
        // Only when the int_repr is the quantize's one use: then the integers are
        // written straight away and the quantize becomes dead.
        "torch.aten.int_repr" if uses.get(&key(op.operand(0).ok()?)) == Some(&1) => {
            conv_matmul::match_int_repr(op)
        }
        "torch.aten.dequantize.self" => conv_matmul::match_dequantized(op),
        "torch.aten.mul.Tensor" => dynamic::match_mul(op).or_else(|| lookup_table::match_float(op)),
        "torch.aten.add.Tensor" => dynamic::match_add(op).or_else(|| lookup_table::match_float(op)),
        name if lookup_table::is_elementwise(name) => lookup_table::match_float(op),
        "torch.aten.matmul" => {
            nbits::match_matmul(op).or_else(|| attention::match_attention(op, uses))
        }
        "torch.aten.cat" => rotary::match_rotary(op, uses),
        "torch.aten.reshape" => {
            rotary::match_rotary(op, uses).or_else(|| gather_block_quantized::match_rows(op))
        }
        "torch.aten.to.dtype" => max_pool::match_integer(op),
        name if name.starts_with("torch.aten.max_pool") => max_pool::match_bytes(op),
        _ => None,
    }
}
