"""The qlower Python package against the qlower command line, ONNX and IREE.

Run by tools/python_tests.sh against the installed package; QLOWER_BIN names the
command line (`qlower run` is the reference the Session must equal byte for byte) and
QLOWER_REPO the checkout, whose test models these tests read.
"""

import os
import pathlib
import subprocess
import threading

import numpy as np
import onnx
import pytest
from onnx import TensorProto
from onnx import helper, numpy_helper

import qlower

REPO = pathlib.Path(os.environ.get("QLOWER_REPO", pathlib.Path(__file__).resolve().parents[2]))
QLOWER_BIN = os.environ.get("QLOWER_BIN", str(REPO / "target" / "release" / "qlower"))

# (model, its saved input or None for a seeded random one): a QOperator model (the
# README's example: QLinearConv with per-channel weights) and QDQ models.
RUN_MODELS = [
    ("examples/quantized_conv.onnx", None),
    ("test/Transforms/Inputs/qdq_cnn.onnx", "test/Transforms/Inputs/qdq_cnn_x.npy"),
    ("test/Transforms/Inputs/nhwc_qdq_cnn.onnx", "test/Transforms/Inputs/nhwc_qdq_cnn_x.npy"),
    ("test/Backend/Inputs/cnn_pc_qint8.onnx", "test/Backend/Inputs/cnn_pc_qint8_x.npy"),
]


def cli(*args, check=True):
    return subprocess.run([QLOWER_BIN, *map(str, args)], capture_output=True, text=True,
                          check=check)


def cli_error(*args):
    """The message `qlower` prints after `error: ` for a command that must fail."""
    done = cli(*args, check=False)
    assert done.returncode == 1, done
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0][len("error: "):]


def feeds_for(model, saved):
    """The model's one input: the saved array, or a seeded random one of its type."""
    session = qlower.Session(model)
    (arg,) = session.get_inputs()
    if saved is not None:
        return {arg.name: np.load(REPO / saved)}
    assert arg.type == "tensor(float)" and all(isinstance(d, int) for d in arg.shape)
    rng = np.random.default_rng(7)
    return {arg.name: rng.uniform(-1, 1, arg.shape).astype(np.float32)}


def cli_run(model, feeds, tmp_path):
    """`qlower run` on the same inputs: its outputs by name, read from its .npy files."""
    args = [QLOWER_BIN, "run", model, "--out-dir", tmp_path / "out"]
    for name, value in feeds.items():
        path = tmp_path / f"{name}.npy"
        np.save(path, value)
        args += ["-i", f"{name}={path}"]
    subprocess.run(list(map(str, args)), check=True)
    names = [o.name for o in onnx.load(model).graph.output]
    return {n: np.load(tmp_path / "out" / f"{n}.npy") for n in names}


