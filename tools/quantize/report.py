"""End-to-end check of `qlower quantize --report` and `--keep-16bit` (test oracle only).

Builds a float CNN (Conv-Relu-Conv-Relu-Conv) whose calibration inputs carry rare large
spikes, as real sensor or pixel data can: the input's 8-bit grid is then coarse for the
bulk of its values, so that one tensor's own quantization error stands out. Then:
- `qlower quantize --mode static --report=FILE --report-json --verify-suggestions`
  writes the model and a JSON report: tensors sorted worst SQNR first, every SQNR
  finite, weights and activations both listed, at least one `--keep-16bit` suggestion,
  the model output's SQNR, and the suggestions verified by quantizing again (the input
  kept, the outputs' SQNR higher);
- one tensor's SQNR (the second convolution's output, upstream error included) and the
  output's are recomputed with NumPy from ONNX Runtime's intermediate outputs (the float
  model and the quantized one, each with that tensor made a graph output) and must
  agree with the report;
- the model is quantized again with `--keep-16bit` of the suggested tensors; ONNX
  Runtime (exact mode) must accept and run it, and its output error against the float
  model (relative L2 over the samples) must be lower than the 8-bit model's.

Usage: report.py --qlower PATH/TO/qlower
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from qlower_tools import ort_oracle

RNG = np.random.default_rng(11)
FAILURES = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        FAILURES.append(what)


def init(name, shape, scale):
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def cnn():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 16, 16])
    pads = [1, 1, 1, 1]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=pads),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2", pads=pads),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Conv", ["r2", "w3", "b3"], ["y"], name="conv3", pads=pads),
    ]
    inits = [init("w1", [8, 3, 3, 3], 0.3), init("b1", [8], 0.1), init("w2", [8, 8, 3, 3], 0.2),
             init("b2", [8], 0.1), init("w3", [4, 8, 3, 3], 0.2), init("b3", [4], 0.1)]
    graph = helper.make_graph(nodes, "spiky_cnn", [x], [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    return model


def spiky_samples(n=8):
    """N(0, 1) inputs with two spikes of +-60 each: the range is set by the spikes."""
    out = []
    for _ in range(n):
        x = RNG.standard_normal((1, 3, 16, 16)).astype(np.float32)
        for _ in range(2):
            c, h, w = RNG.integers(0, 3), RNG.integers(0, 16), RNG.integers(0, 16)
            x[0, c, h, w] = RNG.choice([-60.0, 60.0])
        out.append({"x": x})
    return out


def quantize(args, src, dst, *flags):
    r = subprocess.run([args.qlower, "quantize", src, "-o", dst, *flags], capture_output=True, text=True)
    check(r.returncode == 0, f"qlower quantize {' '.join(flags)}: {r.stderr.strip()[:300]}")
    return r.returncode == 0


def with_outputs(model, names):
    """`model` with the tensors `names` made graph outputs too (ORT infers their types)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for n in names:
        m.graph.output.append(helper.make_empty_tensor_value_info(n))
    return m


def sqnr(pairs):
    signal = sum(float(np.sum(x.astype(np.float64) ** 2)) for x, _ in pairs)
    noise = sum(float(np.sum((x.astype(np.float64) - q) ** 2)) for x, q in pairs)
    return 10 * np.log10(signal / noise)


