//! `expand-recurrent`: a `qlower.lstm` or `qlower.gru` becomes, per direction, a
//! `torch.prim.Loop` over the time steps whose body is the cell in torch ops (`cells.rs`:
//! matmul, sigmoid, tanh, slices, and an `index_put` writing the step's H into Y), so
//! torch-mlir's backend pipeline and IREE, which know nothing of qlower's private ops,
//! compile the layer.
//!
//! Why only in the printed `torch` form: the CPU backend runs the loop too
//! (`runtime/loop_step.rs`), but its fused recurrent kernel is faster, so the forms
//! `qlower run` compiles itself keep the `qlower.` ops.
//!
//! A reverse direction walks `t = T-1 … 0`; directions are stacked on Y's axis 1 and the
//! states' axis 0 (`expand.rs`, which also orders X for sequence_lens and a batch-first
//! layout). A DynamicQuantizeLSTM (the op's X is the quantized tensor the conversion
//! made, its W and R quantized `[D, I, 4H]` / `[D, H, 4H]`) multiplies the dequantized X
//! and weights, and quantizes H at each step from its range (`dynamic_quant.rs`), as
//! ONNX Runtime does. Every attribute and optional input of ONNX's LSTM and GRU has its
//! torch form (peepholes, clip, input_forget, the activations ONNX names); a layer the
//! pass cannot read (an operand that is not a constant where one is expected) stays a
//! `qlower.` op.

mod activations;
mod cells;
mod dynamic_quant;
mod expand;
mod layer;

use anyhow::{Context as _, Result};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::{Block, Location, Module, Region, RegionLike, Type, Value, ValueLike};
use melior::{Context, IrRewriter};

use super::walk::{module_blocks, operations};
use crate::dialect::builder::TorchBuilder;
use expand::Cell;
use layer::{Layer, recurrent_name};

/// Expands every recurrent op the loop form expresses; returns how many.
pub fn expand_recurrent(context: &Context, module: &mut Module) -> Result<usize> {
    let mut layers = Vec::new();
    for block in module_blocks(module) {
        for op in operations(block) {
            if recurrent_name(op).is_some() {
                layers.push(op);
            }
        }
    }
    let rewriter = IrRewriter::new(context);
    let mut expanded = 0;
    for op in layers {
        let Some(layer) = Layer::read(op)? else {
            continue;
        };
        rewriter.as_rewriter_base().set_insertion_point_before(op);
        let b = TorchBuilder::new(context, rewriter.as_rewriter_base(), op.location());
        match expand::expand(&b, op, &layer) {
            Ok(values) => {
                rewriter
                    .as_rewriter_base()
                    .replace_op_with_values(op, &values);
                expanded += 1;
            }
            Err(e) => {
                b.erase_inserted();
                return Err(e.context("expanding a recurrent layer into a loop"));
            }
        }
    }
    Ok(expanded)
}

/// `torch.prim.Loop` over the T steps, carrying the states and Y (`initial`, in that
/// order); returns their values after the last step.
fn time_loop<'c, 'a>(
    b: &TorchBuilder<'c, 'a>,
    cell: &Cell<'c, 'a, '_>,
    initial: &[Value<'c, 'a>],
) -> Result<Vec<Value<'c, 'a>>> {
    let context = b.context();
    let location = Location::unknown(context);
    let types: Vec<Type> = initial.iter().map(|v| v.r#type()).collect();
    let mut arguments = vec![(b.torch_type("int")?, location)];
    arguments.extend(types.iter().map(|&t| (t, location)));
    let go = b.bool(true)?;
    let region = Region::new();
    let block = region.append_block(Block::new(&arguments));
    // The body is built by a builder inserting into the new block; the values it
    // returns live in that block, which the loop op owns once it is built.
    let rewriter = IrRewriter::new(context);
    rewriter
        .as_rewriter_base()
        .set_insertion_point_to_end(block);
    let body = TorchBuilder::new(context, rewriter.as_rewriter_base(), location);
    let values = (0..block.argument_count())
        .map(|i| Ok(block.argument(i)?.into()))
        .collect::<Result<Vec<Value>>>()?;
    let mut yields = vec![body.bool(true)?];
    yields.extend(cells::step(&body, cell, &values)?);
    body.op("torch.prim.Loop.condition", &yields, &[], &[])?;
    let mut operands = vec![cell.steps, go];
    operands.extend_from_slice(initial);
    let op = OperationBuilder::new("torch.prim.Loop", location)
        .add_operands(&operands)
        .add_results(&types)
        .add_regions([region])
        .build()
        .context("building torch.prim.Loop")?;
    let op = b.insert(op)?;
    (0..initial.len())
        .map(|i| Ok(op.result(i)?.into()))
        .collect()
}