def assert_same_bytes(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def one_step(model_path):
    """One quantization step of the model's float outputs: the largest per-tensor scale
    among its initializers (an upper bound on any step it quantizes with)."""
    model = onnx.load(model_path)
    scales = [float(numpy_helper.to_array(i).reshape(-1)[0]) for i in model.graph.initializer
              if "scale" in i.name and i.data_type == TensorProto.FLOAT
              and numpy_helper.to_array(i).size == 1]
    assert scales, model_path
    return max(scales)


@pytest.mark.parametrize("model,saved", RUN_MODELS)
def test_session_equals_qlower_run(model, saved, tmp_path):
    path = str(REPO / model)
    feeds = feeds_for(path, saved)
    want = cli_run(path, feeds, tmp_path)
    session = qlower.Session(path)
    outputs = session.run(None, feeds)
    names = [o.name for o in session.get_outputs()]
    assert names == list(want)
    for name, got in zip(names, outputs):
        assert_same_bytes(got, want[name])
    # One thread gives the same bytes, and so does a list of one named output.
    single = qlower.Session(path, threads=1).run([names[0]], feeds)
    assert_same_bytes(single[0], want[names[0]])


def test_model_proto_bytes_and_pathlike_give_the_same_results():
    path = REPO / "examples/quantized_conv.onnx"
    feeds = feeds_for(str(path), None)
    want = qlower.Session(str(path)).run(None, feeds)
    proto = onnx.load(str(path))
    for model in (proto, proto.SerializeToString(), path):
        got = qlower.Session(model).run(None, feeds)
        assert_same_bytes(got[0], want[0])
    text = qlower.compile(str(path))
    assert qlower.compile(proto) == text
    assert qlower.compile(path) == text


def test_compile_equals_the_command_line():
    path = REPO / "test/Transforms/Inputs/qdq_cnn.onnx"
    for emit in ("import", "torch", "fused", "backend"):
        assert qlower.compile(path, emit=emit) == cli(path, "--emit", emit).stdout
    for target in ("iree", "torch-mlir"):
        assert qlower.compile(path, target=target) == cli(path, "--target", target).stdout


@pytest.mark.parametrize("bad", ["cycle.onnx", "dangling.onnx", "declared_dtype_conflict.onnx"])
def test_a_bad_model_raises_qlowers_message(bad):
    path = REPO / "test/Errors/Inputs" / bad
    message = cli_error(path, "-o", "-")
    with pytest.raises(qlower.QlowerError) as compiled:
        qlower.compile(path)
    assert str(compiled.value) == message
    with pytest.raises(qlower.QlowerError) as planned:
        qlower.Session(onnx.load(str(path)).SerializeToString())
    assert str(planned.value) == message


def test_bytes_that_are_no_model_and_bad_arguments():
    with pytest.raises(qlower.QlowerError, match=r"^not a valid ONNX model \(failed to decode"):
        qlower.compile(b"not a model")
    with pytest.raises(qlower.QlowerError, match=r"^cannot read '.*nowhere.onnx'"):
        qlower.Session("nowhere.onnx")
    with pytest.raises(TypeError, match="model must be a path, bytes or an onnx.ModelProto"):
        qlower.compile(42)
    path = REPO / "examples/quantized_conv.onnx"
    with pytest.raises(ValueError, match="emit must be one of 'import', 'torch', 'fused', 'backend'"):
        qlower.compile(path, emit="linalg")
    with pytest.raises(qlower.QlowerError, match="--target iree writes the torch form"):
        qlower.compile(path, emit="backend", target="iree")
    with pytest.raises(qlower.QlowerError, match="must be at least 1"):
        qlower.Session(path, threads=0)


def test_inputs_are_checked_as_the_command_line_checks_them(tmp_path):
    path = REPO / "examples/quantized_conv.onnx"
    session = qlower.Session(path)
    (arg,) = session.get_inputs()
    assert (arg.name, arg.type, arg.shape) == ("input", "tensor(float)", [1, 3, 32, 32])
    (out,) = session.get_outputs()
    assert (out.name, out.type, out.shape) == ("output", "tensor(float)", [1, 8, 16, 16])
    assert repr(arg) == "NodeArg(name='input', type='tensor(float)', shape=[1, 3, 32, 32])"

    wrong_type = np.zeros(arg.shape, np.float64)
    np.save(tmp_path / "x.npy", wrong_type)
    message = cli_error("run", path, "-i", f"input={tmp_path / 'x.npy'}", "--out-dir", tmp_path)
    with pytest.raises(qlower.QlowerError) as e:
        session.run(None, {"input": wrong_type})
    assert str(e.value) == message == "input 'input' must be FLOAT, but the given tensor is DOUBLE"

    wrong_shape = np.zeros([1, 3, 32, 31], np.float32)
    with pytest.raises(qlower.QlowerError, match=r"^input 'input' must have shape \[1, 3, 32, 32\]"):
        session.run(None, {"input": wrong_shape})
    with pytest.raises(qlower.QlowerError, match=r"^missing input 'input' \(.*\); give it in the feeds$"):
        session.run(None, {})
    with pytest.raises(qlower.QlowerError, match=r"^the model has no input named 'w' \(its inputs: input\)$"):
        session.run(None, {"input": np.zeros(arg.shape, np.float32), "w": 1})
    with pytest.raises(qlower.QlowerError, match=r"^the model has no output named 'z' \(its outputs: output\)$"):
        session.run(["z"], {"input": np.zeros(arg.shape, np.float32)})
    with pytest.raises(qlower.QlowerError, match="NumPy dtype complex64 is not supported"):
        session.run(None, {"input": np.zeros(arg.shape, np.complex64)})


def test_strided_inputs_and_owned_outputs():
    path = REPO / "examples/quantized_conv.onnx"
    session = qlower.Session(path)
    x = np.random.default_rng(3).uniform(-1, 1, [1, 32, 32, 3]).astype(np.float32)
    strided = x.transpose(0, 3, 1, 2)  # not C-contiguous: read element by element
    assert not strided.flags.c_contiguous
    (got,) = session.run(None, {"input": strided})
    (want,) = session.run(None, {"input": np.ascontiguousarray(strided)})
    assert_same_bytes(got, want)
    # The output array holds the result's own buffer, writable like any array.
    assert got.flags.c_contiguous and got.flags.writeable
    got[...] = 0


def dynamic_batch_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
    y = helper.make_tensor_value_info("y", TensorProto.UINT8, ["batch", 4])
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])]
    inits = [numpy_helper.from_array(np.array(0.1, np.float32), "s"),
             numpy_helper.from_array(np.array(10, np.uint8), "z")]
    graph = helper.make_graph(nodes, "dyn", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=10)


