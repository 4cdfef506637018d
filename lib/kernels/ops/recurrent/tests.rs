//! The recurrent kernels against the ONNX formulas written out by hand for one or two
//! steps, the quantized product against exact integer arithmetic, layout 1 against
//! layout 0, and malformed operands as errors.

use super::lookup;
use super::projection::{Weights, dynamic_params};
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::value::Value;
use crate::kernels::tensor::{Data, Quant, Tensor};
use crate::kernels::testing::{f32_values, f32s, of, tensor};
use crate::kernels::{Call, ResultType};

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn floats(v: &[f64]) -> Value {
    Value::FloatList(v.to_vec())
}

/// Runs `qlower.<op>` with `n` float results.
fn run(op: &str, args: &[Value], n: usize) -> anyhow::Result<Vec<Vec<f32>>> {
    let kernel = lookup(op).expect("registered");
    let results: Vec<ResultType> = (0..n).map(|_| of(DType::F32)).collect();
    let out = kernel(&Call {
        args,
        results: &results,
    })?;
    Ok(out
        .iter()
        .map(|v| f32_values(v.as_tensor().expect("tensor")))
        .collect())
}

/// LSTM operands after the inputs: forward, hidden 1, layout, no clip, no input_forget,
/// default activations.
fn lstm_attributes(direction: &str, hidden: i64, layout: i64, acts: &str) -> Vec<Value> {
    let n = acts.split(',').count();
    vec![
        Value::Str(direction.into()),
        Value::Int(hidden),
        Value::Int(layout),
        Value::None,
        Value::Int(0),
        Value::Str(acts.into()),
        floats(&vec![0.0; n]),
        floats(&vec![0.0; n]),
    ]
}

#[test]
fn one_lstm_unit_follows_the_onnx_equations_over_two_steps() {
    // I = H = 1; gates i, o, f, c.
    let (w, r, wb, rb) = (
        [0.5, -0.3, 0.8, 1.2],
        [0.1, 0.4, -0.2, 0.7],
        [0.05, 0.1, -0.1, 0.2],
        [0.01, -0.02, 0.03, 0.04],
    );
    let p = [0.3, -0.6, 0.2]; // i, o, f
    let xs = [0.9f64, -0.4];
    let (mut h, mut c) = (0.25f64, -0.5f64);
    let mut ys = Vec::new();
    for &x in &xs {
        let pre = |k: usize| x * w[k] + h * r[k] + wb[k] + rb[k];
        let i = sigmoid(pre(0) + p[0] * c);
        let f = sigmoid(pre(2) + p[2] * c);
        let g = pre(3).tanh();
        c = f * c + i * g;
        let o = sigmoid(pre(1) + p[1] * c);
        h = o * c.tanh();
        ys.push(h);
    }
    let bias: Vec<f32> = wb.iter().chain(&rb).map(|&v| v as f32).collect();
    let f = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
    let mut args = vec![
        f32s(&[2, 1, 1], &f(&xs)),
        f32s(&[1, 4, 1], &f(&w)),
        f32s(&[1, 4, 1], &f(&r)),
        f32s(&[1, 8], &bias),
        Value::None,
        f32s(&[1, 1, 1], &[0.25]),
        f32s(&[1, 1, 1], &[-0.5]),
        f32s(&[1, 3], &f(&p)),
    ];
    args.extend(lstm_attributes("forward", 1, 0, "Sigmoid,Tanh,Tanh"));
    let out = run("qlower.lstm", &args, 3).unwrap();
    for (got, want) in out[0].iter().zip(&ys) {
        assert!((*got as f64 - want).abs() < 1e-6, "{got} vs {want}");
    }
    assert!((out[1][0] as f64 - h).abs() < 1e-6);
    assert!((out[2][0] as f64 - c).abs() < 1e-6);
}