def rel_l2(pairs):
    num = sum(float(np.sum((x.astype(np.float64) - q) ** 2)) for x, q in pairs)
    den = sum(float(np.sum(x.astype(np.float64) ** 2)) for x, _ in pairs)
    return (num / den) ** 0.5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    ap.add_argument("--keep", help="keep the temporary folder here instead")
    args = ap.parse_args()
    tmp = args.keep or tempfile.mkdtemp(prefix="qlower_report_")
    os.makedirs(tmp, exist_ok=True)
    src = os.path.join(tmp, "cnn.onnx")
    onnx.save(cnn(), src)
    data = spiky_samples()
    calib = os.path.join(tmp, "calib")
    os.makedirs(calib, exist_ok=True)
    for i, s in enumerate(data):
        np.savez(os.path.join(calib, f"s{i:03}.npz"), **s)

    q8 = os.path.join(tmp, "cnn.u8.onnx")
    report_file = os.path.join(tmp, "report.json")
    if not quantize(args, src, q8, "--mode", "static", "--calibration", calib, "--per-channel",
                    f"--report={report_file}", "--report-json", "--verify-suggestions"):
        return finish()
    report = json.load(open(report_file))
    tensors = report["tensors"]
    print(json.dumps({k: report[k] for k in ("outputs", "suggested", "median_own_sqnr_db")}))
    for t in tensors[:5]:
        print(f"  {t['name']:>4} {t['kind']:<10} {t['op']:<6} {t['sqnr_db']:8.2f} dB  own {t['own_sqnr_db']:8.2f} dB"
              f"  {t['suggestion'] or ''}")
    values = [t["sqnr_db"] for t in tensors]
    check(all(isinstance(v, float) and np.isfinite(v) for v in values), "every SQNR is a finite number")
    check(values == sorted(values), "tensors are sorted worst SQNR first")
    kinds = {t["kind"] for t in tensors}
    check({"weight", "activation"} <= kinds, f"weights and activations are both listed ({sorted(kinds)})")
    names = {t["name"] for t in tensors}
    check({"x", "r1", "r2", "w1", "w2", "w3"} <= names, f"every quantized tensor is listed ({sorted(names)})")
    keep = report["suggested"]["keep_16bit"]
    check(len(keep) > 0, f"suggestions are present ({keep})")
    check("x" in keep, "the spiky input is suggested for 16 bits")
    check(all(t["suggestion"] == "keep-16bit" for t in tensors if t["name"] in keep),
          "each suggested tensor's row says so")
    verified = report["verified"]
    check(verified is not None and "x" in verified["keep_16bit"] and verified["after_db"] > verified["before_db"],
          f"--verify-suggestions keeps the input and measures the gain ({verified})")
    outputs = {o["name"]: o["sqnr_db"] for o in report["outputs"]}
    check("y" in outputs and np.isfinite(outputs["y"]), f"the model output's SQNR is given ({outputs})")

    # The same SQNR from ONNX Runtime's intermediate tensors and NumPy.
    feeds = [{"x": s["x"]} for s in data]
    float_model = with_outputs(onnx.load(src), ["r2"])
    qmodel = onnx.load(q8)
    row = next(t for t in tensors if t["name"] == "r2")
    quant_model = with_outputs(qmodel, [row["dequantized"]])
    f = [ort_oracle.run(float_model, fd) for fd in feeds]
    q = [ort_oracle.run(quant_model, fd) for fd in feeds]
    want = sqnr([(a["r2"], b[row["dequantized"]]) for a, b in zip(f, q)])
    check(abs(want - row["sqnr_db"]) < 0.05,
          f"SQNR of 'r2' from ORT and NumPy {want:.3f} dB = the report's {row['sqnr_db']:.3f} dB")
    want_y = sqnr([(a["y"], b["y"]) for a, b in zip(f, q)])
    check(abs(want_y - outputs["y"]) < 0.05,
          f"SQNR of 'y' from ORT and NumPy {want_y:.3f} dB = the report's {outputs['y']:.3f} dB")

    # Acting on the suggestion lowers the error against the float model.
    q16 = os.path.join(tmp, "cnn.keep16.onnx")
    if not quantize(args, src, q16, "--mode", "static", "--calibration", calib, "--per-channel",
                    "--keep-16bit", ",".join(keep)):
        return finish()
    m16 = onnx.load(q16)
    onnx.checker.check_model(m16, full_check=True)
    wide = [n for n in m16.graph.node if n.op_type == "QuantizeLinear" and n.input[0] in keep]
    zero_points = {t.name: t.data_type for t in m16.graph.initializer}
    check(wide and all(zero_points[n.input[2]] in (TensorProto.UINT16, TensorProto.INT16) for n in wide),
          "the kept tensors' QuantizeLinear is 16-bit")
    base = [ort_oracle.run(src, fd)["y"] for fd in feeds]
    err8 = rel_l2([(b, ort_oracle.run(q8, fd)["y"]) for b, fd in zip(base, feeds)])
    try:
        err16 = rel_l2([(b, ort_oracle.run(q16, fd)["y"]) for b, fd in zip(base, feeds)])
    except Exception as e:  # noqa: BLE001 - a refusal is the failure to report
        check(False, f"ONNX Runtime runs the --keep-16bit model: {e}")
        return finish()
    check(True, "ONNX Runtime runs the --keep-16bit model")
    check(err16 < err8,
          f"--keep-16bit {','.join(keep)} lowers the output error against the float model (ORT, "
          f"relative L2): {err8:.4f} -> {err16:.4f}")
    wide_bias_case(args, tmp)
    return finish()


def wide_bias_case(args, tmp):
    """A Conv whose input and weight are both kept in 16 bits: x_scale·w_scale is so small
    that a bias of 50 would saturate int32, so the bias must stay float, and qlower's run
    must stay close to the float model. (ONNX Runtime 1.31 is no oracle here: with its
    graph optimizations it returns near zeros for DQ(uint16) DQ(int16) Conv with a float
    bias, and without them it gives qlower's values.)"""
    d = os.path.join(tmp, "wide_bias")
    os.makedirs(os.path.join(d, "calib"), exist_ok=True)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])
    w = init("w", [4, 3, 3, 3], 0.01)
    b = numpy_helper.from_array(np.array([50.0, -30.0, 0.1, 5.0], np.float32), "b")
    g = helper.make_graph([helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", pads=[1, 1, 1, 1])],
                          "wide_bias", [x], [y], [w, b])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 10
    src, dst = os.path.join(d, "m.onnx"), os.path.join(d, "q.onnx")
    onnx.save(m, src)
    xs = [(RNG.standard_normal([1, 3, 8, 8]) * 0.01).astype(np.float32) for _ in range(2)]
    for i, v in enumerate(xs):
        np.savez(os.path.join(d, "calib", f"s{i}.npz"), x=v)
    if not quantize(args, src, dst, "--mode", "static", "--calibration", os.path.join(d, "calib"),
                    "--keep-16bit", "x,w"):
        return
    q = onnx.load(dst)
    check(any(t.name == "b" and t.data_type == TensorProto.FLOAT for t in q.graph.initializer),
          "a bias that would saturate int32 (16-bit input and weight) stays float")
    np.save(os.path.join(d, "x.npy"), xs[0])
    out = os.path.join(d, "out")
    r = subprocess.run([args.qlower, "run", dst, "-i", f"x={os.path.join(d, 'x.npy')}", "--out-dir", out],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"qlower run of the 16-bit Conv: {r.stderr.strip()[:200]}")
    if r.returncode == 0:
        want = ort_oracle.run(src, {"x": xs[0]})["y"]
        err = float(np.max(np.abs(np.load(os.path.join(out, "y.npy")) - want)))
        check(err < 0.2, f"and qlower runs it within about half a step (0.16) of the output's 8-bit grid ({err:.3f})")


def finish():
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print("all report checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
