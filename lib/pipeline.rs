//! The compiler's pipelines: which passes run for each `--emit` form, the registry of
//! passes that `qlower-opt` exposes as flags, and compiling a model for the backend.

use std::path::Path;

use anyhow::{Context as _, Result, bail};
use melior::Context;
use melior::ir::Module;

use crate::conversion::{Leftovers, convert_onnx_to_torch};
use crate::import::import_model;
use crate::import::shape_inference::ShapeRules;
use crate::ir::context::new_context;
use crate::ir::parse::parse_module;
use crate::onnx::input_sizes;
use crate::onnx::load::load_model;
use crate::onnx::validate::ValidModel;
use crate::op_tables::op_tables;
use crate::runtime::plan::Plan;
use crate::transforms::{self, FoldLimits, downstream};

/// The form `qlower` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The import form: `torch.operator "onnx.X"` for every node.
    Import,
    /// Lowered to the torch dialect with explicit quantization (the default).
    Torch,
    /// As `torch`, then convolutions and matmuls of dequantized operands applied to the
    /// quantized tensors (`fuse-quantized-ops`); `backend` fuses further for `qlower run`.
    Fused,
    /// As `fused`, then each pattern the CPU backend runs as one kernel written as one
    /// `qlower.` op (`fuse-for-cpu`); what `qlower run` and `bench` execute.
    Backend,
}

/// A downstream compiler whose limits `--target` works around (`transforms::downstream`):
/// passes after the canonical pipeline, never a change of the default output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// IREE (`iree-compile --iree-input-type=torch`), 3.13.
    Iree,
    /// torch-mlir's backend pipelines (`torch-mlir-opt`), 20261001.
    TorchMlir,
}

impl Target {
    /// The passes, in order, that write what this compiler lowers; each is in
    /// `passes()`. fold-constants after the decomposition evaluates a constant weight's
    /// quantization arithmetic (it is not a Q/DQ op), so downstream gets int8 weights.
    pub fn passes(self) -> &'static [&'static str] {
        match self {
            Target::Iree => &[
                "decompose-quantize-per-channel",
                "slice-strided-pointwise-conv",
                "pool-unsigned-as-float",
                "fold-constants",
                "canonicalize-quant",
                "dce",
                "materialize-returned-uint8",
                "dce",
            ],
            Target::TorchMlir => &[
                "decompose-quantize-per-channel",
                "pool-unsigned-as-float",
                "fold-constants",
                "canonicalize-quant",
                "dce",
                "materialize-returned-uint8",
                "dce",
            ],
        }
    }
}

/// Settings that passes read; the command lines fill them from flags.
#[derive(Clone, Copy, Debug, Default)]
pub struct PassOptions {
    /// How large a constant `fold-constants` may read or create.
    pub fold_limits: FoldLimits,
}

/// A named transformation of a module, runnable alone from `qlower-opt --NAME`. It
/// returns warnings for the user (ops it left alone, for instance).
pub struct Pass {
    pub name: &'static str,
    pub description: &'static str,
    pub run: for<'c> fn(&'c Context, &mut Module<'c>, &PassOptions) -> Result<Vec<String>>,
}