def test_dynamic_dimensions_and_onnxruntime():
    import onnxruntime as ort

    model = dynamic_batch_model()
    session = qlower.Session(model)
    assert session.get_inputs()[0].shape == ["batch", 4]
    assert session.get_outputs()[0].type == "tensor(uint8)"
    x = np.linspace(-2, 30, 12, dtype=np.float32).reshape(3, 4)
    (got,) = session.run(None, {"x": x})
    reference = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (want,) = reference.run(None, {"x": x})
    assert_same_bytes(got, want)


def test_input_shapes_fix_sizes_as_the_command_line_does():
    """`input_shapes=` is `qlower --input-shape`: the exported squeeze(0)'s If is decided
    for the given size, and the results are ONNX Runtime's for that input."""
    import onnxruntime as ort

    path = REPO / "test" / "Runtime" / "Inputs" / "if_squeeze_dynamic.onnx"
    reference = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for shape in ([1, 3], [2, 3]):
        x = np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)
        session = qlower.Session(path, input_shapes={"x": shape})
        assert session.get_inputs()[0].shape == shape
        (got,) = session.run(None, {"x": x})
        (want,) = reference.run(None, {"x": x})
        assert_same_bytes(got, want)
    with pytest.raises(Exception, match="no input named 'y'"):
        qlower.Session(path, input_shapes={"y": [1, 3]})


