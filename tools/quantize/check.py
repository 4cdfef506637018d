"""End-to-end checks of `qlower quantize` against ONNX Runtime (test oracle only).

Builds small float models (a Conv-Relu-Conv CNN, an MLP with Gemm and MatMul, a MatMul
whose weight is also a graph output), quantizes them with `qlower quantize` in dynamic
and static modes, and checks that:
- onnx.checker accepts the output and ONNX Runtime runs it, within 5% of the float
  model's output range (static models on a calibration sample);
- `qlower run` on the quantized model agrees with ONNX Runtime on it;
- static minmax parameters (every QuantizeLinear's scale and zero point, every weight's
  and bias's DequantizeLinear scale) equal ORT's `quantize_static` on the same data;
- every DequantizeLinear of a per-channel tensor carries `axis`, also for a weight that
  is a graph output (the ORT bug this tool avoids);
- restricted asymmetric zero points are 0 or 128, and 0 after a Relu;
- 16-bit activations (`--activation-type u16|i16`) match ORT's QUInt16/QInt16 in the same
  way;
- `--calibrate-method distribution` names the rule it chose on left-out calibration
  samples, and its parameters are that rule's.

Usage: check.py --qlower PATH/TO/qlower
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (
    CalibrationDataReader,
    CalibrationMethod,
    QuantFormat,
    QuantType,
    quantize_static,
)

from qlower_tools import ort_oracle

RNG = np.random.default_rng(7)
FAILURES = []
PASSED = [0]


def check(cond, what):
    if cond:
        PASSED[0] += 1
    else:
        FAILURES.append(what)
        print("FAIL:", what)


def init(name, shape, scale=0.5):
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def finish(nodes, inputs, outputs, inits, name):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 10
    onnx.checker.check_model(model)
    return model


def cnn():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 8, 8])
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["y"], name="conv2", pads=[1, 1, 1, 1]),
    ]
    inits = [init("w1", [4, 3, 3, 3]), init("b1", [4], 0.1), init("w2", [2, 4, 3, 3]), init("b2", [2], 0.1)]
    return finish(nodes, [x], [y], inits, "cnn"), {"x": (1, 3, 8, 8)}


def mlp():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["g1"], name="gemm1"),
        helper.make_node("Relu", ["g1"], ["r1"], name="relu1"),
        helper.make_node("Gemm", ["r1", "w2", "b2"], ["g2"], name="gemm2", transB=1),
        helper.make_node("MatMul", ["g2", "w3"], ["m3"], name="matmul3"),
        helper.make_node("Add", ["m3", "b3"], ["y"], name="add3"),
    ]
    inits = [
        init("w1", [16, 8]), init("b1", [8], 0.1), init("w2", [6, 8]), init("b2", [6], 0.1),
        init("w3", [6, 4]), init("b3", [4], 0.1),
    ]
    return finish(nodes, [x], [y], inits, "mlp"), {"x": (2, 16)}


def weight_output():
    """A MatMul whose weight is also a graph output: its dequantized value must keep `axis`."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, [8, 4])
    wr = helper.make_tensor_value_info("w_relu", TensorProto.FLOAT, [8, 4])
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["y"], name="mm"),
        # An op left in float that reads the weight.
        helper.make_node("Relu", ["w"], ["w_relu"], name="relu_of_weight"),
    ]
    return finish(nodes, [x], [y, w, wr], [init("w", [8, 4])], "weight_output"), {"x": (2, 8)}


def qlower(args, *rest):
    return subprocess.run([args.qlower, *rest], capture_output=True, text=True)


def ort_run(path, feeds):
    return ort_oracle.run(path, feeds)


def qlower_run(args, path, feeds, tmp):
    out_dir = os.path.join(tmp, "out_" + os.path.basename(path))
    cli = ["run", path, "--out-dir", out_dir]
    for k, v in feeds.items():
        f = os.path.join(tmp, f"in_{k}.npy")
        np.save(f, v)
        cli += ["-i", f"{k}={f}"]
    r = qlower(args, *cli)
    if r.returncode != 0:
        return None, r.stderr
    return {n[:-4]: np.load(os.path.join(out_dir, n)) for n in os.listdir(out_dir)}, ""


def samples(shapes, n=8):
    return [{k: RNG.standard_normal(s).astype(np.float32) for k, s in shapes.items()} for _ in range(n)]