/// Every pass qlower has, in the order `--help` lists them.
pub fn passes() -> &'static [Pass] {
    &[
        Pass {
            name: "convert-onnx-to-torch",
            description: "Lower torch.operator \"onnx.X\" ops to torch ops with explicit quantization",
            run: run_conversion,
        },
        Pass {
            name: "fold-constants",
            description: "Evaluate ops whose operands are all constants (never Q/DQ ops) with the runtime's kernels",
            run: run_fold_constants,
        },
        Pass {
            name: "inline-constant-if",
            description: "Replace each torch.prim.If whose condition is a constant by the ops of the branch it takes",
            run: run_inline_constant_if,
        },
        Pass {
            name: "canonicalize-quant",
            description: "Merge duplicate constants, fold item of a literal",
            run: run_canonicalize_quant,
        },
        Pass {
            name: "collapse-quant-round-trips",
            description: "Turn _make_*(int_repr(quantize_*(x))) with identical parameters into quantize_*(x), the form fuse-for-cpu matches",
            run: run_collapse_quant_round_trips,
        },
        Pass {
            name: "dce",
            description: "Remove unused ops that are free of side effects",
            run: run_dce,
        },
        Pass {
            name: "fuse-quantized-ops",
            description: "Apply convolutions and matmuls of dequantized operands to the quantized tensors, accumulating in qint32",
            run: run_fuse_quantized_ops,
        },
        Pass {
            name: "expand-recurrent",
            description: "Turn each qlower.lstm/qlower.gru the loop form expresses into a torch.prim.Loop over its time steps, for torch-mlir and IREE (the torch form's last pass)",
            run: run_expand_recurrent,
        },
        Pass {
            name: "decompose-quantize-per-channel",
            description: "Write int_repr(quantize_per_channel(x)) as ONNX's arithmetic, saturate(round(x / s[c]) + z[c]), which torch-mlir and IREE lower (--target)",
            run: run_decompose_quantize_per_channel,
        },
        Pass {
            name: "slice-strided-pointwise-conv",
            description: "Slice the integers of a strided, unpadded 1x1 convolution's dequantized input and convolve with stride 1, which IREE compiles without a stack overflow (--target iree)",
            run: run_slice_strided_pointwise_conv,
        },
        Pass {
            name: "pool-unsigned-as-float",
            description: "Pool ui8 integers as their f32 values between casts, since torch-mlir compares integers as signed (--target)",
            run: run_pool_unsigned_as_float,
        },
        Pass {
            name: "materialize-returned-uint8",
            description: "Return each uint8 literal a function returns as int_repr(quantize_per_tensor(float literal, 1.0, 0)), which torch-mlir does not fold back into a literal it mistypes (--target)",
            run: run_materialize_returned_uint8,
        },
        Pass {
            name: "propagate-permutes",
            description: "Move permutes down through element-wise ops and quantize/dequantize, merging them where they meet and removing those that compose to the identity (the CPU pipelines, first)",
            run: run_propagate_permutes,
        },
        Pass {
            name: "sink-dequantize",
            description: "Move the quantized integers of a per-tensor dequantized tensor through reshapes, slices, permutes and equal-parameter cats, and drop quantize(dequantize(q)) with q's own parameters (the CPU pipelines, before fuse-for-cpu)",
            run: run_sink_dequantize,
        },
        Pass {
            name: "fuse-for-cpu",
            description: "Rewrite each quantized pattern the CPU backend runs as one kernel into one qlower.* op carrying that kernel's operands",
            run: run_fuse_for_cpu,
        },
        Pass {
            name: "compose-lookups",
            description: "Turn qlower.qlinear_mul/add of a tensor and a table lookup of that tensor, or of a tensor and a constant (one value or one per channel), into one qlower.qlinear_lookup, pool bytes before an ascending float lookup, and fold a quantize into a float lookup (the backend form, after fuse-for-cpu)",
            run: run_compose_lookups,
        },
        Pass {
            name: "fuse-gelu",
            description: "Turn the erf and tanh GELUs exporters write op by op (x * (1 + erf(x / sqrt 2)) * 0.5, x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) * 0.5) into torch.aten.gelu, one function of x (the backend form, before fuse-elementwise-chains)",
            run: run_fuse_gelu,
        },
        Pass {
            name: "fuse-elementwise-chains",
            description: "Run each group of f32 element-wise ops of one shape whose intermediate values nothing else reads (exported GELUs, x*sigmoid(x), norm tails) as one qlower.elementwise_chain, one pass over memory with the same roundings (the backend form, last)",
            run: run_fuse_elementwise_chains,
        },
    ]
}

fn run_fuse_gelu<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::fuse_gelu(context, module)?;
    Ok(Vec::new())
}

fn run_fuse_elementwise_chains<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::fuse_elementwise_chains(context, module)?;
    Ok(Vec::new())
}

fn run_fold_constants<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    options: &PassOptions,
) -> Result<Vec<String>> {
    transforms::fold_constants(context, module, options.fold_limits, &op_tables().shapes)?;
    Ok(Vec::new())
}

fn run_inline_constant_if<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::inline_constant_if(context, module)?;
    Ok(Vec::new())
}

fn run_canonicalize_quant<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::canonicalize_quant(context, module)?;
    Ok(Vec::new())
}

fn run_collapse_quant_round_trips<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::collapse_quant_round_trips(context, module)?;
    Ok(Vec::new())
}

fn run_dce<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::dce(context, module);
    Ok(Vec::new())
}

fn run_fuse_quantized_ops<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::fuse_quantized_ops::fuse_quantized_ops(context, module)?;
    Ok(Vec::new())
}

fn run_expand_recurrent<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::expand_recurrent(context, module)?;
    Ok(Vec::new())
}

fn run_materialize_returned_uint8<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    downstream::materialize_returned_uint8(context, module)?;
    Ok(Vec::new())
}