def test_runs_in_threads_release_the_gil():
    path = REPO / "test/Transforms/Inputs/qdq_cnn.onnx"
    session = qlower.Session(path, threads=1)
    feeds = {"x": np.load(REPO / "test/Transforms/Inputs/qdq_cnn_x.npy")}
    (want,) = session.run(None, feeds)
    results = []
    threads = [threading.Thread(target=lambda: results.append(session.run(None, feeds)[0]))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for got in results:
        assert_same_bytes(got, want)


def float_mlp():
    rng = np.random.default_rng(11)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])
    inits = [numpy_helper.from_array(rng.normal(0, 0.3, [16, 8]).astype(np.float32), "w"),
             numpy_helper.from_array(rng.normal(0, 0.1, [8]).astype(np.float32), "b")]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
             helper.make_node("Add", ["h", "b"], ["a"], name="add"),
             helper.make_node("Relu", ["a"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "mlp", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


@pytest.mark.parametrize("mode", ["dynamic", "static"])
def test_quantize_equals_the_command_line(mode, tmp_path):
    model_path = tmp_path / "mlp.onnx"
    onnx.save(float_mlp(), model_path)
    flags, kwargs = ["--per-channel"], {"per_channel": True}
    if mode == "static":
        samples = tmp_path / "calibration"
        samples.mkdir()
        rng = np.random.default_rng(5)
        for i in range(4):
            np.savez(samples / f"s{i}.npz", x=rng.uniform(-1, 1, [2, 16]).astype(np.float32))
        flags += ["--calibration", samples]
        kwargs["calibration"] = samples
    cli("quantize", model_path, "-o", tmp_path / "cli.onnx", "--mode", mode, *flags)
    want = (tmp_path / "cli.onnx").read_bytes()

    assert qlower.quantize(model_path, mode=mode, **kwargs) == want
    assert qlower.quantize(onnx.load(str(model_path)), tmp_path / "py.onnx", mode=mode,
                           **kwargs) is None
    assert (tmp_path / "py.onnx").read_bytes() == want
    # The quantized model runs.
    (y,) = qlower.Session(want).run(None, {"x": np.ones([2, 16], np.float32)})
    assert y.shape == (2, 8)


def test_quantize_reduce_range_and_quant_format_equal_the_command_line(tmp_path):
    """ORT's keyword names: `reduce_range=True` keeps int8 weights in [-64, 64];
    `quant_format="QOperator"` (any case, as ORT's QuantFormat.QOperator) writes
    QLinearMatMul in place of the MatMul's Q/DQ pairs."""
    model_path = tmp_path / "mlp.onnx"
    onnx.save(float_mlp(), model_path)
    samples = tmp_path / "calibration"
    samples.mkdir()
    rng = np.random.default_rng(5)
    for i in range(4):
        np.savez(samples / f"s{i}.npz", x=rng.uniform(-1, 1, [2, 16]).astype(np.float32))
    cli("quantize", model_path, "-o", tmp_path / "cli.onnx", "--mode", "static",
        "--calibration", samples, "--per-channel", "--reduce-range", "--format", "qoperator")
    want = (tmp_path / "cli.onnx").read_bytes()
    got = qlower.quantize(model_path, mode="static", calibration=samples, per_channel=True,
                          reduce_range=True, quant_format="QOperator")
    assert got == want
    m = onnx.load_from_string(got)
    assert "QLinearMatMul" in [n.op_type for n in m.graph.node]
    assert "MatMul" not in [n.op_type for n in m.graph.node]
    codes = [numpy_helper.to_array(t) for t in m.graph.initializer if t.data_type == TensorProto.INT8]
    assert codes and all(c.min() >= -64 and c.max() <= 64 for c in codes)
    (y,) = qlower.Session(got).run(None, {"x": np.ones([2, 16], np.float32)})
    assert y.shape == (2, 8)
    with pytest.raises(ValueError, match="quant_format must be one of 'qdq', 'qoperator'"):
        qlower.quantize(model_path, mode="dynamic", quant_format="QNative")


def normed_mlp():
    """LayerNormalization → MatMul → Add of a bias, with two outlier channels: what
    smooth_quant folds into the normalization and bias_correction corrects."""
    rng = np.random.default_rng(12)
    gamma = np.ones(16, np.float32)
    gamma[[2, 9]] = 20.0
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])
    inits = [numpy_helper.from_array(gamma, "gamma"),
             numpy_helper.from_array(np.zeros(16, np.float32), "beta"),
             numpy_helper.from_array(rng.normal(0, 0.3, [16, 8]).astype(np.float32), "w"),
             numpy_helper.from_array(rng.normal(0, 0.1, [8]).astype(np.float32), "b")]
    nodes = [helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["n"], name="ln"),
             helper.make_node("MatMul", ["n", "w"], ["h"], name="mm"),
             helper.make_node("Add", ["h", "b"], ["y"], name="add")]
    graph = helper.make_graph(nodes, "normed", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


def test_quantize_smooth_quant_and_bias_correction_equal_the_command_line(tmp_path):
    """`smooth_quant=True` (ORT's SmoothQuant) folds 1/s into the LayerNormalization's
    scale; `save_smoothed` writes the float model that computes the same; with
    `bias_correction=True` the bias Added after the MatMul changes."""
    model_path = tmp_path / "normed.onnx"
    onnx.save(normed_mlp(), model_path)
    samples = tmp_path / "calibration"
    samples.mkdir()
    rng = np.random.default_rng(6)
    for i in range(4):
        np.savez(samples / f"s{i}.npz", x=rng.normal(0, 1, [2, 16]).astype(np.float32))
    common = ["--mode", "static", "--calibration", samples, "--per-channel"]
    cli("quantize", model_path, "-o", tmp_path / "cli.onnx", *common, "--smooth-quant",
        "--smooth-quant-alpha", "0.5", "--bias-correction")
    want = (tmp_path / "cli.onnx").read_bytes()
    got = qlower.quantize(model_path, mode="static", calibration=samples, per_channel=True,
                          smooth_quant=True, smooth_quant_alpha=0.5, bias_correction=True,
                          save_smoothed=tmp_path / "smoothed.onnx")
    assert got == want
    smoothed = onnx.load(str(tmp_path / "smoothed.onnx"))
    gamma = {t.name: numpy_helper.to_array(t) for t in smoothed.graph.initializer}["gamma"]
    assert gamma[2] < 20.0 and "Mul" not in [n.op_type for n in smoothed.graph.node]
    feeds = {"x": rng.normal(0, 1, [2, 16]).astype(np.float32)}
    (a,) = qlower.Session(str(model_path)).run(None, feeds)
    (b,) = qlower.Session(smoothed).run(None, feeds)
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)
    plain = qlower.quantize(model_path, mode="static", calibration=samples, per_channel=True,
                            smooth_quant=True, smooth_quant_alpha=0.5, bias_correction=False)
    bias = lambda m: {t.name: numpy_helper.to_array(t)  # noqa: E731
                      for t in onnx.load_from_string(m).graph.initializer}["b"]
    assert not np.array_equal(bias(plain), bias(got))
    # The three-way setting: a name as on the command line, the default `auto`.
    off = qlower.quantize(model_path, mode="static", calibration=samples, per_channel=True,
                          smooth_quant=True, smooth_quant_alpha=0.5, bias_correction="off")
    assert off == plain
    cli("quantize", model_path, "-o", tmp_path / "auto.onnx", *common, "--smooth-quant",
        "--smooth-quant-alpha", "0.5")
    auto = qlower.quantize(model_path, mode="static", calibration=samples, per_channel=True,
                           smooth_quant=True, smooth_quant_alpha=0.5)
    assert auto == (tmp_path / "auto.onnx").read_bytes()
    with pytest.raises(ValueError, match="bias_correction must be one of"):
        qlower.quantize(model_path, mode="static", calibration=samples, bias_correction="yes")
    with pytest.raises(Exception, match="smooth-quant needs --mode static"):
        qlower.quantize(model_path, mode="dynamic", smooth_quant=True)


