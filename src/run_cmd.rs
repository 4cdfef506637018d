//! `qlower run`: runs a model on the CPU backend and writes each output as `.npy`
//! (float8 outputs, which NumPy cannot hold, as ONNX `TensorProto` `.pb`).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use crate::inputs::{bound_inputs, parse_binding};
use qlower::output::write_bytes;
use qlower::pipeline::plan_model;
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
    let plan = plan_model(&args.model)?;
    let inputs = bound_inputs(&plan, &args.inputs)?;
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
