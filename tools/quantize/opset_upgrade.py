"""Differential test of qlower's opset converter (`qlower upgrade-opset`, test oracle only).

Builds small models with onnx.helper at old default opsets (7, 9, 10, 11, 12), each
exercising an op whose signature or meaning changed before opset 13 (or 18): Softmax,
LogSoftmax and Hardmax on every axis of several ranks (and on an input of unknown rank),
Split, Squeeze, Unsqueeze, ReduceSum, ReduceMean (to 18), Clip, Pad, Slice, TopK,
Upsample, Resize-10, BatchNormalization, Dropout, Scatter. For each it runs
`qlower upgrade-opset`, then checks that:
- the result imports the target opset and passes onnx.checker's full check;
- ONNX Runtime gives the same outputs for the old and converted models (up to float
  rounding), and so does `qlower run` of the converted model where qlower lowers its ops.
It also checks that a node the converter cannot convert is refused with its name (exit
1, no output file), and that `qlower quantize --per-channel` on an opset-11 model says
on stderr what it converted and writes per-channel weights (DequantizeLinear `axis`).

Usage: opset_upgrade.py --qlower PATH/TO/qlower
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from qlower_tools import ort_oracle

RNG = np.random.default_rng(13)
FAILURES = []
PASSED = [0]
F = TensorProto.FLOAT


def check(cond, what):
    if cond:
        PASSED[0] += 1
    else:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)


def rand(shape):
    return RNG.standard_normal(shape).astype(np.float32)


def model(nodes, inputs, outputs, opset, inits=()):
    """The model; an output given without a shape takes the one ONNX's shape inference
    finds (graph outputs must have one), with named dimensions where it finds none."""
    def build(outs):
        graph = helper.make_graph(nodes, "g", inputs, outs, list(inits))
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 7 if opset >= 13 else 6
        return m

    if any(not o.type.tensor_type.HasField("shape") for o in outputs):
        draft = build([helper.make_empty_tensor_value_info(o.name) for o in outputs])
        inferred = onnx.shape_inference.infer_shapes(draft)
        found = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
        rank = len(inputs[0].type.tensor_type.shape.dim)

        def typed(o):
            if o.type.tensor_type.HasField("shape"):
                return o
            if o.name in found and found[o.name].type.tensor_type.HasField("shape"):
                return found[o.name]
            # Upsample and Resize keep the rank, which inference leaves out at old opsets.
            return vi(o.name, [f"{o.name}_{i}" for i in range(rank)],
                      o.type.tensor_type.elem_type or F)

        outputs = [typed(o) for o in outputs]
    m = build(outputs)
    onnx.checker.check_model(m)
    return m


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


class Case:
    def __init__(self, name, m, feeds, target=13):
        self.name, self.model, self.feeds, self.target = name, m, feeds, target


def unary(op, opset, shape, feeds_shape=None, out_shape=None, **attrs):
    """One node `op(x) -> y` at `opset`; `shape=None` leaves x's rank unknown."""
    x = helper.make_tensor_value_info("x", F, shape)
    y = helper.make_tensor_value_info("y", F, out_shape)
    node = helper.make_node(op, ["x"], ["y"], name=f"{op.lower()}_node", **attrs)
    return model([node], [x], [y], opset), {"x": rand(feeds_shape or shape)}


def softmax_cases():
    cases = []
    for op in ["Softmax", "LogSoftmax", "Hardmax"]:
        for opset in [7, 11, 12]:
            for shape in [[3, 5], [2, 3, 4], [2, 3, 4, 5]]:
                axes = [None] + list(range(len(shape)))
                if opset >= 11:
                    axes += [-1, -2]
                for axis in axes:
                    attrs = {} if axis is None else {"axis": axis}
                    m, feeds = unary(op, opset, shape, **attrs)
                    cases.append(Case(f"{op}-{opset} rank {len(shape)} axis {axis}", m, feeds))
        # Unknown rank (a Reshape to a shape read at run time): the converter cannot tell
        # the last axis and writes Flatten/Reshape; axis -1 needs no rank.
        for axis in [1, -1]:
            nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
                     helper.make_node(op, ["r"], ["y"], name=f"{op.lower()}_node", axis=axis)]
            m = model(nodes, [vi("x", [24]), vi("shape", ["n"], TensorProto.INT64)],
                      [vi("y", ["a", "b", "c"])], 11)
            feeds = {"x": rand([24]), "shape": np.array([2, 3, 4], np.int64)}
            cases.append(Case(f"{op}-11 unknown rank axis {axis}", m, feeds))
    return cases


