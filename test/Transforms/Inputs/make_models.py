"""Generates the ONNX models that the Transforms lit tests read.

Run with the test venv's Python (`.venv/bin/python`); the files are written next to
this script and committed, so the test suite does not need Python. Rerun after changing
it and review the diff.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))


def save(model, name):
    onnx.checker.check_model(model)
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(model.SerializeToString())


def model(nodes, name, inputs, outputs, inits=(), opset=19):
    g = h.make_graph(nodes, name, inputs, outputs, list(inits))
    return h.make_model(
        g,
        opset_imports=[h.make_opsetid("", opset)],
        producer_name="qlower-tests",
        producer_version="1",
        ir_version=10,
    )


def vi(name, dtype, shape):
    return h.make_tensor_value_info(name, dtype, shape)


def qdq(prefix, x, scale, zp, axis=None):
    """QuantizeLinear then DequantizeLinear of `x`; returns (nodes, inits, output)."""
    inits = [nh.from_array(scale, prefix + "_scale"), nh.from_array(zp, prefix + "_zp")]
    kw = {} if axis is None else {"axis": axis}
    nodes = [
        h.make_node("QuantizeLinear", [x, prefix + "_scale", prefix + "_zp"], [prefix + "_q"], name=prefix + "_quant", **kw),
        h.make_node("DequantizeLinear", [prefix + "_q", prefix + "_scale", prefix + "_zp"], [prefix + "_dq"], name=prefix + "_dequant", **kw),
    ]
    return nodes, inits, prefix + "_dq"


def qat_conv_const():
    """The QAT-style graph onnxscript's folding collapsed: every input of the convolution
    is constant, the weight is quantized per channel (axis 0) in the graph."""
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (1, 3, 5, 5)).astype(np.float32)
    w = rng.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, (4,)).astype(np.float32)
    xn, xi, xdq = qdq("x", "x", np.array(0.01, np.float32), np.array(128, np.uint8))
    wn, wi, wdq = qdq(
        "w", "w", np.array([0.01, 0.02, 0.03, 0.04], np.float32), np.array([0, 1, -1, 2], np.int8), axis=0
    )
    conv = h.make_node("Conv", [xdq, wdq, "b"], ["y"], name="conv", pads=[1, 1, 1, 1])
    inits = [nh.from_array(x, "x"), nh.from_array(w, "w"), nh.from_array(b, "b")] + xi + wi
    m = model(xn + wn + [conv], "qat_conv_const", [], [vi("y", T.FLOAT, [1, 4, 5, 5])], inits)
    save(m, "qat_conv_const.onnx")


def dynamic_quant_const():
    """DynamicQuantizeLinear of a constant: a Q/DQ op, never folded."""
    x = np.array([[-1.0, 0.5], [0.25, 2.0]], np.float32)
    node = h.make_node("DynamicQuantizeLinear", ["x"], ["y", "y_scale", "y_zp"], name="dql")
    outs = [vi("y", T.UINT8, [2, 2]), vi("y_scale", T.FLOAT, []), vi("y_zp", T.UINT8, [])]
    m = model([node], "dynamic_quant_const", [], outs, [nh.from_array(x, "x")])
    save(m, "dynamic_quant_const.onnx")


def bias_add_reshape():
    """A bias computed from constants (Add, then Reshape to broadcast over NCHW), added to
    the input: the whole bias subgraph folds to one literal."""
    inits = [
        nh.from_array(np.array([1.0, 2.0, 3.0], np.float32), "b1"),
        nh.from_array(np.array([0.5, 0.25, 0.125], np.float32), "b2"),
        nh.from_array(np.array([1, 3, 1, 1], np.int64), "shape"),
    ]
    nodes = [
        h.make_node("Add", ["b1", "b2"], ["b"], name="bias_add"),
        h.make_node("Reshape", ["b", "shape"], ["b4"], name="bias_reshape"),
        h.make_node("Add", ["x", "b4"], ["y"], name="add"),
    ]
    m = model(nodes, "bias_add_reshape", [vi("x", T.FLOAT, [1, 3, 2, 2])], [vi("y", T.FLOAT, [1, 3, 2, 2])], inits)
    save(m, "bias_add_reshape.onnx")


def qdq_cnn():
    """A small QDQ CNN with constant weights, shaped like a ResNet block: quantized input,
    per-channel and per-tensor conv weights, a constant bias subgraph, a residual add,
    pooling, and a flatten whose target shape comes from shape arithmetic."""
    rng = np.random.RandomState(1)
    nodes, inits = [], []

    def add(n, i):
        nodes.extend(n)
        inits.extend(i)

    n, i, x = qdq("in", "x", np.array(0.02, np.float32), np.array(128, np.uint8))
    add(n, i)
    w1 = rng.uniform(-0.5, 0.5, (8, 3, 3, 3)).astype(np.float32)
    inits.append(nh.from_array(w1, "w1"))
    n, i, w1dq = qdq("w1", "w1", (np.arange(8, dtype=np.float32) + 1) * 0.004, np.zeros(8, np.int8), axis=0)
    add(n, i)
    inits += [
        nh.from_array(rng.uniform(-0.1, 0.1, (8,)).astype(np.float32), "b1a"),
        nh.from_array(rng.uniform(-0.1, 0.1, (8,)).astype(np.float32), "b1b"),
    ]
    nodes.append(h.make_node("Add", ["b1a", "b1b"], ["b1"], name="bias1_add"))
    nodes.append(h.make_node("Conv", [x, w1dq, "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]))
    nodes.append(h.make_node("Relu", ["c1"], ["r1"], name="relu1"))
    n, i, r1 = qdq("r1", "r1", np.array(0.02, np.float32), np.array(0, np.uint8))
    add(n, i)
    w2 = rng.uniform(-0.5, 0.5, (8, 8, 3, 3)).astype(np.float32)
    inits.append(nh.from_array(w2, "w2"))
    n, i, w2dq = qdq("w2", "w2", np.array(0.004, np.float32), np.array(0, np.int8))
    add(n, i)
    nodes.append(h.make_node("Conv", [r1, w2dq], ["c2"], name="conv2", pads=[1, 1, 1, 1]))
    nodes.append(h.make_node("Add", ["c2", r1], ["s"], name="residual"))
    nodes.append(h.make_node("GlobalAveragePool", ["s"], ["p"], name="pool"))
    inits += [
        nh.from_array(np.array([0], np.int64), "zero"),
        nh.from_array(np.array([-1], np.int64), "minus_one"),
    ]
    nodes += [
        h.make_node("Shape", ["p"], ["p_shape"], name="shape"),
        h.make_node("Gather", ["p_shape", "zero"], ["batch"], name="gather", axis=0),
        h.make_node("Concat", ["batch", "minus_one"], ["flat_shape"], name="concat", axis=0),
        h.make_node("Reshape", ["p", "flat_shape"], ["y"], name="flatten"),
    ]
    m = model(nodes, "qdq_cnn", [vi("x", T.FLOAT, [1, 3, 8, 8])], [vi("y", T.FLOAT, [1, 8])], inits)
    save(m, "qdq_cnn.onnx")
    np.save(os.path.join(HERE, "qdq_cnn_x.npy"), rng.uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32))


def nhwc_qdq_cnn():
    """A tf2onnx-style NHWC CNN in ONNX Runtime's QDQ form: an NHWC input, a Transpose
    into NCHW before each Conv and back after it, each Transpose wrapped in its own Q/DQ
    pair, a residual Add and a per-channel Mul (a batch norm's scale) in NHWC between
    the convolutions, and a quantized uint8 NHWC output. `nhwc_qdq_cnn_y.npy` is ONNX
    Runtime's output (exact mode) for `nhwc_qdq_cnn_x.npy` with its QDQ fusions, which run
    each DQ -> Conv -> Relu -> Q as a QLinearConv (integer accumulation, one requantize),
    as qlower's backend does; unfused, the float convolution puts 12 of the 512 values one
    step away."""
    rng = np.random.RandomState(2)
    nodes, inits = [], []

    def add(n, i):
        nodes.extend(n)
        inits.extend(i)

    # ONNX Runtime's quantizer gives a ReLU's output zero point 0, and a Transpose's
    # output its input's parameters.
    act = (np.array(0.02, np.float32), np.array(128, np.uint8))
    relu_act = (np.array(0.01, np.float32), np.array(0, np.uint8))
    n, i, x = qdq("in", "x", *act)
    add(n, i)

    def transposed(name, src, perm, params):
        nodes.append(h.make_node("Transpose", [src], [name], name=name, perm=perm))
        n, i, out = qdq(name + "_t", name, *params)
        add(n, i)
        return out

    def conv(name, src, x_scale, cin, cout):
        w = rng.uniform(-0.5, 0.5, (cout, cin, 3, 3)).astype(np.float32)
        inits.append(nh.from_array(w, name + "_w"))
        w_scale = (np.arange(cout, dtype=np.float32) + 1) * 0.003
        n, i, wdq = qdq(name + "_w", name + "_w", w_scale, np.zeros(cout, np.int8), axis=0)
        add(n, i)
        # The bias as ONNX Runtime's quantizer stores it: int32 with scale x_scale·w_scale[c].
        b_scale = (x_scale * w_scale).astype(np.float32)
        b = np.round(rng.uniform(-0.1, 0.1, (cout,)) / b_scale).astype(np.int32)
        inits.extend([nh.from_array(b, name + "_bq"), nh.from_array(b_scale, name + "_bs")])
        nodes.append(h.make_node("DequantizeLinear", [name + "_bq", name + "_bs"], [name + "_b"],
                                 name=name + "_b", axis=0))
        nodes.append(h.make_node("Conv", [src, wdq, name + "_b"], [name], name=name, pads=[1, 1, 1, 1]))
        nodes.append(h.make_node("Relu", [name], [name + "_relu"], name=name + "_relu"))
        n, i, out = qdq(name + "_r", name + "_relu", *relu_act)
        add(n, i)
        return out

    to_nchw, to_nhwc = [0, 3, 1, 2], [0, 2, 3, 1]
    c1 = conv("conv1", transposed("t1", x, to_nchw, act), act[0], 3, 8)
    r1 = transposed("t2", c1, to_nhwc, relu_act)
    c2 = conv("conv2", transposed("t3", r1, to_nchw, relu_act), relu_act[0], 8, 8)
    r2 = transposed("t4", c2, to_nhwc, relu_act)
    nodes.append(h.make_node("Add", [r2, r1], ["sum"], name="residual"))
    n, i, s = qdq("sum", "sum", *act)
    add(n, i)
    inits.append(nh.from_array(rng.uniform(0.5, 1.5, (8,)).astype(np.float32), "bn_scale"))
    nodes.append(h.make_node("Mul", [s, "bn_scale"], ["scaled"], name="bn_scale"))
    inits += [nh.from_array(np.array(0.03, np.float32), "y_scale"), nh.from_array(np.array(128, np.uint8), "y_zp")]
    nodes.append(h.make_node("QuantizeLinear", ["scaled", "y_scale", "y_zp"], ["y"], name="y_quant"))
    m = model(nodes, "nhwc_qdq_cnn", [vi("x", T.FLOAT, [1, 8, 8, 3])], [vi("y", T.UINT8, [1, 8, 8, 8])], inits)
    save(m, "nhwc_qdq_cnn.onnx")
    xv = rng.uniform(-1, 1, (1, 8, 8, 3)).astype(np.float32)
    np.save(os.path.join(HERE, "nhwc_qdq_cnn_x.npy"), xv)
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.add_session_config_entry("session.x64quantprecision", "1")
    sess = ort.InferenceSession(m.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    np.save(os.path.join(HERE, "nhwc_qdq_cnn_y.npy"), sess.run(None, {"x": xv})[0])


if __name__ == "__main__":
    qat_conv_const()
    dynamic_quant_const()
    bias_add_reshape()
    qdq_cnn()
    nhwc_qdq_cnn()
