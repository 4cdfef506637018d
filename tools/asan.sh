#!/usr/bin/env bash
# Runs the kernel unit tests (and any extra test filters given) under AddressSanitizer
# and LeakSanitizer:
#
#   tools/asan.sh [FILTER...]       (default filters: kernels:: rewrite::, see below)
#
# The SIMD kernels use `unsafe` intrinsics and raw pointers; ASan checks every access
# they make against the real allocation, which the portable-vs-SIMD comparison tests
# alone cannot. `rewrite::` holds the driver's leak regression test. Only a stable
# toolchain is assumed: RUSTC_BOOTSTRAP=1 lets it take -Zsanitizer. --target is needed
# so that the sanitizer flags reach the tests but not the build scripts and proc macros.
# The build goes to target/x86_64-unknown-linux-gnu (first run: several minutes).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

filters=("$@")
# The kernel library's tests, less those with no kernel code under them (tensor
# bookkeeping, dtype and type names, the instruction-set levels, the source layering
# check) and the f32 math ulp sweep (tens of millions of scalar evaluations, pure
# arithmetic; the SIMD paths' memory accesses are covered by the bytes test), which the
# plain test run covers. Filters match anywhere in a test's path,
# so `runtime::` is skipped too (runtime::fused_kernels contains `kernels::`).
[[ ${#filters[@]} -eq 0 ]] && filters=(kernels:: rewrite:: --skip runtime::
    --skip kernels::tensor::tests:: --skip kernels::tensor::dtype::
    --skip kernels::tensor::tensor_type:: --skip kernels::isa:: --skip kernels::testing::layering::
    --skip kernels::ops::vector_math::tests::errors_against_f64_stay_within_their_bounds)

export RUSTC_BOOTSTRAP=1
export RUSTFLAGS="-Zsanitizer=address"
export RUSTDOCFLAGS="-Zsanitizer=address"
# MLIR's static libraries define some globals twice, harmlessly; leaks stay on.
export ASAN_OPTIONS="detect_odr_violation=0:detect_leaks=1"
cargo test --lib --target x86_64-unknown-linux-gnu </dev/null -- "${filters[@]}"
