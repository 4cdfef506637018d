#!/usr/bin/env bash
# Runs the cargo-fuzz targets in fuzz/ for a given time each.
#
#   tools/fuzz.sh [TARGET|all] [SECONDS]     (defaults: all, 60)
#
# Targets: onnx_import (decode + validate + import + lowering of .onnx bytes), mlir_plan
# (MLIR reader + plan building), run_model (small generated models, compiled, planned and
# run on generated inputs). Seed corpora are generated from the test suite into
# fuzz/corpus/TARGET, where the fuzzer also keeps what it finds; crashes land in
# fuzz/artifacts/TARGET. Only a stable toolchain is assumed: RUSTC_BOOTSTRAP=1 lets it take
# the nightly-only flags that cargo-fuzz passes. FUZZ_SANITIZER (default address) picks
# the sanitizer; `none` is faster. FUZZ_ARGS adds libFuzzer flags (e.g. -max_len=65536).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

target="${1:-all}"
seconds="${2:-60}"
sanitizer="${FUZZ_SANITIZER:-address}"
targets=(onnx_import mlir_plan run_model)
if [[ "$target" != all ]]; then
    if [[ ! " ${targets[*]} " =~ " $target " ]]; then
        echo "error: unknown fuzz target '$target' (targets: ${targets[*]} all)" >&2
        exit 1
    fi
    targets=("$target")
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install --locked cargo-fuzz </dev/null
fi
python="python3"
[[ -x .venv/bin/python ]] && python=.venv/bin/python
if [[ ! -d fuzz/corpus/onnx_import ]]; then
    # The fused forms of the test models are mlir_plan seeds: build qlower for them.
    cargo build --quiet --bin qlower </dev/null
    "$python" tools/fuzz/make_corpus.py fuzz/corpus
fi

export RUSTC_BOOTSTRAP=1
# ASan's default 256 MB quarantine, with the allocator caches around it, took a
# 10-minute onnx_import run to 3.5 GB of RSS (no leak: with the quarantine off it stays
# at 65 MB), close to -rss_limit_mb. A smaller quarantine keeps long runs under it.
export ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=64}"
for t in "${targets[@]}"; do
    echo "== fuzzing $t for ${seconds}s (sanitizer: $sanitizer)"
    # -timeout: one input running longer than that is a hang, reported like a crash.
    # -rss_limit_mb: a run that allocates past it is an unbounded allocation.
    cargo fuzz run -s "$sanitizer" "$t" "fuzz/corpus/$t" </dev/null -- \
        -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 ${FUZZ_ARGS:-}
done
