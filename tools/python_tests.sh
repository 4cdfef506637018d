#!/usr/bin/env bash
# Builds the Python package (python/) into its own venv, target/python-venv, and runs its
# pytest suite (python/tests/) against it and against the `qlower` command line.
#
#   bash tools/python_tests.sh [QLOWER]     (QLOWER defaults to target/release/qlower)
#
# The venv is made without system site-packages and holds the test oracles pinned as in
# tools/setup.sh (installed once; a stamp file records which), plus pytest and maturin;
# the package itself is rebuilt and reinstalled on every run, by pip, as a user installs
# it (`pip install ./python`; without build isolation, so no download is needed).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
qlower="$(readlink -f "${1:-target/release/qlower}")"
[ -x "$qlower" ] || { echo "python_tests: $qlower is missing (cargo build --release)" >&2; exit 1; }

venv="$repo/target/python-venv"
packages=(onnx==1.23.2 onnxruntime==1.31.1 numpy iree-base-compiler==3.13.0
  iree-base-runtime==3.13.0 pytest "maturin>=1.9,<2.0")
stamp="$venv/.qlower-test-packages"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "${packages[*]}" ]; then
  echo "python_tests: creating $venv with ${packages[*]}" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
  "$venv/bin/pip" install -q "${packages[@]}"
  echo "${packages[*]}" >"$stamp"
fi

echo "python_tests: pip install ./python" >&2
# maturin's build backend runs the `maturin` executable of the venv.
PATH="$venv/bin:$PATH" "$venv/bin/pip" install -q --no-build-isolation --force-reinstall --no-deps ./python

# The tests import the installed package, never the source folder.
cd "$repo/python/tests"
QLOWER_BIN="$qlower" QLOWER_REPO="$repo" "$venv/bin/python" -m pytest -q --tb=short -p no:cacheprovider .
