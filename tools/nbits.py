"""ONNX Runtime's MatMulNBits quantization (weight-only, blocked 4/8-bit), shared by the
differential test, the decoder model and the benchmarks.

`quantize_matmuls` is ORT's `MatMulNBitsQuantizer` (its default RTN algorithm, QOperator
format). That module imports `onnx_ir`, which the pinned venv (tools/setup.sh) does not
have; when it does not import, the same path is taken here: ORT's own C++ block
quantizer (`quantize_matmul_4bits` / `quantize_matmul_8bits`, which the quantizer calls)
packs each constant 2-D MatMul weight, and the node is written with the inputs and
attributes the quantizer writes (A, B, scales[, zero_points]; K, N, bits, block_size,
accuracy_level when not 0).
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper


def _ort_quantizer(model, block, symmetric, accuracy_level, bits):
    try:
        from onnxruntime.quantization import matmul_nbits_quantizer as mq
    except ImportError:
        return None
    config = mq.DefaultWeightOnlyQuantConfig(
        block_size=block, is_symmetric=symmetric, accuracy_level=accuracy_level, bits=bits)
    q = mq.MatMulNBitsQuantizer(model, algo_config=config)
    q.process()
    return q.model.model


def pack_weight(w, block, symmetric, bits=4):
    """ORT's block quantizer on the [K, N] float weight `w`: (packed [N, k_blocks, blob],
    scales [N, k_blocks], zero_points [N, ceil(k_blocks·bits/8)])."""
    from onnxruntime.capi._pybind_state import quantize_matmul_4bits, quantize_matmul_8bits

    rows, cols = w.shape
    k_blocks = (rows + block - 1) // block
    pad = k_blocks * block - rows
    w = np.ascontiguousarray(np.pad(w.astype(np.float32), ((0, pad), (0, 0))))
    kpack = 8 // bits
    packed = np.zeros((cols, k_blocks, block // kpack), np.uint8)
    zero_points = np.zeros((cols, (k_blocks + kpack - 1) // kpack), np.uint8)
    scales = np.zeros((cols, k_blocks), np.float32)
    quant = quantize_matmul_4bits if bits == 4 else quantize_matmul_8bits
    quant(packed, w, scales, zero_points, block, cols, rows, symmetric)
    return packed, scales, zero_points


def quantize_matmuls(model, block, symmetric=True, accuracy_level=0, bits=4):
    """Every MatMul with a constant 2-D weight as a com.microsoft MatMulNBits."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    done = _ort_quantizer(model, block, symmetric, accuracy_level, bits)
    if done is not None:
        return done
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    nodes = []
    for node in graph.node:
        w = inits.get(node.input[1]) if node.op_type == "MatMul" else None
        if w is None or len(w.dims) != 2:
            nodes.append(node)
            continue
        array = numpy_helper.to_array(w)
        packed, scales, zps = pack_weight(array, block, symmetric, bits)
        names = [node.input[0], f"{w.name}_Q{bits}", f"{w.name}_scales"]
        graph.initializer.extend([numpy_helper.from_array(packed, names[1]),
                                  numpy_helper.from_array(scales, names[2])])
        if not symmetric:
            names.append(f"{w.name}_zero_points")
            graph.initializer.append(numpy_helper.from_array(zps, names[3]))
        attrs = {"K": array.shape[0], "N": array.shape[1], "bits": bits, "block_size": block}
        if accuracy_level:
            attrs["accuracy_level"] = accuracy_level
        nodes.append(helper.make_node(
            "MatMulNBits", names, list(node.output),
            name=f"{node.name}_Q{bits}" if node.name else "", domain="com.microsoft", **attrs))
    used = {i for n in nodes for i in n.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    del graph.node[:]
    graph.node.extend(nodes)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return model


def dequantized(packed, scales, zero_points, k, bits=4, g_idx=None):
    """The [K, N] float weight a MatMulNBits holds: (code - zero_point)·scale, the zero
    point `2^(bits-1)` when absent, packed low-first when uint8; block of column k
    `g_idx[k]` when given, else k // block_size."""
    n, k_blocks, blob = packed.shape
    block = blob * 8 // bits
    if bits == 4:
        codes = np.stack([packed & 15, packed >> 4], axis=-1).reshape(n, -1)
    else:
        codes = packed.reshape(n, -1)
    codes = codes[:, :k].astype(np.float64)
    group = np.asarray(g_idx) if g_idx is not None else np.arange(k) // block
    s = scales.reshape(n, k_blocks).astype(np.float64)
    if zero_points is None:
        z = np.full((n, k_blocks), 2.0 ** (bits - 1))
    elif zero_points.dtype == np.uint8:
        zp = zero_points.reshape(n, -1)
        if bits == 4:
            zp = np.stack([zp & 15, zp >> 4], axis=-1).reshape(n, -1)
        z = zp[:, :k_blocks].astype(np.float64)
    else:
        z = zero_points.reshape(n, k_blocks).astype(np.float64)
    return ((codes - z[:, group]) * s[:, group]).T
