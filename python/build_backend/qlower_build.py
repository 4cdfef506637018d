"""The build backend of the qlower package: maturin's, with one addition.

qlower links LLVM/MLIR 22 through mlir-sys and tblgen, whose build scripts find it
through MLIR_SYS_220_PREFIX and TABLEGEN_220_PREFIX. Inside the repository,
`.cargo/config.toml` sets them; a pip build may run cargo elsewhere (from an sdist, in
a temporary folder), so when the environment does not set them they are taken from
`llvm-config-22 --prefix`, as tools/setup.sh does.
"""

import os
import shutil
import subprocess

import maturin


def _set_llvm_prefix():
    names = ("MLIR_SYS_220_PREFIX", "TABLEGEN_220_PREFIX")
    if all(os.environ.get(n) for n in names):
        return
    config = shutil.which("llvm-config-22")
    if config is None:
        return  # cargo's own configuration, or its error naming the variable, decides
    prefix = subprocess.run(
        [config, "--prefix"], check=True, capture_output=True, text=True
    ).stdout.strip()
    for name in names:
        os.environ.setdefault(name, prefix)


_set_llvm_prefix()

build_wheel = maturin.build_wheel
build_sdist = maturin.build_sdist
build_editable = maturin.build_editable
get_requires_for_build_wheel = maturin.get_requires_for_build_wheel
get_requires_for_build_sdist = maturin.get_requires_for_build_sdist
get_requires_for_build_editable = maturin.get_requires_for_build_editable
prepare_metadata_for_build_wheel = maturin.prepare_metadata_for_build_wheel
prepare_metadata_for_build_editable = maturin.prepare_metadata_for_build_editable
