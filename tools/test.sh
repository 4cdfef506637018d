#!/usr/bin/env bash
# Runs the whole test suite: unit tests, the lit suite under qlower's own runner, the
# downstream acceptance test, the same lit files under LLVM's lit + FileCheck, and the
# formatting and lint gates. Installs what is missing first.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

bash tools/setup.sh

# The oracles' temporary files (ONNX Runtime's quantizer writes whole models there) go on
# the checkout's own disk rather than a /tmp that may be a small tmpfs, and the free
# space is printed around each step: a full disk once showed up in CI only as a model
# ONNX Runtime's quantizer had truncated.
export TMPDIR="$repo/target/tmp/suite"
rm -rf "$TMPDIR" && mkdir -p "$TMPDIR"
# Incremental builds only help a rebuild; a CI checkout builds once.
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi
disk_free() { echo "   (free: $(df -h --output=avail "$repo" | tail -1 | tr -d ' ') on the checkout's disk)"; }
disk_free

echo "== cargo fmt --check (the root package and python/)"
cargo fmt --all --check
echo "== cargo clippy"
disk_free
cargo clippy --all-targets --quiet -- -D warnings
cargo clippy -p qlower-python --all-targets --quiet -- -D warnings
echo "== README command (a) in release mode (undefined behaviour can hide in debug builds)"
disk_free
cargo run --quiet --release --bin qlower -- examples/quantized_conv.onnx > /dev/null
echo "== Python package: pip install ./python into target/python-venv, then pytest (tools/python_tests.sh)"
disk_free
bash tools/python_tests.sh target/release/qlower
echo "== cargo test (unit, lit runner, downstream acceptance, conformance, differential)"
disk_free
cargo test --all-targets
echo "== LLVM lit + FileCheck on the same files"
disk_free
QLOWER_BIN_DIR="$repo/target/debug" .venv/bin/lit -sv test/
echo "== As on a CPU without VNNI (tools/no_vnni.sh: ONNX Runtime and qlower under qemu -cpu Haswell)"
disk_free
bash tools/no_vnni.sh target/release/qlower 130
echo "== AddressSanitizer on the kernel tests (tools/asan.sh)"
disk_free
bash tools/asan.sh
# The fuzz targets (tools/fuzz.sh) run by hand, for minutes each: in a fresh CI
# checkout, cargo-fuzz's first build probe failed once for reasons outside the project,
# and a smoke run short enough for CI finds little.