def axes_cases():
    cases = []
    x = [2, 6, 1, 4]
    for opset, attrs in [(11, {"axis": 1, "split": [2, 4]}), (7, {"axis": 1}),
                         (11, {"axis": -1, "split": [1, 3]})]:
        n = helper.make_node("Split", ["x"], ["a", "b"], name="split", **attrs)
        m = model([n], [vi("x", x)], [vi("a", None), vi("b", None)], opset)
        cases.append(Case(f"Split-{opset} {attrs}", m, {"x": rand(x)}))
    for opset, attrs in [(11, {"axes": [2]}), (11, {"axes": [-2]}), (9, {}), (7, {"axes": [2]})]:
        m, feeds = unary("Squeeze", opset, x, **attrs)
        cases.append(Case(f"Squeeze-{opset} {attrs}", m, feeds))
    for opset, attrs in [(11, {"axes": [0, 4]}), (11, {"axes": [-1]}), (9, {"axes": [1]})]:
        m, feeds = unary("Unsqueeze", opset, x, **attrs)
        cases.append(Case(f"Unsqueeze-{opset} {attrs}", m, feeds))
    for opset, attrs in [(11, {"axes": [1], "keepdims": 0}), (11, {}), (9, {"axes": [0, 3]}),
                         (12, {"axes": [-1]})]:
        m, feeds = unary("ReduceSum", opset, x, **attrs)
        cases.append(Case(f"ReduceSum-{opset} {attrs}", m, feeds))
    for op in ["ReduceMean", "ReduceMax", "ReduceL2"]:
        m, feeds = unary(op, 11, x, axes=[1, 3], keepdims=1)
        cases.append(Case(f"{op}-11 to opset 18", m, feeds, target=18))
    m, feeds = unary("Squeeze", 11, [1, 3, 1, 2])
    m.graph.node[0].attribute.append(
        helper.make_attribute("axes", [], attr_type=onnx.AttributeProto.INTS))
    cases.append(Case("Squeeze-11 axes [] (every 1)", m, feeds))
    for axis in [0, 1]:
        m, feeds = unary("Softmax", 11, [2, 3, 4], axis=axis)
        cases.append(Case(f"Softmax-11 axis {axis} to opset 18", m, feeds, target=18))
    m, feeds = unary("ReduceMean", 11, x, axes=[1])
    cases.append(Case("ReduceMean-11 to opset 13 (unchanged)", m, feeds))
    n = helper.make_node("Split", ["x"], ["a", "b", "c"], name="split3", axis=1)
    m = model([n], [vi("x", x)], [vi("a", None), vi("b", None), vi("c", None)], 11)
    cases.append(Case("Split-11 equal parts to opset 18", m, {"x": rand(x)}, target=18))
    return cases


def attribute_input_cases():
    cases = []
    x = [2, 3, 4, 5]
    for opset in [7, 9]:
        for attrs in [{"min": -0.5, "max": 0.7}, {"max": 0.2}, {"min": 0.1}, {}]:
            m, feeds = unary("Clip", opset, x, **attrs)
            cases.append(Case(f"Clip-{opset} {attrs}", m, feeds))
    n = helper.make_node("Clip", ["x", "lo", "hi"], ["y"], name="clip11")
    m = model([n], [vi("x", x)], [vi("y", x)], 11,
              [numpy_helper.from_array(np.array(-0.3, np.float32), "lo"),
               numpy_helper.from_array(np.array(0.4, np.float32), "hi")])
    cases.append(Case("Clip-11 (unchanged)", m, {"x": rand(x)}))
    for opset in [7, 10]:
        for attrs in [{"pads": [0, 0, 1, 2, 0, 0, 2, 1]},
                      {"pads": [0, 1, 1, 0, 0, 1, 0, 1], "value": 1.5},
                      {"pads": [0, 0, 2, 1, 0, 0, 1, 2], "mode": "reflect"},
                      {"pads": [0, 0, 1, 1, 0, 0, 1, 1], "mode": "edge"}]:
            m, feeds = unary("Pad", opset, x, **attrs)
            cases.append(Case(f"Pad-{opset} {attrs}", m, feeds))
    for attrs in [{"starts": [1, 0], "ends": [3, -1], "axes": [2, 3]},
                  {"starts": [0, 1], "ends": [1, 100]},
                  {"starts": [-3], "ends": [-1], "axes": [3]}]:
        m, feeds = unary("Slice", 9, x, **attrs)
        cases.append(Case(f"Slice-9 {attrs}", m, feeds))
    for attrs in [{"k": 3}, {"k": 2, "axis": 1}]:
        n = helper.make_node("TopK", ["x"], ["v", "i"], name="topk", **attrs)
        m = model([n], [vi("x", x)], [vi("v", None), vi("i", None, TensorProto.INT64)], 9)
        cases.append(Case(f"TopK-9 {attrs}", m, {"x": rand(x)}))
    return cases


