//! The `qlower` command line.

mod allocator;
mod bench_cmd;
mod compare_cmd;
mod inputs;
mod quantize_cmd;
mod run_cmd;
mod shapes_cmd;
mod upgrade_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::{Args, Parser, Subcommand};

use qlower::budget::{parse_bytes, set_max_tensor_bytes};
use qlower::ir::context::new_context;
use qlower::onnx::input_sizes::{parse_input_shape, with_fixed_input_sizes};
use qlower::onnx::load::load_model;
use qlower::output::write_display;
use qlower::pipeline::{Emit, Options, PassOptions, Target, compile};
use qlower::timing::PhaseTimer;
use qlower::transforms::FoldLimits;

/// Lowers a quantized ONNX model into MLIR with explicit quantization.
#[derive(Parser)]
#[command(name = "qlower", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    compile: CompileArgs,
    /// Refuse any tensor larger than this many bytes (a model's initializer, a run-time
    /// input or intermediate result, a folded constant) before allocating it.
    /// Accepts K, M, G and T suffixes (binary multiples).
    #[arg(long, global = true, value_name = "BYTES", value_parser = parse_bytes, default_value = "4G")]
    max_tensor_bytes: u64,
}

#[derive(Args)]
struct CompileArgs {
    /// The ONNX model to compile.
    model: Option<PathBuf>,
    /// Where to write the MLIR; `-` is standard output.
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    /// Which form of the IR to print.
    #[arg(long, value_enum, default_value_t = Emit::Torch)]
    emit: Emit,
    /// Write the torch form a downstream compiler lowers, working around what it lacks
    /// (e.g. quantize_per_channel as arithmetic); without it, the canonical form.
    #[arg(long, value_enum)]
    target: Option<Target>,
    /// Fail when an op has no lowering, instead of leaving it in import form.
    #[arg(long)]
    strict: bool,
    /// Fold no op that reads a tensor with more elements than this.
    #[arg(long, value_name = "N", default_value_t = FoldLimits::default().max_input_elements)]
    fold_max_input_elements: usize,
    /// Fold no op whose result would have more elements than this.
    #[arg(long, value_name = "N", default_value_t = FoldLimits::default().max_output_elements)]
    fold_max_output_elements: usize,
    /// List the ONNX ops qlower lowers, with the opset each rule applies from, and exit.
    #[arg(long)]
    list_ops: bool,
    /// Print how long each phase took to standard error.
    #[arg(long)]
    timing: bool,
    /// Compile for an input of this shape, as NAME=D0xD1x... (repeatable): its
    /// dynamic dimensions take these sizes, so shape-dependent branches (an exported
    /// squeeze's If) and shape computations fold.
    #[arg(long = "input-shape", value_name = "NAME=SHAPE", value_parser = parse_input_shape)]
    input_shapes: Vec<(String, Vec<usize>)>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a model on the CPU backend and write its outputs as .npy files.
    Run(run_cmd::RunArgs),
    /// Time a model on the CPU backend.
    Bench(bench_cmd::BenchArgs),
    /// Quantize a float ONNX model (post-training, dynamic or static).
    Quantize(Box<quantize_cmd::QuantizeArgs>),
    /// Measure a quantized model's error against its float model, tensor by tensor.
    Compare(compare_cmd::CompareArgs),
    /// Raise a model's default ONNX opset (7..12 to 13..18), converting the nodes whose
    /// signature or meaning changed.
    UpgradeOpset(upgrade_cmd::UpgradeArgs),
    /// Print every value's shape, naming the dimensions known only at run time.
    Shapes(shapes_cmd::ShapesArgs),
}

fn main() -> ExitCode {
    qlower::rewrite::install_panic_hook();
    allocator::keep_freed_memory();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    set_max_tensor_bytes(cli.max_tensor_bytes);
    match cli.command {
        Some(Command::Run(args)) => run_cmd::run(args),
        Some(Command::Bench(args)) => bench_cmd::run(args),
        Some(Command::Quantize(args)) => quantize_cmd::run(*args),
        Some(Command::Compare(args)) => compare_cmd::run(args),
        Some(Command::UpgradeOpset(args)) => upgrade_cmd::run(args),
        Some(Command::Shapes(args)) => shapes_cmd::run(args),
        None => compile_command(cli.compile),
    }
}

/// Models from this size on get a progress spinner while they compile.
const BIG_MODEL_BYTES: u64 = 32 << 20;

fn compile_command(args: CompileArgs) -> Result<()> {
    if args.list_ops {
        print!(
            "{}",
            qlower::conversion::rule_table(&qlower::op_tables::op_tables().lowerings)
        );
        return Ok(());
    }
    let Some(model_path) = args.model else {
        bail!("no model given; usage: qlower MODEL.onnx -o OUT.mlir (see --help)");
    };
    let mut timer = PhaseTimer::new(args.timing);
    // Big models compile for seconds to minutes: a spinner names the phase (on a terminal).
    let big = std::fs::metadata(&model_path).is_ok_and(|m| m.len() >= BIG_MODEL_BYTES);
    let spinner = big.then(|| qlower::progress::spinner("qlower"));
    let phase = |name: &str| {
        if let Some(s) = &spinner {
            s.set_message(name.to_string());
        }
    };
    phase("load (read, decode, validate)");
    let mut model = load_model(&model_path)?;
    if !args.input_shapes.is_empty() {
        model = with_fixed_input_sizes(&model, &args.input_shapes)?;
    }
    timer.lap("load (read, decode, validate)");
    phase("import and passes");
    let context = new_context();
    let compiled = compile(
        &context,
        &model,
        args.emit,
        Options {
            strict: args.strict,
            passes: PassOptions {
                fold_limits: FoldLimits {
                    max_input_elements: args.fold_max_input_elements,
                    max_output_elements: args.fold_max_output_elements,
                },
            },
            target: args.target,
        },
    )?;
    for w in &compiled.warnings {
        match &spinner {
            Some(s) => s.suspend(|| eprintln!("warning: {w}")),
            None => eprintln!("warning: {w}"),
        }
    }
    // The model's initializers are in the module now; its bytes are no longer needed
    // while the module prints.
    drop(model);
    timer.lap("import and passes");
    phase("print and write");
    write_display(&args.output, &compiled.module.as_operation())?;
    timer.lap("print and write");
    if let Some(s) = spinner {
        s.finish_and_clear();
    }
    timer.report();
    Ok(())
}