fn run_decompose_quantize_per_channel<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    downstream::decompose_quantize_per_channel(context, module)?;
    Ok(Vec::new())
}

fn run_slice_strided_pointwise_conv<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    downstream::slice_strided_pointwise_conv(context, module)?;
    Ok(Vec::new())
}

fn run_pool_unsigned_as_float<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    downstream::pool_unsigned_as_float(context, module)?;
    Ok(Vec::new())
}

fn run_propagate_permutes<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::propagate_permutes(context, module)?;
    Ok(Vec::new())
}

fn run_sink_dequantize<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::sink_dequantize(context, module)?;
    Ok(Vec::new())
}

fn run_compose_lookups<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::compose_lookups(context, module)?;
    Ok(Vec::new())
}

fn run_fuse_for_cpu<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    transforms::fuse_for_cpu(context, module)?;
    Ok(Vec::new())
}

fn run_conversion<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    _: &PassOptions,
) -> Result<Vec<String>> {
    let leftovers = convert_onnx_to_torch(context, module, &op_tables().lowerings)?;
    Ok(leftover_warning(&leftovers).into_iter().collect())
}

fn leftover_warning(leftovers: &Leftovers) -> Option<String> {
    if leftovers.is_empty() {
        return None;
    }
    let n: usize = leftovers.ops.values().sum();
    let noun = if n == 1 { "op has" } else { "ops have" };
    Some(format!(
        "{n} {noun} no lowering and stayed in import form: {}",
        leftovers.summary()
    ))
}

/// How `compile` treats ops that have no lowering.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Make ops without a lowering an error instead of a warning.
    pub strict: bool,
    /// Settings of the simplification passes.
    pub passes: PassOptions,
    /// The downstream compiler the `torch` form is written for; `None` (the default)
    /// writes the canonical form.
    pub target: Option<Target>,
}

pub struct Compiled<'c> {
    pub module: Module<'c>,
    pub warnings: Vec<String>,
}

/// Imports `model` and runs the passes that produce `emit`.
pub fn compile<'c>(
    context: &'c Context,
    model: &ValidModel,
    emit: Emit,
    options: Options,
) -> Result<Compiled<'c>> {
    if let Some(target) = options.target
        && emit != Emit::Torch
    {
        bail!(
            "--target {} writes the torch form; it does not apply to --emit {}",
            flag_value(target),
            flag_value(emit)
        );
    }
    let tables = op_tables();
    let (mut module, mut warnings) = import_model(context, model, &tables.shapes)?;
    if emit != Emit::Import {
        let leftovers = convert_onnx_to_torch(context, &mut module, &tables.lowerings)?;
        if let Some(w) = leftover_warning(&leftovers) {
            if options.strict {
                bail!("{w} (--strict)");
            }
            warnings.push(w);
        }
        simplify(context, &mut module, &options.passes, &tables.shapes)?;
    }
    if emit == Emit::Torch {
        // Downstream compilers know no qlower op; the forms qlower runs itself keep the
        // fused recurrent kernel (transforms/expand_recurrent/).
        if transforms::expand_recurrent(context, &mut module)? > 0 {
            // The attribute constants the replaced ops read are dead now.
            transforms::dce(context, &mut module);
        }
        if let Some(target) = options.target {
            run_passes(context, &mut module, target.passes(), &options.passes)?;
        }
    }
    if matches!(emit, Emit::Fused | Emit::Backend) {
        // Layout first: permutes that cancel leave Q/DQ round trips next to each other.
        transforms::propagate_permutes(context, &mut module)?;
        transforms::dce(context, &mut module);
        // The `torch` form keeps torch-mlir's round trips; qlower's own fusions match
        // the collapsed form.
        transforms::collapse_quant_round_trips(context, &mut module)?;
        transforms::fuse_quantized_ops::fuse_quantized_ops(context, &mut module)?;
        // Each fusion emits its own zero points and axis constants: merge them. The float
        // operands' dequantizes are dead once the op reads the quantized tensors.
        transforms::canonicalize_quant(context, &mut module)?;
        transforms::dce(context, &mut module);
    }
    if emit == Emit::Backend {
        fuse_for_backend(context, &mut module)?;
    }
    Ok(Compiled { module, warnings })
}

/// How the command line spells `v`.
fn flag_value(v: impl clap::ValueEnum) -> String {
    v.to_possible_value()
        .map(|p| p.get_name().to_string())
        .unwrap_or_default()
}

