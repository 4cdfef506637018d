//! The fast convolution against the reference kernel, on every instruction set this
//! CPU has: the same bytes, over shapes chosen to reach every branch (tails of rows
//! and panels, padding, strides, dilations, groups, depthwise, 1-D to 3-D, each mix of
//! signedness, per-channel zero points, with and without bias).

use crate::kernels::isa::Isa;
use crate::kernels::linalg::qconv::{ConvWeights, run_on, run_without_permutes};
use crate::kernels::quantized::qlinear::reference_conv;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::tensor_type::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Tensor};
use crate::kernels::testing::{test_bytes, test_data as data};
use crate::kernels::{Call, ResultType};

struct Case {
    x_shape: Vec<usize>,
    w_shape: Vec<usize>,
    groups: usize,
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    pads: Option<Vec<i64>>,
    x_signed: bool,
    w_signed: bool,
    y_signed: bool,
    per_channel: bool,
    bias: bool,
    /// Weight zero points of 0 (128 for unsigned weights): the taps fit in a signed
    /// byte, as in symmetric quantization, which the byte depthwise kernel needs.
    symmetric: bool,
}

fn zero_point(seed: u64, signed: bool) -> i64 {
    let v = test_bytes(seed, 1)[0] as i64;
    if signed { v - 128 } else { v }
}

fn args(case: &Case, seed: u64) -> (Vec<Value>, ResultType) {
    let t = |shape: &[usize], d: Data| Value::tensor(Tensor::new(shape.to_vec(), d).unwrap());
    let c_out = case.w_shape[0];
    let x_n = case.x_shape.iter().product();
    let w_n = case.w_shape.iter().product();
    let channels = if case.per_channel { c_out } else { 1 };
    let w_scales: Vec<f32> = test_bytes(seed + 3, channels)
        .iter()
        .map(|&b| 0.001 + b as f32 * 1e-4)
        .collect();
    let w_zeros: Vec<i64> = (0..channels as u64)
        .map(|i| match (case.symmetric, case.w_signed) {
            (true, true) => 0,
            (true, false) => 128,
            (false, _) => zero_point(seed + 10 + i, case.w_signed),
        })
        .collect();
    let (w_scale, w_zero) = if case.per_channel {
        (
            t(&[c_out], Data::F32(w_scales)),
            t(&[c_out], Data::I64(w_zeros)),
        )
    } else {
        (Value::Float(w_scales[0] as f64), Value::Int(w_zeros[0]))
    };
    let bias = if case.bias {
        let b: Vec<i32> = test_bytes(seed + 5, c_out * 2)
            .chunks(2)
            .map(|p| (p[0] as i32 - 128) * 97 + p[1] as i32)
            .collect();
        t(&[c_out], Data::I32(b))
    } else {
        Value::None
    };
    let args = vec![
        t(&case.x_shape, data(seed, x_n, case.x_signed)),
        Value::Float(0.02),
        Value::Int(zero_point(seed + 1, case.x_signed)),
        t(&case.w_shape, data(seed + 2, w_n, case.w_signed)),
        w_scale,
        w_zero,
        bias,
        Value::None,
        Value::IntList(case.stride.clone()),
        Value::IntList(case.padding.clone()),
        Value::IntList(case.dilation.clone()),
        Value::Int(case.groups as i64),
        case.pads.clone().map_or(Value::None, Value::IntList),
        Value::Float(0.07 + (seed % 5) as f64 * 0.01),
        Value::Int(zero_point(seed + 4, case.y_signed)),
    ];
    let dtype = if case.y_signed {
        DType::QInt8
    } else {
        DType::QUInt8
    };
    let ty = ResultType::Tensor(TensorType {
        dtype: Some(dtype),
        shape: None,
    });
    (args, ty)
}

fn check(case: &Case, seed: u64) {
    let (args, ty) = args(case, seed);
    let results = [ty];
    let call = Call {
        args: &args,
        results: &results,
    };
    let want = reference_conv(&call).unwrap();
    // Both K orders where tap-major applies.
    for channels_last in [false, true] {
        let Some(w) = ConvWeights::with_layout(
            args[3].as_tensor().unwrap(),
            &args[4],
            &args[5],
            &args[11],
            channels_last,
        ) else {
            assert!(channels_last, "the fast path takes 8-bit weights");
            continue;
        };
        for isa in Isa::all_available() {
            let got = run_on(isa, &call, &w)
                .unwrap()
                .expect("the fast path takes this case");
            assert_eq!(
                got, want,
                "{isa:?}, channels last {channels_last}, seed {seed}"
            );
            let got = run_without_permutes(isa, &call, &w)
                .unwrap()
                .expect("the same");
            assert_eq!(got, want, "{isa:?} without byte permutes, seed {seed}");
        }
    }
}