def write_calibration(tmp, data):
    d = os.path.join(tmp, "calib")
    os.makedirs(d, exist_ok=True)
    for i, s in enumerate(data):
        np.savez(os.path.join(d, f"s{i:03}.npz"), **s)
    return d


def params_of(model):
    """QuantizeLinear (scale, zp) by input tensor, and DequantizeLinear scales of stored tensors."""
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    q, dq = {}, {}
    for n in model.graph.node:
        if n.op_type == "QuantizeLinear":
            # A quantized graph output T is computed as T_QuantizeLinear_Input, then Q/DQ.
            name = n.input[0].removesuffix("_QuantizeLinear_Input")
            q[name] = (inits[n.input[1]], inits[n.input[2]])
        if n.op_type == "DequantizeLinear" and n.input[0] in inits:
            dq[n.input[0]] = (inits[n.input[1]], inits[n.input[2]])
    return q, dq


def per_channel_dq_have_axis(model):
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    ok = True
    for n in model.graph.node:
        if n.op_type != "DequantizeLinear":
            continue
        scale = inits.get(n.input[1])
        if scale is not None and scale.size > 1:
            ok &= any(a.name == "axis" for a in n.attribute)
    return ok


def close_to_float(name, got, want, tol):
    err = float(np.max(np.abs(got - want)))
    rng = float(np.max(np.abs(want))) + 1e-6
    print(f"  {name}: max |quantized - float| = {err:.4f} (float range {rng:.3f}, {100 * err / rng:.2f}%)")
    check(err <= tol * rng, f"{name}: quantized output too far from float ({err} > {tol} * {rng})")


def agree_with_ort(name, args, path, feeds, ref, tmp):
    got, err = qlower_run(args, path, feeds, tmp)
    check(got is not None, f"{name}: qlower run failed: {err}")
    if got is None:
        return
    for k, v in ref.items():
        d = float(np.max(np.abs(got[k].astype(np.float64) - v))) if k in got else float("inf")
        print(f"  {name}: qlower run vs ORT on '{k}': max diff {d:.2e}")
        check(d <= 1e-4 * (1 + float(np.max(np.abs(v)))), f"{name}: qlower run differs from ORT on '{k}' by {d}")


def quantize(args, src, dst, *flags):
    r = qlower(args, "quantize", src, "-o", dst, *flags)
    check(r.returncode == 0, f"qlower quantize {' '.join(flags)} on {os.path.basename(src)}: {r.stderr}")
    return r.returncode == 0


def case_dynamic(args, tmp, name, model, shapes, per_channel):
    src = os.path.join(tmp, f"{name}.onnx")
    onnx.save(model, src)
    tag = f"{name}_dynamic{'_pc' if per_channel else ''}"
    dst = os.path.join(tmp, f"{tag}.onnx")
    if not quantize(args, src, dst, "--mode", "dynamic", *(["--per-channel"] if per_channel else [])):
        return None
    q = onnx.load(dst)
    onnx.checker.check_model(q, full_check=True)
    check(per_channel_dq_have_axis(q), f"{tag}: a per-channel DequantizeLinear lacks axis")
    feeds = samples(shapes, 1)[0]
    ref = ort_run(src, feeds)
    out = ort_run(dst, feeds)
    for k in ref:
        close_to_float(f"{tag} '{k}'", out[k], ref[k], 0.05)
    agree_with_ort(tag, args, dst, feeds, out, tmp)
    return q


class Reader(CalibrationDataReader):
    def __init__(self, data):
        self.it = iter(data)

    def get_next(self):
        return next(self.it, None)


ACTIVATION_TYPES = {"u8": QuantType.QUInt8, "i8": QuantType.QInt8, "u16": QuantType.QUInt16,
                    "i16": QuantType.QInt16}


