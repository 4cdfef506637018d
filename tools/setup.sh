#!/usr/bin/env bash
# Installs what qlower needs to build and test, only when it is missing:
# LLVM/MLIR 22 from Debian (and g++, which builds libFuzzer for tools/fuzz.sh; qemu-user,
# which tools/no_vnni.sh runs the oracles under as a CPU without VNNI) and a Python venv
# (.venv) with the pinned test oracles and the downstream compilers the tests drive.
# Safe to run repeatedly; a second run on a ready machine does nothing.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

apt_packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libpolly-22-dev
  libclang-22-dev libzstd-dev libz3-dev g++ qemu-user)
# IREE (compiler and runtime) is a test-only dependency: tools/downstream/compilers.py
# compiles qlower's output with it; qlower itself never uses it.
python_oracles=(onnx==1.23.2 onnxruntime==1.31.1 numpy pillow lit torch-mlir==20261001
  iree-base-compiler==3.13.0 iree-base-runtime==3.13.0)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

venv="$repo/.venv"
stamp="$venv/.qlower-oracles"
wanted="${python_oracles[*]}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  echo "setup: creating $venv with ${wanted}" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
  "$venv/bin/pip" install -q "${python_oracles[@]}"
  echo "$wanted" >"$stamp"
fi

# tools/ is the package the test and benchmark scripts import (`qlower_tools`,
# tools/pyproject.toml), installed editable from this checkout.
if ! "$venv/bin/python" - "$repo/tools" <<'PY' 2>/dev/null; then
import os, sys
import qlower_tools
sys.exit(os.path.realpath(os.path.dirname(qlower_tools.__file__)) != os.path.realpath(sys.argv[1]))
PY
  echo "setup: installing $repo/tools (qlower_tools) editable into $venv" >&2
  "$venv/bin/pip" install -q -e "$repo/tools"
fi

prefix="$(llvm-config-22 --prefix)"
mkdir -p "$repo/.cargo"
config="$repo/.cargo/config.toml"
expected="[env]
MLIR_SYS_220_PREFIX = \"$prefix\"
TABLEGEN_220_PREFIX = \"$prefix\""
if [ ! -f "$config" ] || [ "$(cat "$config")" != "$expected" ]; then
  echo "$expected" >"$config"
fi
