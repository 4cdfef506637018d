//! `qlower upgrade-opset`: the opset converter that `qlower quantize --per-channel`
//! runs on older models, on its own.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use qlower::onnx::load::load_model;
use qlower::op_tables::op_tables;
use qlower::opset_upgrade::{self, MAX_TARGET, MIN_TARGET};
use qlower::quantize::encode;

#[derive(Args)]
pub struct UpgradeArgs {
    /// The ONNX model (default opset 7 to 12).
    model: PathBuf,
    /// Where to write the converted model.
    #[arg(short, long)]
    output: PathBuf,
    /// The default-domain opset to convert to (13 to 18).
    #[arg(long, default_value_t = MIN_TARGET, value_parser = clap::value_parser!(i64).range(MIN_TARGET..=MAX_TARGET))]
    opset: i64,
}

pub fn run(args: UpgradeArgs) -> Result<()> {
    let model = load_model(&args.model)?;
    let (model, report) = opset_upgrade::upgrade(model, args.opset, &op_tables().shapes)?;
    encode::write(&model.proto, &args.output)?;
    if report.changed() {
        eprintln!("qlower upgrade-opset: raised the default opset {report}");
    } else {
        eprintln!(
            "qlower upgrade-opset: the model already imports default opset {}; written unchanged",
            report.from
        );
    }
    Ok(())
}