fn case(x_shape: &[usize], w_shape: &[usize], groups: usize) -> Case {
    let n = x_shape.len() - 2;
    Case {
        x_shape: x_shape.to_vec(),
        w_shape: w_shape.to_vec(),
        groups,
        stride: vec![1; n],
        padding: vec![0; n],
        dilation: vec![1; n],
        pads: None,
        x_signed: false,
        w_signed: true,
        y_signed: false,
        per_channel: true,
        bias: true,
        symmetric: false,
    }
}

#[test]
fn dense_2d_with_tails_padding_and_strides() {
    let mut seed = 0;
    for (c_in, c_out, k, stride, pad) in [
        (3, 64, 7, 2, 3),
        (5, 9, 3, 1, 1),
        (16, 17, 3, 2, 0),
        (1, 1, 1, 1, 0),
        (7, 13, 2, 3, 2),
    ] {
        let mut c = case(&[1, c_in, 11, 9], &[c_out, c_in, k, k], 1);
        c.stride = vec![stride; 2];
        c.padding = vec![pad; 2];
        seed += 1;
        check(&c, seed);
    }
}

#[test]
fn every_signedness_mix_and_per_tensor_parameters() {
    let mut seed = 100;
    for x_signed in [false, true] {
        for w_signed in [false, true] {
            for y_signed in [false, true] {
                for per_channel in [false, true] {
                    let mut c = case(&[2, 4, 6, 7], &[10, 4, 3, 3], 1);
                    (c.x_signed, c.w_signed, c.y_signed) = (x_signed, w_signed, y_signed);
                    c.per_channel = per_channel;
                    c.bias = !per_channel;
                    c.padding = vec![1, 1];
                    seed += 1;
                    check(&c, seed);
                }
            }
        }
    }
}

#[test]
fn dilated_asymmetric_1d_and_3d() {
    let mut c = case(&[1, 3, 10, 12], &[5, 3, 3, 2], 1);
    c.dilation = vec![2, 3];
    c.pads = Some(vec![1, 0, 0, 2]);
    check(&c, 200);
    let mut c = case(&[2, 3, 40], &[6, 3, 5], 1);
    c.stride = vec![3];
    c.padding = vec![2];
    check(&c, 201);
    let mut c = case(&[1, 2, 5, 6, 7], &[4, 2, 2, 3, 2], 1);
    c.stride = vec![1, 2, 1];
    c.padding = vec![1, 0, 1];
    c.dilation = vec![2, 1, 1];
    check(&c, 202);
}

#[test]
fn channels_last_batches_groups_and_long_planes() {
    // Tap-major weights (4 channels a group): two batches and two groups, over planes
    // of 4,900 positions, which the copy splits into tasks that end mid-plane.
    let mut c = case(&[2, 8, 70, 70], &[6, 4, 3, 3], 2);
    c.stride = vec![2, 2];
    c.padding = vec![1, 1];
    check(&c, 350);
    // 1-D and 3-D, dilated, 20 channels (five words).
    let mut c = case(&[1, 20, 30], &[7, 20, 3], 1);
    c.dilation = vec![2];
    c.padding = vec![3];
    check(&c, 351);
    let mut c = case(&[1, 20, 4, 5, 6], &[5, 20, 2, 3, 3], 1);
    c.pads = None;
    c.padding = vec![1, 0, 2];
    check(&c, 352);
}

#[test]
fn grouped_and_depthwise() {
    let c = case(&[1, 6, 9, 9], &[9, 2, 3, 3], 3);
    check(&c, 300);
    for (stride, dilation, pad) in [(1, 1, 1), (2, 1, 1), (1, 2, 2), (2, 2, 0)] {
        let mut c = case(&[2, 8, 13, 11], &[8, 1, 3, 3], 8);
        c.stride = vec![stride; 2];
        c.dilation = vec![dilation; 2];
        c.padding = vec![pad; 2];
        check(&c, 301 + stride as u64 * 10 + dilation as u64);
    }
    // Channel multiplier 2, asymmetric pads, signed input.
    let mut c = case(&[1, 4, 8, 10], &[8, 1, 3, 2], 4);
    c.pads = Some(vec![0, 1, 2, 0]);
    c.x_signed = true;
    check(&c, 330);
    let c = case(&[1, 3, 30], &[3, 1, 4], 3);
    check(&c, 331);
}

