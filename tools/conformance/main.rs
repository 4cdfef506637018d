//! Conformance: ONNX's backend node tests for the op families qlower lowers, run through
//! the `qlower run` binary and compared with ONNX's expected outputs.
//!
//! `generate.py` (run with `.venv/bin/python`) writes the cases into
//! `target/conformance/<onnx version>/`; that directory is reused while `generate.py` is
//! unchanged. Every case's every data set is run as
//! `qlower run model.onnx -i NAME=input_j.pb ... --out-dir DIR`, and each `DIR/<output>.npy`
//! is compared with `output_j.pb`: same dtype and shape, integers exactly, floats with the
//! case's rtol/atol (numpy `allclose`, NaN equal to NaN).
//!
//! `expected_pass.txt` lists the cases that must pass. The run fails when one of them does
//! not, and reports (without failing) cases that pass but are not listed yet.
//!
//! - `QLOWER_CONFORMANCE_UPDATE=1` rewrites `expected_pass.txt` with what passes now.
//! - Arguments that do not start with `-` (`cargo test --test conformance -- resize`) keep
//!   only the cases whose names contain one of them; the update then touches only those.
//! - `QLOWER_CONFORMANCE_JOBS=N` runs N cases at once (default: the number of cores).
//! - `QLOWER_CONFORMANCE_TIMEOUT=SECS` bounds one `qlower run` (default 120).

mod compare;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use qlower::runtime::io::{output_file_name, pb, read_tensor};

use serde::Deserialize;

const QLOWER: &str = env!("CARGO_BIN_EXE_qlower");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `cases.json`, as `generate.py` writes it.
#[derive(Deserialize)]
struct Index {
    cases: Vec<Case>,
    #[serde(default)]
    not_written: Vec<NotWritten>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    #[serde(default = "unknown_family")]
    family: String,
    rtol: f64,
    atol: f64,
    inputs: Vec<String>,
    outputs: Vec<String>,
    data_sets: usize,
}

fn unknown_family() -> String {
    "?".to_string()
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("conformance: error: {e}");
            println!("0 passed, 1 failed");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    PathBuf::from(ROOT)
}

fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                root().join(dir)
            }
        }
        None => root().join("target"),
    }
}

fn python() -> Result<PathBuf, String> {
    let python = root().join(".venv/bin/python");
    if python.exists() {
        Ok(python)
    } else {
        Err(format!(
            "{} is missing; run tools/setup.sh to create the test oracles' venv",
            python.display()
        ))
    }
}