/// GRU operands after the inputs.
fn gru_attributes(direction: &str, layout: i64, linear_before_reset: i64) -> Vec<Value> {
    vec![
        Value::Str(direction.into()),
        Value::Int(1),
        Value::Int(layout),
        Value::None,
        Value::Int(linear_before_reset),
        Value::Str("Sigmoid,Tanh".into()),
        floats(&[0.0, 0.0]),
        floats(&[0.0, 0.0]),
    ]
}

#[test]
fn one_gru_unit_follows_the_onnx_equations_with_and_without_linear_before_reset() {
    // I = H = 1; gates z, r, h.
    let (w, r, wb, rb) = (
        [0.5, -0.3, 0.8],
        [0.1, 0.4, -0.7],
        [0.05, 0.1, -0.1],
        [0.01, -0.02, 0.3],
    );
    let (x, h0) = (0.9f64, 0.6f64);
    for lbr in [0, 1] {
        let z = sigmoid(x * w[0] + h0 * r[0] + wb[0] + rb[0]);
        let rg = sigmoid(x * w[1] + h0 * r[1] + wb[1] + rb[1]);
        let cand = if lbr == 0 {
            (x * w[2] + (rg * h0) * r[2] + rb[2] + wb[2]).tanh()
        } else {
            (x * w[2] + rg * (h0 * r[2] + rb[2]) + wb[2]).tanh()
        };
        let want = (1.0 - z) * cand + z * h0;
        let f = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
        let bias: Vec<f32> = wb.iter().chain(&rb).map(|&v| v as f32).collect();
        let mut args = vec![
            f32s(&[1, 1, 1], &[x as f32]),
            f32s(&[1, 3, 1], &f(&w)),
            f32s(&[1, 3, 1], &f(&r)),
            f32s(&[1, 6], &bias),
            Value::None,
            f32s(&[1, 1, 1], &[h0 as f32]),
        ];
        args.extend(gru_attributes("forward", 0, lbr));
        let out = run("qlower.gru", &args, 2).unwrap();
        assert!(
            (out[1][0] as f64 - want).abs() < 1e-6,
            "lbr {lbr}: {} vs {want}",
            out[1][0]
        );
    }
}

/// A deterministic value in [-1, 1).
fn value(k: usize) -> f32 {
    ((k * 7919 % 2000) as f32) / 1000.0 - 1.0
}

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|k| value(k * 31 + seed)).collect()
}

#[test]
fn batch_first_layout_is_the_time_major_result_transposed() {
    let (t, b, i, h) = (3, 2, 2, 2);
    let x = values(t * b * i, 1);
    let w = values(2 * 4 * h * i, 2);
    let r = values(2 * 4 * h * h, 3);
    let mut x_bf = vec![0f32; x.len()];
    for s in 0..t {
        for n in 0..b {
            for k in 0..i {
                x_bf[(n * t + s) * i + k] = x[(s * b + n) * i + k];
            }
        }
    }
    let inputs = |x: &[f32], shape: &[usize]| {
        vec![
            f32s(shape, x),
            f32s(&[2, 4 * h, i], &w),
            f32s(&[2, 4 * h, h], &r),
            Value::None,
            Value::None,
            Value::None,
            Value::None,
            Value::None,
        ]
    };
    let acts = "Sigmoid,Tanh,Tanh,Sigmoid,Tanh,Tanh";
    let mut a = inputs(&x, &[t, b, i]);
    a.extend(lstm_attributes("bidirectional", h as i64, 0, acts));
    let mut bf = inputs(&x_bf, &[b, t, i]);
    bf.extend(lstm_attributes("bidirectional", h as i64, 1, acts));
    let y0 = run("qlower.lstm", &a, 3).unwrap();
    let y1 = run("qlower.lstm", &bf, 3).unwrap();
    // Y: [T, D, B, H] against [B, T, D, H]; Y_h: [D, B, H] against [B, D, H].
    for s in 0..t {
        for d in 0..2 {
            for n in 0..b {
                for k in 0..h {
                    let a = y0[0][((s * 2 + d) * b + n) * h + k];
                    let c = y1[0][((n * t + s) * 2 + d) * h + k];
                    assert_eq!(a, c);
                }
            }
        }
    }
    for d in 0..2 {
        for n in 0..b {
            for k in 0..h {
                assert_eq!(y0[1][(d * b + n) * h + k], y1[1][(n * 2 + d) * h + k]);
            }
        }
    }
}