#[test]
fn large_accumulators_wrap_like_int32() {
    // K = 64·49 extreme products: sums far past 2^24, rounding the float multiply.
    let mut c = case(&[1, 64, 7, 7], &[3, 64, 7, 7], 1);
    c.w_signed = false;
    check(&c, 400);
}

#[test]
fn long_rows_take_the_chunked_copies() {
    // Runs of 17 to 110 pixels: whole 32-byte chunks, overlapping tails, short copies.
    for (width, stride, pad, seed) in [
        (100, 2, 3, 500),
        (221, 2, 1, 501),
        (70, 1, 1, 502),
        (40, 1, 0, 503),
    ] {
        let mut c = case(&[1, 3, 5, width], &[4, 3, 3, 7], 1);
        c.stride = vec![1, stride];
        c.padding = vec![1, pad];
        check(&c, seed);
    }
}

#[test]
fn stride_two_runs_of_every_length() {
    // Output widths 7 to 40 at stride 2: scalar runs, two overlapping 16-byte chunks,
    // and whole 32-byte chunks with a tail.
    for (width, seed) in [(14, 600), (33, 601), (47, 602), (62, 603), (81, 604)] {
        let mut c = case(&[1, 2, 4, width], &[3, 2, 1, 3], 1);
        c.stride = vec![2, 2];
        c.padding = vec![0, 1];
        check(&c, seed);
    }
}

#[test]
fn padding_and_dilation_past_the_budget_need_no_padded_copy() {
    // Output 1x1, but a padded plane of 200,001² positions: the depthwise and padded
    // layouts would need 40-80 GB, so the im2col runs read the input instead.
    // Four channels a group: the channels-last copy needs only the input's positions.
    for (c_in, w_in, groups) in [(1, 1, 1), (2, 2, 1), (2, 1, 2), (4, 4, 1), (8, 4, 2)] {
        let mut c = case(&[1, c_in, 1, 1], &[2, w_in, 3, 3], groups);
        c.padding = vec![100_000, 100_000];
        c.dilation = vec![100_000, 100_000];
        check(&c, 700 + c_in as u64 + groups as u64);
    }
}

#[test]
fn geometry_past_two_to_the_31_is_left_to_the_reference() {
    let mut c = case(&[1, 1, 2, 2], &[1, 1, 1, 1], 1);
    c.stride = vec![1 << 40, 1];
    c.padding = vec![1 << 40, 0];
    let (args, ty) = args(&c, 800);
    let results = [ty];
    let call = Call {
        args: &args,
        results: &results,
    };
    let w = ConvWeights::new(
        args[3].as_tensor().unwrap(),
        &args[4],
        &args[5],
        &args[11],
        None,
    )
    .unwrap();
    for isa in Isa::all_available() {
        assert!(run_on(isa, &call, &w).unwrap().is_none(), "{isa:?}");
    }
}

#[test]
fn few_pixels_and_many_channels_pack_each_block_once() {
    // Late-layer shapes: the channels are split between items, which share panels
    // packed ahead; batches and groups pick each block's place in them.
    for (seed, (x_shape, w_shape, groups, stride, pad)) in [
        (&[2, 8, 3, 3][..], &[40, 4, 3, 3][..], 2, 1, 1),
        (&[1, 16, 14, 14], &[24, 16, 3, 3], 1, 2, 1),
        (&[3, 32, 3, 3], &[48, 32, 1, 1], 1, 1, 0),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = case(x_shape, w_shape, groups);
        c.stride = vec![stride; 2];
        c.padding = vec![pad; 2];
        check(&c, 500 + seed as u64);
    }
}