def case_static(args, tmp, name, model, shapes, per_channel, act="u8"):
    """act: the activation type; i8 is symmetric, ORT given the same. 16-bit activations
    need QuantizeLinear-21 or, in older opsets, com.microsoft's (both tools choose so)."""
    int8 = act == "i8"
    src = os.path.join(tmp, f"{name}.onnx")
    onnx.save(model, src)
    data = samples(shapes)
    tag = f"{name}_static{'_pc' if per_channel else ''}{'' if act == 'u8' else '_' + act}"
    calib = write_calibration(os.path.join(tmp, tag), data)
    dst = os.path.join(tmp, f"{tag}.onnx")
    flags = ["--per-channel"] if per_channel else []
    if act != "u8":
        flags += ["--activation-type", act]
    if int8:
        flags += ["--activation-symmetric"]
    if not quantize(args, src, dst, "--mode", "static", "--calibration", calib, *flags):
        return
    q = onnx.load(dst)
    onnx.checker.check_model(q, full_check=True)
    check(per_channel_dq_have_axis(q), f"{tag}: a per-channel DequantizeLinear lacks axis")
    ort_dst = os.path.join(tmp, f"{tag}_ort.onnx")
    quantize_static(
        src, ort_dst, Reader(data), quant_format=QuantFormat.QDQ, op_types_to_quantize=["Conv", "MatMul", "Gemm"],
        per_channel=per_channel, activation_type=ACTIVATION_TYPES[act],
        weight_type=QuantType.QInt8,
        calibrate_method=CalibrationMethod.MinMax,
        extra_options={"ActivationSymmetric": int8, "WeightSymmetric": True},
    )
    ours_q, ours_dq = params_of(q)
    ort_q, ort_dq = params_of(onnx.load(ort_dst))
    compared = 0
    for t, (s, z) in ort_q.items():
        check(t in ours_q, f"{tag}: ORT quantizes '{t}', qlower does not")
        if t in ours_q:
            compared += 1
            s2, z2 = ours_q[t]
            check(np.allclose(s, s2, rtol=1e-6, atol=0) and np.array_equal(z, z2),
                  f"{tag}: '{t}' qlower scale/zp {s2}/{z2}, ORT {s}/{z}")
            print(f"  {tag}: '{t}' scale {float(s2):.8g} (ORT {float(s):.8g}), zp {int(z2)} (ORT {int(z)})")
    for t, (s, z) in ort_dq.items():
        check(t in ours_dq, f"{tag}: ORT stores '{t}' quantized, qlower does not")
        if t in ours_dq:
            compared += 1
            s2, z2 = ours_dq[t]
            check(np.allclose(s, s2, rtol=1e-6, atol=0) and np.array_equal(z, z2),
                  f"{tag}: stored '{t}' qlower scale/zp {s2}/{z2}, ORT {s}/{z}")
    print(f"  {tag}: {compared} parameter sets equal ORT's quantize_static (MinMax, QDQ)")
    # Accuracy on a calibration sample: a fresh one may leave the calibrated range.
    feeds = data[0]
    ref = ort_run(src, feeds)
    out = ort_run(dst, feeds)
    for k in ref:
        close_to_float(f"{tag} '{k}'", out[k], ref[k], 0.05)
    agree_with_ort(tag, args, dst, feeds, out, tmp)


def case_restricted(args, tmp):
    model, shapes = cnn()
    src = os.path.join(tmp, "cnn_r.onnx")
    onnx.save(model, src)
    data = samples(shapes)
    calib = write_calibration(os.path.join(tmp, "restricted"), data)
    dst = os.path.join(tmp, "cnn_restricted.onnx")
    if not quantize(args, src, dst, "--mode", "static", "--calibration", calib, "--per-channel",
                    "--activation-restricted-asymmetric"):
        return
    q = onnx.load(dst)
    onnx.checker.check_model(q, full_check=True)
    qs, _ = params_of(q)
    zps = {t: int(z) for t, (s, z) in qs.items()}
    print(f"  restricted asymmetric zero points: {zps}")
    check(all(z in (0, 128) for z in zps.values()), f"restricted zero points not in {{0,128}}: {zps}")
    check(zps.get("r1") == 0, f"zero point after the Relu is not 0: {zps}")
    check(zps.get("x") == 128, f"zero point of the signed input is not 128: {zps}")
    feeds = data[0]
    ref = ort_run(src, feeds)
    out = ort_run(dst, feeds)
    close_to_float("cnn restricted 'y'", out["y"], ref["y"], 0.05)
    agree_with_ort("cnn_restricted", args, dst, feeds, out, tmp)


def case_percentile(args, tmp):
    model, shapes = mlp()
    src = os.path.join(tmp, "mlp_p.onnx")
    onnx.save(model, src)
    calib = write_calibration(os.path.join(tmp, "percentile"), samples(shapes))
    dst = os.path.join(tmp, "mlp_percentile.onnx")
    if quantize(args, src, dst, "--mode", "static", "--calibration", calib, "--calibrate-method", "percentile"):
        onnx.checker.check_model(onnx.load(dst), full_check=True)
        feeds = samples(shapes, 1)[0]
        ort_run(dst, feeds)


