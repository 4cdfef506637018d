//! Runs one test file: collects its RUN lines, expands `%` substitutions,
//! and executes the lines in order until one fails.

use crate::exec::{self, Context, Outcome};
use crate::shell;
use std::fmt::Write;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub struct Test {
    pub path: PathBuf,
    /// Path relative to the test root, with `/` separators.
    pub name: String,
}

pub struct TestResult {
    pub passed: bool,
    /// Diagnostics for a failure; empty when the test passed.
    pub log: String,
}

/// A RUN command and the line where it starts.
#[derive(Debug, PartialEq, Eq)]
pub struct RunLine {
    pub line: usize,
    pub command: String,
}

/// Finds `RUN:` lines the way lit does: the first `RUN:` on a line starts a
/// command, and a trailing `\` continues it on the next RUN line.
pub fn extract_run_lines(text: &str) -> Result<Vec<RunLine>, String> {
    let mut runs: Vec<RunLine> = Vec::new();
    let mut continuing = false;
    for (index, line) in text.lines().enumerate() {
        let Some(at) = line.find("RUN:") else {
            continue;
        };
        let command = line[at + 4..].trim_end();
        match runs.last_mut() {
            Some(last) if continuing => last.command.push_str(command),
            _ => runs.push(RunLine {
                line: index + 1,
                command: command.to_string(),
            }),
        }
        let last = runs.last_mut().expect("just pushed");
        continuing = last.command.ends_with('\\');
        if continuing {
            last.command.pop();
        }
    }
    if continuing {
        return Err("the last RUN line ends with '\\' but no RUN line follows".to_string());
    }
    for run in &mut runs {
        run.command = run.command.trim().to_string();
    }
    Ok(runs)
}

pub struct Substitutions {
    pub source: String,
    pub source_dir: String,
    pub temp: String,
    pub temp_dir: String,
}

/// Expands `%s`, `%S`, `%p`, `%t`, `%T` and `%%` in one left-to-right pass,
/// so text produced by one substitution is never expanded again.
pub fn substitute(command: &str, subst: &Substitutions) -> String {
    let mut out = String::with_capacity(command.len());
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        let replacement = match (c, chars.peek()) {
            ('%', Some('%')) => "%",
            ('%', Some('s')) => &subst.source,
            ('%', Some('S' | 'p')) => &subst.source_dir,
            ('%', Some('t')) => &subst.temp,
            ('%', Some('T')) => &subst.temp_dir,
            _ => {
                out.push(c);
                continue;
            }
        };
        chars.next();
        out.push_str(replacement);
    }
    out
}

pub fn run_test(test: &Test, temp_root: &Path, timeout: Duration) -> TestResult {
    let mut log = String::new();
    let passed = match run_test_inner(test, temp_root, timeout, &mut log) {
        Ok(passed) => passed,
        Err(message) => {
            writeln!(log, "  error: {message}").expect("String write");
            false
        }
    };
    TestResult { passed, log }
}

fn run_test_inner(
    test: &Test,
    temp_root: &Path,
    timeout: Duration,
    log: &mut String,
) -> Result<bool, String> {
    let text = fs::read_to_string(&test.path)
        .map_err(|e| format!("cannot read {}: {e}", test.path.display()))?;
    let runs = extract_run_lines(&text)?;
    if runs.is_empty() {
        return Err("test has no 'RUN:' line".to_string());
    }
    let paths =
        TempPaths::new(test, temp_root).map_err(|e| format!("cannot prepare temp paths: {e}"))?;
    let subst = Substitutions {
        source: test.path.display().to_string(),
        source_dir: test
            .path
            .parent()
            .unwrap_or(Path::new("."))
            .display()
            .to_string(),
        temp: paths.temp.display().to_string(),
        temp_dir: paths.temp_dir.display().to_string(),
    };
    let ctx = Context {
        cwd: &paths.temp_dir,
        timeout,
    };
    for run in &runs {
        let command = substitute(&run.command, &subst);
        let list = shell::parse(&command).map_err(|e| format!("RUN at line {}: {e}", run.line))?;
        let outcome = exec::run_list(&list, &ctx);
        if !outcome.success {
            describe_failure(run, &command, &outcome, log);
            return Ok(false);
        }
    }
    Ok(true)
}

/// The layout lit uses, so `%t` and `%T` mean the same under both runners:
/// `%t` is `<root>/<test dir>/Output/<file>.tmp` and `%T` is `%t.d`, a fresh
/// directory (lit 23 has no `%T`; `test/lit.cfg.py` makes it the same way).
/// `%T` is also the working directory, so tests cannot trip over each other.
struct TempPaths {
    temp: PathBuf,
    temp_dir: PathBuf,
}

impl TempPaths {
    fn new(test: &Test, temp_root: &Path) -> io::Result<TempPaths> {
        let relative_dir = Path::new(&test.name).parent().unwrap_or(Path::new(""));
        let output = temp_root.join(relative_dir).join("Output");
        let file_name = test.path.file_name().unwrap_or_default().to_string_lossy();
        let stem = format!("{file_name}.tmp");
        fs::create_dir_all(&output)?;
        // Leftovers of an earlier run could make checks like `test -e %t`
        // pass, so everything named after this test goes.
        for entry in fs::read_dir(&output)? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with(&stem) {
                let path = entry.path();
                if path.is_dir() {
                    fs::remove_dir_all(&path)?;
                } else {
                    fs::remove_file(&path)?;
                }
            }
        }
        let temp = output.join(&stem);
        let temp_dir = output.join(format!("{stem}.d"));
        fs::create_dir(&temp_dir)?;
        Ok(TempPaths { temp, temp_dir })
    }
}

/// Keeps a failure report readable when a tool dumps a whole module.
/// FileCheck diagnostics are longer, as they show the input being checked.
const MAX_SHOWN_LINES: usize = 400;

fn describe_failure(run: &RunLine, command: &str, outcome: &Outcome, log: &mut String) {
    let mut w = |text: String| log.push_str(&text);
    w(format!("  RUN at line {}: {}\n", run.line, run.command));
    w(format!("  $ {command}\n"));
    for (index, stage) in outcome.stages.iter().enumerate() {
        w(format!(
            "  [{}] {} -> {}{}\n",
            index + 1,
            shell_words(&stage.argv),
            stage.status,
            if stage.success { " (ok)" } else { " (FAILED)" }
        ));
        for (name, text) in [("stderr", &stage.stderr), ("stdout", &stage.stdout)] {
            if !text.trim().is_empty() {
                w(format!("      {name}:\n"));
                for line in text.lines().take(MAX_SHOWN_LINES) {
                    w(format!("      | {line}\n"));
                }
                let hidden = text.lines().count().saturating_sub(MAX_SHOWN_LINES);
                if hidden > 0 {
                    w(format!("      | ... {hidden} more lines\n"));
                }
            }
        }
    }
}

/// Joins arguments for display, quoting those a reader would otherwise
/// misread as several words or operators.
fn shell_words(argv: &[String]) -> String {
    let quoted: Vec<String> = argv
        .iter()
        .map(|arg| {
            let plain = !arg.is_empty()
                && arg
                    .chars()
                    .all(|c| c.is_alphanumeric() || "-_./=%:@+,".contains(c));
            if plain {
                arg.clone()
            } else {
                format!("'{}'", arg.replace('\'', r"'\''"))
            }
        })
        .collect();
    quoted.join(" ")
}
