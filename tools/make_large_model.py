"""Writes a float model with about 25 million parameters, for measuring import time.

Usage: .venv/bin/python tools/make_large_model.py OUT.onnx [--external]
A chain of 3x3 convolutions (512 channels) and a final MatMul, ResNet-like in size;
with --external the weights go to OUT.onnx.data next to the model.
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

out = sys.argv[1]
external = "--external" in sys.argv
rng = np.random.RandomState(0)
nodes, inits = [], []
x = "input"
c = 512
params = 0
for i in range(10):
    w = rng.standard_normal((c, c, 3, 3)).astype(np.float32) * 0.01
    b = np.zeros(c, np.float32)
    inits += [nh.from_array(w, f"conv{i}.weight"), nh.from_array(b, f"conv{i}.bias")]
    nodes.append(h.make_node("Conv", [x, f"conv{i}.weight", f"conv{i}.bias"], [f"conv{i}"], name=f"conv{i}", pads=[1, 1, 1, 1]))
    nodes.append(h.make_node("Relu", [f"conv{i}"], [f"relu{i}"], name=f"relu{i}"))
    x = f"relu{i}"
    params += w.size + b.size
nodes.append(h.make_node("GlobalAveragePool", [x], ["pool"], name="pool"))
nodes.append(h.make_node("Flatten", ["pool"], ["flat"], name="flatten"))
fc = rng.standard_normal((c, 3000)).astype(np.float32) * 0.01
inits.append(nh.from_array(fc, "fc.weight"))
params += fc.size
nodes.append(h.make_node("MatMul", ["flat", "fc.weight"], ["logits"], name="fc"))
graph = h.make_graph(nodes, "large", [h.make_tensor_value_info("input", T.FLOAT, [1, c, 14, 14])],
                     [h.make_tensor_value_info("logits", T.FLOAT, [1, 3000])], inits)
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
onnx.save(model, out, save_as_external_data=external, location=out.split("/")[-1] + ".data")
print(f"{out}: {params / 1e6:.1f}M parameters")
