//! The fast path on every instruction set this CPU has against the reference (the
//! unfused IR's int32 kernels and rescale), bit for bit, over the shapes that take
//! different tile paths.

use super::*;

fn floats(n: usize, seed: u64) -> Vec<f32> {
    // A small LCG: deterministic inputs with negatives, ties and repeats.
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) % 2001) as f32 / 250.0 - 3.0
        })
        .collect()
}

fn tensor(shape: &[usize], data: Data) -> Value {
    Value::tensor(Tensor::new(shape.to_vec(), data).unwrap())
}

fn bits(v: &[Value]) -> Vec<u32> {
    match &v[0].as_tensor().unwrap().data {
        Data::F32(f) => f.iter().map(|x| x.to_bits()).collect(),
        d => panic!("not f32: {d:?}"),
    }
}

/// The convolution on `isa` with packed weights, or (`None`) the reference.
fn run_conv(args: &[Value], isa: Option<Isa>) -> Vec<u32> {
    let c = Call { args, results: &[] };
    match isa {
        Some(isa) => {
            let w = conv_weights(&args[1], &args[2], &args[8], Some(&args[5])).unwrap();
            bits(&conv_with(isa, &c, Some(&w)).unwrap())
        }
        None => bits(&conv_with(Isa::Portable, &c, None).unwrap()),
    }
}

/// (c_in, c_out, groups, kernel, stride, pads, per-channel zero points, bias)
type ConvCase = (usize, usize, usize, usize, usize, bool, bool, bool);

#[test]
fn conv_fast_path_equals_the_reference() {
    let cases: &[ConvCase] = &[
        (3, 8, 1, 3, 1, false, false, true),
        (4, 4, 4, 3, 1, false, false, false),
        (6, 9, 3, 1, 2, true, true, true),
        (5, 40, 1, 3, 2, true, false, false),
        (8, 8, 8, 5, 2, false, true, true),
        // Tap-major weights (32 channels at stride 2), per-channel zero points.
        (32, 8, 1, 3, 2, true, true, true),
    ];
    for (i, &(c_in, c_out, groups, k, stride, pads, per_channel, with_bias)) in
        cases.iter().enumerate()
    {
        let x = floats(2 * c_in * 11 * 13, i as u64);
        let n_w = c_out * (c_in / groups) * k * k;
        let w: Vec<i8> = floats(n_w, 100 + i as u64)
            .iter()
            .map(|v| (v * 40.0) as i8)
            .collect();
        let zp = if per_channel {
            tensor(
                &[c_out],
                Data::I8((0..c_out).map(|c| c as i8 - 3).collect()),
            )
        } else {
            Value::Int(2)
        };
        let scale = tensor(
            &[c_out, 1, 1],
            Data::F32(
                floats(c_out, 7)
                    .iter()
                    .map(|v| v.abs() / 100.0 + 1e-3)
                    .collect(),
            ),
        );
        let bias = if with_bias {
            tensor(&[1, c_out, 1, 1], Data::F32(floats(c_out, 9)))
        } else {
            Value::None
        };
        let args = [
            tensor(&[2, c_in, 11, 13], Data::F32(x)),
            tensor(&[c_out, c_in / groups, k, k], Data::I8(w)),
            zp,
            scale,
            bias,
            Value::IntList(vec![stride as i64, stride as i64]),
            Value::IntList(vec![1, 1]),
            Value::IntList(vec![1, 1]),
            Value::Int(groups as i64),
            if pads {
                Value::IntList(vec![0, 1, 1, 0])
            } else {
                Value::None
            },
        ];
        let reference = run_conv(&args, None);
        for isa in Isa::all_available() {
            assert_eq!(run_conv(&args, Some(isa)), reference, "case {i} on {isa:?}");
        }
    }
}

#[test]
fn matmul_fast_path_equals_the_reference() {
    // The last two have rows enough for four tiles at once and several blocks of
    // rows, and (k = 512) several tasks quantizing the packed rows.
    for (i, &(lead, k, n, uint8, per_column, with_bias)) in [
        (&[3usize, 5][..], 16usize, 8usize, false, false, false),
        (&[3, 5], 37, 70, true, true, true),
        (&[3, 5], 64, 33, false, true, true),
        (&[2, 40], 150, 70, false, false, true),
        (&[300], 512, 40, true, true, false),
    ]
    .iter()
    .enumerate()
    {
        let m: usize = lead.iter().product();
        let a = floats(m * k, 20 + i as u64);
        let raw = floats(k * n, 30 + i as u64);
        let b = if uint8 {
            Data::U8(raw.iter().map(|v| (v * 40.0 + 128.0) as u8).collect())
        } else {
            Data::I8(raw.iter().map(|v| (v * 40.0) as i8).collect())
        };
        let zp = match (uint8, per_column) {
            (true, true) => tensor(
                &[n],
                Data::U8((0..n).map(|j| 120 + (j % 9) as u8).collect()),
            ),
            (true, false) => Value::Int(128),
            (false, true) => tensor(&[n], Data::I8((0..n).map(|j| (j % 5) as i8 - 2).collect())),
            (false, false) => Value::Int(0),
        };
        let scale = tensor(
            &[n],
            Data::F32(floats(n, 3).iter().map(|v| v.abs() / 50.0 + 1e-3).collect()),
        );
        let bias = if with_bias {
            tensor(&[n], Data::F32(floats(n, 4)))
        } else {
            Value::None
        };
        let args = [
            tensor(&[lead, &[k]].concat(), Data::F32(a)),
            tensor(&[k, n], b),
            zp,
            scale,
            bias,
        ];
        let c = Call {
            args: &args,
            results: &[],
        };
        let w = matmul_weights(&args[1], &args[2]).unwrap();
        let reference = bits(&matmul_with(Isa::Portable, &c, None).unwrap());
        for isa in Isa::all_available() {
            let fast = bits(&matmul_with(isa, &c, Some(&w)).unwrap());
            assert_eq!(fast, reference, "case {i} on {isa:?}");
        }
    }
}

#[test]
fn an_input_of_zeros_and_a_nan_quantize_as_the_ir_does() {
    // All zeros: scale 0, zero point 0, every product 0.
    let (q, scale, zp) = quantize_input(
        Isa::best(),
        &Tensor::new(vec![4], Data::F32(vec![0.0; 4])).unwrap(),
    )
    .unwrap();
    assert_eq!((scale, zp, q.data), (0.0, 0, Data::U8(vec![0; 4])));
    let (_, scale, zp) = quantize_input(
        Isa::best(),
        &Tensor::new(vec![2], Data::F32(vec![1.0, f32::NAN])).unwrap(),
    )
    .unwrap();
    assert!(scale.is_nan());
    assert_eq!(zp, 0);
}