def resize_cases():
    cases = []
    x = [1, 2, 3, 4]
    for mode in ["nearest", "linear"]:
        for scales in [[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 3.0, 1.5]]:
            m, feeds = unary("Upsample", 7, x, mode=mode, scales=scales)
            cases.append(Case(f"Upsample-7 {mode} {scales}", m, feeds))
            n = helper.make_node("Upsample", ["x", "s"], ["y"], name="up9", mode=mode)
            s = numpy_helper.from_array(np.array(scales, np.float32), "s")
            m = model([n], [vi("x", x)], [vi("y", None)], 9, [s])
            cases.append(Case(f"Upsample-9 {mode} {scales}", m, {"x": rand(x)}))
        for scales in [[1, 1, 2, 2], [1, 1, 2.5, 1.5], [1, 1, 0.5, 0.5], [1, 1, 0.7, 0.6]]:
            n = helper.make_node("Resize", ["x", "s"], ["y"], name="resize10", mode=mode)
            s = numpy_helper.from_array(np.array(scales, np.float32), "s")
            m = model([n], [vi("x", [1, 2, 6, 8])], [vi("y", None)], 10, [s])
            cases.append(Case(f"Resize-10 {mode} {scales}", m, {"x": rand([1, 2, 6, 8])}))
    return cases


def legacy_cases():
    cases = []
    x = [2, 3, 4, 4]
    c = 3
    for opset, attrs in [(7, {"spatial": 1, "epsilon": 1e-3}), (7, {}), (9, {"momentum": 0.8})]:
        inits = [numpy_helper.from_array(v, n) for v, n in
                 [(rand([c]), "scale"), (rand([c]), "bias"), (rand([c]), "mean"),
                  (np.abs(rand([c])) + 0.5, "var")]]
        n = helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"],
                             name="bn", **attrs)
        m = model([n], [vi("x", x)], [vi("y", x)], opset, inits)
        cases.append(Case(f"BatchNormalization-{opset} {attrs}", m, {"x": rand(x)}))
    for opset in [7, 10, 11]:
        n = helper.make_node("Dropout", ["x"], ["d", "mask"], name="drop", ratio=0.3)
        r = helper.make_node("Relu", ["d"], ["y"], name="relu")
        m = model([n, r], [vi("x", x)], [vi("y", x)], opset)
        cases.append(Case(f"Dropout-{opset} ratio 0.3, mask unread", m, {"x": rand(x)}))
    for opset in [9, 10]:  # deprecated (refused by the checker) from 11
        data, idx, upd = rand([3, 4]), np.array([[1, 0, 2, 0], [0, 2, 1, 1]], np.int64), rand([2, 4])
        n = helper.make_node("Scatter", ["d", "i", "u"], ["y"], name="scatter", axis=0)
        m = model([n], [vi("d", [3, 4]), vi("i", [2, 4], TensorProto.INT64), vi("u", [2, 4])],
                  [vi("y", [3, 4])], opset)
        cases.append(Case(f"Scatter-{opset}", m, {"d": data, "i": idx, "u": upd}))
    return cases


