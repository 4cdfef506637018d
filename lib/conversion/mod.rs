//! `convert-onnx-to-torch`: lowers the import form (`torch.operator "onnx.X"`) into
//! torch-dialect ops with explicit quantization, through one pattern rooted at
//! `torch.operator` that dispatches through the rule table.

pub mod binder;
mod legality;
mod lowerings;

mod activations;
mod arg_topk;
mod attention;
mod batch_norm;
mod blocked_quant;
mod concat_split;
mod control_flow;
mod conv;
mod conv_geometry;
mod depth_space;
mod detection;
mod einsum;
mod elementwise;
mod embed_layer_norm;
mod expand_tile;
mod float8;
mod gather_block_quantized;
mod gather_nd;
mod gather_nd_dynamic;
mod gather_slice;
mod group_norm;
mod index_ops;
mod integer_ops;
mod layer_norm;
mod logic;
mod lp_normalization;
mod lrn_mvn;
mod math_ops;
mod matmul;
mod matmul_nbits;
mod microsoft;
mod microsoft_matmul;
mod microsoft_transformer;
mod pad;
mod pooling;
pub(crate) mod qlinear_conv;
mod qlinear_matmul;
pub(crate) mod quant_params;
mod quantization;
mod range_fill;
mod recurrent;
mod reductions;
mod resize;
mod runtime_axes;
mod runtime_ints;
mod scatter_nd_reduce;
mod shape_ops;
mod shape_util;
mod simple_ops;
mod smooth_activations;
mod softmax;
mod trigonometry;
pub(crate) mod typed_ops;
mod window;

use std::collections::BTreeMap;
use std::rc::Rc;

use anyhow::{Result, anyhow};
use melior::ir::Module;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::{Context, RewriterBase};

use crate::dialect::builder::TorchBuilder;
use crate::ops::split_op_name;
use crate::rewrite::{self, FailureLog, Outcome, PatternResult};
use binder::Binder;
pub use lowerings::{Handler, Lowerings};

/// Adds every lowering qlower has to `r`, one family file at a time.
pub(crate) fn register(r: &mut Lowerings) {
    quantization::register(r);
    elementwise::register(r);
    activations::register(r);
    softmax::register(r);
    simple_ops::register(r);
    batch_norm::register(r);
    qlinear_conv::register(r);
    qlinear_matmul::register(r);
    integer_ops::register(r);
    shape_ops::register(r);
    depth_space::register(r);
    detection::register(r);
    gather_nd::register(r);
    gather_slice::register(r);
    concat_split::register(r);
    pad::register(r);
    resize::register(r);
    range_fill::register(r);
    expand_tile::register(r);
    conv::register(r);
    pooling::register(r);
    matmul::register(r);
    microsoft::register(r);
    microsoft_transformer::register(r);
    embed_layer_norm::register(r);
    attention::register(r);
    gather_block_quantized::register(r);
    recurrent::register(r);
    control_flow::register(r);
    math_ops::register(r);
    layer_norm::register(r);
    reductions::register(r);
    logic::register(r);
    arg_topk::register(r);
    index_ops::register(r);
    einsum::register(r);
    smooth_activations::register(r);
    trigonometry::register(r);
    group_norm::register(r);
    lrn_mvn::register(r);
    lp_normalization::register(r);
}

/// The lowering rules as text, one op per line: `domain op since-versions`, e.g.
/// `ai.onnx QuantizeLinear 10, 19`.
pub fn rule_table(lowerings: &Lowerings) -> String {
    let mut rows: BTreeMap<(String, String), Vec<i64>> = BTreeMap::new();
    for (domain, op, since) in lowerings.entries() {
        let domain = if domain.is_empty() { "ai.onnx" } else { domain };
        rows.entry((domain.to_string(), op.to_string()))
            .or_default()
            .push(since);
    }
    rows.into_iter()
        .map(|((domain, op), versions)| {
            let v: Vec<String> = versions.iter().map(|v| v.to_string()).collect();
            format!("{domain} {op} {}\n", v.join(", "))
        })
        .collect()
}

/// What the conversion left in import form because no rule covers it, by op name,
/// domain and the domain's opset version.
#[derive(Debug, Default)]
pub struct Leftovers {
    pub ops: BTreeMap<LeftoverOp, usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LeftoverOp {
    /// The import-form name, e.g. `com.microsoft.QLinearFoo`.
    pub name: String,
    /// `ai.onnx` for the default domain.
    pub domain: String,
    /// The domain's opset version in the enclosing function (0 when none is recorded).
    pub version: i64,
}

impl Leftovers {
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// `onnx.Foo [domain ai.onnx, version 21] (2), com.x.Bar [domain com.x, version 1] (1)`.
    pub fn summary(&self) -> String {
        self.ops
            .iter()
            .map(|(op, n)| {
                format!(
                    "{} [domain {}, version {}] ({n})",
                    op.name, op.domain, op.version
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Runs the conversion over `module` with the handlers of `lowerings` (kept by the
/// pattern, hence `'static`). An op that a rule claims but could not lower is an error
/// quoting the rule's reason; ops without a rule are returned as leftovers.
pub fn convert_onnx_to_torch(
    context: &Context,
    module: &mut Module,
    lowerings: &'static Lowerings,
) -> Result<Leftovers> {
    let log = Rc::new(FailureLog::default());
    let patterns = vec![rewrite::op_pattern(
        context,
        "torch.operator",
        1,
        &[],
        Rc::clone(&log),
        Box::new(move |context, op, rewriter| dispatch(lowerings, context, op, rewriter)),
    )];
    rewrite::apply_greedily(context, module, patterns)?;
    legality::check(module, lowerings, &log)
}

fn dispatch<'c, 'a>(
    lowerings: &Lowerings,
    context: &'c Context,
    op: OperationRef<'c, 'a>,
    rewriter: RewriterBase<'c, 'a>,
) -> PatternResult {
    let name = op
        .attribute("name")
        .ok()
        .and_then(|a| melior::ir::attribute::StringAttribute::try_from(a).ok())
        .map(|s| s.value().to_string())
        .ok_or_else(|| anyhow!("torch.operator has no name"))?;
    let (domain, op_type) = split_op_name(&name);
    let version = crate::ops::opset::version_for(op, domain);
    let Some((_, handler)) = lowerings.lowering(domain, op_type, version) else {
        crate::no_match!("no rule for {name} at opset {version}");
    };
    let binder = Binder::new(context, op, op_type, version);
    let builder = TorchBuilder::new(context, rewriter, op.location());
    let lowered = handler(&binder, &builder).and_then(|values| {
        if values.len() == op.result_count() {
            Ok(values)
        } else {
            Err(anyhow!(
                "internal error: the lowering of {op_type} gave {} values for {} results",
                values.len(),
                op.result_count()
            ))
        }
    });
    match lowered {
        Ok(values) => {
            rewriter.replace_op_with_values(op, &values);
            Ok(Outcome::Rewritten)
        }
        Err(e) => {
            // The driver requires a failed pattern to leave the IR as it was.
            builder.erase_inserted();
            Err(e.context(binder.label()))
        }
    }
}
