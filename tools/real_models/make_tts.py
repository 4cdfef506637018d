#!/usr/bin/env python3
"""A small Kokoro-class text-to-speech model built from ONNX ops, for the real-model test.

    make_tts.py OUT.onnx [--dynamic OUT_DYNAMIC.onnx]

Kokoro-82M (StyleTTS2 with an iSTFTNet vocoder) is a deployed TTS model that ships in int8;
no PyPI package ships such a model inside its wheel (kokoro-onnx and piper-tts download
theirs at run time), so this builds one with onnx.helper and fixed random weights (seed 0)
that keeps the op mix of the exported model, all at a run-time sequence length:
- token embedding (Gather), and a text encoder of Conv1d + LayerNormalization over the
  channels + LeakyReLU(0.2), then a bidirectional LSTM;
- a prosody predictor: a bidirectional LSTM over the text features and the prosody half of
  the style vector, the duration head (Sigmoid over duration bins, summed, Round, Clip at
  1, Cast to int64);
- length regulation as Kokoro exports it: CumSum of the durations, Range over the frames,
  an alignment mask [seq, frames] from GreaterOrEqual/Less/And, and a MatMul that expands
  every token to its frames;
- AdaIN (InstanceNormalization, then (1 + gamma) * x + beta with gamma and beta a Gemm of
  the style vector) in the F0/energy blocks and in the decoder; an F0 block upsamples by 2
  (a linear rank-3 Resize on the shortcut, a depthwise ConvTranspose1d on the main path),
  the decoder's F0 input comes back down with a stride-2 Conv1d;
- the harmonic source as iSTFTNet's SineGen makes it: F0 upsampled by a nearest rank-3
  Resize, down again by a linear one (scale 1/16), CumSum of the phase increments, a
  linear Resize up, Sin; strided Conv1d "noise convs" add it into each upsampling stage;
- the generator: LeakyReLU(0.1), ConvTranspose1d upsampling, residual blocks of AdaIN,
  Snake (x + sin²(αx)/α) and dilated Conv1d;
- the iSTFT head: Conv1d to magnitude and phase, Exp, Sin, Cos, and a ConvTranspose1d with
  the windowed inverse-DFT basis as overlap-add, trimmed by half a window at each end.

Inputs: `input_ids` int64 [1, seq] (vocabulary 64) and `style` float32 [1, 128] (its first
half conditions the decoder, its second half the prosody, as Kokoro's reference style
does). Output: `audio` float32 [1, samples], samples = 128 * (the sum of the durations) - 4,
every duration an integer in [1, 6] that the model predicts.

`--dynamic` also writes the model quantized by ONNX Runtime's `quantize_dynamic` (int8
weights); the real-model harness makes that form itself from OUT.onnx.
"""

import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB = 64
CHANNELS = 64          # text encoder, prosody predictor and decoder width
STYLE = 64             # each half of the style vector
DURATION_BINS = 6
UPSAMPLES = [(4, 32), (4, 16)]   # (stride, out channels) of the generator's ConvTranspose1d
N_FFT, HOP = 16, 4
SAMPLE_RATE = 24000
OPSET = 17


