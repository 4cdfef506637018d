//! `qlower-opt`: reads MLIR (generic form, unregistered dialects allowed), runs the
//! passes named by flags in the order given, and prints the result. It is the driver
//! for lit tests on `.mlir` inputs.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::{Arg, ArgAction, ArgMatches, Command};

use qlower::ir::context::new_context;
use qlower::ir::parse::parse_module;
use qlower::output::write_output;
use qlower::pipeline::{Pass, PassOptions, passes};
use qlower::transforms::FoldLimits;

fn command() -> Command {
    let mut cmd = Command::new("qlower-opt")
        .about("Runs qlower passes on an MLIR file")
        .version(env!("CARGO_PKG_VERSION"))
        .arg(
            Arg::new("input")
                .default_value("-")
                .help("The .mlir file; `-` is standard input"),
        )
        .arg(
            Arg::new("split-input-file")
                .long("split-input-file")
                .action(ArgAction::SetTrue)
                .help("Process each chunk between `// -----` lines on its own, continuing after errors"),
        )
        .arg(
            Arg::new("output")
                .short('o')
                .long("output")
                .default_value("-")
                .help("Where to write the result; `-` is standard output"),
        )
        .arg(
            Arg::new("fold-max-input-elements")
                .long("fold-max-input-elements")
                .value_name("N")
                .value_parser(clap::value_parser!(usize))
                .help("fold-constants: fold no op that reads a tensor with more elements than N"),
        )
        .arg(
            Arg::new("fold-max-output-elements")
                .long("fold-max-output-elements")
                .value_name("N")
                .value_parser(clap::value_parser!(usize))
                .help("fold-constants: fold no op whose result has more elements than N"),
        );
    for pass in passes() {
        cmd = cmd.arg(
            Arg::new(pass.name)
                .long(pass.name)
                .action(ArgAction::SetTrue)
                .help(pass.description),
        );
    }
    cmd
}

fn main() -> ExitCode {
    qlower::rewrite::install_panic_hook();
    let matches = match command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(&matches) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(matches: &ArgMatches) -> Result<()> {
    let input = matches
        .get_one::<String>("input")
        .map(String::as_str)
        .unwrap_or("-");
    let output = PathBuf::from(
        matches
            .get_one::<String>("output")
            .map(String::as_str)
            .unwrap_or("-"),
    );
    let source = if input == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading standard input")?;
        s
    } else {
        std::fs::read_to_string(input).with_context(|| format!("cannot read '{input}'"))?
    };

    // Passes run in the order their flags appear on the command line.
    let mut selected: Vec<(usize, &Pass)> = passes()
        .iter()
        .filter(|p| matches.get_flag(p.name))
        .filter_map(|p| matches.index_of(p.name).map(|i| (i, p)))
        .collect();
    selected.sort_by_key(|(i, _)| *i);

    let defaults = FoldLimits::default();
    let options = PassOptions {
        fold_limits: FoldLimits {
            max_input_elements: matches
                .get_one::<usize>("fold-max-input-elements")
                .copied()
                .unwrap_or(defaults.max_input_elements),
            max_output_elements: matches
                .get_one::<usize>("fold-max-output-elements")
                .copied()
                .unwrap_or(defaults.max_output_elements),
        },
    };
    let name = if input == "-" { "<stdin>" } else { input };
    let passes: Vec<&Pass> = selected.into_iter().map(|(_, p)| p).collect();
    if !matches.get_flag("split-input-file") {
        return write_output(&output, &process(&source, name, &passes, &options)?);
    }
    // Like mlir-opt: each chunk is compiled alone, errors are reported and the rest
    // still runs, and the exit code says whether any chunk failed.
    let mut printed = Vec::new();
    let mut failed = 0;
    for chunk in source.split("\n// -----\n") {
        match process(chunk, name, &passes, &options) {
            Ok(text) => printed.push(text),
            Err(e) => {
                eprintln!("error: {e:#}");
                failed += 1;
            }
        }
    }
    write_output(&output, &printed.join("// -----\n"))?;
    if failed > 0 {
        anyhow::bail!("{failed} of the input's chunks failed");
    }
    Ok(())
}

fn process(source: &str, name: &str, passes: &[&Pass], options: &PassOptions) -> Result<String> {
    let context = new_context();
    let mut module = parse_module(&context, source, name)?;
    for pass in passes {
        for w in (pass.run)(&context, &mut module, options)? {
            eprintln!("warning: {w}");
        }
    }
    Ok(module.as_operation().to_string())
}
