//! `fold-constants`: an op whose operands are all constants is evaluated at compile time
//! by the runtime's own kernel, and replaced by constants holding the result, so folding
//! and execution share one semantics. Ops of the Q/DQ set are never folded: folding them
//! is what turns a quantized model into a float one.

use std::rc::Rc;

use anyhow::{Result, anyhow};
use melior::ir::Module;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::{Context, RewriterBase};

use super::constants::{constant_of, elements, fits, is_constant, materialize_as, op_name};
use super::fold_onnx;
use super::limits::FoldLimits;
use super::side_effects::qdq_key;
use crate::dialect::builder::TorchBuilder;
use crate::dialect::qdq::is_qdq;
use crate::dialect::types::TensorType;
use crate::import::shape_inference::ShapeRules;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::{Call, ResultType, lookup};
use crate::rewrite::{self, FailureLog, Outcome, PatternResult};
use crate::runtime::ir_values::result_type;
use melior::ir::ValueLike;

/// Ops the result of which is already a constant; folding them again would loop.
fn is_constant_op(name: &str) -> bool {
    name == "torch.vtensor.literal"
        || name == "torch.prim.ListConstruct"
        || name.starts_with("torch.constant.")
}

/// Whether a pattern rooted at ops named `name` can ever fold one.
fn foldable_name(name: &str) -> bool {
    name == "torch.operator" || (!is_qdq(name) && !is_constant_op(name) && lookup(name).is_some())
}

/// Runs the folding patterns to a fixed point over `module`. Import-form ops are
/// evaluated by the shape rules of `shapes` (kept by the patterns, hence `'static`).
pub fn fold_constants(
    context: &Context,
    module: &mut Module,
    limits: FoldLimits,
    shapes: &'static ShapeRules,
) -> Result<()> {
    // One pattern per op name the module holds: a pattern needs a root name, and the
    // kernels cover far more ops than any one module uses.
    let roots: Vec<String> = super::op_names(module)
        .into_iter()
        .filter(|n| foldable_name(n))
        .collect();
    if roots.is_empty() {
        return Ok(());
    }
    let log = Rc::new(FailureLog::default());
    let mut patterns = Vec::new();
    for root in &roots {
        let body: Box<rewrite::PatternFn> = if root == "torch.operator" {
            Box::new(move |c, op, r| fold_onnx::fold(c, op, r, limits, shapes))
        } else {
            Box::new(move |c, op, r| fold_torch(c, op, r, limits))
        };
        patterns.push(rewrite::op_pattern(
            context,
            root,
            1,
            &[
                "torch.vtensor.literal",
                "torch.constant.int",
                "torch.constant.float",
                "torch.constant.bool",
                "torch.constant.none",
                "torch.prim.ListConstruct",
            ],
            Rc::clone(&log),
            body,
        ));
    }
    rewrite::apply_greedily(context, module, patterns)
}

fn fold_torch<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
    limits: FoldLimits,
) -> PatternResult {
    let name = op_name(op);
    if is_qdq(&qdq_key(op)) {
        crate::no_match!("{name} is a quantization op; it is never folded");
    }
    if touches_float8(op) {
        crate::no_match!("{name} reads or produces float8, which only quantization does");
    }
    if name == "torch.aten._shape_as_tensor"
        && let Some(shape) = static_shape(op)
    {
        // The shape of a statically shaped tensor is known whatever its contents.
        let declared = [result_type(op.result(0)?.into())?];
        return replace_with_constants(context, op, rewriter, &[shape], &declared, limits);
    }
    let Some(kernel) = lookup(&name) else {
        crate::no_match!("the runtime has no kernel for {name}");
    };
    let mut args = Vec::with_capacity(op.operand_count());
    for (i, v) in op.operands().enumerate() {
        if !super::constants::defining_op(v).is_some_and(is_constant) {
            crate::no_match!("operand {i} is not a constant");
        }
        let Some(value) = constant_of(v, limits.max_input_elements) else {
            crate::no_match!("operand {i} is larger than the folding limit or unreadable");
        };
        if elements(&value) > limits.max_input_elements {
            crate::no_match!("operand {i} is larger than the folding limit");
        }
        args.push(value);
    }
    let mut results = Vec::with_capacity(op.result_count());
    for r in op.results() {
        let declared = result_type(r.into())?;
        if let ResultType::Tensor(t) = &declared {
            // Checked before running, so no huge tensor is ever computed.
            let Some(count) = t.static_dims().and_then(|d| {
                d.iter()
                    .try_fold(1usize, |n, &x| n.checked_mul(usize::try_from(x).ok()?))
            }) else {
                crate::no_match!("a result's shape is not static");
            };
            if count > limits.max_output_elements {
                crate::no_match!("a result has {count} elements, over the folding limit");
            }
        }
        results.push(declared);
    }
    let out = match kernel(&Call {
        args: &args,
        results: &results,
    }) {
        Ok(out) => out,
        // The kernel refused these operands; running the op would fail the same way,
        // which is the runtime's error to report, not the compiler's.
        Err(e) => crate::no_match!("the kernel refused the constants: {e:#}"),
    };
    replace_with_constants(context, op, rewriter, &out, &results, limits)
}

/// Whether an operand or result of `op` is a float8 tensor. torch has no quantized
/// float8 type, so float8 quantization is explicit arithmetic ending (or, dequantizing,
/// starting) in a cast to (from) float8 (`conversion/float8.rs`); those casts belong
/// to the Q/DQ rule, and folding them would leave a float model behind.
fn touches_float8(op: OperationRef) -> bool {
    let is_f8 =
        |ty: String| TensorType::parse(&ty).is_some_and(|t| t.dtype.is_some_and(|d| d.is_float8()));
    op.operands().any(|v| is_f8(v.r#type().to_string()))
        || op.results().any(|r| is_f8(r.r#type().to_string()))
}

/// The shape of `op`'s static first operand as an si64 tensor.
fn static_shape(op: OperationRef) -> Option<Value> {
    let ty = TensorType::parse(&op.operand(0).ok()?.r#type().to_string())?;
    let dims = ty.static_dims()?;
    let t = Tensor::new(vec![dims.len()], Data::I64(dims)).ok()?;
    Some(Value::tensor(t))
}

/// Replaces `op`'s results by constants holding `values`, when each fits its declared
/// type and the size limit.
pub(super) fn replace_with_constants<'c, 'a>(
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
    values: &[Value],
    declared: &[ResultType],
    limits: FoldLimits,
) -> PatternResult {
    if values.len() != declared.len() {
        return Err(anyhow!(
            "internal error: {} values for {} results",
            values.len(),
            declared.len()
        ));
    }
    for (i, (v, t)) in values.iter().zip(declared).enumerate() {
        if !fits(v, t) {
            crate::no_match!("result {i} ({}) cannot be written as {t:?}", v.kind());
        }
        if elements(v) > limits.max_output_elements {
            crate::no_match!("result {i} is larger than the folding limit");
        }
    }
    let builder = TorchBuilder::new(context, rewriter, op.location());
    let written = values
        .iter()
        .zip(declared)
        .map(|(v, t)| materialize_as(&builder, v, t))
        .collect::<Result<Vec<_>>>();
    match written {
        Ok(new) => {
            rewriter.replace_op_with_values(op, &new);
            Ok(Outcome::Rewritten)
        }
        Err(e) => {
            builder.erase_inserted();
            Err(e)
        }
    }
}
