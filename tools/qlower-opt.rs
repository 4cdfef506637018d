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
use qlower::pipeline::passes;

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
            Arg::new("output")
                .short('o')
                .long("output")
                .default_value("-")
                .help("Where to write the result; `-` is standard output"),
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
    let mut selected: Vec<(usize, &qlower::pipeline::Pass)> = passes()
        .iter()
        .filter(|p| matches.get_flag(p.name))
        .filter_map(|p| matches.index_of(p.name).map(|i| (i, p)))
        .collect();
    selected.sort_by_key(|(i, _)| *i);

    let context = new_context();
    let mut module = parse_module(
        &context,
        &source,
        if input == "-" { "<stdin>" } else { input },
    )?;
    for (_, pass) in selected {
        for w in (pass.run)(&context, &mut module)? {
            eprintln!("warning: {w}");
        }
    }
    write_output(&output, &module.as_operation().to_string())
}
