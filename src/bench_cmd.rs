//! `qlower bench`: times a model on the CPU backend. Inputs come from files or are
//! random tensors of the declared types; the report is the median and minimum.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use clap::Args;

use crate::inputs::{bound_inputs, parse_binding, random_input};
use qlower::pipeline::plan_model;
use qlower::progress;
use qlower::runtime::threads::{thread_count, with_threads};

#[derive(Args)]
pub struct BenchArgs {
    /// The model: `.onnx`, or a lowered `.mlir` printed by qlower.
    model: PathBuf,
    /// An input as NAME=FILE (repeatable); inputs not given are random.
    #[arg(short = 'i', long = "input", value_parser = parse_binding)]
    inputs: Vec<(String, PathBuf)>,
    /// Timed runs.
    #[arg(long, default_value_t = 50)]
    iterations: usize,
    /// Untimed runs before the timed ones.
    #[arg(long, default_value_t = 5)]
    warmup: usize,
    /// Worker threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON line instead of text.
    #[arg(long)]
    json: bool,
    /// Also time each step of the plan: per op kind (time per run, share, calls) and the
    /// slowest steps, in the text or under "profile" in the JSON.
    #[arg(long)]
    profile: bool,
    /// How many of the slowest steps --profile lists.
    #[arg(long, default_value_t = 15)]
    profile_top: usize,
}

pub fn run(args: BenchArgs) -> Result<()> {
    if args.iterations == 0 {
        bail!("--iterations must be at least 1");
    }
    let plan = plan_model(&args.model)?;
    let inputs = if args.inputs.is_empty() {
        plan.inputs
            .iter()
            .enumerate()
            .map(|(i, p)| random_input(p, i as u64 + 1))
            .collect::<Result<Vec<_>>>()?
    } else {
        bound_inputs(&plan, &args.inputs)?
    };
    let threads = thread_count(args.threads)?;
    // The timed runs are never profiled; --profile adds as many profiled runs after them,
    // so the median and minimum stay free of the profiler's clock reads.
    let profiled = if args.profile { args.iterations } else { 0 };
    let runs = args.warmup + args.iterations + profiled;
    // On a terminal only; the bar is drawn between runs, from this thread.
    let progress = progress::bar(runs as u64, "bench");
    let (times, profile) = with_threads(Some(threads), || -> Result<_> {
        progress.set_message("warm-up");
        for _ in 0..args.warmup {
            plan.run(inputs.clone())?;
            progress.inc(1);
        }
        progress.set_message("timed");
        let mut times = Vec::with_capacity(args.iterations);
        for _ in 0..args.iterations {
            let batch = inputs.clone();
            let start = Instant::now();
            plan.run(batch)?;
            times.push(start.elapsed().as_secs_f64() * 1e3);
            progress.inc(1);
        }
        let mut profile = args.profile.then(|| plan.profile());
        if let Some(p) = profile.as_mut() {
            progress.set_message("profiled");
            for _ in 0..args.iterations {
                plan.run_profiled(inputs.clone(), p)?;
                progress.inc(1);
            }
        }
        Ok((times, profile))
    })??;
    progress.finish_and_clear();
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let median = if sorted.len() % 2 == 1 {
        sorted[sorted.len() / 2]
    } else {
        (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) / 2.0
    };
    let min = sorted[0];
    if args.json {
        let profile = profile
            .map(|p| format!(",\"profile\":{}", p.json(args.profile_top)))
            .unwrap_or_default();
        println!(
            "{{\"median_ms\":{median:.6},\"min_ms\":{min:.6},\"iterations\":{},\"threads\":{threads},\"constant_bytes\":{}{profile}}}",
            args.iterations,
            plan.constant_bytes()
        );
    } else {
        println!(
            "{}: median {median:.3} ms, min {min:.3} ms over {} iterations, {threads} thread{}, \
             {} constant bytes",
            args.model.display(),
            args.iterations,
            if threads == 1 { "" } else { "s" },
            plan.constant_bytes()
        );
        if let Some(p) = profile {
            print!("\n{}", p.table(args.profile_top));
        }
    }
    Ok(())
}
