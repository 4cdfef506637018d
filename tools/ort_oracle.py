"""ONNX Runtime as a test oracle: every session the tests and benchmarks open comes from here.

On x86-64 CPUs without VNNI, ONNX Runtime's default uint8 x int8 kernels (QLinearConv,
QLinearMatMul, MatMulInteger, QGemm, DynamicQuantizeMatMul, ...) multiply with
`vpmaddubsw`, which adds each pair of products in saturating 16-bit arithmetic: 255 * 127 * 2
does not fit, so full-range int8 weights give wrong sums. Its session option
`session.x64quantprecision=1` selects exact uint8 x uint8 kernels instead; on VNNI CPUs it
changes nothing. qlower computes the exact integer result on every CPU, so the oracle is
ONNX Runtime in that exact mode. Benchmarks time both modes (`exact=False` is the default
mode, which is faster where it saturates).

This module is for tests and benchmarks only; qlower itself never runs ONNX Runtime.
"""

import functools

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

# The session option that turns ONNX Runtime's saturating u8s8 kernels into exact ones.
EXACT_MODE = ("session.x64quantprecision", "1")


def has_vnni() -> bool:
    """True when the CPU has AVX-512 VNNI or AVX-VNNI: ONNX Runtime's default kernels are
    exact there. Without it they saturate (see the module's docstring)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return False
    return "avx512_vnni" in flags or "avx_vnni" in flags


@functools.cache
def default_mode_saturates() -> bool:
    """Asks ONNX Runtime itself: 255 * 127 summed 64 times by a uint8 x int8 MatMulInteger in
    the default mode is 2,072,640 when exact, and 32 * 32767 when each pair of products
    saturates to int16. This is what decides the test's expectations, whatever /proc/cpuinfo
    says (an emulated CPU, or a kernel choice that changes between versions)."""
    k = 64
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "b"], ["y"])], "saturation_probe",
        [helper.make_tensor_value_info("a", onnx.TensorProto.UINT8, [1, k])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.INT32, [1, 1])],
        [numpy_helper.from_array(np.full([k, 1], 127, np.int8), "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    got = run(model, {"a": np.full([1, k], 255, np.uint8)}, exact=False, threads=1)["y"]
    return int(got.reshape(-1)[0]) != 255 * 127 * k


def cpu_name() -> str:
    """The CPU's model name and whether it has VNNI, for benchmark and test reports."""
    name = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    saturates = "saturates" if default_mode_saturates() else "is exact"
    return f"{name}, {'with' if has_vnni() else 'without'} VNNI (ONNX Runtime's default u8s8 mode {saturates})"


def session_options(exact=True, threads=None, level=None, sequential=False):
    """Options for one oracle session: exact mode unless `exact=False`, `threads` intra-op
    threads (ONNX Runtime's default when None), quiet logging, and the graph optimization
    `level` when given."""
    options = ort.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    options.log_severity_level = 3
    if sequential:
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    if level is not None:
        options.graph_optimization_level = level
    if exact:
        options.add_session_config_entry(*EXACT_MODE)
    return options


def session(model, exact=True, threads=None, level=None, sequential=False):
    """An InferenceSession on the CPU provider. `model` is a path, serialized bytes or a
    ModelProto. In exact mode, see `exact_session` for the models ONNX Runtime's exact mode
    refuses."""
    if exact:
        return exact_session(model, threads=threads, level=level, sequential=sequential)
    return _open(model, session_options(exact=False, threads=threads, level=level, sequential=sequential))


