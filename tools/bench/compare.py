"""Compares qlower's CPU backend with ONNX Runtime on quantized models, same inputs, same
thread count, runs interleaved, and prints the medians and the ratios qlower / ORT.

ONNX Runtime is timed in both of its modes: its default one, whose uint8 x int8 kernels
saturate on CPUs without VNNI (faster there, and inexact), and its exact mode
(`session.x64quantprecision=1`, see tools/ort_oracle.py), which computes what qlower
computes. The first line names the CPU and whether its default mode saturates.

Usage: .venv/bin/python tools/bench/compare.py [--qlower target/release/qlower]
           [--threads 1,2] [--iterations 30] [--rounds 3]

The script generates every model itself (under a temporary directory):
- stem: QLinearConv 1x3x224x224 uint8, 64x3x7x7 per-channel int8, stride 2, pad 3
- conv3x3: QLinearConv 64->128, 3x3, pad 1, at 28x28
- depthwise: QLinearConv 128 channels, 3x3, group 128, pad 1, at 56x56
- matmul: QLinearMatMul 512x512x512
- dynconv: DynamicQuantizeLinear + ConvInteger 64->128, 3x3, pad 1, at 56x56, int8 weights,
  + Cast + Mul by per-channel x_scale*w_scale + bias Add (ONNX Runtime's dynamic form)
- dynmatmul: DynamicQuantizeLinear + MatMulInteger 512x512x512 + Cast + Mul
- resnet18-ort: the ResNet-18-shaped float model of tools/differential/make_resnet18.py,
  quantized by ONNX Runtime's quantize_static (QDQ, per-channel int8 weights, uint8
  activations), calibrated on a few random inputs
- resnet18-qop: the same, quantized by quantize_static in the QOperator format
  (QLinearConv, QLinearAdd and their kin)
- resnet18-qlower: the same float model quantized by `qlower quantize --mode static
  --per-channel` on the same calibration inputs
The end-to-end rows run on ONNX Runtime and qlower alike, so each ratio compares the
two backends on one model. `--models` picks a subset; `--e2e-iterations` sets the timed
runs of the end-to-end models, which are slower than the single ops. `--onnx NAME=PATH`
adds a model file (a real model's dynamic form, say) with random inputs whose symbolic
dimensions are 1. `--real MODEL:FORM` adds a model of tools/real_models/manifest.py in one
of its forms, fetched or made (and quantized by ONNX Runtime) into the real-model cache
(`$QLOWER_MODEL_CACHE` or target/real_models) as the real-model test does, with the
inputs that test generates (seed 0, the entry's first length).
`--suite` times the benchmark suite of model classes instead of the single ops: the
ResNet-18-shaped CNN quantized by ORT and by qlower, a BERT/MiniLM-class encoder
(tools/real_models/make_bert.py, batch 1, sequence 128) dynamic and QDQ, and the real
models of the classes people ship (`SUITE_REAL`): a Whisper-tiny encoder shipped QDQ, a
T5 v1.1-style encoder quantized dynamically, a tf2onnx-style NHWC ResNet-50, YOLOv8n and a
PP-OCR text detector, each QDQ by ORT. After the table it prints, per thread count, the
geometric mean of the ratios, and per model the time at the highest thread count over
the time at one thread (qlower's and ORT's).
This is a benchmark, never a test: it asserts nothing about time.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from qlower_tools.differential import make_resnet18
from qlower_tools import ort_oracle


def qlinearconv(name, x_shape, w_shape, strides, pads, group, rng):
    c_out = w_shape[0]
    inits = [
        nh.from_array(np.array(0.02, np.float32), "xs"),
        nh.from_array(np.array(128, np.uint8), "xz"),
        nh.from_array(rng.randint(-127, 128, w_shape).astype(np.int8), "w"),
        nh.from_array((rng.rand(c_out) * 0.01 + 0.001).astype(np.float32), "ws"),
        nh.from_array(np.zeros(c_out, np.int8), "wz"),
        nh.from_array(np.array(0.05, np.float32), "ys"),
        nh.from_array(np.array(100, np.uint8), "yz"),
        nh.from_array(rng.randint(-1000, 1000, c_out).astype(np.int32), "b"),
    ]
    node = h.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
                       strides=strides, pads=pads, group=group, kernel_shape=list(w_shape[2:]))
    g = h.make_graph([node], name, [h.make_tensor_value_info("x", T.UINT8, x_shape)],
                     [h.make_tensor_value_info("y", T.UINT8, None)], inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 19)], ir_version=10), {
        "x": rng.randint(0, 256, x_shape).astype(np.uint8)}


def qlinearmatmul(n, rng):
    inits = [
        nh.from_array(np.array(0.02, np.float32), "as"), nh.from_array(np.array(128, np.uint8), "az"),
        nh.from_array(rng.randint(0, 256, (n, n)).astype(np.uint8), "b"),
        nh.from_array(np.array(0.01, np.float32), "bs"), nh.from_array(np.array(120, np.uint8), "bz"),
        nh.from_array(np.array(0.5, np.float32), "ys"), nh.from_array(np.array(128, np.uint8), "yz"),
    ]
    node = h.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])
    g = h.make_graph([node], "matmul", [h.make_tensor_value_info("a", T.UINT8, [n, n])],
                     [h.make_tensor_value_info("y", T.UINT8, [n, n])], inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 19)], ir_version=10), {
        "a": rng.randint(0, 256, (n, n)).astype(np.uint8)}


def dynamic_conv(x_shape, w_shape, pads, rng):
    """DynamicQuantizeLinear -> ConvInteger (int8 weights) -> Cast -> Mul by x_scale * w_scale
    (per channel) -> Add bias: a convolution as ONNX Runtime's quantize_dynamic writes it."""
    c_out, dims = w_shape[0], len(w_shape) - 2
    channel = [c_out] + [1] * dims
    inits = [
        nh.from_array(rng.randint(-127, 128, w_shape).astype(np.int8), "w"),
        nh.from_array(np.array(0, np.int8), "wz"),
        nh.from_array((rng.rand(*channel) * 0.01 + 0.001).astype(np.float32), "ws"),
        nh.from_array(rng.randn(1, *channel).astype(np.float32), "b"),
    ]
    nodes = [
        h.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        h.make_node("ConvInteger", ["xq", "w", "xz", "wz"], ["acc"], pads=pads, kernel_shape=list(w_shape[2:])),
        h.make_node("Cast", ["acc"], ["accf"], to=T.FLOAT),
        h.make_node("Mul", ["xs", "ws"], ["s"]),
        h.make_node("Mul", ["accf", "s"], ["scaled"]),
        h.make_node("Add", ["scaled", "b"], ["y"]),
    ]
    g = h.make_graph(nodes, "dynconv", [h.make_tensor_value_info("x", T.FLOAT, x_shape)],
                     [h.make_tensor_value_info("y", T.FLOAT, None)], inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 19)], ir_version=10), {
        "x": rng.randn(*x_shape).astype(np.float32)}