fn onnx_version(python: &Path) -> Result<String, String> {
    let out = Command::new(python)
        .args(["-c", "import onnx; print(onnx.__version__)"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "the venv has no usable onnx: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The generated cases' directory, generating it when it is missing or was made by another
/// version of `generate.py`.
fn cases_dir(python: &Path) -> Result<PathBuf, String> {
    let script = root().join("tools/conformance/generate.py");
    let script_text =
        std::fs::read(&script).map_err(|e| format!("cannot read {}: {e}", script.display()))?;
    let version = onnx_version(python)?;
    let base = target_dir().join("conformance");
    let dir = base.join(&version);
    let stamp = dir.join("generate.py.used");
    if dir.join("cases.json").exists()
        && std::fs::read(&stamp).ok().as_deref() == Some(&script_text[..])
    {
        return Ok(dir);
    }
    println!(
        "conformance: generating ONNX {version} backend cases into {}",
        dir.display()
    );
    std::fs::create_dir_all(&base).map_err(|e| format!("cannot create {}: {e}", base.display()))?;
    let tmp = base.join(format!(".{version}.tmp{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let status = Command::new(python)
        .arg(&script)
        .arg(&tmp)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !status.success() {
        return Err(format!("{} failed ({status})", script.display()));
    }
    std::fs::write(tmp.join("generate.py.used"), &script_text).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::rename(&tmp, &dir)
        .map_err(|e| format!("cannot move {} into place: {e}", tmp.display()))?;
    Ok(dir)
}

/// A selected case `generate.py` could not write, and why.
#[derive(Deserialize)]
struct NotWritten {
    name: String,
    reason: String,
}

/// One family's results: cases passed, cases run, and the failing cases by error.
#[derive(Default)]
struct FamilyStats<'a> {
    passed: usize,
    run: usize,
    /// Error key -> (case name, full error) of each case that failed with it.
    errors: BTreeMap<String, Vec<(&'a str, &'a str)>>,
}

fn load_cases(dir: &Path) -> Result<(Vec<Case>, Vec<NotWritten>), String> {
    let path = dir.join("cases.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let index: Index =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((index.cases, index.not_written))
}

fn timeout() -> Duration {
    let secs = std::env::var("QLOWER_CONFORMANCE_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    Duration::from_secs(secs)
}

/// The useful part of qlower's standard error: its `error:` lines, or else its first lines.
fn summarize_stderr(stderr: &str) -> String {
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error") || l.contains("panicked"))
        .collect();
    let lines: Vec<&str> = if errors.is_empty() {
        stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(3)
            .collect()
    } else {
        errors.into_iter().take(3).collect()
    };
    let text = lines.join(" | ");
    if text.chars().count() > 400 {
        let cut: String = text.chars().take(400).collect();
        format!("{cut}...")
    } else if text.is_empty() {
        "(no message on standard error)".to_string()
    } else {
        text
    }
}

/// Runs qlower with a time limit; `Err` carries its message.
fn run_qlower(args: &[std::ffi::OsString]) -> Result<(), String> {
    let mut child = Command::new(QLOWER)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {QLOWER}: {e}"))?;
    let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr_pipe.read_to_string(&mut text);
        text
    });
    let start = Instant::now();
    let limit = timeout();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = reader.join();
                return Err(format!("timed out after {} s", limit.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("cannot wait for qlower: {e}")),
        }
    };
    let stderr = reader.join().unwrap_or_default();
    if status.success() {
        return Ok(());
    }
    match status.code() {
        // Exit 1 is qlower's `error: ...`: its message says it all.
        Some(1) => Err(summarize_stderr(&stderr)),
        Some(code) => Err(format!("exit {code}: {}", summarize_stderr(&stderr))),
        None => Err(format!(
            "killed by a signal ({status}): {}",
            summarize_stderr(&stderr)
        )),
    }
}

/// Runs every data set of `case`; `Err` describes the first failure.
fn run_case(dir: &Path, case: &Case) -> Result<(), String> {
    let case_dir = dir.join(&case.name);
    if case.data_sets == 0 {
        return Err("the case has no data sets".to_string());
    }
    for k in 0..case.data_sets {
        let data = case_dir.join(format!("test_data_set_{k}"));
        let out =
            tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
        let mut args: Vec<std::ffi::OsString> =
            vec!["run".into(), case_dir.join("model.onnx").into()];
        for (j, name) in case.inputs.iter().enumerate() {
            args.push("-i".into());
            let mut binding = std::ffi::OsString::from(format!("{name}="));
            binding.push(data.join(format!("input_{j}.pb")));
            args.push(binding);
        }
        args.extend([
            "--out-dir".into(),
            out.path().into(),
            "--threads".into(),
            "1".into(),
        ]);
        let at = if case.data_sets > 1 {
            format!("data set {k}: ")
        } else {
            String::new()
        };
        run_qlower(&args).map_err(|e| format!("{at}{e}"))?;
        for (j, name) in case.outputs.iter().enumerate() {
            // Float8 outputs come as `.pb` (`output_file_name_for`).
            let mut got_path = out.path().join(output_file_name(name));
            let pb_path = got_path.with_extension("pb");
            if !got_path.exists() && pb_path.exists() {
                got_path = pb_path;
            }
            if !got_path.exists() {
                return Err(format!(
                    "{at}output '{name}': qlower wrote no {}",
                    output_file_name(name)
                ));
            }
            let got = read_tensor(&got_path).map_err(|e| format!("{at}output '{name}': {e:#}"))?;
            let want = pb::read(&data.join(format!("output_{j}.pb"))).map_err(|e| {
                format!("{at}output '{name}': the expected tensor cannot be read: {e:#}")
            })?;
            compare::compare(&got, &want, case.rtol, case.atol)
                .map_err(|e| format!("{at}output '{name}': {e}"))?;
        }
    }
    Ok(())
}

fn jobs() -> usize {
    std::env::var("QLOWER_CONFORMANCE_JOBS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
        })
}

/// Runs the cases on `jobs()` threads; results in the cases' order.
fn run_all(dir: &Path, cases: &[&Case]) -> Vec<Result<(), String>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<(), String>>>> = Mutex::new(vec![None; cases.len()]);
    std::thread::scope(|s| {
        for _ in 0..jobs().min(cases.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let result = run_case(dir, case);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("not run".to_string())))
        .collect()
}

fn expected_path() -> PathBuf {
    root().join("tools/conformance/expected_pass.txt")
}

/// The leading comment block and the listed case names of `expected_pass.txt`.
fn read_expected() -> Result<(Vec<String>, BTreeSet<String>), String> {
    let path = expected_path();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let header = text
        .lines()
        .take_while(|l| l.starts_with('#') || l.trim().is_empty())
        .filter(|l| l.starts_with('#'))
        .map(str::to_string)
        .collect();
    let names = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    Ok((header, names))
}

fn write_expected(header: &[String], names: &BTreeSet<String>) -> Result<(), String> {
    let mut text = String::new();
    let default_header = [
        "# ONNX backend node test cases that must pass `cargo test --test conformance`.",
        "# One case name per line, sorted. Regenerate with QLOWER_CONFORMANCE_UPDATE=1 and",
        "# review the diff: a removed line is a regression.",
    ];
    if header.is_empty() {
        for l in default_header {
            text.push_str(l);
            text.push('\n');
        }
    } else {
        for l in header {
            text.push_str(l);
            text.push('\n');
        }
    }
    for n in names {
        text.push_str(n);
        text.push('\n');
    }
    let path = expected_path();
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Normalizes an error for grouping: data set prefixes, temporary paths and the numbers of
/// a value mismatch vary by case.
fn error_key(e: &str) -> String {
    if e.contains(" elements differ") {
        return "wrong values (differ from ONNX's expected output beyond tolerance)".to_string();
    }
    if e.contains(": shape [") || e.contains(": dtype ") {
        let what = if e.contains(": shape [") {
            "shape"
        } else {
            "dtype"
        };
        return format!("wrong output {what}");
    }
    let e = e
        .strip_prefix("data set ")
        .map_or(e, |rest| rest.split_once(": ").map_or(rest, |(_, m)| m));
    let mut key = String::new();
    for word in e.split(' ') {
        if !key.is_empty() {
            key.push(' ');
        }
        if word.contains("/tmp/") || word.contains("/conformance/") {
            key.push_str("<path>");
        } else {
            key.push_str(word);
        }
    }
    if key.chars().count() > 300 {
        key = key.chars().take(300).collect::<String>() + "...";
    }
    key
}

fn run() -> Result<bool, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        return Ok(true);
    }
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let update =
        std::env::var("QLOWER_CONFORMANCE_UPDATE").is_ok_and(|v| !v.is_empty() && v != "0");

    let python = python()?;
    let dir = cases_dir(&python)?;
    let (cases, not_written) = load_cases(&dir)?;
    let wanted =
        |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    let selected: Vec<&Case> = cases.iter().filter(|c| wanted(&c.name)).collect();
    let (header, expected_all) = read_expected()?;
    let expected: BTreeSet<&String> = expected_all.iter().filter(|n| wanted(n)).collect();

    println!(
        "conformance: {} cases from {} ({} jobs, qlower {QLOWER})",
        selected.len(),
        dir.display(),
        jobs()
    );
    let started = Instant::now();
    let results = run_all(&dir, &selected);

    // Per family: passed, total, and failing cases grouped by error.
    let mut families: BTreeMap<&str, FamilyStats> = BTreeMap::new();
    let mut passing: BTreeSet<String> = BTreeSet::new();
    let mut expected_failures: Vec<(&str, &str)> = Vec::new();
    let mut new_passes: Vec<&str> = Vec::new();
    let mut skipped = 0usize;
    for (case, result) in selected.iter().zip(&results) {
        let entry = families.entry(&case.family).or_default();
        entry.run += 1;
        match result {
            Ok(()) => {
                entry.passed += 1;
                passing.insert(case.name.clone());
                if !expected.contains(&case.name) {
                    new_passes.push(&case.name);
                }
            }
            Err(e) => {
                entry
                    .errors
                    .entry(error_key(e))
                    .or_default()
                    .push((&case.name, e));
                if expected.contains(&case.name) {
                    expected_failures.push((&case.name, e));
                } else {
                    skipped += 1;
                }
            }
        }
    }
    let known: BTreeSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    let missing: Vec<&String> = expected
        .iter()
        .copied()
        .filter(|n| !known.contains(n.as_str()))
        .collect();

    println!("\nby family (passed/run), with the errors of the failing cases:");
    for (family, stats) in &families {
        let (pass, total) = (stats.passed, stats.run);
        println!("  {family:<22} {pass:>3}/{total:<3}");
        for (error, failed) in &stats.errors {
            let shown: Vec<&str> = failed.iter().take(3).map(|(name, _)| *name).collect();
            let more = if failed.len() > 3 {
                format!(", +{} more", failed.len() - 3)
            } else {
                String::new()
            };
            println!("      {:>3} x {error}", failed.len());
            println!("            ({}{more})", shown.join(", "));
            let (first, full) = failed[0];
            if full != error {
                println!("            e.g. {first}: {full}");
            }
        }
    }
    let not_run: Vec<&NotWritten> = not_written.iter().filter(|n| wanted(&n.name)).collect();
    if !not_run.is_empty() {
        println!(
            "\nnot run ({} selected cases generate.py could not write):",
            not_run.len()
        );
        for NotWritten { name, reason } in not_run {
            println!("  {name}: {reason}");
        }
    }
    if !new_passes.is_empty() {
        println!(
            "\nnewly passing, not in {} ({}; add them with QLOWER_CONFORMANCE_UPDATE=1):",
            expected_path().display(),
            new_passes.len()
        );
        for n in &new_passes {
            println!("  NEW PASS {n}");
        }
    }
    if !expected_failures.is_empty() || !missing.is_empty() {
        println!("\nexpected to pass, but failed:");
        for (name, e) in &expected_failures {
            println!("  FAIL {name}: {e}");
        }
        for name in &missing {
            println!(
                "  FAIL {name}: no such case was generated (renamed or dropped from ONNX's tests?)"
            );
        }
    }

    let failed = expected_failures.len() + missing.len();
    if update {
        let mut names: BTreeSet<String> = expected_all
            .iter()
            .filter(|n| !wanted(n))
            .cloned()
            .collect();
        names.extend(passing.iter().cloned());
        write_expected(&header, &names)?;
        let added = names.difference(&expected_all).count();
        let removed = expected_all.difference(&names).count();
        println!(
            "\nconformance: rewrote {} ({} cases: {added} added, {removed} removed); review the diff",
            expected_path().display(),
            names.len()
        );
    }
    println!(
        "\nconformance: finished in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    println!(
        "conformance: {} passed / {} expected / {skipped} skipped (not in expected list, failing)",
        passing.len(),
        expected.len()
    );
    let failed_now = if update { 0 } else { failed };
    println!("{} passed, {failed_now} failed", passing.len());
    Ok(failed_now == 0)
}
