//! `qlower compare`: where a quantized model's error comes from, tensor by tensor.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args;

use qlower::onnx::load::load_model;
use qlower::quantize::report;

#[derive(Args)]
pub struct CompareArgs {
    /// The float ONNX model.
    float: PathBuf,
    /// The quantized (QDQ) model made from it.
    quantized: PathBuf,
    /// Folder of samples (`*.npz`, one per sample, keyed by input name).
    #[arg(long, value_name = "DIR")]
    calibration: PathBuf,
    /// Print a JSON document instead of the table.
    #[arg(long)]
    json: bool,
    /// Show only the N worst tensors (the suggestions still weigh them all).
    #[arg(long, value_name = "N")]
    top: Option<usize>,
}

pub fn run(args: CompareArgs) -> Result<()> {
    check_top(args.top)?;
    if !args.calibration.is_dir() {
        bail!(
            "calibration folder '{}' does not exist or is not a folder",
            args.calibration.display()
        );
    }
    let float = load_model(&args.float)?;
    let quantized = load_model(&args.quantized)?;
    let report = report::compare_with_samples(&float, &quantized, &args.calibration)?;
    print!("{}", render(&report, args.json, args.top));
    Ok(())
}

pub fn check_top(top: Option<usize>) -> Result<()> {
    if top == Some(0) {
        bail!("--top 0 would show nothing: give at least 1, or leave it out for every tensor");
    }
    Ok(())
}

pub fn render(report: &report::Report, json: bool, top: Option<usize>) -> String {
    if json {
        report.json(top)
    } else {
        report.table(top)
    }
}
