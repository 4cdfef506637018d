//! Executes a parsed RUN line. Tools run as real processes (see `process`);
//! `FileCheck`, `not` and `count` run in-process so tests need no LLVM
//! utilities on PATH.
//!
//! Pipeline stages run one after another with the previous stage's output
//! buffered, which keeps exit statuses and stderr per stage easy to report.
//! Like lit (pipefail), a pipeline fails if any of its stages fails.

use crate::filecheck_run;
use crate::process::{self, Sink, Streams};
use crate::shell::{Command, Connector, List, Pipeline};
use std::fmt;
use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

pub struct Context<'a> {
    pub cwd: &'a Path,
    pub timeout: Duration,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Exit(i32),
    Signal(i32),
    TimedOut(Duration),
    /// The command could not be started, or its redirections failed.
    NotRun(String),
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Status::Exit(code) => write!(f, "exit code {code}"),
            Status::Signal(signal) => write!(f, "killed by signal {signal}"),
            Status::TimedOut(limit) => write!(f, "killed after the {}s timeout", limit.as_secs()),
            Status::NotRun(why) => write!(f, "not run: {why}"),
        }
    }
}

pub struct StageReport {
    pub argv: Vec<String>,
    pub status: Status,
    /// After applying any leading `not`.
    pub success: bool,
    pub stderr: String,
    /// Only kept for the last stage of a pipeline; earlier output is piped on.
    pub stdout: String,
}

pub struct Outcome {
    pub success: bool,
    pub stages: Vec<StageReport>,
}

pub fn run_list(list: &List, ctx: &Context) -> Outcome {
    let mut stages = Vec::new();
    let mut success = run_pipeline(&list.first, ctx, &mut stages);
    for (connector, pipeline) in &list.rest {
        let wanted = match connector {
            Connector::And => success,
            Connector::Or => !success,
            Connector::Then => true,
        };
        if wanted {
            success = run_pipeline(pipeline, ctx, &mut stages);
        }
    }
    Outcome { success, stages }
}

fn run_pipeline(pipeline: &Pipeline, ctx: &Context, stages: &mut Vec<StageReport>) -> bool {
    let mut input = None;
    let mut success = true;
    let last = pipeline.commands.len() - 1;
    for (index, command) in pipeline.commands.iter().enumerate() {
        let (mut report, stdout) = run_command(command, input.take(), ctx);
        success &= report.success;
        if index == last {
            report.stdout = String::from_utf8_lossy(&stdout).into_owned();
        }
        stages.push(report);
        input = Some(stdout);
    }
    success
}

/// What a `not` prefix expects of the command it wraps.
#[derive(Clone, Copy)]
enum Not {
    Failure,
    Crash,
}

/// Variables set (`Some`) or removed (`None`) by `env` prefixes.
pub type EnvChanges = Vec<(String, Option<String>)>;

fn run_command(command: &Command, input: Option<Vec<u8>>, ctx: &Context) -> (StageReport, Vec<u8>) {
    let (status, stdout, stderr, nots) = match Prefixes::strip(&command.argv) {
        // Broken commands fail whatever `not`s precede them, so none are kept.
        Err(why) => (Status::NotRun(why), Vec::new(), Vec::new(), Vec::new()),
        Ok(Prefixes { nots, env, argv }) => {
            let (status, stdout, stderr) = match Streams::open(&command.redirects, ctx.cwd) {
                Ok(mut streams) => match argv[0].as_str() {
                    "FileCheck" | "count" => run_builtin(argv, input, &mut streams, ctx),
                    _ => process::run(argv, &env, input, &streams, ctx),
                },
                Err(e) => (Status::NotRun(e.to_string()), Vec::new(), Vec::new()),
            };
            (status, stdout, stderr, nots)
        }
    };
    let report = StageReport {
        argv: command.argv.clone(),
        success: judge(&status, &nots),
        status,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        stdout: String::new(),
    };
    (report, stdout)
}

/// A command split into its leading `not [--crash]` and
/// `env [-u NAME] [NAME=VALUE]...` prefixes and the tool that follows, which
/// is still resolved (`env X=1 qlower` runs the cargo-built qlower).
struct Prefixes<'a> {
    nots: Vec<Not>,
    env: EnvChanges,
    argv: &'a [String],
}

