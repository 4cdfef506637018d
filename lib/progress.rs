//! Progress of long work on standard error: an `indicatif` bar or spinner when standard
//! error is a terminal, nothing at all otherwise (a log, a pipe, a test), so output that
//! scripts read never carries it.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressStyle};

fn target() -> ProgressDrawTarget {
    if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

/// A bar counting `len` steps of `what` ("calibration", "bench"); cleared when dropped
/// or finished, so only the command's own output stays on the screen.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    // Dropped early by an error, it clears itself too, before the error is printed.
    let bar =
        ProgressBar::with_draw_target(Some(len), target()).with_finish(ProgressFinish::AndClear);
    let style = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed})")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(what.to_string());
    bar
}

/// A spinner for work without a count (the phases of a big compile), whose message
/// names the phase running.
pub fn spinner(what: &str) -> ProgressBar {
    let spinner =
        ProgressBar::with_draw_target(None, target()).with_finish(ProgressFinish::AndClear);
    let style = ProgressStyle::with_template("{spinner} {prefix}: {msg} ({elapsed})")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    spinner.set_style(style);
    spinner.set_prefix(what.to_string());
    if !spinner.is_hidden() {
        spinner.enable_steady_tick(Duration::from_millis(120));
    }
    spinner
}