#[test]
fn depthwise_with_byte_taps() {
    // Taps in a signed byte take the byte kernel where the CPU has it: strides 1 to 4,
    // dilations, 3x3, 5x5 and 7x7 (two quads per row, the second short), 1-D and 3-D,
    // widths around one and two chunks, both signednesses.
    let mut seed = 900;
    for (size, k, stride, dilation, pad) in [
        ([13, 11], [3, 3], 1, 1, 1),
        ([56, 56], [3, 3], 1, 1, 1),
        ([57, 33], [3, 3], 2, 1, 1),
        ([40, 70], [5, 5], 1, 1, 2),
        ([41, 95], [5, 5], 2, 1, 2),
        ([20, 31], [3, 3], 2, 2, 2),
        ([17, 66], [3, 3], 3, 1, 0),
        ([9, 7], [5, 5], 1, 3, 6),
        ([12, 21], [1, 7], 1, 1, 3),
        ([16, 64], [3, 3], 4, 4, 1),
        // Rows in blocks of four, and the rows past the last block.
        ([23, 45], [5, 5], 1, 1, 2),
        ([18, 37], [7, 7], 1, 1, 3),
        ([3, 40], [7, 7], 1, 1, 3),
    ] {
        for (x_signed, w_signed, y_signed) in [(false, true, false), (true, false, true)] {
            let mut c = case(&[2, 5, size[0], size[1]], &[5, 1, k[0], k[1]], 5);
            c.stride = vec![stride; 2];
            c.dilation = vec![dilation; 2];
            c.padding = vec![pad; 2];
            (c.x_signed, c.w_signed, c.y_signed) = (x_signed, w_signed, y_signed);
            c.symmetric = true;
            seed += 1;
            check(&c, seed);
        }
    }
    let mut c = case(&[1, 3, 50], &[6, 1, 5], 3);
    c.symmetric = true;
    c.pads = Some(vec![2, 1]);
    check(&c, 950);
    let mut c = case(&[1, 2, 5, 6, 37], &[2, 1, 3, 3, 3], 2);
    c.symmetric = true;
    c.stride = vec![1, 2, 2];
    c.padding = vec![1, 1, 1];
    check(&c, 951);
    // Per-tensor weights, no bias.
    let mut c = case(&[1, 4, 10, 40], &[4, 1, 3, 3], 4);
    (c.symmetric, c.per_channel, c.bias) = (true, false, false);
    check(&c, 952);
}

#[test]
fn pixel_rows_read_the_channels_last_input_in_place() {
    // Symmetric weights in one group with whole words of input channels: on AVX-512
    // VNNI without AMX the tile's rows are pixels read through the tap table. Tails
    // of pixel blocks (rows not a multiple of 8) and of channel panels (outputs not a
    // multiple of 32), padding, strides, dilation, batches, 1-D and 3-D.
    let cases = [
        (
            vec![1, 4, 5, 7],
            vec![5, 4, 3, 3],
            vec![1, 1],
            vec![1, 1],
            vec![1, 1],
        ),
        (
            vec![2, 8, 9, 6],
            vec![40, 8, 3, 3],
            vec![2, 2],
            vec![1, 1],
            vec![1, 1],
        ),
        (
            vec![1, 64, 7, 7],
            vec![70, 64, 3, 3],
            vec![1, 1],
            vec![1, 1],
            vec![1, 1],
        ),
        (
            vec![1, 12, 11, 10],
            vec![32, 12, 3, 2],
            vec![1, 2],
            vec![2, 0],
            vec![2, 3],
        ),
        (vec![1, 16, 30], vec![33, 16, 5], vec![1], vec![2], vec![1]),
        (
            vec![1, 8, 4, 5, 6],
            vec![9, 8, 3, 3, 3],
            vec![1, 2, 1],
            vec![1, 1, 1],
            vec![1, 1, 1],
        ),
    ];
    let mut seed = 1000;
    for (x, w, stride, padding, dilation) in cases {
        for (x_signed, w_signed, y_signed, per_channel, bias) in [
            (false, true, false, true, true),
            (true, false, true, false, false),
        ] {
            let mut c = case(&x, &w, 1);
            (c.stride, c.padding, c.dilation) = (stride.clone(), padding.clone(), dilation.clone());
            (c.x_signed, c.w_signed, c.y_signed) = (x_signed, w_signed, y_signed);
            (c.per_channel, c.bias, c.symmetric) = (per_channel, bias, true);
            seed += 1;
            let (args, _) = args(&c, seed);
            let weights = ConvWeights::with_layout(
                args[3].as_tensor().unwrap(),
                &args[4],
                &args[5],
                &args[11],
                true,
            )
            .unwrap();
            assert_eq!(
                weights.has_pixel_panels(),
                crate::kernels::linalg::qconv::pixel_rows_usable(Isa::best()),
                "seed {seed}"
            );
            check(&c, seed);
        }
    }
}

#[test]
fn pointwise_pixel_rows_on_small_planes() {
    // 1x1 convolutions of symmetric weights over whole words of channels take the
    // pixel-row kernel up to 400 output pixels (panels packed on the first call),
    // and im2col past that: both against the reference, batches, stride 2, tails.
    let mut seed = 1200;
    for (x, w, stride) in [
        (vec![1, 8, 5, 7], vec![37, 8, 1, 1], 1),
        (vec![2, 64, 10, 10], vec![64, 64, 1, 1], 2),
        (vec![1, 12, 20, 20], vec![5, 12, 1, 1], 1),
        (vec![1, 4, 21, 20], vec![33, 4, 1, 1], 1),
        (vec![1, 16, 30], vec![8, 16, 1], 1),
    ] {
        for (x_signed, w_signed) in [(false, true), (true, false)] {
            let mut c = case(&x, &w, 1);
            c.stride = vec![stride; x.len() - 2];
            (c.x_signed, c.w_signed, c.symmetric) = (x_signed, w_signed, true);
            seed += 1;
            check(&c, seed);
        }
    }
}

