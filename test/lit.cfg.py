# LLVM lit configuration, so the tests that `cargo test --test lit` runs with its
# in-process FileCheck can also be run by LLVM's own lit and FileCheck:
#
#   cargo build && .venv/bin/lit -v test/
#
# QLOWER_BIN_DIR overrides where the qlower binaries are taken from
# (default: target/debug).

import os
import re
import shutil
import subprocess

import lit.formats

config.name = "qlower"
# The internal shell matches the Rust runner: pipefail, no globbing or $VAR.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs"]

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo_root = os.path.dirname(config.test_source_root)
config.test_exec_root = os.path.join(repo_root, "target", "lit")

# lit 23 dropped %T. As under the Rust runner, %T is a fresh directory next to
# %t, made here because config substitutions cannot run commands and a
# preamble command would make lit accept files without RUN lines. lit expands
# its own %t after config substitutions, so the %t below is still expanded.
config.substitutions.append(("%T", "%t.d"))
for directory, subdirs, files in os.walk(config.test_source_root):
    subdirs[:] = [d for d in subdirs if d not in config.excludes]
    relative = os.path.relpath(directory, config.test_source_root)
    for name in files:
        if os.path.splitext(name)[1] in config.suffixes:
            temp_dir = os.path.join(config.test_exec_root, relative, "Output", name + ".tmp.d")
            shutil.rmtree(temp_dir, ignore_errors=True)
            os.makedirs(temp_dir)


def llvm_bindir():
    try:
        out = subprocess.run(
            ["llvm-config-22", "--bindir"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "/usr/lib/llvm-22/bin"


bindir = llvm_bindir()
qlower_bin_dir = os.environ.get("QLOWER_BIN_DIR", os.path.join(repo_root, "target", "debug"))
mlir_opt = os.path.join(bindir, "mlir-opt")
if not os.path.exists(mlir_opt):
    mlir_opt = shutil.which("mlir-opt-22") or "mlir-opt-22"

tools = {
    "qlower": os.path.join(qlower_bin_dir, "qlower"),
    "qlower-opt": os.path.join(qlower_bin_dir, "qlower-opt"),
    "FileCheck": os.path.join(bindir, "FileCheck"),
    "not": os.path.join(bindir, "not"),
    "count": os.path.join(bindir, "count"),
    "mlir-opt": mlir_opt,
    "torch-mlir-opt": os.path.join(repo_root, ".venv", "bin", "torch-mlir-opt"),
}

# Substitute whole command words only: not inside paths (`/not`), options
# (`--check-prefix=not`) or longer names (`qlower-opt`, `torch-mlir-opt`).
for name, path in tools.items():
    pattern = r"(?<![\w./=%-])" + re.escape(name) + r"(?![\w./-])"
    config.substitutions.append((pattern, path))
