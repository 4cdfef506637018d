"""Generates the model, inputs and expected outputs of activations_normalizations.test:
one node of each activation, trigonometric function, normalization and log reduction
that issue 16 added (but Swish, of opset 24), run by ONNX Runtime and by qlower.

Run with the test venv's Python after building qlower:
`.venv/bin/python test/Runtime/Inputs/make_activations.py target/debug/qlower`.

Where qlower's output equals ONNX Runtime's byte for byte (the piecewise-linear ops
and Shrink, the predicates, Dropout, Size, and Elu, Celu and LpNormalization on these inputs) the expected file is ONNX Runtime's.
The others are transcendental or normalize: qlower evaluates
them in f64 and rounds once, ONNX Runtime in f32 with its own approximations, so they
differ in the last bits. Their expected file is qlower's output, written only after
this script has checked it against ONNX Runtime's: within 16 ulps, or 1e-6 absolute
for results near zero (the largest differences seen are 9 ulps, on GroupNormalization
outputs near zero). The test then holds qlower to those checked results.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
from qlower_tools import ort_oracle

SHAPE = [2, 4, 3, 3]


def path(name):
    return os.path.join(HERE, name)


def inputs():
    """x: quarters in [-3, 3] with a NaN and both infinities (for the predicates); xf:
    finite quarters; u: quarters in [-0.75, 0.75] (the domain of Acos, Asin, Atanh)."""
    rng = np.random.default_rng(16)
    x = (rng.integers(-12, 13, SHAPE) / 4).astype(np.float32)
    x[0, 0, 0, :3] = [np.nan, np.inf, -np.inf]
    xf = (rng.integers(-12, 13, SHAPE) / 4).astype(np.float32)
    u = (rng.integers(-3, 4, SHAPE) / 4).astype(np.float32)
    return {"x": x, "xf": xf, "u": u}


def model():
    nodes, outputs = [], []

    def node(op, ins, outs, dtypes=(T.FLOAT,), shapes=(SHAPE,), **attrs):
        nodes.append(h.make_node(op, ins, outs, name=outs[0], **attrs))
        outputs.extend(h.make_tensor_value_info(n, d, s) for n, d, s in zip(outs, dtypes, shapes))

    for op in ["Mish", "Softplus", "Softsign", "Elu", "Selu", "Celu", "ThresholdedRelu",
               "Cos", "Sin", "Tan", "Atan", "Sinh", "Cosh", "Asinh"]:
        node(op, ["xf"], ["y_" + op.lower()])
    for op in ["Acos", "Asin", "Atanh"]:
        node(op, ["u"], ["y_" + op.lower()])
    # 1 + |xf| >= 1, the domain of Acosh and of ReduceLogSum's log.
    nodes.append(h.make_node("Abs", ["xf"], ["xabs"], name="abs"))
    nodes.append(h.make_node("Add", ["xabs", "one"], ["xpos"], name="add_one"))
    node("Acosh", ["xpos"], ["y_acosh"])
    node("PRelu", ["xf", "slope"], ["y_prelu"])
    node("IsNaN", ["x"], ["y_isnan"], dtypes=(T.BOOL,))
    node("IsInf", ["x"], ["y_isinf"], dtypes=(T.BOOL,), detect_negative=0)
    node("InstanceNormalization", ["xf", "scale", "bias"], ["y_instancenorm"], epsilon=0.01)
    node("GroupNormalization", ["xf", "scale", "bias"], ["y_groupnorm"], num_groups=2)
    node("LRN", ["xf"], ["y_lrn"], size=3, alpha=0.001, beta=0.75, bias=2.0)
    node("MeanVarianceNormalization", ["xf"], ["y_mvn"])
    node("LpNormalization", ["xf"], ["y_lpnorm"], axis=1, p=2)
    node("Shrink", ["xf"], ["y_shrink"], bias=0.5, lambd=1.0)
    node("Dropout", ["xf"], ["y_dropout", "y_mask"], dtypes=(T.FLOAT, T.BOOL),
         shapes=(SHAPE, SHAPE))
    node("Size", ["xf"], ["y_size"], dtypes=(T.INT64,), shapes=([],))
    node("ReduceLogSumExp", ["xf", "axes_1_3"], ["y_logsumexp"], shapes=([2, 3],), keepdims=0)
    node("ReduceLogSum", ["xpos", "axes_2"], ["y_logsum"], shapes=([2, 4, 1, 3],))
    initializers = [
        nh.from_array(np.array([0.25, -0.5, 2.0, 0.0], np.float32).reshape(4, 1, 1), "slope"),
        nh.from_array(np.array([1.0, 0.5, 2.0, -1.0], np.float32), "scale"),
        nh.from_array(np.array([0.0, 1.0, -0.5, 0.25], np.float32), "bias"),
        nh.from_array(np.array(1, np.float32), "one"),
        nh.from_array(np.array([1, 3], np.int64), "axes_1_3"),
        nh.from_array(np.array([2], np.int64), "axes_2"),
    ]
    graph = h.make_graph(
        nodes, "activations",
        [h.make_tensor_value_info(n, T.FLOAT, SHAPE) for n in ["x", "xf", "u"]],
        outputs, initializer=initializers)
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 21)],
                     producer_name="qlower-tests", ir_version=10)
    onnx.checker.check_model(m)
    return m


def close(q, r):
    """Within 16 ulps of ONNX Runtime's result, or 1e-6 of it near zero; NaN where it is."""
    if q.dtype != r.dtype or q.shape != r.shape:
        return False
    if r.dtype.kind != "f":
        return np.array_equal(q, r)
    q64, r64 = q.astype(np.float64), r.astype(np.float64)
    nan = np.isnan(r64)
    if not np.array_equal(np.isnan(q64), nan):
        return False
    diff = np.abs(q64 - r64)[~nan]
    ulps = np.spacing(np.abs(r[~nan])).astype(np.float64) * 16
    return bool(np.all((diff <= ulps) | (diff <= 1e-6)))


def main():
    if len(sys.argv) != 2:
        print("usage: make_activations.py QLOWER", file=sys.stderr)
        return 2
    m = model()
    onnx.save(m, path("activations.onnx"))
    feeds = inputs()
    for name, value in feeds.items():
        np.save(path(f"activations_{name}.npy"), value)
    names = [o.name for o in m.graph.output]
    expected = dict(zip(names, ort_oracle.session(m).run(None, feeds)))
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.argv[1], "run", path("activations.onnx"), "--out-dir", out]
        for name in feeds:
            cmd += ["-i", f"{name}={path(f'activations_{name}.npy')}"]
        subprocess.run(cmd, check=True)
        for name in names:
            got = np.load(os.path.join(out, f"{name}.npy"))
            want = expected[name]
            if got.dtype == want.dtype and got.shape == want.shape \
                    and got.tobytes() == want.tobytes():
                kind = "ONNX Runtime's (identical)"
                keep = want
            elif close(got, want):
                kind = "qlower's (checked against ONNX Runtime)"
                keep = got
            else:
                print(f"{name}: qlower's output is not close to ONNX Runtime's", file=sys.stderr)
                return 1
            np.save(path(f"activations_{name}.npy"), keep)
            print(f"{name}: {kind}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
