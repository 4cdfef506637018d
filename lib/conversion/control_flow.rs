//! ONNX `If` → `torch.prim.If`, as torch-mlir lowers it: the condition read with
//! `aten.item` as an int and made a `!torch.bool` by `aten.Bool.int`; the import form's
//! regions (else_branch, then_branch; import/control_flow.rs) moved into prim.If's
//! (then, else); each `torch.operator_terminator` becomes `torch.prim.If.yield`. A
//! branch value whose type is more precise than the If's result (the branches' join)
//! meets it in `torch.tensor_static_info_cast`, since prim.If's regions must yield its
//! result types exactly. The branches' own ops are lowered by the same greedy driver,
//! where they now stand.

use anyhow::{Context as _, Result, bail};
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationLike, OperationRef};
use melior::ir::{Block, BlockRef, Region, RegionLike, Value, ValueLike};

use super::Lowerings;
use super::binder::{Binder, tensor_type_of};
use crate::dialect::builder::TorchBuilder;
use crate::onnx::dtype::DType;

pub(super) fn register(r: &mut Lowerings) {
    r.on_op("If", 1, lower_if);
}

/// The import form's terminator of a branch region.
const TERMINATOR: &str = "torch.operator_terminator";
const YIELD: &str = "torch.prim.If.yield";

/// The region indices of the import form: attribute-name order.
const ELSE_REGION: usize = 0;
const THEN_REGION: usize = 1;

fn lower_if<'c, 'a>(b: &Binder<'c, 'a>, t: &TorchBuilder<'c, 'a>) -> Result<Vec<Value<'c, 'a>>> {
    let op = b.op;
    if op.region_count() != 2 {
        bail!(
            "expected two regions (else_branch, then_branch), found {}",
            op.region_count()
        );
    }
    let cond = b.input(0, "cond")?;
    let cond_ty = b.input_type(0, "cond")?;
    if cond_ty.dtype.is_some_and(|d| d != DType::Bool) {
        bail!("the condition is {cond_ty}; it must be a bool tensor of one element");
    }
    // Check both branches before moving anything: a failed pattern must leave the IR
    // as it found it.
    let mut branches = Vec::new();
    for (index, what) in [(THEN_REGION, "then_branch"), (ELSE_REGION, "else_branch")] {
        let block = branch_block(op, index, b.result_count()).with_context(|| what.to_string())?;
        branches.push(block);
    }
    let result_types: Vec<_> = (0..b.result_count())
        .map(|i| Ok(op.result(i)?.r#type()))
        .collect::<Result<_>>()?;

    let item = t.aten("item", &[cond], t.torch_type("int")?)?;
    let flag = t.aten("Bool.int", &[item], t.torch_type("bool")?)?;
    let regions = [Region::new(), Region::new()];
    for r in &regions {
        r.append_block(Block::new(&[]));
    }
    let prim_if = OperationBuilder::new("torch.prim.If", op.location())
        .add_operands(&[flag])
        .add_results(&result_types)
        .add_regions(regions)
        .build()
        .context("building torch.prim.If")?;
    let prim_if = t.insert(prim_if)?;

    let rewriter = t.rewriter();
    for (dst, src) in branches.into_iter().enumerate() {
        let target = prim_if
            .region(dst)?
            .first_block()
            .context("internal error: a prim.If region without its block")?;
        rewriter.merge_blocks(src, target, &[]);
        let terminator = last_op(target).context("internal error: a branch lost its end")?;
        rewriter.set_insertion_point_before(terminator);
        let mut yields = Vec::with_capacity(result_types.len());
        for (i, v) in terminator.operands().enumerate() {
            yields.push(if v.r#type() == result_types[i] {
                v
            } else {
                let cast = OperationBuilder::new("torch.tensor_static_info_cast", op.location())
                    .add_operands(&[v])
                    .add_results(&[result_types[i]])
                    .build()
                    .context("building torch.tensor_static_info_cast")?;
                rewriter.insert(cast).result(0)?.into()
            });
        }
        let yield_op = OperationBuilder::new(YIELD, op.location())
            .add_operands(&yields)
            .build()
            .with_context(|| format!("building {YIELD}"))?;
        rewriter.insert(yield_op);
        rewriter.erase_op(terminator);
    }
    (0..b.result_count())
        .map(|i| Ok(prim_if.result(i)?.into()))
        .collect()
}

/// The one block of region `index`, checked: no arguments, ending in the terminator
/// with one value per result, each of the result's element type.
fn branch_block<'c, 'a>(
    op: OperationRef<'c, 'a>,
    index: usize,
    results: usize,
) -> Result<BlockRef<'c, 'a>> {
    let region = op.region(index)?;
    let block = region.first_block().context("the region is empty")?;
    if block.next_in_region().is_some() {
        bail!("the region has more than one block");
    }
    if block.argument_count() != 0 {
        bail!(
            "the region's block takes {} arguments; a branch takes none",
            block.argument_count()
        );
    }
    let end = last_op(block).context("the region's block is empty")?;
    if end.name().as_string_ref().as_str() != Ok(TERMINATOR) {
        bail!("the region does not end in {TERMINATOR}");
    }
    if end.operand_count() != results {
        bail!(
            "the branch yields {} values for {results} results",
            end.operand_count()
        );
    }
    for (i, v) in end.operands().enumerate() {
        let yielded = tensor_type_of(v)?;
        let result = tensor_type_of(op.result(i)?.into())?;
        if yielded.dtype != result.dtype {
            bail!("the branch yields {yielded} for result {i}, which is {result}");
        }
    }
    Ok(block)
}

fn last_op<'c, 'a>(block: BlockRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut op = block.first_operation()?;
    while let Some(next) = op.next_in_block() {
        op = next;
    }
    Some(op)
}