#[test]
fn rescaled_pixel_rows_agree_on_every_isa() {
    // Dynamic quantization's float epilogue after the pixel-row kernel (tails of
    // blocks and panels), with and without a bias, against the portable path.
    use crate::kernels::linalg::qconv::{Geometry, run_rescaled};
    let bits = |t: Tensor| match t.data {
        Data::F32(v) => v.into_iter().map(f32::to_bits).collect::<Vec<_>>(),
        _ => panic!("rescaled results are f32"),
    };
    let (c_in, c_out, seed) = (32, 37, 1100);
    let x = Tensor::new(vec![2, c_in, 9, 11], data(seed, 2 * c_in * 9 * 11, false)).unwrap();
    let w = Tensor::new(
        vec![c_out, c_in, 3, 3],
        data(seed + 1, c_out * c_in * 9, true),
    )
    .unwrap();
    let (groups, strides) = (Value::Int(1), Value::IntList(vec![1, 2]));
    let weights = ConvWeights::new(
        &w,
        &Value::Float(1.0),
        &Value::Int(0),
        &groups,
        Some(&strides),
    )
    .unwrap();
    assert_eq!(
        weights.has_pixel_panels(),
        crate::kernels::linalg::qconv::pixel_rows_usable(Isa::best())
    );
    let (pads, dilations) = (Value::IntList(vec![1, 1]), Value::IntList(vec![1, 1]));
    let geometry = Geometry {
        stride: &strides,
        padding: &pads,
        dilation: &dilations,
        pads: &Value::None,
    };
    let multipliers: Vec<f32> = (0..c_out).map(|i| 0.001 * (i + 1) as f32).collect();
    let bias: Vec<f32> = (0..c_out).map(|i| i as f32 - 2.5).collect();
    for b in [None, Some(&bias[..])] {
        let run = |isa| {
            let t = run_rescaled(isa, &x, 131, &geometry, &weights, &multipliers, b);
            bits(t.unwrap().expect("the fast path takes this case"))
        };
        let want = run(Isa::Portable);
        for isa in Isa::all_available() {
            assert_eq!(run(isa), want, "{isa:?}");
        }
    }
}

#[test]
fn rescaled_depthwise_agrees_on_every_isa() {
    // Dynamic quantization's float epilogue after the depthwise kernels: each level
    // (bytes where the CPU has byte permutes) against the portable one, bit for bit.
    use crate::kernels::linalg::qconv::{Geometry, run_rescaled};
    let bits = |t: Tensor| match t.data {
        Data::F32(v) => v.into_iter().map(f32::to_bits).collect::<Vec<_>>(),
        _ => panic!("rescaled results are f32"),
    };
    for (k, stride, pad, seed) in [
        (3, 1, 1, 960),
        (3, 2, 1, 961),
        (5, 2, 2, 962),
        (5, 1, 0, 963),
    ] {
        let c = 6;
        let x = Tensor::new(vec![2, c, 23, 45], data(seed, 2 * c * 23 * 45, false)).unwrap();
        let w = Tensor::new(vec![c, 1, k, k], data(seed + 1, c * k * k, true)).unwrap();
        let groups = Value::Int(c as i64);
        let weights =
            ConvWeights::new(&w, &Value::Float(1.0), &Value::Int(0), &groups, None).unwrap();
        let (strides, pads, dilations) = (
            Value::IntList(vec![stride; 2]),
            Value::IntList(vec![pad; 2]),
            Value::IntList(vec![1, 1]),
        );
        let geometry = Geometry {
            stride: &strides,
            padding: &pads,
            dilation: &dilations,
            pads: &Value::None,
        };
        let multipliers: Vec<f32> = (0..c).map(|i| 0.001 * (i + 1) as f32).collect();
        let bias: Vec<f32> = (0..c).map(|i| i as f32 - 2.5).collect();
        for b in [None, Some(&bias[..])] {
            let run = |isa| {
                let t = run_rescaled(isa, &x, 131, &geometry, &weights, &multipliers, b);
                bits(t.unwrap().expect("the fast path takes this case"))
            };
            let want = run(Isa::Portable);
            for isa in Isa::all_available() {
                assert_eq!(run(isa), want, "{isa:?}, seed {seed}");
            }
        }
    }
}