def subgraph_cases():
    """Bodies of If and Loop are converted like the main graph."""
    cases = []
    x = [2, 3]
    then = helper.make_graph(
        [helper.make_node("Softmax", ["x"], ["t"], name="body_softmax", axis=0)], "then", [],
        [vi("t", x)])
    other = helper.make_graph(
        [helper.make_node("Unsqueeze", ["x"], ["u"], name="body_unsqueeze", axes=[0]),
         helper.make_node("Squeeze", ["u"], ["e"], name="body_squeeze", axes=[0])],
        "else", [], [vi("e", x)])
    m = model([helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then,
                                else_branch=other)],
              [vi("c", [], TensorProto.BOOL), vi("x", x)], [vi("y", x)], 11)
    for c in [True, False]:
        cases.append(Case(f"If-11 with converted branches, cond {c}", m,
                          {"c": np.array(c), "x": rand(x)}))
    body = helper.make_graph(
        [helper.make_node("Unsqueeze", ["v"], ["u"], name="loop_unsqueeze", axes=[0]),
         helper.make_node("ReduceSum", ["u"], ["s"], name="loop_sum", axes=[0], keepdims=0),
         helper.make_node("LogSoftmax", ["s"], ["l"], name="loop_logsoftmax", axis=0),
         helper.make_node("Add", ["l", "v"], ["v_out"], name="loop_add"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="loop_cond")],
        "body", [vi("i", [], TensorProto.INT64), vi("cond_in", [], TensorProto.BOOL), vi("v", x)],
        [vi("cond_out", [], TensorProto.BOOL), vi("v_out", x)])
    trips = numpy_helper.from_array(np.array(3, np.int64), "trips")
    keep = numpy_helper.from_array(np.array(True), "keep")
    m = model([helper.make_node("Loop", ["trips", "keep", "x"], ["y"], name="loop", body=body)],
              [vi("x", x)], [vi("y", x)], 11, [trips, keep])
    cases.append(Case("Loop-11 with a converted body", m, {"x": rand(x)}))
    return cases


def mixed_case():
    """Conv, BatchNormalization, Softmax on the channel axis of a 4-D tensor, Squeeze."""
    x = [1, 3, 6, 6]
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Softmax", ["r"], ["s"], name="softmax_channels", axis=1),
        helper.make_node("GlobalAveragePool", ["s"], ["g"], name="gap"),
        helper.make_node("Squeeze", ["g"], ["y"], name="squeeze", axes=[2, 3]),
    ]
    inits = [numpy_helper.from_array(rand([4, 3, 3, 3]), "w"),
             numpy_helper.from_array(rand([4]), "b")]
    return model(nodes, [vi("x", x)], [vi("y", [1, 4])], 11, inits), {"x": rand(x)}


