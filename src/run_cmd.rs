//! `qlower run`: runs a model on the CPU backend and writes each output as `.npy`
//! (float8 outputs, which NumPy cannot hold, as ONNX `TensorProto` `.pb`).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use crate::inputs::{bound_inputs, parse_binding};
use qlower::output::write_bytes;
use qlower::pipeline::{plan_model, plan_model_for_sizes};
use qlower::runtime::inputs::bind_inputs;
use qlower::runtime::io::read_tensor;
use qlower::runtime::io::{encode_output, output_file_name_for};
use qlower::runtime::threads::with_threads;

#[derive(Args)]
pub struct RunArgs {
    /// The model: `.onnx`, or a lowered `.mlir` printed by qlower.
    model: PathBuf,
    /// An input as NAME=FILE, where FILE is `.npy` or `.pb` (repeatable).
    #[arg(short = 'i', long = "input", value_parser = parse_binding)]
    inputs: Vec<(String, PathBuf)>,
    /// Directory for the outputs, written as `<output name>.npy` (`.pb` for float8).
    #[arg(long)]
    out_dir: PathBuf,
    /// Worker threads for the kernels (default: every core).
    #[arg(long)]
    threads: Option<usize>,
}

pub fn run(args: RunArgs) -> Result<()> {
    let (plan, inputs) = if args.model.extension().is_some_and(|e| e == "onnx") {
        // Read first: a model with an If is compiled for these inputs' sizes.
        let read = args
            .inputs
            .iter()
            .map(|(name, file)| {
                let t = read_tensor(file).with_context(|| format!("input '{name}'"))?;
                Ok((name.clone(), t))
            })
            .collect::<Result<Vec<_>>>()?;
        let sizes: Vec<(String, Vec<usize>)> = read
            .iter()
            .map(|(n, t)| (n.clone(), t.shape.clone()))
            .collect();
        let plan = plan_model_for_sizes(&args.model, &sizes)?;
        let inputs = bind_inputs(
            &plan,
            read,
            |_, t| Ok(t),
            |port| format!("give it with -i {}=FILE", port.name),
        )?;
        (plan, inputs)
    } else {
        let plan = plan_model(&args.model)?;
        let inputs = bound_inputs(&plan, &args.inputs)?;
        (plan, inputs)
    };
    plan.check_inputs(&inputs)?;
    // Checked before running, so a long run does not end in an unwritable directory.
    std::fs::create_dir_all(&args.out_dir).with_context(|| {
        format!(
            "cannot create output directory '{}'",
            args.out_dir.display()
        )
    })?;
    let outputs = with_threads(args.threads, || plan.run(inputs))??;
    for (port, tensor) in plan.outputs.iter().zip(&outputs) {
        let path = args
            .out_dir
            .join(output_file_name_for(&port.name, tensor.dtype()));
        let bytes =
            encode_output(tensor, &port.name).with_context(|| format!("output '{}'", port.name))?;
        write_bytes(&path, &bytes)?;
    }
    Ok(())
}