def case_methods(args, tmp):
    """The other range choices (entropy, distribution and mse calibration, moving-average
    ranges, least-squares weight scales, bias correction): each model is valid, runs in
    ORT within 5% of the float model on a calibration sample, and `qlower run` agrees."""
    variants = {
        "entropy": ["--calibrate-method", "entropy"],
        "distribution": ["--calibrate-method", "distribution"],
        "mse": ["--calibrate-method", "mse"],
        "moving": ["--moving-average", "--averaging-constant", "0.5"],
        "weight_mse": ["--weight-range", "mse"],
        "bias": ["--bias-correction", "--calibrate-method", "mse", "--weight-range", "mse"],
    }
    for name, make in [("cnn", cnn), ("mlp", mlp)]:
        model, shapes = make()
        src = os.path.join(tmp, f"{name}_m.onnx")
        onnx.save(model, src)
        data = samples(shapes)
        calib = write_calibration(os.path.join(tmp, f"{name}_methods"), data)
        feeds = data[0]
        ref = ort_run(src, feeds)
        for tag, flags in variants.items():
            dst = os.path.join(tmp, f"{name}_{tag}.onnx")
            if not quantize(args, src, dst, "--mode", "static", "--calibration", calib,
                            "--per-channel", *flags):
                continue
            onnx.checker.check_model(onnx.load(dst), full_check=True)
            out = ort_run(dst, feeds)
            # A moving average (constant 0.5 over 4 samples) narrows the ranges below
            # what the one sample checked here holds, so it clips by design: 20% then.
            bound = 0.2 if tag == "moving" else 0.05
            for k in ref:
                close_to_float(f"{name} {tag} '{k}'", out[k], ref[k], bound)
            agree_with_ort(f"{name}_{tag}", args, dst, feeds, out, tmp)
    bad = qlower(args, "quantize", src, "-o", os.path.join(tmp, "x.onnx"), "--mode", "static",
                 "--calibration", calib, "--calibrate-method", "entropy", "--moving-average")
    check(bad.returncode != 0 and "--moving-average" in bad.stderr,
          f"--moving-average with entropy is not refused: {bad.stderr}")


def case_distribution_rule(args, tmp):
    """`--calibrate-method distribution` names the rule it chose on left-out calibration
    samples, and its activation parameters are that rule's: min-max's own parameters
    when it chose min-max, else some two-sided tensor spanned symmetrically (u8 zero
    point 128) that min-max would not span so."""
    for name, make in [("cnn", cnn), ("mlp", mlp)]:
        model, shapes = make()
        src = os.path.join(tmp, f"{name}_rule.onnx")
        onnx.save(model, src)
        calib = write_calibration(os.path.join(tmp, f"{name}_rule"), samples(shapes, 4))
        dist, mm = (os.path.join(tmp, f"{name}_rule_{m}.onnx") for m in ("dist", "mm"))
        r = qlower(args, "quantize", src, "-o", dist, "--mode", "static", "--calibration", calib,
                   "--per-channel", "--calibrate-method", "distribution")
        chosen = re.search(r"chosen: (.*)", r.stderr)
        if r.returncode != 0 or chosen is None:
            check(False, f"{name} distribution failed or named no chosen rule: {r.stderr}")
            continue
        if not quantize(args, src, mm, "--mode", "static", "--calibration", calib, "--per-channel"):
            continue
        qd, qm = params_of(onnx.load(dist))[0], params_of(onnx.load(mm))[0]
        if chosen.group(1).strip() == "min-max":
            same = all(np.array_equal(qd[k][0], qm[k][0]) and np.array_equal(qd[k][1], qm[k][1])
                       for k in qm)
            check(same and qd.keys() == qm.keys(), f"{name}: min-max chosen, parameters differ")
        else:
            widened = [k for k in qd if int(qd[k][1]) == 128 and int(qm[k][1]) != 128]
            check(bool(widened), f"{name}: {chosen.group(1)} chosen, no tensor spanned symmetrically")


