//! Maps tool names used in RUN lines to the executables to start.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub fn resolve(name: &str) -> PathBuf {
    match name {
        "qlower" => PathBuf::from(env!("CARGO_BIN_EXE_qlower")),
        "qlower-opt" => PathBuf::from(env!("CARGO_BIN_EXE_qlower-opt")),
        "mlir-opt" => mlir_opt().to_path_buf(),
        "torch-mlir-opt" => Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/torch-mlir-opt"),
        _ => PathBuf::from(name),
    }
}

/// Prefers the LLVM 22 bindir so the same mlir-opt is used as by `lit`,
/// falling back to the Debian alias on PATH.
fn mlir_opt() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let bindir = Command::new("llvm-config-22")
            .arg("--bindir")
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
        bindir
            .map(|dir| dir.join("mlir-opt"))
            .filter(|path| path.is_file())
            .unwrap_or_else(|| PathBuf::from("mlir-opt-22"))
    })
}
