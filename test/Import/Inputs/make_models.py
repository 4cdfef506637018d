"""Generates the ONNX models that the Import and Errors lit tests read.

Run from anywhere with the test venv's Python (`.venv/bin/python`); the files are
written next to this script and under ../../Errors/Inputs. The outputs are committed,
so the test suite itself does not need Python; rerun this after changing it and review
the diff.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
ERRORS = os.path.join(HERE, "..", "..", "Errors", "Inputs")


def save(model, name, where=HERE, check=True):
    if check:
        onnx.checker.check_model(model)
    with open(os.path.join(where, name), "wb") as f:
        f.write(model.SerializeToString())


def model(nodes, name, inputs, outputs, inits=(), opset=19, extra_opsets=(), **kw):
    g = h.make_graph(nodes, name, inputs, outputs, list(inits), **kw)
    opsets = [h.make_opsetid("", opset)] + [h.make_opsetid(d, v) for d, v in extra_opsets]
    return h.make_model(g, opset_imports=opsets, producer_name="qlower-tests", producer_version="1", ir_version=10)


def vi(name, dtype, shape):
    return h.make_tensor_value_info(name, dtype, shape)


def qlinearconv_per_channel():
    rng = np.random.RandomState(0)
    w = rng.randint(-128, 127, (4, 3, 3, 3)).astype(np.int8)
    inits = [
        nh.from_array(np.array(0.02, np.float32), "x_scale"),
        nh.from_array(np.array(128, np.uint8), "x_zero_point"),
        nh.from_array(w, "w"),
        nh.from_array(np.array([0.01, 0.02, 0.03, 0.04], np.float32), "w_scale"),
        nh.from_array(np.array([0, 1, -1, 2], np.int8), "w_zero_point"),
        nh.from_array(np.array(0.05, np.float32), "y_scale"),
        nh.from_array(np.array(100, np.uint8), "y_zero_point"),
        nh.from_array(np.array([1, 2, 3, 4], np.int32), "bias"),
    ]
    node = h.make_node(
        "QLinearConv",
        ["x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point", "bias"],
        ["y"],
        name="conv1",
        pads=[1, 1, 1, 1],
        strides=[1, 1],
    )
    m = model([node], "qlinearconv", [vi("x", T.UINT8, [1, 3, 8, 8])], [vi("y", T.UINT8, None)], inits)
    save(m, "qlinearconv_per_channel.onnx", check=False)


def every_attribute_kind():
    t = h.make_tensor("t", T.FLOAT, [2], [1.5, -2.0])
    t2 = h.make_tensor("t2", T.INT64, [1], [7])
    node = h.make_node(
        "AllAttrs",
        ["x"],
        ["y"],
        domain="qlower.test",
        name="attrs",
        f=0.25,
        i=-3,
        s="same_upper",
        t=t,
        floats=[1.0, 0.5],
        ints=[1, -2, 3],
        strings=["a", "bc"],
        tensors=[t, t2],
    )
    m = model([node], "attrs", [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])],
              extra_opsets=[("qlower.test", 1)])
    save(m, "every_attribute_kind.onnx", check=False)


def every_dtype():
    arrays = {
        "f32": np.array([1.5, -2.25], np.float32),
        "f64": np.array([0.125, -8.0], np.float64),
        "f16": np.array([1.0, -0.5], np.float16),
        "u8": np.array([0, 255], np.uint8),
        "i8": np.array([-128, 127], np.int8),
        "u16": np.array([0, 65535], np.uint16),
        "i16": np.array([-32768, 32767], np.int16),
        "i32": np.array([-2147483648, 7], np.int32),
        "i64": np.array([-9007199254740993, 5], np.int64),
        "u32": np.array([4294967295, 1], np.uint32),
        "u64": np.array([18446744073709551615, 2], np.uint64),
        "bool": np.array([True, False], np.bool_),
    }
    inits = [nh.from_array(a, "raw_" + k) for k, a in arrays.items()]
    # The same values in the typed repeated fields instead of raw_data.
    for k, a in arrays.items():
        inits.append(h.make_tensor("typed_" + k, nh.helper.np_dtype_to_tensor_dtype(a.dtype), a.shape,
                                   a.tolist() if k != "f16" else a, raw=False))
    inits.append(h.make_tensor("raw_bf16", T.BFLOAT16, [2], bytes([0x80, 0x3F, 0x00, 0xC0]), raw=True))
    inits.append(h.make_tensor("typed_bf16", T.BFLOAT16, [2], [1.0, -2.0]))
    outputs = [vi(t.name, t.data_type, list(t.dims)) for t in inits]
    nodes = [h.make_node("Identity", [t.name], ["out_" + t.name]) for t in inits]
    outputs = [vi("out_" + t.name, t.data_type, list(t.dims)) for t in inits]
    m = model(nodes, "dtypes", [], outputs, inits)
    save(m, "every_dtype.onnx")


def dynamic_dims():
    node = h.make_node("Relu", ["x"], ["y"], name="relu")
    x = vi("x", T.FLOAT, ["N", 3, None])
    z_in = h.make_tensor_value_info("u", T.INT8, None)
    node2 = h.make_node("Identity", ["u"], ["v"], name="ident")
    m = model([node, node2], "dynamic", [x, z_in], [vi("y", T.FLOAT, ["N", 3, None]), vi("v", T.INT8, None)])
    save(m, "dynamic_dims.onnx", check=False)


def external_data():
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = nh.from_array(w, "w")
    t.ClearField("raw_data")
    t.data_location = T.EXTERNAL
    for k, v in (("location", "external_weights.bin"), ("offset", "4"), ("length", "24")):
        e = t.external_data.add()
        e.key, e.value = k, v
    with open(os.path.join(HERE, "external_weights.bin"), "wb") as f:
        f.write(b"\0\0\0\0" + w.tobytes())
    node = h.make_node("Add", ["x", "w"], ["y"], name="add")
    m = model([node], "external", [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 3])], [t])
    save(m, "external_data.onnx", check=False)
    return m


def multi_output():
    split = h.make_node("Split", ["x", "sizes"], ["a", "b", "c"], name="split", axis=1)
    dq = h.make_node("DynamicQuantizeLinear", ["a"], ["q", "q_scale", "q_zp"], name="dql")
    # An omitted trailing output of MaxPool ("" indices) and an omitted optional input.
    clip = h.make_node("Clip", ["b", "", "hi"], ["clipped"], name="clip")
    inits = [nh.from_array(np.array([1, 2, 3], np.int64), "sizes"), nh.from_array(np.array(6.0, np.float32), "hi")]
    outs = [vi("q", T.UINT8, [2, 1]), vi("q_scale", T.FLOAT, []), vi("q_zp", T.UINT8, []),
            vi("clipped", T.FLOAT, [2, 2]), vi("c", T.FLOAT, [2, 3])]
    m = model([split, dq, clip], "multi", [vi("x", T.FLOAT, [2, 6])], outs, inits)
    save(m, "multi_output.onnx")


def unsorted_graph():
    n1 = h.make_node("Relu", ["x"], ["a"], name="first")
    n2 = h.make_node("Sigmoid", ["a"], ["b"], name="second")
    n3 = h.make_node("Add", ["a", "b"], ["c"], name="third")
    m = model([n3, n2, n1], "unsorted", [vi("x", T.FLOAT, [4])], [vi("c", T.FLOAT, [4])])
    save(m, "unsorted_graph.onnx", check=False)


def other_domain_meta():
    n = h.make_node("QLinearSigmoid", ["x", "s", "z", "s", "z"], ["y"], domain="com.microsoft", name="qsig")
    inits = [nh.from_array(np.array(0.1, np.float32), "s"), nh.from_array(np.array(3, np.uint8), "z")]
    m = model([n], "ms", [vi("x", T.UINT8, [1, 4])], [vi("y", T.UINT8, [1, 4])], inits,
              opset=17, extra_opsets=[("com.microsoft", 1)])
    m.ir_version = 8
    save(m, "other_domain_meta.onnx", check=False)


def initializer_listed_as_input():
    n = h.make_node("Add", ["x", "b"], ["y"], name="add")
    b = nh.from_array(np.array([1.0, 2.0], np.float32), "b")
    m = model([n], "old_style", [vi("x", T.FLOAT, [2]), vi("b", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])], [b], opset=9)
    m.ir_version = 3
    save(m, "initializer_listed_as_input.onnx", check=False)


def qdq_per_axis():
    w = np.array([[1.0, -2.0], [0.5, 0.25], [4.0, -1.0]], np.float32)
    inits = [nh.from_array(w, "w"), nh.from_array(np.array([0.1, 0.2, 0.3], np.float32), "w_scale"),
             nh.from_array(np.array([0, 3, -4], np.int8), "w_zp")]
    q = h.make_node("QuantizeLinear", ["w", "w_scale", "w_zp"], ["wq"], name="q", axis=0)
    dq = h.make_node("DequantizeLinear", ["wq", "w_scale", "w_zp"], ["wdq"], name="dq", axis=0)
    mm = h.make_node("MatMul", ["x", "wdq"], ["y"], name="mm")
    m = model([q, dq, mm], "qdq", [vi("x", T.FLOAT, [5, 3])], [vi("y", T.FLOAT, [5, 2]), vi("wdq", T.FLOAT, [3, 2])], inits)
    save(m, "qdq_per_axis.onnx")


def inferred_types():
    """No value_info at all: every intermediate type must come from qlower's inference."""
    inits = [
        nh.from_array(np.array(0, np.int64), "zero"),
        nh.from_array(np.array([0], np.int64), "axes0"),
        nh.from_array(np.array([-1], np.int64), "minus_one"),
        nh.from_array(np.ones((10, 32), np.float32), "fc_w"),
    ]
    nodes = [
        h.make_node("MaxPool", ["x"], ["pooled"], name="pool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        h.make_node("Transpose", ["pooled"], ["nhwc"], name="to_nhwc", perm=[0, 2, 3, 1]),
        h.make_node("Shape", ["nhwc"], ["shape"], name="shape"),
        h.make_node("Gather", ["shape", "zero"], ["batch"], name="batch", axis=0),
        h.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"], name="batch1"),
        h.make_node("Concat", ["batch1", "minus_one"], ["target"], name="target", axis=0),
        h.make_node("Reshape", ["nhwc", "target"], ["flat"], name="reshape"),
        h.make_node("Gemm", ["flat", "fc_w"], ["logits"], name="fc", transB=1),
        h.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    m = model(nodes, "inferred", [vi("x", T.FLOAT, [2, 2, 8, 8])], [vi("probs", T.FLOAT, None)], inits)
    save(m, "inferred_types.onnx", check=False)


def partial_shape():
    """Smart-turn's attention with a dynamic batch, no value_info: the reshape targets
    are computed from Shape at run time and known only in part ([?, 400, 6, 64], and
    [-1] ++ shape[-2:] of the transposed heads), yet give every size but the batch."""
    inits = [
        nh.from_array(np.array(0, np.int64), "zero"),
        nh.from_array(np.array([0], np.int64), "axes0"),
        nh.from_array(np.array([400, 6, 64], np.int64), "sizes"),
        nh.from_array(np.array([-1], np.int64), "minus_one"),
        nh.from_array(np.array([-2], np.int64), "from"),
        nh.from_array(np.array([np.iinfo(np.int64).max], np.int64), "to"),
    ]
    nodes = [
        h.make_node("Shape", ["x"], ["shape"], name="shape"),
        h.make_node("Gather", ["shape", "zero"], ["batch"], name="batch", axis=0),
        h.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"], name="batch1"),
        h.make_node("Concat", ["batch1", "sizes"], ["target"], name="target", axis=0),
        h.make_node("Reshape", ["x", "target"], ["heads"], name="split_heads"),
        h.make_node("Transpose", ["heads"], ["by_head"], name="by_head", perm=[0, 2, 1, 3]),
        h.make_node("Shape", ["by_head"], ["head_shape"], name="head_shape"),
        h.make_node("Slice", ["head_shape", "from", "to"], ["tail"], name="tail"),
        h.make_node("Concat", ["minus_one", "tail"], ["target2"], name="target2", axis=0),
        h.make_node("Reshape", ["by_head", "target2"], ["rows"], name="merge_batch"),
        h.make_node("Transpose", ["rows"], ["y"], name="to_columns", perm=[0, 2, 1]),
    ]
    m = model(nodes, "partial", [vi("x", T.FLOAT, ["batch", 400, 384])], [vi("y", T.FLOAT, None)], inits)
    save(m, "partial_shape.onnx", check=False)


def symbolic_heads():
    """An encoder's attention with batch and sequence both dynamic: the heads' reshape
    target is Concat(Shape(x)[0], Shape(x)[1], [4, -1]), which no element of is known
    but the constants, yet the -1 is 48 / 4 whatever batch and seq are; the merge back
    takes [0, 0, -1] after a transpose, and position ids come from Range(0, seq)."""
    inits = [
        nh.from_array(np.array([0], np.int64), "i0"),
        nh.from_array(np.array([1], np.int64), "i1"),
        nh.from_array(np.array([4, -1], np.int64), "heads"),
        nh.from_array(np.array([0, 0, -1], np.int64), "merge"),
        nh.from_array(np.array(0, np.int64), "zero"),
        nh.from_array(np.array(1, np.int64), "one"),
        nh.from_array(np.array([0], np.int64), "axes0"),
    ]
    nodes = [
        h.make_node("Shape", ["x"], ["shape"], name="shape"),
        h.make_node("Gather", ["shape", "i0"], ["batch"], name="batch", axis=0),
        h.make_node("Gather", ["shape", "i1"], ["seq"], name="seq", axis=0),
        h.make_node("Concat", ["batch", "seq", "heads"], ["target"], name="target", axis=0),
        h.make_node("Reshape", ["x", "target"], ["split"], name="split_heads"),
        h.make_node("Transpose", ["split"], ["by_head"], name="by_head", perm=[0, 2, 1, 3]),
        h.make_node("Transpose", ["by_head"], ["keys_t"], name="keys_t", perm=[0, 1, 3, 2]),
        h.make_node("MatMul", ["by_head", "keys_t"], ["scores"], name="scores"),
        h.make_node("Softmax", ["scores"], ["probs"], name="probs", axis=-1),
        h.make_node("MatMul", ["probs", "by_head"], ["context"], name="context"),
        h.make_node("Transpose", ["context"], ["back"], name="back", perm=[0, 2, 1, 3]),
        h.make_node("Reshape", ["back", "merge"], ["y"], name="merge_heads"),
        h.make_node("Squeeze", ["seq", "axes0"], ["seq0"], name="seq0"),
        h.make_node("Range", ["zero", "seq0", "one"], ["positions"], name="positions"),
        h.make_node("Concat", ["past", "by_head"], ["present"], name="present", axis=2),
        h.make_node("Add", ["x", "other"], ["either"], name="either"),
    ]
    m = model(nodes, "symbolic", [vi("x", T.FLOAT, ["batch", "seq", 48]),
                                  vi("past", T.FLOAT, ["batch", 4, "past", 12]),
                                  vi("other", T.FLOAT, ["batch", "len", 48])],
              [vi("y", T.FLOAT, None), vi("positions", T.INT64, None),
               vi("present", T.FLOAT, None), vi("either", T.FLOAT, None)], inits)
    save(m, "symbolic_heads.onnx", check=False)


def write_raw(name, data):
    with open(os.path.join(ERRORS, name), "wb") as f:
        f.write(data)


def hostile_models():
    good = model([h.make_node("Relu", ["x"], ["y"], name="relu")], "g", [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])])
    data = good.SerializeToString()
    write_raw("truncated.onnx", data[: len(data) - 7])
    write_raw("random_bytes.onnx", np.random.RandomState(7).bytes(256))
    write_raw("empty.onnx", b"")
    write_raw("text.onnx", b"this is not a model\n")

    cyc = model([h.make_node("Relu", ["b"], ["a"], name="n1"), h.make_node("Relu", ["a"], ["b"], name="n2")],
                "cycle", [vi("x", T.FLOAT, [2])], [vi("a", T.FLOAT, [2])])
    save(cyc, "cycle.onnx", ERRORS, check=False)

    dangling = model([h.make_node("Add", ["x", "ghost"], ["y"], name="add")], "dangling",
                     [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])])
    save(dangling, "dangling.onnx", ERRORS, check=False)

    dup = model([h.make_node("Relu", ["x"], ["y"], name="r1"), h.make_node("Sigmoid", ["x"], ["y"], name="r2")],
                "dup", [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])])
    save(dup, "duplicate_output.onnx", ERRORS, check=False)

    zero = h.make_tensor("w", T.FLOAT, [2], [1.0, 2.0])
    zero.data_type = 0
    dz = model([h.make_node("Add", ["x", "w"], ["y"], name="add")], "dtype0",
               [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])], [zero])
    save(dz, "dtype_zero.onnx", ERRORS, check=False)

    short = nh.from_array(np.array([1.0, 2.0, 3.0], np.float32), "w")
    short.dims[:] = [4]
    ds = model([h.make_node("Add", ["x", "w"], ["y"], name="add")], "short",
               [vi("x", T.FLOAT, [4])], [vi("y", T.FLOAT, [4])], [short])
    save(ds, "raw_data_short.onnx", ERRORS, check=False)

    for name, location in (("external_escape.onnx", "../../../etc/passwd"), ("external_missing.onnx", "missing.bin")):
        t = h.make_tensor("w", T.FLOAT, [2], [0.0, 0.0])
        t.ClearField("float_data")
        t.data_location = T.EXTERNAL
        e = t.external_data.add()
        e.key, e.value = "location", location
        em = model([h.make_node("Add", ["x", "w"], ["y"], name="add")], "ext",
                   [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])], [t])
        save(em, name, ERRORS, check=False)

    future = model([h.make_node("Relu", ["x"], ["y"], name="relu")], "future",
                   [vi("x", T.FLOAT, [2])], [vi("y", T.FLOAT, [2])], opset=99)
    save(future, "future_opset.onnx", ERRORS, check=False)

    no_graph = onnx.ModelProto(ir_version=8)
    no_graph.opset_import.add(domain="", version=17)
    write_raw("no_graph.onnx", no_graph.SerializeToString())

    # Loop (and Scan) stay refused; If is imported (Runtime/Inputs/make_if.py).
    body = h.make_graph(
        [h.make_node("Identity", ["cond_in"], ["cond_out"]), h.make_node("Add", ["v_in", "x"], ["v_out"])],
        "body",
        [vi("i", T.INT64, []), vi("cond_in", T.BOOL, []), vi("v_in", T.FLOAT, [2])],
        [vi("cond_out", T.BOOL, []), vi("v_out", T.FLOAT, [2])],
    )
    loop = h.make_node("Loop", ["n", "c", "x"], ["y"], name="loop", body=body)
    sub = model(
        [loop],
        "subgraph",
        [vi("n", T.INT64, []), vi("c", T.BOOL, []), vi("x", T.FLOAT, [2])],
        [vi("y", T.FLOAT, [2])],
    )
    save(sub, "subgraph.onnx", ERRORS, check=False)

    s = h.make_tensor("names", T.STRING, [1], [b"abc"])
    sm = model([h.make_node("Identity", ["names"], ["y"], name="ident")], "strings", [], [vi("y", T.STRING, [1])], [s])
    save(sm, "string_tensor.onnx", ERRORS, check=False)

    # A declared shape the op contradicts: followed by neither ONNX Runtime nor qlower,
    # which both warn and run the model.
    conflict = model([h.make_node("Relu", ["x"], ["y"], name="relu")], "conflict",
                     [vi("x", T.FLOAT, [2, 3])], [vi("y", T.FLOAT, [2, 4])])
    save(conflict, "declared_shape_conflict.onnx", check=False)
    # A declared element type the op contradicts: refused by both.
    conflict = model([h.make_node("Relu", ["x"], ["y"], name="relu")], "conflict",
                     [vi("x", T.FLOAT, [2, 3])], [vi("y", T.INT32, [2, 3])])
    save(conflict, "declared_dtype_conflict.onnx", ERRORS, check=False)


if __name__ == "__main__":
    os.makedirs(ERRORS, exist_ok=True)
    qlinearconv_per_channel()
    every_attribute_kind()
    every_dtype()
    dynamic_dims()
    external_data()
    multi_output()
    unsorted_graph()
    other_domain_meta()
    initializer_listed_as_input()
    qdq_per_axis()
    inferred_types()
    partial_shape()
    symbolic_heads()
    hostile_models()