class Builder:
    """Collects nodes and initializers; every name it makes is unique."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, value, hint="c"):
        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(self, shape, std, hint):
        return self.const(self.rng.normal(0.0, std, shape).astype(np.float32), hint)

    def ints(self, *values):
        return self.const(np.array(values, np.int64))

    def op(self, op_type, inputs, hint=None, **attrs):
        out = self.name(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def ops(self, op_type, inputs, count, hint, **attrs):
        outs = [self.name(f"{hint}{i}") for i in range(count)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=outs[0], **attrs))
        return outs


def conv1d(b, x, c_in, c_out, kernel, hint, stride=1, dilation=1, groups=1, std=None, pad=None):
    if pad is None:
        pad = dilation * (kernel - 1) // 2
    std = std or (c_in // groups * kernel) ** -0.5
    w = b.weight([c_out, c_in // groups, kernel], std, f"{hint}_w")
    bias = b.weight([c_out], 0.02, f"{hint}_b")
    return b.op("Conv", [x, w, bias], hint, kernel_shape=[kernel], strides=[stride], pads=[pad, pad],
                dilations=[dilation], group=groups)


def conv_transpose1d(b, x, c_in, c_out, kernel, stride, hint, groups=1, output_padding=0):
    pad = (kernel - stride + output_padding) // 2
    w = b.weight([c_in, c_out // groups, kernel], (c_in // groups * kernel / stride) ** -0.5, f"{hint}_w")
    bias = b.weight([c_out], 0.02, f"{hint}_b")
    return b.op("ConvTranspose", [x, w, bias], hint, kernel_shape=[kernel], strides=[stride], pads=[pad, pad],
                output_padding=[output_padding], group=groups)


def channel_layer_norm(b, x, channels, hint):
    # StyleTTS2's LayerNorm over the channels of [1, C, T]: transposed to put them last.
    t = b.op("Transpose", [x], perm=[0, 2, 1])
    gamma = b.const(b.rng.uniform(0.8, 1.2, [channels]).astype(np.float32), f"{hint}_gamma")
    beta = b.weight([channels], 0.05, f"{hint}_beta")
    t = b.op("LayerNormalization", [t, gamma, beta], hint, axis=-1, epsilon=1e-5)
    return b.op("Transpose", [t], perm=[0, 2, 1])


def bilstm(b, x, c_in, hidden, hint):
    """Bidirectional LSTM over the time axis of [1, C, T] -> [1, 2 * hidden, T], in the
    Transpose/Reshape pattern torch exports around ONNX's LSTM."""
    seq_first = b.op("Transpose", [x], perm=[2, 0, 1])  # [T, 1, C]
    std = hidden ** -0.5
    w = b.weight([2, 4 * hidden, c_in], std, f"{hint}_W")
    r = b.weight([2, 4 * hidden, hidden], std, f"{hint}_R")
    bias = b.weight([2, 8 * hidden], 0.05, f"{hint}_B")
    y = b.ops("LSTM", [seq_first, w, r, bias], 1, hint, direction="bidirectional", hidden_size=hidden)[0]
    y = b.op("Transpose", [y], perm=[0, 2, 1, 3])  # [T, 1, 2, hidden]
    y = b.op("Reshape", [y, b.ints(0, 0, -1)])     # [T, 1, 2 * hidden]
    return b.op("Transpose", [y], perm=[1, 2, 0])


def style_affine(b, style, channels, hint):
    """gamma and beta [1, C, 1] of AdaIN: one Gemm of the style vector, split in two."""
    w = b.weight([STYLE, 2 * channels], 0.1 * STYLE ** -0.5, f"{hint}_fc_w")
    bias = b.const(np.zeros([2 * channels], np.float32), f"{hint}_fc_b")
    h = b.op("Unsqueeze", [b.op("Gemm", [style, w, bias]), b.ints(2)])
    return b.ops("Split", [h, b.ints(channels, channels)], 2, f"{hint}_gb", axis=1)


def adain(b, x, style, channels, hint):
    norm = b.op("InstanceNormalization", [x, b.const(np.ones([channels], np.float32)),
                                          b.const(np.zeros([channels], np.float32))], epsilon=1e-5)
    gamma, beta = style_affine(b, style, channels, hint)
    scale = b.op("Add", [gamma, b.const(np.float32(1.0))])
    return b.op("Add", [b.op("Mul", [norm, scale]), beta], hint)


def snake(b, x, channels, hint):
    alpha = b.const(b.rng.uniform(0.5, 1.5, [1, channels, 1]).astype(np.float32), f"{hint}_alpha")
    wave = b.op("Pow", [b.op("Sin", [b.op("Mul", [x, alpha])]), b.const(np.float32(2.0))])
    return b.op("Add", [x, b.op("Mul", [b.op("Reciprocal", [alpha]), wave])], hint)