def _open(model, options):
    if isinstance(model, onnx.ModelProto):
        model = model.SerializeToString()
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def exact_session(model, threads=None, level=None, sequential=False):
    """A session in exact mode. ONNX Runtime implements that mode as a graph rewrite that
    turns constant int8 weights into uint8 ones, and the rewrite fails on some valid models:
    - an int8 weight that is read by more than one node, or whose DequantizeLinear output is
      also read by a float op or is a graph output ("Attempt to replace the existing
      tensor"): the oracle then gives each reader its own copy of the weight (and of its
      DequantizeLinear), which changes nothing the model computes;
    - some com.microsoft ops (QGemm with int8 inputs), for which it leaves a type
      combination that has no kernel. There the default mode is used where it is exact: on
      CPUs where it does not saturate (VNNI), and on every CPU for models without uint8 x
      int8 products (int8 x int8 and uint8 x uint8 products are summed exactly); otherwise
      this raises, because ONNX Runtime cannot be an exact oracle for the model here.
    """
    options = session_options(exact=True, threads=threads, level=level, sequential=sequential)
    proto = model if isinstance(model, onnx.ModelProto) else None
    try:
        return _open(model, options)
    except Exception as first:
        if proto is None:
            proto = onnx.load(model) if isinstance(model, str) else onnx.load_from_string(model)
        unshared = with_unshared_int8_initializers(proto)
        if unshared is not None:
            try:
                return _open(unshared, options)
            except Exception:
                pass
        if not default_mode_saturates() or not has_uint8_by_int8_products(proto):
            return _open(proto, session_options(exact=False, threads=threads, level=level,
                                                sequential=sequential))
        raise RuntimeError("ONNX Runtime's exact mode refused the model, and its default mode "
                           "saturates uint8 x int8 products on this CPU (no VNNI): "
                           f"{str(first).splitlines()[0][:300]}") from first


def with_unshared_int8_initializers(model):
    """A copy of `model` in which no int8 weight is shared, or None when none is: a
    DequantizeLinear of an int8 initializer whose output several nodes (or a graph output)
    read is repeated for each reading node, and every int8 initializer read by several
    node inputs gets a copy per extra reader. What the model computes is unchanged."""
    int8 = {t.name: t for t in model.graph.initializer if t.data_type == onnx.TensorProto.INT8}
    readers = {}
    for node in model.graph.node:
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1
    for out in model.graph.output:
        readers[out.name] = readers.get(out.name, 0) + 1
    shared_dq = {n.output[0]: n for n in model.graph.node
                 if n.op_type == "DequantizeLinear" and n.input[0] in int8 and readers.get(n.output[0], 0) > 1}
    if not shared_dq and not any(readers.get(name, 0) > 1 for name in int8):
        return None
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    count = [0]

    def fresh(name):
        count[0] += 1
        return f"{name}__oracle_copy_{count[0]}"

    # Each reader of a shared DequantizeLinear output gets its own DequantizeLinear.
    nodes = []
    for node in copy.graph.node:
        for i, name in enumerate(node.input):
            if name in shared_dq:
                twin = onnx.NodeProto()
                twin.CopyFrom(shared_dq[name])
                twin.name = fresh(twin.name or "dequantize")
                twin.output[0] = fresh(name)
                node.input[i] = twin.output[0]
                nodes.append(twin)
        nodes.append(node)
    del copy.graph.node[:]
    copy.graph.node.extend(nodes)
    # Each read of an int8 initializer but the first goes to a copy of its own.
    seen = set()
    for node in copy.graph.node:
        for i, name in enumerate(node.input):
            if name in int8:
                if name in seen:
                    twin = copy.graph.initializer.add()
                    twin.CopyFrom(int8[name])
                    twin.name = fresh(name)
                    node.input[i] = twin.name
                seen.add(name)
    # Shared outputs now unread by any node are still computed by their original
    # DequantizeLinear, which the graph output (if any) reads.
    return copy


def has_uint8_by_int8_products(model):
    """Whether the model may multiply uint8 by int8 (one of its integer ops sees both types):
    a uint8 tensor (input, initializer, or a DynamicQuantizeLinear / uint8 quantization)
    together with an int8 initializer."""
    u8 = onnx.TensorProto.UINT8
    int8_weights = any(t.data_type == onnx.TensorProto.INT8 for t in model.graph.initializer)
    uint8_data = (any(t.data_type == u8 for t in model.graph.initializer)
                  or any(i.type.tensor_type.elem_type == u8 for i in model.graph.input)
                  or any(n.op_type == "DynamicQuantizeLinear" for n in model.graph.node))
    return int8_weights and uint8_data


def run(model, feeds, exact=True, threads=None, level=None):
    """Every graph output by name, as ONNX Runtime computes it (exact mode by default)."""
    s = session(model, exact=exact, threads=threads, level=level)
    names = [o.name for o in s.get_outputs()]
    return dict(zip(names, s.run(names, feeds)))
