"""Where a dynamically quantized model's run first departs from ONNX Runtime's.

A dynamically quantized model is chaotic: DynamicQuantizeLinear takes its scale from
the range of a tensor computed at run time, so an input element that lies within float
rounding of a rounding boundary goes to one code or the next depending on the order of
float sums upstream, and that one-step flip moves everything after it. Comparing the
final outputs cannot tell such a flip from a wrong op. This walks every intermediate
tensor in graph order, as both backends compute it, and finds the first that differs
beyond float rounding. The run is explained when that first difference is a
DynamicQuantizeLinear whose codes differ by one step, only at elements whose input
agrees within rounding and sits within rounding of the boundary between the two codes;
anything else (a float tensor off, an integer tensor off by more, a flip far from a
boundary) is a disagreement to look into, and is reported as one.

Both sides run the model with every intermediate made a graph output: ONNX Runtime with
its graph optimizations off (its fusions can change a quantized model's results, and
the unfused graph is the model's semantics), qlower as `qlower run` runs any model.
"""

import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import shape_inference

from qlower_tools import ort_oracle
from qlower_tools.real_models import run as harness

# Relative L2 below which two float tensors agree within float rounding (sums in another
# order, a vector exp against a scalar one).
FLOAT_ROUNDING = 1e-5
# How close to a boundary between two codes (in code steps) an element must sit for its
# flip to count as a rounding decision: its input agrees only to within FLOAT_ROUNDING.
NEAR_BOUNDARY = 1e-3


def with_every_tensor(path):
    """The model at `path` with each node output whose type shape inference knows made a
    graph output, and those names in graph order."""
    model = onnx.load(path)
    inferred = shape_inference.infer_shapes(model)
    types = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    declared = {o.name for o in model.graph.output}
    names = []
    for node in model.graph.node:
        for name in node.output:
            if name in declared:
                names.append(name)
            elif name and name in types:
                model.graph.output.append(types[name])
                names.append(name)
    return model, names


def explain_flip(node, got, want, got_in, want_in):
    """Why the DynamicQuantizeLinear `node`'s codes `got` differ from ORT's `want` (None
    when every flip is a rounding decision, else what is wrong)."""
    diff = got.astype(np.int64) - want.astype(np.int64)
    if np.abs(diff).max() > 1:
        return f"codes differ by up to {int(np.abs(diff).max())} steps"
    if harness.relative_l2(got_in, want_in) > FLOAT_ROUNDING:
        return "its input differs beyond rounding"
    # ORT's scale and zero point, from its own input (DynamicQuantizeLinear's formula).
    x = want_in.astype(np.float32)
    lo, hi = min(float(x.min()), 0.0), max(float(x.max()), 0.0)
    scale = np.float32((hi - lo) / 255.0) if hi > lo else np.float32(1.0)
    at = np.nonzero(diff.ravel())[0]
    if at.size == 0:
        return None
    codes = x.ravel()[at].astype(np.float64) / float(scale)
    distance = np.abs(codes - np.floor(codes) - 0.5)
    if distance.max() > NEAR_BOUNDARY:
        return (f"{at.size} codes flip, one {distance.max():.1e} of a step from the "
                f"boundary between two codes")
    return None


def first_difference(args, path, feeds, work):
    """(explained, message): where qlower's run of the model at `path` on `feeds` first
    departs from ONNX Runtime's, and whether that is a one-step flip of a run-time
    quantization at a rounding boundary."""
    os.makedirs(work, exist_ok=True)
    model, names = with_every_tensor(path)
    exposed = os.path.join(work, "every_tensor.onnx")
    onnx.save(model, exposed)
    want = ort_oracle.run(exposed, feeds, threads=args.threads,
                          level=ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    error, got_all, _ = harness.qlower_run(args, exposed, feeds, work)
    if error:
        return False, f"qlower run with every tensor exposed failed: {error}"
    producer = {o: n for n in model.graph.node for o in n.output}
    for name in names:
        got, ref = got_all.get(harness.output_file_name(name)), want.get(name)
        if got is None or ref is None:
            continue
        if got.shape != ref.shape:
            return False, f"'{name}' has shape {list(got.shape)}, ONNX Runtime {list(ref.shape)}"
        if np.issubdtype(ref.dtype, np.floating):
            if harness.relative_l2(got, ref) <= FLOAT_ROUNDING:
                continue
            node = producer[name]
            return False, (f"first difference: float tensor '{name}' of {node.op_type} "
                           f"'{node.name}', relative L2 {harness.relative_l2(got, ref):.1e}")
        if np.array_equal(got, ref):
            continue
        node = producer[name]
        if node.op_type != "DynamicQuantizeLinear" or name != node.output[0]:
            return False, (f"first difference: {int((got != ref).sum())} of {ref.size} elements "
                           f"of '{name}' ({node.op_type} '{node.name}')")
        source = node.input[0]
        want_in = want.get(source, feeds.get(source))
        got_in = got_all.get(harness.output_file_name(source), feeds.get(source))
        if got_in is None or want_in is None:
            return False, f"first difference at '{name}', whose input '{source}' is not exposed"
        why = explain_flip(node, got, ref, got_in, want_in)
        flips = int((got != ref).sum())
        if why:
            return False, f"first difference: DynamicQuantizeLinear '{node.name}': {why}"
        return True, (f"first difference: {flips} of {ref.size} codes of DynamicQuantizeLinear "
                      f"'{node.name}' one step apart, each input within {NEAR_BOUNDARY:.0e} of a "
                      f"step of a rounding boundary (a run-time scale's rounding decision)")
    return True, "no intermediate tensor differs beyond float rounding"
