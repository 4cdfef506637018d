"""Float models quantized to QOperator format by ONNX Runtime, for `qoperator.py`.

Each model is quantized with `quantize_static(..., quant_format=QuantFormat.QOperator)`,
calibrated on a few random inputs. The quantized model keeps a float input (behind a
QuantizeLinear) and float outputs (behind a DequantizeLinear); the comparison maps those
outputs back to integers with the DequantizeLinear's own parameters, so it is done in the
quantized domain.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_static)

from qlower_tools.differential import make_resnet18


class RandomReader(CalibrationDataReader):
    def __init__(self, rng, name, shape, count=4):
        self.batches = iter([{name: rng.normal(size=shape).astype(np.float32)}
                             for _ in range(count)])

    def get_next(self):
        return next(self.batches, None)


def float_model(nodes, inits, in_shape, out_shape, opset=17):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m


def weight(rng, name, shape, std=0.3):
    return numpy_helper.from_array(rng.normal(0, std, shape).astype(np.float32), name)


def cnn(rng):
    """Conv, Relu, residual Add, AveragePool, Mul, LeakyRelu, Concat, GlobalAveragePool,
    Flatten, Gemm, Softmax."""
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        n("Relu", ["c1"], ["r1"]),
        n("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
        n("Add", ["c2", "r1"], ["a1"]),
        n("AveragePool", ["a1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        n("Sigmoid", ["p1"], ["s1"]),
        n("Mul", ["p1", "s1"], ["m1"]),
        n("LeakyRelu", ["m1"], ["l1"], alpha=0.1),
        n("Concat", ["l1", "p1"], ["cat"], axis=1),
        n("GlobalAveragePool", ["cat"], ["g"]),
        n("Flatten", ["g"], ["f"]),
        n("Gemm", ["f", "fw", "fb"], ["logits"], transB=1),
        n("Softmax", ["logits"], ["y"], axis=-1),
    ]
    inits = [weight(rng, "w1", [8, 3, 3, 3]), weight(rng, "b1", [8], 0.1),
             weight(rng, "w2", [8, 8, 3, 3], 0.15), weight(rng, "b2", [8], 0.1),
             weight(rng, "fw", [10, 16]), weight(rng, "fb", [10], 0.1)]
    return float_model(nodes, inits, [2, 3, 12, 12], [2, 10]), [2, 3, 12, 12]


def mlp(rng):
    """MatMul + Add (as Gemm-less ONNX writes a linear layer), Gemm, Relu, Add."""
    n = helper.make_node
    nodes = [
        n("MatMul", ["x", "w1"], ["h"]),
        n("Add", ["h", "b1"], ["hb"]),
        n("Relu", ["hb"], ["r"]),
        n("Gemm", ["r", "w2", "b2"], ["g"], alpha=1.0, transB=1),
        n("Sigmoid", ["g"], ["s"]),
        n("Add", ["g", "s"], ["y"]),
    ]
    inits = [weight(rng, "w1", [16, 24]), weight(rng, "b1", [24], 0.1),
             weight(rng, "w2", [8, 24]), weight(rng, "b2", [8], 0.1)]
    return float_model(nodes, inits, [4, 16], [4, 8]), [4, 16]


def quantize(work, label, model, shape, rng, per_channel, activation, fmt=QuantFormat.QOperator):
    src = os.path.join(work, f"{label}.float.onnx")
    dst = os.path.join(work, f"{label}.q.onnx")
    onnx.save(model, src)
    quantize_static(src, dst, RandomReader(rng, "input" if label.startswith("resnet18") else "x", shape),
                    quant_format=fmt, per_channel=per_channel,
                    activation_type=activation, weight_type=QuantType.QInt8)
    q = onnx.load(dst)
    q.ir_version = 10
    return q


def quantized_models(rng, work, resnet):
    """(label, quantized model, feeds) triples."""
    for name, build in [("cnn", cnn), ("mlp", mlp)]:
        for per_channel in (False, True):
            for activation in (QuantType.QUInt8, QuantType.QInt8):
                model, shape = build(rng)
                label = f"{name}_{'pc' if per_channel else 'pt'}_{activation.name}"
                q = quantize(work, label, model, shape, rng, per_channel, activation)
                yield label, q, {"x": rng.normal(size=shape).astype(np.float32)}
    if resnet:
        model = make_resnet18.resnet18(size=224, seed=0)
        shape = [1, 3, 224, 224]
        q = quantize(work, "resnet18", model, shape, rng, True, QuantType.QUInt8)
        yield "resnet18", q, {"input": rng.normal(size=shape).astype(np.float32)}
        q = quantize(work, "resnet18_qdq", model, shape, rng, True, QuantType.QUInt8, QuantFormat.QDQ)
        yield "resnet18_qdq", q, {"input": rng.normal(size=shape).astype(np.float32)}


def dequantize_params(model):
    """Output name -> (scale, zero point) of the DequantizeLinear producing it."""
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    found = {}
    outputs = {o.name for o in model.graph.output}
    for node in model.graph.node:
        if node.op_type == "DequantizeLinear" and node.output[0] in outputs:
            scale = inits.get(node.input[1])
            zp = inits.get(node.input[2]) if len(node.input) > 2 else None
            if scale is not None and scale.size == 1:
                found[node.output[0]] = (scale, zp)
    return found
