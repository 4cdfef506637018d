//! Unit tests of the lit runner's pieces. The runner itself is a
//! `harness = false` target, so its modules are compiled again here under
//! the normal test harness.

// Only part of each module's API is exercised from here; the runner uses the rest.
#[allow(dead_code)]
mod filecheck_pattern;
#[allow(dead_code)]
mod filecheck_run;
#[allow(dead_code)]
mod filecheck_translate;
#[allow(dead_code)]
mod run_line;
#[allow(dead_code)]
mod shell;

mod filecheck_tests;
mod run_line_tests;
mod shell_tests;

// `run_line` executes commands through these; they are not tested here, but
// must compile for `run_line` to.
#[allow(dead_code)]
mod exec;
#[allow(dead_code)]
mod process;
#[allow(dead_code)]
mod tools;