def dynamic_matmul(n, rng):
    """DynamicQuantizeLinear -> MatMulInteger (int8 weights) -> Cast -> Mul by x_scale * w_scale."""
    inits = [
        nh.from_array(rng.randint(-127, 128, (n, n)).astype(np.int8), "b"),
        nh.from_array(np.array(0, np.int8), "bz"),
        nh.from_array(np.array(0.01, np.float32), "bs"),
    ]
    nodes = [
        h.make_node("DynamicQuantizeLinear", ["a"], ["aq", "as", "az"]),
        h.make_node("MatMulInteger", ["aq", "b", "az", "bz"], ["acc"]),
        h.make_node("Cast", ["acc"], ["accf"], to=T.FLOAT),
        h.make_node("Mul", ["as", "bs"], ["s"]),
        h.make_node("Mul", ["accf", "s"], ["y"]),
    ]
    g = h.make_graph(nodes, "dynmatmul", [h.make_tensor_value_info("a", T.FLOAT, [n, n])],
                     [h.make_tensor_value_info("y", T.FLOAT, [n, n])], inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 19)], ir_version=10), {
        "a": rng.randn(n, n).astype(np.float32)}


def file_model(path, rng):
    """A model file with random float inputs in [-1, 1) (uint8 ones in 0..255); symbolic
    dimensions are 1."""
    model = onnx.load(path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    feeds = {}
    for i in model.graph.input:
        if i.name in inits:
            continue
        t = i.type.tensor_type
        shape = [d.dim_value if d.dim_value > 0 else 1 for d in t.shape.dim]
        if t.elem_type == T.UINT8:
            feeds[i.name] = rng.randint(0, 256, shape).astype(np.uint8)
        else:
            feeds[i.name] = (rng.rand(*shape) * 2 - 1).astype(np.float32)
    return feeds


def real_model(spec, cache):
    """(path, feeds) of `MODEL:FORM` from the real-model manifest, through run.py's own
    fetching, quantizing and input generation."""
    import importlib.util
    name, _, form = spec.partition(":")
    where = os.path.join(REPO, "tools", "real_models", "run.py")
    loader = importlib.util.spec_from_file_location("real_models_run", where)
    run = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(run)
    model = next((m for m in run.manifest.MODELS if m.name == name), None)
    if model is None or form not in model.forms:
        raise SystemExit(f"--real {spec}: no such model and form in tools/real_models/manifest.py")
    path = run.make_form(model, form, run.fetch(model, cache), cache)
    return path, run.make_inputs(model, 0)


SUITE_MODELS = "resnet18-ort,resnet18-qlower,bert-dynamic,bert-qdq"
SUITE_REAL = ["smart-turn-v3.2:shipped", "t5-v1.1-encoder:dynamic", "resnet50-tf2onnx:qdq",
              "yolov8n-320:qdq", "ppocr-det:qdq"]


def bert_model(form, work):
    """(path, feeds) of the BERT-class encoder in `form` (bert_forms.py's forms), at batch 1
    and sequence 128 with the mask's tail zero."""
    from qlower_tools.real_models import bert_forms
    folder = os.path.join(work, f"bert-{form}")
    os.makedirs(folder, exist_ok=True)
    path = bert_forms.make_form(form, folder)
    feeds = bert_forms.inputs(np.random.default_rng(0), 1, 128)
    feeds["attention_mask"][0, 100:] = 0
    return path, feeds


def calibration_inputs(count, size, rng):
    return [rng.rand(1, 3, size, size).astype(np.float32) * 2 - 1 for _ in range(count)]


def resnet18_float(work, size):
    path = os.path.join(work, "resnet18_float.onnx")
    onnx.save(make_resnet18.resnet18(size=size, seed=0), path)
    return path


def resnet18_ort(float_path, work, samples, qoperator=False):
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter([{"input": x} for x in samples])

        def get_next(self):
            return next(self.it, None)

    out = os.path.join(work, "resnet18_qop.onnx" if qoperator else "resnet18_ort.onnx")
    quant_format = QuantFormat.QOperator if qoperator else QuantFormat.QDQ
    quantize_static(float_path, out, Reader(), quant_format=quant_format, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    return out


def resnet18_qlower(qlower, float_path, work, samples):
    calib = os.path.join(work, "calibration")
    os.makedirs(calib, exist_ok=True)
    for i, x in enumerate(samples):
        np.savez(os.path.join(calib, f"{i}.npz"), input=x)
    out = os.path.join(work, "resnet18_qlower.onnx")
    subprocess.run([qlower, "quantize", float_path, "-o", out, "--mode", "static",
                    "--per-channel", "--calibration", calib], check=True)
    return out


def ort_median(path, feeds, threads, iterations, exact):
    s = ort_oracle.session(path, exact=exact, threads=threads, sequential=True)
    for _ in range(3):
        s.run(None, feeds)
    times = []
    for _ in range(iterations):
        t = time.perf_counter()
        s.run(None, feeds)
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def qlower_median(qlower, path, inputs, threads, iterations):
    cmd = [qlower, "bench", path, "--iterations", str(iterations), "--warmup", "3",
           "--threads", str(threads), "--json"]
    for name, file in inputs.items():
        cmd += ["-i", f"{name}={file}"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["median_ms"]


def geomean(values):
    return float(np.exp(np.mean(np.log(values))))


def summarize(results, names, thread_counts):
    """Geometric means of the ratios per thread count, and how much the extra threads
    helped each model."""
    if len(names) < 2:
        return
    print(f"\n{'geometric mean':<24} {'threads':>7} {'vs default':>11} {'vs exact':>9}")
    for threads in thread_counts:
        rows = [results[(n, threads)] for n in names]
        print(f"{'':<24} {threads:>7} {geomean([q / d for q, d, _ in rows]):>11.2f} "
              f"{geomean([q / e for q, _, e in rows]):>9.2f}")
    if len(thread_counts) < 2:
        return
    low, high = min(thread_counts), max(thread_counts)
    print(f"\n{'time at ' + str(high) + ' / at ' + str(low) + ' threads':<32} {'qlower':>7} {'ORT default':>12}")
    for n in names:
        q1, d1, _ = results[(n, low)]
        q2, d2, _ = results[(n, high)]
        print(f"{n:<32} {q2 / q1:>7.2f} {d2 / d1:>12.2f}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--qlower", default=os.path.join(REPO, "target", "release", "qlower"))
    p.add_argument("--threads", default="1,2")
    p.add_argument("--iterations", type=int, default=30)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--e2e-iterations", type=int, default=10)
    p.add_argument("--size", type=int, default=224, help="ResNet-18 input height and width")
    p.add_argument("--calibration-samples", type=int, default=4)
    p.add_argument("--models", default="stem,conv3x3,depthwise,matmul,dynconv,dynmatmul,"
                   "resnet18-ort,resnet18-qop,resnet18-qlower")
    p.add_argument("--onnx", action="append", default=[], metavar="NAME=PATH",
                   help="also time this model file (e.g. a real model's dynamic form), random inputs; "
                        "timed with --e2e-iterations")
    p.add_argument("--real", action="append", default=[], metavar="MODEL:FORM",
                   help="also time this real model of tools/real_models/manifest.py in this form, "
                        "with the real-model test's inputs; timed with --e2e-iterations")
    p.add_argument("--suite", action="store_true",
                   help="time the benchmark suite of model classes (see above) instead of --models")
    args = p.parse_args()
    if args.suite:
        args.models = SUITE_MODELS
        args.real = SUITE_REAL + args.real
    wanted = args.models.split(",")
    rng = np.random.RandomState(0)
    work = tempfile.mkdtemp(prefix="qlower-bench-")
    makers = {
        "stem": lambda: qlinearconv("stem", [1, 3, 224, 224], [64, 3, 7, 7], [2, 2], [3, 3, 3, 3], 1, rng),
        "conv3x3": lambda: qlinearconv("conv3x3", [1, 64, 28, 28], [128, 64, 3, 3], [1, 1], [1, 1, 1, 1], 1, rng),
        "depthwise": lambda: qlinearconv("depthwise", [1, 128, 56, 56], [128, 1, 3, 3], [1, 1], [1, 1, 1, 1], 128, rng),
        "matmul": lambda: qlinearmatmul(512, rng),
        "dynconv": lambda: dynamic_conv([1, 64, 56, 56], [128, 64, 3, 3], [1, 1, 1, 1], rng),
        "dynmatmul": lambda: dynamic_matmul(512, rng),
    }
    # (name, path, feeds, iterations): every model saved before any timing starts.
    models = []
    for name, make in makers.items():
        model, feeds = make()  # always made, so the single-op models stay the same
        if name in wanted:
            path = os.path.join(work, f"{name}.onnx")
            onnx.save(model, path)
            models.append((name, path, feeds, args.iterations))
    if any(m.startswith("resnet18") for m in wanted):
        float_path = resnet18_float(work, args.size)
        samples = calibration_inputs(args.calibration_samples, args.size, rng)
        feeds = {"input": rng.rand(1, 3, args.size, args.size).astype(np.float32) * 2 - 1}
        if "resnet18-ort" in wanted:
            path = resnet18_ort(float_path, work, samples)
            models.append(("resnet18-ort", path, feeds, args.e2e_iterations))
        if "resnet18-qop" in wanted:
            path = resnet18_ort(float_path, work, samples, qoperator=True)
            models.append(("resnet18-qop", path, feeds, args.e2e_iterations))
        if "resnet18-qlower" in wanted:
            path = resnet18_qlower(args.qlower, float_path, work, samples)
            models.append(("resnet18-qlower", path, feeds, args.e2e_iterations))
    for form in ("dynamic", "qdq"):
        if f"bert-{form}" in wanted:
            path, feeds = bert_model(form, work)
            models.append((f"bert-{form}", path, feeds, args.e2e_iterations))
    for spec in args.onnx:
        name, _, path = spec.partition("=")
        models.append((name, path, file_model(path, rng), args.e2e_iterations))
    cache = os.environ.get("QLOWER_MODEL_CACHE", os.path.join(REPO, "target", "real_models"))
    for spec in args.real:
        path, feeds = real_model(spec, cache)
        models.append((spec, path, feeds, args.e2e_iterations))
    print(f"CPU: {ort_oracle.cpu_name()}; onnxruntime {ort.__version__}", flush=True)
    print(f"{'model':<24} {'threads':>7} {'qlower ms':>10} {'ORT default':>12} {'ORT exact':>10} "
          f"{'vs default':>11} {'vs exact':>9}", flush=True)
    thread_counts = [int(t) for t in args.threads.split(",")]
    results = {}  # (name, threads) -> (qlower ms, ORT default ms, ORT exact ms)
    for name, path, feeds, iterations in models:
        inputs = {}
        for k, v in feeds.items():
            f = os.path.join(work, f"{name}_{k}.npy")
            np.save(f, v)
            inputs[k] = f
        for threads in thread_counts:
            ours, default, exact = [], [], []
            for _ in range(args.rounds):  # interleaved, so drift affects all alike
                ours.append(qlower_median(args.qlower, path, inputs, threads, iterations))
                default.append(ort_median(path, feeds, threads, iterations, exact=False))
                exact.append(ort_median(path, feeds, threads, iterations, exact=True))
            q, d, e = statistics.median(ours), statistics.median(default), statistics.median(exact)
            print(f"{name:<24} {threads:>7} {q:>10.3f} {d:>12.3f} {e:>10.3f} {q / d:>11.2f} {q / e:>9.2f}",
                  flush=True)
            results[(name, threads)] = (q, d, e)
    summarize(results, [m[0] for m in models], thread_counts)
    if os.environ.get("QLOWER_BENCH_KEEP"):
        print(f"models kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
