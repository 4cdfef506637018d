#!/usr/bin/env bash
# Runs the whole test suite: unit tests, the lit suite under qlower's own runner, the
# downstream acceptance test, the same lit files under LLVM's lit + FileCheck, and the
# formatting and lint gates. Installs what is missing first.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

bash tools/setup.sh

echo "== cargo fmt --check"
cargo fmt --check
echo "== cargo clippy"
cargo clippy --all-targets --quiet -- -D warnings
echo "== README command (a) in release mode (undefined behaviour can hide in debug builds)"
cargo run --quiet --release --bin qlower -- examples/quantized_conv.onnx > /dev/null
echo "== cargo test (unit, lit runner, downstream acceptance, conformance, differential)"
cargo test --all-targets
echo "== LLVM lit + FileCheck on the same files"
QLOWER_BIN_DIR="$repo/target/debug" .venv/bin/lit -sv test/
echo "== As on a CPU without VNNI (tools/no_vnni.sh: ONNX Runtime and qlower under qemu -cpu Haswell)"
bash tools/no_vnni.sh target/release/qlower 130
echo "== AddressSanitizer on the kernel tests (tools/asan.sh)"
bash tools/asan.sh
# The fuzz targets (tools/fuzz.sh) run by hand, for minutes each: in a fresh CI
# checkout, cargo-fuzz's first build probe failed once for reasons outside the project,
# and a smoke run short enough for CI finds little.