def case_weight_output(args, tmp):
    model, shapes = weight_output()
    q = case_dynamic(args, tmp, "weight_output", model, shapes, True)
    if q is None:
        return
    dqs = [n for n in q.graph.node if n.op_type == "DequantizeLinear"]
    inits = {t.name for t in q.graph.initializer}
    weight_dqs = [n for n in dqs if n.input[0] in inits]
    print(f"  weight_output: DequantizeLinear of stored weights: "
          f"{[(n.output[0], [a.i for a in n.attribute if a.name == 'axis']) for n in weight_dqs]}")
    check(len(weight_dqs) >= 1 and all(any(a.name == "axis" and a.i == 1 for a in n.attribute) for n in weight_dqs),
          "weight_output: the weight's DequantizeLinear lacks axis=1")
    check(any(n.output[0] == "w" for n in weight_dqs), "weight_output: graph output 'w' is not the dequantized weight")


def case_options(args, tmp):
    """--op-types with an activation op, and --exclude-nodes leaving a Conv in float."""
    model, shapes = cnn()
    src = os.path.join(tmp, "cnn_o.onnx")
    onnx.save(model, src)
    data = samples(shapes)
    calib = write_calibration(os.path.join(tmp, "options"), data)
    feeds = data[0]
    ref = ort_run(src, feeds)
    dst = os.path.join(tmp, "cnn_optypes.onnx")
    if quantize(args, src, dst, "--mode", "static", "--calibration", calib, "--op-types", "Conv,Relu"):
        q = onnx.load(dst)
        onnx.checker.check_model(q, full_check=True)
        out = ort_run(dst, feeds)
        close_to_float("cnn --op-types Conv,Relu 'y'", out["y"], ref["y"], 0.05)
        agree_with_ort("cnn_optypes", args, dst, feeds, out, tmp)
    dst = os.path.join(tmp, "cnn_u8_weights.onnx")
    if quantize(args, src, dst, "--mode", "dynamic", "--per-channel", "--weight-type", "u8"):
        q = onnx.load(dst)
        onnx.checker.check_model(q, full_check=True)
        check(per_channel_dq_have_axis(q), "--weight-type u8: a per-channel DequantizeLinear lacks axis")
        out = ort_run(dst, feeds)
        close_to_float("cnn --weight-type u8 'y'", out["y"], ref["y"], 0.05)
        agree_with_ort("cnn_u8_weights", args, dst, feeds, out, tmp)
    dst = os.path.join(tmp, "cnn_exclude.onnx")
    if quantize(args, src, dst, "--mode", "dynamic", "--exclude-nodes", "conv2"):
        q = onnx.load(dst)
        onnx.checker.check_model(q, full_check=True)
        inits = {t.name: t for t in q.graph.initializer}
        check("w2" in inits and inits["w2"].data_type == TensorProto.FLOAT, "--exclude-nodes conv2: w2 was quantized")
        check("w1" not in inits, "--exclude-nodes conv2: w1 was not quantized")
        out = ort_run(dst, feeds)
        close_to_float("cnn --exclude-nodes conv2 'y'", out["y"], ref["y"], 0.05)
        agree_with_ort("cnn_exclude", args, dst, feeds, out, tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qlower", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in [("cnn", cnn), ("mlp", mlp)]:
            for pc in (False, True):
                model, shapes = make()
                print(f"{name} dynamic per_channel={pc}")
                case_dynamic(args, tmp, name, model, shapes, pc)
                print(f"{name} static per_channel={pc}")
                case_static(args, tmp, name, model, shapes, pc)
            print(f"{name} static per_channel=True int8 activations")
            model, shapes = make()
            case_static(args, tmp, name, model, shapes, True, act="i8")
            for act in ("u16", "i16"):
                print(f"{name} static per_channel=True {act} activations")
                model, shapes = make()
                case_static(args, tmp, name, model, shapes, True, act=act)
        print("options")
        case_options(args, tmp)
        print("weight that is a graph output (dynamic, per channel)")
        case_weight_output(args, tmp)
        print("restricted asymmetric")
        case_restricted(args, tmp)
        print("percentile")
        case_percentile(args, tmp)
        print("entropy, distribution, mse, moving average, weight mse, bias correction")
        case_methods(args, tmp)
        print("distribution's rule, chosen on left-out samples")
        case_distribution_rule(args, tmp)
    print(f"{PASSED[0]} checks passed, {len(FAILURES)} failed")
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
