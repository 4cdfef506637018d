//! Downstream acceptance: every ONNX model in the test suite that qlower compiles must
//! give MLIR that `mlir-opt --allow-unregistered-dialect` and torch-mlir's
//! `torch-mlir-opt` both parse and verify, in each form qlower emits; and the end-to-end
//! models, with some of the real models, compile with torch-mlir and IREE and run equal.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn models(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            models(&p, out);
        } else if p.extension().is_some_and(|x| x == "onnx") {
            out.push(p);
        }
    }
}

fn mlir_opt() -> PathBuf {
    let out = Command::new("llvm-config-22")
        .arg("--bindir")
        .output()
        .expect("llvm-config-22 runs (run tools/setup.sh)");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("mlir-opt")
}

fn torch_mlir_opt() -> PathBuf {
    repo().join(".venv/bin/torch-mlir-opt")
}

/// Runs `tool args file` and returns its stderr when it fails.
fn accepts(tool: &Path, args: &[&str], file: &Path) -> Result<(), String> {
    let out = Command::new(tool)
        .args(args)
        .arg(file)
        .output()
        .map_err(|e| format!("{} cannot run: {e}", tool.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn every_compiled_test_model_is_accepted_by_mlir_opt_and_torch_mlir_opt() {
    let mut all = Vec::new();
    models(&repo().join("test"), &mut all);
    models(&repo().join("examples"), &mut all);
    all.sort();
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for model in &all {
        for form in [
            &["--emit", "import"][..],
            &["--emit", "torch"],
            &["--target", "torch-mlir"],
            &["--target", "iree"],
        ] {
            let emit = form.join(" ");
            let out = tmp.path().join(format!("{checked}.mlir"));
            let status = Command::new(env!("CARGO_BIN_EXE_qlower"))
                .arg(model)
                .args(form)
                .arg("-o")
                .arg(&out)
                .output()
                .unwrap();
            if !status.status.success() {
                // Hostile models are refused by design; their messages are lit tests.
                continue;
            }
            checked += 1;
            for (tool, args) in [
                (
                    mlir_opt(),
                    vec!["--allow-unregistered-dialect", "-o", "/dev/null"],
                ),
                (torch_mlir_opt(), vec!["-o", "/dev/null"]),
            ] {
                if let Err(e) = accepts(&tool, &args, &out) {
                    failures.push(format!(
                        "{} {emit}: {} refused it:\n{e}",
                        model.display(),
                        tool.display()
                    ));
                }
            }
        }
    }
    assert!(
        checked >= 20,
        "only {checked} outputs were checked; the suite's models went missing"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{checked} outputs accepted by mlir-opt and torch-mlir-opt");
}

fn conversion_tests(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            conversion_tests(&p, out);
        } else if name.ends_with(".mlir")
            && !name.contains("diagnostics")
            && !name.contains("unsupported")
        {
            out.push(p);
        }
    }
}

#[test]
fn every_lowered_conversion_test_is_accepted_by_torch_mlir_opt() {
    let mut files = Vec::new();
    conversion_tests(&repo().join("test/Conversion"), &mut files);
    files.sort();
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let out = tmp.path().join(format!("{i}.mlir"));
        let lowered = Command::new(env!("CARGO_BIN_EXE_qlower-opt"))
            .args(["--split-input-file", "--convert-onnx-to-torch"])
            .arg(file)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        if !lowered.status.success() {
            failures.push(format!(
                "{}: qlower-opt failed:\n{}",
                file.display(),
                String::from_utf8_lossy(&lowered.stderr)
            ));
            continue;
        }
        if let Err(e) = accepts(
            &torch_mlir_opt(),
            &["--split-input-file", "-o", "/dev/null"],
            &out,
        ) {
            failures.push(format!(
                "{}: torch-mlir-opt refused the lowered output:\n{e}",
                file.display()
            ));
        }
    }
    assert!(
        files.len() >= 7,
        "only {} conversion tests were found",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!(
        "{} lowered conversion tests accepted by torch-mlir-opt",
        files.len()
    );
}

#[path = "oracle_script.rs"]
mod oracle_script;

/// Every end-to-end model of the suite, written for each compiler (`--target torch-mlir`,
/// `--target iree`), reaches
/// linalg through torch-mlir's pipelines and compiles and runs with IREE, whose outputs
/// equal `qlower run`'s within one quantization step (a real model's float outputs:
/// within its form's relative L2 bound). The real models are those of
/// `real_model_cases.DEFAULT`, fetched like the real-model test's into
/// `$QLOWER_MODEL_CACHE` or `target/real_models`. IREE is a test-only dependency that
/// tools/setup.sh installs; when it is missing this test fails. See
/// tools/downstream/compilers.py.
#[test]
fn every_end_to_end_model_compiles_with_torch_mlir_and_iree_and_matches_qlower_run() {
    let cache = std::env::var_os("QLOWER_MODEL_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/real_models"));
    oracle_script::run_oracle_script(
        "tools/downstream/compilers.py",
        &[
            "--qlower",
            oracle_script::QLOWER,
            "--resnet",
            "--real-models",
            &cache.to_string_lossy(),
        ],
        "torch-mlir or IREE refused qlower's output, or IREE's results differ",
    );
}
