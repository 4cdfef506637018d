//! `cargo test --test lit`: runs the lit-style tests under `test/` with the
//! cargo-built `qlower` binaries and an in-process FileCheck.
//!
//! Arguments not starting with `-` are filters: only tests whose path
//! contains one of them run. The last line printed is `N passed, M failed`,
//! which CI reads.

mod discovery;
mod exec;
mod filecheck_pattern;
mod filecheck_run;
mod filecheck_translate;
mod process;
mod run_line;
mod shell;
mod tools;

use run_line::{Test, TestResult};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// Generous, since a hung tool would otherwise hang CI silently.
const PROCESS_TIMEOUT: Duration = Duration::from_secs(600);

/// libtest options whose value is a separate argument; cargo passes them to
/// every test target, and the value must not be taken for a filter.
const OPTIONS_WITH_VALUE: [&str; 5] = ["--test-threads", "--format", "--color", "--logfile", "-Z"];

fn main() -> ExitCode {
    let (filters, skips) = parse_args(std::env::args().skip(1));
    let test_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test");
    let temp_root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lit");
    let tests = match discovery::find_tests(&test_root) {
        Ok(tests) => tests,
        Err(e) => {
            println!("error: cannot list tests in {}: {e}", test_root.display());
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    };
    let tests: Vec<Test> = tests
        .into_iter()
        .filter(|t| filters.is_empty() || filters.iter().any(|f| t.name.contains(f.as_str())))
        .filter(|t| !skips.iter().any(|s| t.name.contains(s.as_str())))
        .collect();

    let mut failed = Vec::new();
    run_all(&tests, &temp_root, |test, result| {
        if result.passed {
            println!("PASS: {}", test.name);
        } else {
            println!("FAIL: {}", test.name);
            print!("{}", result.log);
            failed.push(test.name.clone());
        }
    });

    // `cargo test NAME` passes NAME to every target, so matching nothing
    // under a filter is normal; finding no tests at all is not.
    let nothing_found = tests.is_empty() && filters.is_empty() && skips.is_empty();
    if tests.is_empty() {
        println!("note: no tests matched under {}", test_root.display());
    }
    if !failed.is_empty() {
        println!("\nFailed tests:");
        for name in &failed {
            println!("  {name}");
        }
    }
    println!(
        "{} passed, {} failed",
        tests.len() - failed.len(),
        failed.len()
    );
    if failed.is_empty() && !nothing_found {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Returns the filters (plain arguments) and the `--skip` values.
fn parse_args(mut args: impl Iterator<Item = String>) -> (Vec<String>, Vec<String>) {
    let mut filters = Vec::new();
    let mut skips = Vec::new();
    while let Some(arg) = args.next() {
        if arg == "--skip" {
            skips.extend(args.next());
        } else if OPTIONS_WITH_VALUE.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            filters.push(arg);
        }
    }
    (filters, skips)
}

/// Runs tests on all cores and reports them in `tests` order as soon as each
/// one and all before it are done.
fn run_all(tests: &[Test], temp_root: &Path, mut report: impl FnMut(&Test, &TestResult)) {
    let workers = thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(tests.len());
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(test) = tests.get(index) else {
                        break;
                    };
                    let result = run_line::run_test(test, temp_root, PROCESS_TIMEOUT);
                    if sender.send((index, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut done: Vec<Option<TestResult>> = tests.iter().map(|_| None).collect();
        let mut printed = 0;
        for (index, result) in receiver {
            done[index] = Some(result);
            while let Some(Some(result)) = done.get(printed) {
                report(&tests[printed], result);
                printed += 1;
            }
        }
    });
}
