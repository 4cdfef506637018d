#!/usr/bin/env bash
# Runs the exactness test and the differential tests as on an x86-64 CPU without VNNI or
# AVX-512 (AVX2 and FMA only), whatever CPU this machine has: ONNX Runtime and qlower both
# run under qemu-user as a Haswell CPU (`qemu-x86_64 -cpu Haswell`), so ONNX Runtime's
# default uint8 x int8 kernels saturate as they do on such CPUs, and qlower takes its AVX2
# paths. On every machine, this shows the difference the exactness test exists for.
#
#   bash tools/no_vnni.sh [QLOWER] [CASES]
#
# QLOWER defaults to target/debug/qlower; CASES (differential cases, default 130).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
qlower="$(readlink -f "${1:-target/debug/qlower}")"
cases="${2:-130}"

command -v qemu-x86_64 >/dev/null || { echo "no_vnni: qemu-x86_64 is missing (apt-get install qemu-user)" >&2; exit 1; }
python="$(readlink -f .venv/bin/python)"
site="$(.venv/bin/python -c 'import site; print(site.getsitepackages()[0])')"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# qemu-user reports its own executable as /proc/self/exe, so the venv cannot find itself:
# its site-packages go on sys.path by hand (their .pth files read, which install the
# editable qlower_tools), and the script runs through runpy.
cat >"$work/python" <<EOF
#!/usr/bin/env bash
exec qemu-x86_64 -cpu Haswell "$python" -c "import runpy, sys, os; sys.argv = sys.argv[1:]; sys.path[:0] = ['$site', os.path.dirname(os.path.abspath(sys.argv[0]))]; import site; site.addsitedir('$site'); runpy.run_path(sys.argv[0], run_name='__main__')" "\$@" 2> >(grep -v '^qemu-x86_64: warning' >&2)
EOF
cat >"$work/qlower" <<EOF
#!/usr/bin/env bash
exec qemu-x86_64 -cpu Haswell "$qlower" "\$@" 2> >(grep -v '^qemu-x86_64: warning' >&2)
EOF
chmod +x "$work/python" "$work/qlower"

echo "== no VNNI (qemu-x86_64 -cpu Haswell): exactness"
"$work/python" tools/differential/exactness.py --qlower "$work/qlower"
echo "== no VNNI (qemu-x86_64 -cpu Haswell): differential, $cases cases"
"$work/python" tools/differential/run.py --qlower "$work/qlower" --cases "$cases" --seed 2