def test_quantize_per_channel_converts_an_old_opset_and_warns(tmp_path):
    """An opset-11 model: per-channel weights need opset 13, so the model is converted, as
    the command line does, and a UserWarning says what the command line says on stderr."""
    model = float_mlp()
    model.opset_import[0].version = 11
    model.ir_version = 6
    model_path = tmp_path / "mlp11.onnx"
    onnx.save(model, model_path)
    done = cli("quantize", model_path, "-o", tmp_path / "cli.onnx", "--mode", "dynamic",
               "--per-channel")
    assert "raised the default opset 11 → 13" in done.stderr
    with pytest.warns(UserWarning, match="raised the default opset 11 → 13"):
        got = qlower.quantize(model_path, mode="dynamic", per_channel=True)
    assert got == (tmp_path / "cli.onnx").read_bytes()
    assert onnx.load_from_string(got).opset_import[0].version == 13


def test_quantize_refuses_what_the_command_line_refuses(tmp_path):
    model_path = tmp_path / "mlp.onnx"
    onnx.save(float_mlp(), model_path)
    message = cli_error("quantize", model_path, "-o", tmp_path / "q.onnx", "--mode", "static")
    with pytest.raises(qlower.QlowerError) as e:
        qlower.quantize(model_path, mode="static")
    assert str(e.value) == message
    with pytest.raises(ValueError, match="mode must be one of 'dynamic', 'static', 'weight-only'"):
        qlower.quantize(model_path, mode="fast")
    assert not (tmp_path / "q.onnx").exists()


@pytest.mark.parametrize("model,saved", RUN_MODELS[:2])
def test_iree_runs_the_compiled_text(model, saved):
    import iree.compiler
    import iree.runtime

    path = str(REPO / model)
    feeds = feeds_for(path, saved)
    session = qlower.Session(path)
    want = session.run(None, feeds)

    text = qlower.compile(path, target="iree")
    vmfb = iree.compiler.compile_str(text, input_type="torch", target_backends=["llvm-cpu"])
    config = iree.runtime.Config("local-task")
    context = iree.runtime.SystemContext(config=config)
    context.add_vm_module(iree.runtime.VmModule.copy_buffer(context.instance, vmfb))
    function = context.modules.module[onnx.load(path).graph.name]
    got = function(*[feeds[a.name] for a in session.get_inputs()])
    got = [got] if len(want) == 1 else list(got)

    step = one_step(path)
    for g, w in zip(got, want):
        g = np.asarray(g.to_host() if hasattr(g, "to_host") else g)
        assert g.shape == w.shape
        assert np.abs(g.astype(np.float64) - w.astype(np.float64)).max() <= step * (1 + 1e-3)


def test_the_readme_example_runs_as_written():
    """The README's Python section: its example, run from the repository root."""
    import re
    import sys

    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("\n## Python\n"):]
    example = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    done = subprocess.run([sys.executable, "-c", example], cwd=REPO, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "[NodeArg(name='input', type='tensor(float)', shape=[1, 3, 32, 32])]",
        "True",
    ]


def test_a_printed_mlir_file_runs_as_its_model(tmp_path):
    path = REPO / "test/Transforms/Inputs/qdq_cnn.onnx"
    feeds = {"x": np.load(REPO / "test/Transforms/Inputs/qdq_cnn_x.npy")}
    (want,) = qlower.Session(path).run(None, feeds)
    for emit in ("torch", "backend"):
        mlir = tmp_path / f"{emit}.mlir"
        mlir.write_text(qlower.compile(path, emit=emit))
        (got,) = qlower.Session(mlir).run(None, feeds)
        assert_same_bytes(got, want)


def test_the_package_ships_type_stubs():
    import importlib.util

    origin = pathlib.Path(importlib.util.find_spec("qlower").origin)
    assert (origin.parent / "py.typed").exists(), origin
    assert (origin.parent / "__init__.pyi").exists(), origin
