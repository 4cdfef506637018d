//! Runs a Python script of the test oracles (in the venv `tools/setup.sh` creates) from a
//! Rust test, prints its report, and fails the test when the script fails. Shared by the
//! test targets that drive ONNX Runtime comparisons.

use std::path::PathBuf;
use std::process::Command;

pub const QLOWER: &str = env!("CARGO_BIN_EXE_qlower");

/// Runs `script` (relative to the repository) with `args`; `what` says in the failure
/// message what disagreed.
pub fn run_oracle_script(script: &str, args: &[&str], what: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let python = root.join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing; run tools/setup.sh to create the test oracles' venv",
        python.display()
    );
    let script = root.join(script);
    let out = Command::new(&python)
        .arg(&script)
        .args(args)
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    if !stderr.trim().is_empty() {
        eprintln!("{stderr}");
    }
    assert!(
        out.status.success(),
        "{what} ({}); the report is above",
        stdout.lines().last().unwrap_or("no summary")
    );
}
