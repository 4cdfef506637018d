//! The fast matmul against the reference kernel on every instruction set this CPU
//! has: ragged rows, columns and K, batched a, each signedness mix, per-column b, and
//! batched b that is not a constant (attention).

use crate::kernels::isa::Isa;
use crate::kernels::linalg::qmatmul::{MatmulWeights, run_batched_on, run_on};
use crate::kernels::quantized::qlinear::reference_matmul;
use crate::kernels::tensor::Data;
use crate::kernels::tensor::Tensor;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::tensor_type::TensorType;
use crate::kernels::tensor::value::Value;
use crate::kernels::testing::{test_bytes, test_data as data};
use crate::kernels::{Call, ResultType};

fn check(a_shape: &[usize], n: usize, a_signed: bool, b_signed: bool, per_column: bool, seed: u64) {
    let t = |shape: &[usize], d: Data| Value::tensor(Tensor::new(shape.to_vec(), d).unwrap());
    let k = *a_shape.last().unwrap();
    let zp = |s: u64, signed: bool| test_bytes(s, 1)[0] as i64 - if signed { 128 } else { 0 };
    let (b_scale, b_zero) = if per_column {
        let scales: Vec<f32> = test_bytes(seed + 7, n)
            .iter()
            .map(|&v| 0.002 + v as f32 * 1e-5)
            .collect();
        let zeros: Vec<i64> = (0..n as u64).map(|j| zp(seed + 20 + j, b_signed)).collect();
        (t(&[n], Data::F32(scales)), t(&[n], Data::I64(zeros)))
    } else {
        (Value::Float(0.003), Value::Int(zp(seed + 8, b_signed)))
    };
    let args = vec![
        t(a_shape, data(seed, a_shape.iter().product(), a_signed)),
        Value::Float(0.05),
        Value::Int(zp(seed + 1, a_signed)),
        t(&[k, n], data(seed + 2, k * n, b_signed)),
        b_scale,
        b_zero,
        Value::Float(0.4),
        Value::Int(zp(seed + 3, false)),
    ];
    let results = [ResultType::Tensor(TensorType {
        dtype: Some(DType::QUInt8),
        shape: None,
    })];
    let call = Call {
        args: &args,
        results: &results,
    };
    let want = reference_matmul(&call).unwrap();
    let w = MatmulWeights::new(args[3].as_tensor().unwrap(), &args[4], &args[5]).unwrap();
    for isa in Isa::all_available() {
        let got = run_on(isa, &call, &w).unwrap().expect("fast path");
        assert_eq!(got, want, "{isa:?} a {a_shape:?} n {n} seed {seed}");
    }
}

#[test]
fn ragged_shapes_and_batches() {
    let mut seed = 0;
    for (a_shape, n) in [
        (vec![1, 1], 1),
        (vec![7, 5], 33),
        (vec![65, 130], 31),
        (vec![2, 3, 9, 17], 40),
        (vec![12], 64),
        (vec![70, 512], 70),
    ] {
        seed += 1;
        check(&a_shape, n, false, true, true, seed);
    }
}

#[test]
fn every_signedness_mix() {
    let mut seed = 50;
    for a_signed in [false, true] {
        for b_signed in [false, true] {
            for per_column in [false, true] {
                seed += 1;
                check(&[9, 21], 35, a_signed, b_signed, per_column, seed);
            }
        }
    }
}

/// a `[batch.., m, k]` times a b `[batch.., k, n]` that changes every call: each batch
/// packed and multiplied on the tiles, equal to the reference; other batch layouts
/// decline.
#[test]
fn batched_b_of_attention() {
    let t = |shape: &[usize], d: Data| Value::tensor(Tensor::new(shape.to_vec(), d).unwrap());
    // a, its zero point, b, its zero point; the scales and the output's are fixed.
    let operands = |a: Value, a_zero: i64, b: Value, b_zero: i64| {
        let (a_scale, b_scale) = (Value::Float(0.05), Value::Float(0.02));
        let y = [Value::Float(0.7), Value::Int(7)];
        [
            vec![
                a,
                a_scale,
                Value::Int(a_zero),
                b,
                b_scale,
                Value::Int(b_zero),
            ],
            y.to_vec(),
        ]
        .concat()
    };
    let results = [ResultType::Tensor(TensorType {
        dtype: Some(DType::QUInt8),
        shape: None,
    })];
    for (seed, (batch, m, k, n), a_signed, b_signed) in [
        (1, (vec![1, 3], 9, 17, 13), false, true),
        (2, (vec![2], 33, 64, 40), true, false),
        (3, (vec![2, 2], 5, 3, 70), false, false),
        // Batches of 1M products or more run in parallel (an attention's heads).
        (4, (vec![3], 100, 96, 120), false, true),
    ] {
        let a_shape: Vec<usize> = batch.iter().copied().chain([m, k]).collect();
        let b_shape: Vec<usize> = batch.iter().copied().chain([k, n]).collect();
        let (na, nb) = (a_shape.iter().product(), b_shape.iter().product());
        let zp = |signed: bool| if signed { -3 } else { 130 };
        let args = operands(
            t(&a_shape, data(seed, na, a_signed)),
            zp(a_signed),
            t(&b_shape, data(seed + 9, nb, b_signed)),
            zp(b_signed),
        );
        let call = Call {
            args: &args,
            results: &results,
        };
        let want = reference_matmul(&call).unwrap();
        for isa in Isa::all_available() {
            let got = run_batched_on(isa, &call).unwrap().expect("fast path");
            assert_eq!(got, want, "{isa:?} a {a_shape:?} b {b_shape:?}");
        }
    }
    // b broadcast over a's batch: the reference's case.
    let args = operands(
        t(&[2, 4, 3], data(5, 24, false)),
        0,
        t(&[1, 3, 5], data(6, 15, true)),
        0,
    );
    let call = Call {
        args: &args,
        results: &results,
    };
    assert!(run_batched_on(Isa::best(), &call).unwrap().is_none());
}