def adain_res_block(b, x, style, c_in, c_out, hint, upsample=False):
    """StyleTTS2's AdainResBlk1d: two AdaIN/LeakyReLU/Conv1d steps beside a shortcut, the
    sum scaled by 1/sqrt(2). Upsampling doubles the time axis: a linear Resize on the
    shortcut, a depthwise ConvTranspose1d on the main path."""
    shortcut = x
    if upsample:
        shortcut = b.op("Resize", [x, "", b.const(np.array([1.0, 1.0, 2.0], np.float32))], f"{hint}_up",
                        mode="linear", coordinate_transformation_mode="half_pixel")
    if c_in != c_out:
        w = b.weight([c_out, c_in, 1], c_in ** -0.5, f"{hint}_sc_w")
        shortcut = b.op("Conv", [shortcut, w], kernel_shape=[1])
    h = b.op("LeakyRelu", [adain(b, x, style, c_in, f"{hint}_norm1")], alpha=0.2)
    if upsample:
        h = conv_transpose1d(b, h, c_in, c_in, 3, 2, f"{hint}_pool", groups=c_in, output_padding=1)
    h = conv1d(b, h, c_in, c_out, 3, f"{hint}_conv1")
    h = b.op("LeakyRelu", [adain(b, h, style, c_out, f"{hint}_norm2")], alpha=0.2)
    h = conv1d(b, h, c_out, c_out, 3, f"{hint}_conv2")
    return b.op("Mul", [b.op("Add", [h, shortcut]), b.const(np.float32(2 ** -0.5))], hint)


def snake_res_block(b, x, style, channels, hint):
    """iSTFTNet's AdaINResBlock1 with Snake: dilations 1, 3, 5, each step residual."""
    for i, dilation in enumerate((1, 3, 5)):
        h = snake(b, adain(b, x, style, channels, f"{hint}_n{i}a"), channels, f"{hint}_s{i}a")
        h = conv1d(b, h, channels, channels, 3, f"{hint}_c{i}a", dilation=dilation)
        h = snake(b, adain(b, h, style, channels, f"{hint}_n{i}b"), channels, f"{hint}_s{i}b")
        h = conv1d(b, h, channels, channels, 3, f"{hint}_c{i}b")
        x = b.op("Add", [x, h])
    return x


