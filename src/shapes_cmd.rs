//! `qlower shapes`: every value's shape, the dimensions known only at run time by name
//! (`[batch,seq,384]`, `[batch,12,seq,32]`), as the import's shape inference sees them.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use qlower::import::named_shapes;
use qlower::onnx::load::load_model;
use qlower::op_tables::op_tables;

#[derive(Args)]
pub struct ShapesArgs {
    /// The ONNX model.
    model: PathBuf,
    /// Print a JSON array of {value, producer, dtype, shape} instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: ShapesArgs) -> Result<()> {
    let model = load_model(&args.model)?;
    let shapes = named_shapes(&model, &op_tables().shapes)?;
    if args.json {
        let rows: Vec<serde_json::Value> = shapes
            .iter()
            .map(|s| {
                serde_json::json!({
                    "value": s.value,
                    "producer": s.producer,
                    "dtype": s.ty.dtype.map(|d| d.to_string()),
                    "shape": s.dims,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    let width = shapes.iter().map(|s| s.value.len()).max().unwrap_or(0);
    let mut out = std::io::stdout().lock();
    for s in &shapes {
        let dtype =
            s.ty.dtype
                .map_or_else(|| "?".to_string(), |d| d.to_string());
        let line = writeln!(
            out,
            "{:<width$}  {:<5} {:<24} {}",
            s.value, dtype, s.dims, s.producer
        );
        // A reader that stops early (`| head`) is not an error.
        match line {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            other => other?,
        }
    }
    Ok(())
}