#[test]
fn dynamic_parameters_are_dynamicquantizelinear_s() {
    // Range [-1, 2] widened to hold 0 already: scale 3/255, zero point round(255/3) = 85.
    let (scale, zp) = dynamic_params(&[-1.0, 0.5, 2.0]);
    assert_eq!(scale, 3.0 / 255.0);
    assert_eq!(zp, 85);
    // All positive: the range starts at 0, zero point 0.
    let (scale, zp) = dynamic_params(&[0.5, 1.0]);
    assert_eq!((scale, zp), (1.0 / 255.0, 0));
    // All zero: scale 1, as ONNX Runtime's recurrent kernels take it.
    assert_eq!(dynamic_params(&[0.0, 0.0]), (1.0, 0));
}

#[test]
fn the_quantized_product_is_the_exact_integer_sum_scaled_once() {
    // Weights [cols = 3, rows = 2] column-major, zero point already subtracted.
    let w = Weights::Quantized {
        w: vec![100, -7, -128, 3, 55, 127],
        rows: 2,
        cols: 3,
        scales: vec![0.01, 0.02],
    };
    let a = [0.3f32, -0.2, 0.9];
    let (scale, zp) = dynamic_params(&a);
    let q: Vec<i32> = a
        .iter()
        .map(|&x| ((x / scale).round_ties_even() as i32 + zp).clamp(0, 255) - zp)
        .collect();
    let mut out = vec![1.0f32, 2.0];
    w.project(&a, &mut out, true);
    for (n, got) in out.iter().enumerate() {
        let acc: i32 = (0..3)
            .map(|k| q[k] * [[100, -7], [-128, 3], [55, 127]][k][n])
            .sum();
        let want = acc as f32 * (scale * [0.01f32, 0.02][n]) + [1.0f32, 2.0][n];
        assert_eq!(*got, want);
    }
}

#[test]
fn quantized_weights_read_their_direction_s_zero_point() {
    let t = Tensor {
        shape: vec![2, 1, 1],
        data: Data::I8(vec![10, 10]),
        quant: Some(Quant::PerChannel {
            scales: vec![0.5, 0.25],
            zero_points: vec![2, -2],
            axis: 0,
        }),
    };
    let Weights::Quantized { w, scales, .. } =
        super::projection::quantized_weights(&t, 1, 1, 1).unwrap()
    else {
        panic!("expected quantized weights");
    };
    assert_eq!((w, scales), (vec![12], vec![0.25]));
}

#[test]
fn malformed_operands_are_errors() {
    let base = |w_shape: &[usize], seq: Value| {
        let mut a = vec![
            f32s(&[2, 1, 1], &[0.1, 0.2]),
            f32s(w_shape, &vec![0.1; w_shape.iter().product()]),
            f32s(&[1, 4, 1], &[0.1; 4]),
            Value::None,
            seq,
            Value::None,
            Value::None,
            Value::None,
        ];
        a.extend(lstm_attributes("forward", 1, 0, "Sigmoid,Tanh,Tanh"));
        a
    };
    let e = run("qlower.lstm", &base(&[1, 3, 1], Value::None), 3).unwrap_err();
    assert!(e.to_string().contains("W has shape [1, 3, 1]"), "{e}");
    let long = tensor(&[1], Data::I32(vec![3]));
    let e = run("qlower.lstm", &base(&[1, 4, 1], long), 3).unwrap_err();
    assert!(e.to_string().contains("sequence_lens holds 3"), "{e}");
    let mut bad_dir = base(&[1, 4, 1], Value::None);
    bad_dir[8] = Value::Str("up".into());
    assert!(run("qlower.lstm", &bad_dir, 3).is_err());
}