impl<'a> Prefixes<'a> {
    /// Prefixes may come in any order, as lit allows.
    fn strip(mut argv: &'a [String]) -> Result<Prefixes<'a>, String> {
        let mut nots = Vec::new();
        let mut env = Vec::new();
        loop {
            match argv.first().map(String::as_str) {
                Some("not") if argv.get(1).is_some_and(|a| a == "--crash") => {
                    nots.push(Not::Crash);
                    argv = &argv[2..];
                }
                Some("not") => {
                    nots.push(Not::Failure);
                    argv = &argv[1..];
                }
                Some("env") => {
                    argv = &argv[1..];
                    while let Some(arg) = argv.first() {
                        if arg == "-u" {
                            let name = argv.get(1).ok_or("'env -u' needs a variable name")?;
                            env.push((name.clone(), None));
                            argv = &argv[2..];
                        } else if let Some((name, value)) = arg.split_once('=')
                            && !arg.starts_with('-')
                        {
                            env.push((name.to_string(), Some(value.to_string())));
                            argv = &argv[1..];
                        } else {
                            break;
                        }
                    }
                }
                Some(_) => return Ok(Prefixes { nots, env, argv }),
                None => return Err("'not' or 'env' needs a command".to_string()),
            }
        }
    }
}

/// Applies `not` prefixes innermost first, following LLVM's `not`: a crash
/// only counts as success under `not --crash`.
fn judge(status: &Status, nots: &[Not]) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Verdict {
        Pass,
        Fail,
        Crash,
        Broken,
    }
    let mut result = match status {
        Status::Exit(0) => Verdict::Pass,
        Status::Exit(_) => Verdict::Fail,
        Status::Signal(_) => Verdict::Crash,
        Status::TimedOut(_) | Status::NotRun(_) => Verdict::Broken,
    };
    for not in nots.iter().rev() {
        result = match (not, result) {
            (_, Verdict::Broken) => Verdict::Broken,
            (Not::Failure, Verdict::Fail) | (Not::Crash, Verdict::Crash) => Verdict::Pass,
            _ => Verdict::Fail,
        };
    }
    result == Verdict::Pass
}

fn read_stdin(input: Option<Vec<u8>>, streams: &Streams) -> io::Result<Vec<u8>> {
    match &streams.stdin {
        Some(path) => std::fs::read(path),
        None => Ok(input.unwrap_or_default()),
    }
}

fn run_builtin(
    argv: &[String],
    input: Option<Vec<u8>>,
    streams: &mut Streams,
    ctx: &Context,
) -> (Status, Vec<u8>, Vec<u8>) {
    let stdin = match read_stdin(input, streams) {
        Ok(stdin) => stdin,
        Err(e) => {
            return (
                Status::NotRun(format!("cannot read stdin: {e}")),
                Vec::new(),
                Vec::new(),
            );
        }
    };
    let result = match argv[0].as_str() {
        "FileCheck" => filecheck_run::run(&argv[1..], &stdin, ctx.cwd),
        _ => count_lines(&argv[1..], &stdin),
    };
    let (status, message) = match result {
        Ok(()) => (Status::Exit(0), String::new()),
        Err(message) => (Status::Exit(1), message + "\n"),
    };
    let mut captured = [Vec::new(), Vec::new()];
    for (sink, bytes) in streams.sinks.iter().zip([&[][..], message.as_bytes()]) {
        match *sink {
            Sink::Stdout => captured[0].extend_from_slice(bytes),
            Sink::Stderr => captured[1].extend_from_slice(bytes),
            Sink::File(index) => {
                if let Err(e) = streams.files[index].write_all(bytes) {
                    return (
                        Status::NotRun(format!("cannot write output: {e}")),
                        Vec::new(),
                        Vec::new(),
                    );
                }
            }
        }
    }
    let [stdout, stderr] = captured;
    (status, stdout, stderr)
}

/// LLVM's `count N`: succeeds when stdin has exactly N newlines.
fn count_lines(args: &[String], stdin: &[u8]) -> Result<(), String> {
    let [expected] = args else {
        return Err("usage: count <number>".to_string());
    };
    let expected: usize = expected
        .parse()
        .map_err(|_| format!("count: '{expected}' is not a number"))?;
    let actual = stdin.iter().filter(|&&b| b == b'\n').count();
    if actual == expected {
        Ok(())
    } else {
        Err(format!("Expected {expected} lines, got {actual}."))
    }
}