/// Runs the passes named `names` in order (each must be in `passes()`).
pub fn run_passes<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    names: &[&str],
    options: &PassOptions,
) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    for name in names {
        let Some(pass) = passes().iter().find(|p| p.name == *name) else {
            bail!("no pass is named '{name}'");
        };
        warnings.extend((pass.run)(context, module, options)?);
    }
    Ok(warnings)
}

/// The fused form, without dead ops, to the backend form: `sink-dequantize`,
/// `fuse-for-cpu`, `compose-lookups`, `fuse-gelu` and `fuse-elementwise-chains`, each followed by `dce` where it replaced ops
/// (fuse-for-cpu counts uses, so the ops the first pass replaced must be gone; the float
/// ops each fused op replaced are dead afterwards).
fn fuse_for_backend<'c>(context: &'c Context, module: &mut Module<'c>) -> Result<()> {
    if transforms::sink_dequantize(context, module)? > 0 {
        transforms::dce(context, module);
    }
    transforms::fuse_for_cpu(context, module)?;
    transforms::dce(context, module);
    if transforms::compose_lookups(context, module)? > 0 {
        transforms::dce(context, module);
    }
    // Last: the quantized fusions above match single float ops these would swallow.
    if transforms::fuse_gelu(context, module)? > 0 {
        transforms::dce(context, module);
    }
    if transforms::fuse_elementwise_chains(context, module)? > 0 {
        transforms::dce(context, module);
    }
    Ok(())
}

/// The default simplification after conversion: fold, canonicalize quantization, then
/// remove what became dead.
fn simplify<'c>(
    context: &'c Context,
    module: &mut Module<'c>,
    options: &PassOptions,
    shapes: &'static ShapeRules,
) -> Result<()> {
    transforms::fold_constants(context, module, options.fold_limits, shapes)?;
    transforms::canonicalize_quant(context, module)?;
    // A condition that folded takes its branch out of the If; what the branch computes
    // from constants folds in turn.
    if transforms::inline_constant_if(context, module)? {
        transforms::fold_constants(context, module, options.fold_limits, shapes)?;
        transforms::canonicalize_quant(context, module)?;
    }
    transforms::dce(context, module);
    Ok(())
}

/// Plans the model at `path` for the CPU backend: an `.onnx` file compiled in memory to
/// the `backend` form (`plan_onnx`), or a `.mlir` file (`plan_mlir`). The MLIR context is
/// gone when this returns: a plan holds only plain data.
pub fn plan_model(path: &Path) -> Result<Plan> {
    if path.extension().is_some_and(|e| e == "mlir") {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read '{}'", path.display()))?;
        plan_mlir(&text, &path.display().to_string())
    } else {
        plan_onnx(&load_model(path)?)
    }
}

/// Plans the model at `path` for inputs of the given sizes (by input name): as
/// `plan_model`, except that an `.onnx` whose graph has an If is compiled for those
/// sizes (`onnx::input_sizes`), so conditions on sizes are known at import.
pub fn plan_model_for_sizes(path: &Path, sizes: &[(String, Vec<usize>)]) -> Result<Plan> {
    if path.extension().is_some_and(|e| e == "mlir") {
        return plan_model(path);
    }
    let model = load_model(path)?;
    if !input_sizes::has_if(&model) {
        return plan_onnx(&model);
    }
    let dir = model.dir.clone();
    plan_onnx(&input_sizes::with_input_sizes(&model, sizes, dir)?)
}

/// Plans a loaded model for the CPU backend, compiled in memory to the `backend` form.
pub fn plan_onnx(model: &ValidModel) -> Result<Plan> {
    let context = new_context();
    let module = compile(&context, model, Emit::Backend, Options::default())?.module;
    Plan::new(&module)
}

/// Plans MLIR text printed by qlower (`name` names it in messages), which
/// `collapse-quant-round-trips` and `fuse-for-cpu` bring to the `backend` form (printed
/// `backend` IR has nothing left to fuse).
pub fn plan_mlir(text: &str, name: &str) -> Result<Plan> {
    let context = new_context();
    let mut module = parse_module(&context, text, name)?;
    transforms::propagate_permutes(&context, &mut module)?;
    transforms::dce(&context, &mut module);
    transforms::collapse_quant_round_trips(&context, &mut module)?;
    // The collapsed round trips' int_repr ops are dead; fuse-for-cpu counts uses.
    transforms::dce(&context, &mut module);
    fuse_for_backend(&context, &mut module)?;
    Plan::new(&module)
}