def text_encoder(b):
    x = b.op("Gather", [b.weight([VOCAB, CHANNELS], 1.0, "embedding"), "input_ids"], "embedded")
    x = b.op("Transpose", [x], perm=[0, 2, 1])  # [1, C, seq]
    for i in range(2):
        x = conv1d(b, x, CHANNELS, CHANNELS, 5, f"text_cnn{i}")
        x = b.op("LeakyRelu", [channel_layer_norm(b, x, CHANNELS, f"text_ln{i}")], alpha=0.2)
    return bilstm(b, x, CHANNELS, CHANNELS // 2, "text_lstm")


def with_style(b, x, style):
    """[1, C, T] with the style vector broadcast along T appended to its channels."""
    length = b.op("Slice", [b.op("Shape", [x]), b.ints(2), b.ints(3)])
    shape = b.op("Concat", [b.ints(1, STYLE), length], axis=0)
    expanded = b.op("Expand", [b.op("Unsqueeze", [style, b.ints(2)]), shape])
    return b.op("Concat", [x, expanded], axis=1)


def durations(b, text, prosody_style):
    h = bilstm(b, with_style(b, text, prosody_style), CHANNELS + STYLE, CHANNELS // 2, "duration_lstm")
    h = b.op("Transpose", [h], perm=[0, 2, 1])  # [1, seq, C]
    logits = b.op("Add", [b.op("MatMul", [h, b.weight([CHANNELS, DURATION_BINS], CHANNELS ** -0.5, "dur_w")]),
                          b.weight([DURATION_BINS], 0.5, "dur_b")])
    total = b.op("ReduceSum", [b.op("Sigmoid", [logits]), b.ints(-1)], keepdims=0)  # [1, seq]
    rounded = b.op("Clip", [b.op("Round", [total]), b.const(np.float32(1.0))])
    return b.op("Cast", [rounded], "durations", to=TensorProto.INT64)


def alignment(b, dur):
    """[seq, frames] float: 1 where frame t belongs to token i, i.e. start_i <= t < end_i."""
    ends = b.op("Squeeze", [b.op("CumSum", [dur, b.const(np.int64(1))]), b.ints(0)], "token_ends")  # [seq]
    starts = b.op("Sub", [ends, b.op("Squeeze", [dur, b.ints(0)])])
    frames = b.op("ReduceMax", [ends], keepdims=0)
    t = b.op("Unsqueeze", [b.op("Range", [b.const(np.int64(0)), frames, b.const(np.int64(1))]), b.ints(0)])
    inside = b.op("And", [b.op("GreaterOrEqual", [t, b.op("Unsqueeze", [starts, b.ints(1)])]),
                          b.op("Less", [t, b.op("Unsqueeze", [ends, b.ints(1)])])])
    return b.op("Cast", [inside], "alignment", to=TensorProto.FLOAT)


def prosody(b, aligned, prosody_style, hint):
    """F0 or energy curve [1, 1, 2 * frames] from the aligned features."""
    h = adain_res_block(b, aligned, prosody_style, CHANNELS, CHANNELS, f"{hint}0")
    h = adain_res_block(b, h, prosody_style, CHANNELS, CHANNELS // 2, f"{hint}1", upsample=True)
    return conv1d(b, h, CHANNELS // 2, 1, 1, f"{hint}_proj")


def istft_basis():
    """ConvTranspose1d weight [2 * bins, 1, N_FFT]: real and imaginary rows of the inverse
    real DFT times a periodic Hann window, divided by the overlap-added squared window
    (constant, 1.5, for a Hann window with hop N_FFT / 4)."""
    bins = N_FFT // 2 + 1
    n = np.arange(N_FFT)
    window = 0.5 - 0.5 * np.cos(2 * np.pi * n / N_FFT)
    k = np.arange(bins)[:, None]
    weight = np.where((k == 0) | (k == N_FFT // 2), 1.0, 2.0) / N_FFT
    real = weight * np.cos(2 * np.pi * k * n / N_FFT) * window
    imag = -weight * np.sin(2 * np.pi * k * n / N_FFT) * window
    envelope = np.sum(window ** 2) / HOP
    return (np.concatenate([real, imag])[:, None, :] / envelope).astype(np.float32)


def generator(b, x, f0, style):
    # The harmonic source at the rate of the last stage, as iSTFTNet's SineGen makes it: F0
    # in Hz (100 to 400) upsampled to that rate (nearest), in cycles per sample there;
    # brought back down by a linear Resize, its phase accumulated (CumSum) at the frame
    # rate, scaled and linearly upsampled again, then a sine of it.
    rate = float(np.prod([s for s, _ in UPSAMPLES]))
    hz = b.op("Add", [b.op("Mul", [b.op("Sigmoid", [f0]), b.const(np.float32(300.0))]), b.const(np.float32(100.0))])
    hz = b.op("Resize", [hz, "", b.const(np.array([1.0, 1.0, rate], np.float32))], "f0_up",
              mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    cycles = b.op("Mul", [hz, b.const(np.float32(HOP / SAMPLE_RATE))])
    cycles = b.op("Resize", [cycles, "", b.const(np.array([1.0, 1.0, 1.0 / rate], np.float32))], "f0_down",
                  mode="linear", coordinate_transformation_mode="half_pixel")
    phase = b.op("CumSum", [b.op("Mul", [cycles, b.const(np.float32(2 * np.pi))]), b.const(np.int64(2))])
    phase = b.op("Resize", [b.op("Mul", [phase, b.const(np.float32(rate))]), "",
                            b.const(np.array([1.0, 1.0, rate], np.float32))], "phase_up",
                 mode="linear", coordinate_transformation_mode="half_pixel")
    source = b.op("Mul", [b.op("Sin", [phase]), b.const(np.float32(0.1))], "harmonic_source")

    channels = CHANNELS
    for i, (stride, out) in enumerate(UPSAMPLES):
        x = b.op("LeakyRelu", [x], alpha=0.1)
        x = conv_transpose1d(b, x, channels, out, 2 * stride, stride, f"ups{i}")
        # The source brought to this stage's rate by a strided Conv1d.
        rest = int(np.prod([s for s, _ in UPSAMPLES[i + 1:]]))
        noise = (conv1d(b, source, 1, out, 2 * rest, f"noise{i}", stride=rest, pad=(rest + 1) // 2) if rest > 1
                 else conv1d(b, source, 1, out, 1, f"noise{i}"))
        x = b.op("Add", [x, noise])
        x = snake_res_block(b, x, style, out, f"res{i}")
        channels = out

    bins = N_FFT // 2 + 1
    x = b.op("LeakyRelu", [x], alpha=0.01)
    x = conv1d(b, x, channels, 2 * bins, 7, "conv_post", std=0.3 * (channels * 7) ** -0.5)
    log_mag, angle = b.ops("Split", [x, b.ints(bins, bins)], 2, "spec", axis=1)
    magnitude = b.op("Exp", [log_mag], "magnitude")
    phase = b.op("Sin", [angle], "phase")
    spec = b.op("Concat", [b.op("Mul", [magnitude, b.op("Cos", [phase])]),
                           b.op("Mul", [magnitude, b.op("Sin", [phase])])], "spectrum", axis=1)
    wave = b.op("ConvTranspose", [spec, b.const(istft_basis(), "istft_basis")], "overlap_add",
                kernel_shape=[N_FFT], strides=[HOP])
    # center=True framing: half a window of padding at each end is cut off.
    wave = b.op("Slice", [wave, b.ints(N_FFT // 2), b.ints(-(N_FFT // 2)), b.ints(2)])
    return b.op("Squeeze", [wave, b.ints(1)])


def build(seed=0):
    b = Builder(seed)
    decoder_style = b.op("Slice", ["style", b.ints(0), b.ints(STYLE), b.ints(1)], "decoder_style")
    prosody_style = b.op("Slice", ["style", b.ints(STYLE), b.ints(2 * STYLE), b.ints(1)], "prosody_style")

    text = text_encoder(b)                                           # [1, C, seq]
    align = alignment(b, durations(b, text, prosody_style))          # [seq, frames]
    aligned_text = b.op("MatMul", [text, align], "aligned_text")     # [1, C, frames]

    shared = bilstm(b, with_style(b, aligned_text, prosody_style), CHANNELS + STYLE, CHANNELS // 2, "shared_lstm")
    f0 = prosody(b, shared, prosody_style, "f0")                     # [1, 1, 2 * frames]
    energy = prosody(b, shared, prosody_style, "energy")

    # Decoder: F0 and energy back at the frame rate, beside the aligned text features.
    f0_frames = conv1d(b, f0, 1, 1, 3, "f0_conv", stride=2, pad=1)
    energy_frames = conv1d(b, energy, 1, 1, 3, "energy_conv", stride=2, pad=1)
    x = b.op("Concat", [aligned_text, f0_frames, energy_frames], axis=1)
    x = adain_res_block(b, x, decoder_style, CHANNELS + 2, CHANNELS, "encode")
    x = adain_res_block(b, x, decoder_style, CHANNELS, CHANNELS, "decode", upsample=True)  # [1, C, 2 * frames]
    audio = generator(b, x, f0, decoder_style)
    b.nodes.append(helper.make_node("Identity", [audio], ["audio"], name="output"))

    graph = helper.make_graph(
        b.nodes, "kokoro_style_tts",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "seq"]),
         helper.make_tensor_value_info("style", TensorProto.FLOAT, [1, 2 * STYLE])],
        [helper.make_tensor_value_info("audio", TensorProto.FLOAT, [1, "samples"])],
        b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="qlower tools/real_models/make_tts.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--dynamic", help="also write the model quantized by quantize_dynamic here")
    args = parser.parse_args()
    onnx.save(build(), args.out)
    if args.dynamic:
        from onnxruntime.quantization import QuantType, quantize_dynamic
        quantize_dynamic(args.out, args.dynamic, weight_type=QuantType.QInt8)


if __name__ == "__main__":
    main()