def run_case(args, case, tmp):
    src = os.path.join(tmp, "old.onnx")
    dst = os.path.join(tmp, "new.onnx")
    onnx.save(case.model, src)
    if os.path.exists(dst):
        os.remove(dst)
    r = subprocess.run([args.qlower, "upgrade-opset", src, "-o", dst, "--opset", str(case.target)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        check(False, f"{case.name}: qlower upgrade-opset failed: {r.stderr.strip()}")
        return
    new = onnx.load(dst)
    opset = [o.version for o in new.opset_import if o.domain in ("", "ai.onnx")]
    check(opset == [case.target], f"{case.name}: converted model imports opset {opset}")
    try:
        onnx.checker.check_model(new, full_check=True)
        PASSED[0] += 1
    except Exception as e:  # noqa: BLE001  (the checker's message is the report)
        check(False, f"{case.name}: onnx.checker: {str(e).splitlines()[0]}")
        return
    want = ort_oracle.run(case.model, case.feeds, threads=1)
    got = ort_oracle.run(new, case.feeds, threads=1)
    for name, w in want.items():
        g = got.get(name)
        same = g is not None and g.shape == w.shape and g.dtype == w.dtype and np.allclose(
            g, w, rtol=1e-6, atol=1e-6)
        check(same, f"{case.name}: output '{name}' differs after conversion "
                    f"(max abs diff {np.abs(g - w).max() if g is not None and g.shape == w.shape else 'shape'})")
    if not any(s in case.name for s in QLOWER_CANNOT_RUN):
        run_in_qlower(args, case, dst, want, tmp)


# Cases whose ops qlower does not lower, converted or not: Hardmax, ScatterElements,
# subgraphs, and a Reshape to a run-time shape of unknown length.
QLOWER_CANNOT_RUN = ("Hardmax", "Scatter", "If-", "Loop-", "unknown rank")


def run_in_qlower(args, case, path, want, tmp):
    """`qlower run` of the converted model gives ONNX Runtime's outputs of the old one."""
    out = os.path.join(tmp, "out")
    cmd = [args.qlower, "run", path, "--out-dir", out, "--threads", "1"]
    for name, value in case.feeds.items():
        f = os.path.join(tmp, f"{name}.npy")
        np.save(f, value)
        cmd += ["-i", f"{name}={f}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        check(False, f"{case.name}: qlower run of the converted model failed: {r.stderr.strip()}")
        return
    for name, w in want.items():
        g = np.load(os.path.join(out, f"{name}.npy"))
        check(g.shape == w.shape and np.allclose(g, w, rtol=1e-5, atol=1e-5),
              f"{case.name}: qlower run's output '{name}' differs from ONNX Runtime's")


def refusals(args, tmp):
    """Nodes the converter cannot convert: exit 1, the node named, no output file."""
    s = numpy_helper.from_array(np.array([1, 1, 2, 0.5], np.float32), "s")
    then = helper.make_graph([helper.make_node("Resize", ["x", "s"], ["t"], name="inner_resize",
                                               mode="nearest")],
                             "then", [], [vi("t", [1, 1, 8, 2])])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [],
                              [vi("e", [1, 1, 4, 4])])
    cond = numpy_helper.from_array(np.array(True), "cond")
    m_if = model([helper.make_node("If", ["cond"], ["y"], name="branchy", then_branch=then,
                                   else_branch=other)],
                 [vi("x", [1, 1, 4, 4])], [vi("y", None)], 10, [cond, s])
    m_mixed = model([helper.make_node("Resize", ["x", "s"], ["y"], name="mixed_resize",
                                      mode="nearest")],
                    [vi("x", [1, 1, 4, 4])], [vi("y", None)], 10, [s])
    m_unknown = model([helper.make_node("StringNormalizer", ["x"], ["y"], name="strings")],
                      [vi("x", [2], TensorProto.STRING)], [vi("y", None, TensorProto.STRING)], 10)
    for m, node, op in [(m_if, "inner_resize", "Resize"), (m_mixed, "mixed_resize", "Resize"),
                        (m_unknown, "strings", "StringNormalizer")]:
        src, dst = os.path.join(tmp, "refused.onnx"), os.path.join(tmp, "refused_out.onnx")
        onnx.save(m, src)
        r = subprocess.run([args.qlower, "upgrade-opset", src, "-o", dst], capture_output=True,
                           text=True)
        check(r.returncode == 1 and f"node '{node}' ({op})" in r.stderr and not os.path.exists(dst),
              f"refusing {op}: exit {r.returncode}, stderr {r.stderr.strip()!r}")


def quantize_per_channel(args, tmp):
    """`qlower quantize --per-channel` on an opset-11 model converts it and says so."""
    m, feeds = mixed_case()
    src, dst = os.path.join(tmp, "cnn11.onnx"), os.path.join(tmp, "cnn11_q.onnx")
    onnx.save(m, src)
    r = subprocess.run([args.qlower, "quantize", src, "-o", dst, "--mode", "dynamic",
                        "--per-channel"], capture_output=True, text=True)
    check(r.returncode == 0, f"quantize --per-channel of an opset-11 model: {r.stderr.strip()}")
    if r.returncode != 0:
        return
    line = "qlower quantize: raised the default opset 11 → 13 (converted 1 Softmax, 1 Squeeze) " \
           "so that weights are quantized per channel"
    check(line in r.stderr, f"quantize's stderr {r.stderr.strip()!r} lacks {line!r}")
    q = onnx.load(dst)
    onnx.checker.check_model(q, full_check=True)
    opset = [o.version for o in q.opset_import if o.domain in ("", "ai.onnx")]
    check(opset == [13], f"quantized model imports opset {opset}")
    inits = {t.name for t in q.graph.initializer}
    weight_dq = [n for n in q.graph.node if n.op_type == "DequantizeLinear" and n.input[0] in inits]
    check(weight_dq and all(any(a.name == "axis" for a in n.attribute) for n in weight_dq),
          "every weight DequantizeLinear of the converted model has an axis")
    want = ort_oracle.run(m, feeds, threads=1)["y"]
    got = ort_oracle.run(q, feeds, threads=1)["y"]
    err = np.linalg.norm(got - want) / np.linalg.norm(want)
    check(err < 0.05, f"quantized converted model's relative L2 error {err:.3g}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qlower", required=True)
    args = parser.parse_args()
    cases = softmax_cases() + axes_cases() + attribute_input_cases() + resize_cases() \
        + legacy_cases() + subgraph_cases()
    m, feeds = mixed_case()
    cases.append(Case("Conv, Softmax on channels, Squeeze at opset 11", m, feeds))
    with tempfile.TemporaryDirectory(prefix="qlower-opset-upgrade-") as tmp:
        for case in cases:
            run_case(args, case, tmp)
        refusals(args, tmp)
        quantize_per_channel(args, tmp)
    print(f"{len(cases)} models converted; {PASSED[0]} checks passed, {len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
