use super::*;
use crate::kernels::tensor::dtype::DType;
use crate::kernels::tensor::unfilled::as_unfilled;
use crate::kernels::tensor::value::Value;
use crate::kernels::testing::{
    assert_same_f32_bits, awkward_f32s, f32_values, f32s, of, run1, unknown,
};

/// `v` with every NaN made the one quiet NaN. Where two NaNs meet in a commutative
/// operation, which one comes out depends on the operand order the compiler picked,
/// in the unfused kernels as in the chain; every other value must match bit for bit.
fn one_nan(mut v: Vec<f32>) -> Vec<f32> {
    for x in &mut v {
        if x.is_nan() {
            *x = f32::NAN;
        }
    }
    v
}

/// Runs the chain kernel on `inputs`.
fn chain(program: &str, inputs: &[Value]) -> Vec<f32> {
    let mut args = vec![Value::Str(program.to_string())];
    args.extend(inputs.iter().cloned());
    let out = elementwise_chain(&Call {
        args: &args,
        results: &[of(DType::F32)],
    })
    .unwrap();
    match &out[0] {
        Value::Tensor(t) => one_nan(f32_values(t)),
        other => panic!("{other:?}"),
    }
}

/// The unfused op `op` on `args`.
fn op(op: &str, args: &[Value]) -> Value {
    Value::Tensor(run1(op, args, unknown()).unwrap())
}

fn scalar(v: f32) -> Value {
    f32s(&[], &[v])
}

fn values(v: &Value) -> Vec<f32> {
    match v {
        Value::Tensor(t) => one_nan(f32_values(t)),
        other => panic!("{other:?}"),
    }
}

/// The tanh GELU as exported models write it (Pow 3, Mul, Add, Mul, Tanh, Add 1, Mul
/// 0.5, Mul), times a second tensor (T5's gated GELU): the chain gives the unfused
/// kernels' bytes, over awkward values and lengths that leave partial blocks and tasks.
#[test]
fn tanh_gelu_chain_gives_the_unfused_bytes() {
    for n in [7usize, 2048 * 3 + 5, 2048 * 16 * 2 + 17] {
        let x = f32s(&[1, n], &awkward_f32s(3, n, true));
        let g = f32s(&[1, n], &awkward_f32s(5, n, true));
        let (three, c, k, one, half) = (
            scalar(3.0),
            scalar(0.044715),
            scalar(0.797_884_6),
            scalar(1.0),
            scalar(0.5),
        );
        let p = op("aten.pow.Tensor_Tensor", &[x.clone(), three.clone()]);
        let m = op("aten.mul.Tensor", &[p, c.clone()]);
        let a = op("aten.add.Tensor", &[x.clone(), m]);
        let s = op("aten.mul.Tensor", &[a, k.clone()]);
        let h = op("aten.mul.Tensor", &[x.clone(), half.clone()]);
        let t = op("aten.tanh", &[s]);
        let t1 = op("aten.add.Tensor", &[t, one.clone()]);
        let gelu = op("aten.mul.Tensor", &[h, t1]);
        let want = values(&op("aten.mul.Tensor", &[gelu, g.clone()]));
        let got = chain(
            "pow $0 $2; mul $7 $3; add $0 $8; mul $9 $4; mul $0 $6; tanh $10; add $12 $5; mul $11 $13; mul $14 $1",
            &[x, g, three, c, k, one, half],
        );
        assert_same_f32_bits(&got, &want, &format!("tanh GELU over {n}"));
    }
}

/// The erf GELU (Div √2, Erf, Add 1, Mul x, Mul 0.5), SiLU as x·sigmoid(x), and a norm's
/// tail (x / per-row statistic · gamma + beta, broadcast along the last axis).
#[test]
fn erf_gelu_silu_and_norm_tail_give_the_unfused_bytes() {
    let (rows, cols) = (37, 96);
    let n = rows * cols;
    let x = f32s(&[rows, cols], &awkward_f32s(7, n, true));
    let r2 = scalar(std::f32::consts::SQRT_2);
    let d = op("aten.div.Tensor", &[x.clone(), r2.clone()]);
    let e = op("aten.erf", &[d]);
    let e1 = op("aten.add.Tensor", &[e, scalar(1.0)]);
    let m = op("aten.mul.Tensor", &[x.clone(), e1]);
    let want = values(&op("aten.mul.Tensor", &[m, scalar(0.5)]));
    let got = chain(
        "div $0 $1; erf $4; add $5 $2; mul $0 $6; mul $7 $3",
        &[x.clone(), r2, scalar(1.0), scalar(0.5)],
    );
    assert_same_f32_bits(&got, &want, "erf GELU");

    let s = op("aten.sigmoid", std::slice::from_ref(&x));
    let want = values(&op("aten.mul.Tensor", &[x.clone(), s]));
    let got = chain("sigmoid $0; mul $0 $1", std::slice::from_ref(&x));
    assert_same_f32_bits(&got, &want, "SiLU");

    let stat = f32s(&[rows, 1], &awkward_f32s(9, rows, false));
    let gamma = f32s(&[cols], &awkward_f32s(11, cols, false));
    let beta = f32s(&[cols], &awkward_f32s(13, cols, false));
    let q = op("aten.div.Tensor", &[x.clone(), stat.clone()]);
    let w = op("aten.mul.Tensor", &[q, gamma.clone()]);
    let want = values(&op("aten.add.Tensor", &[w, beta.clone()]));
    let got = chain("div $0 $1; mul $4 $2; add $5 $3", &[x, stat, gamma, beta]);
    assert_same_f32_bits(&got, &want, "norm tail");
}

/// Every other step against its unfused kernel, including pow by per-element exponents
/// and by exponents off the fast path.
#[test]
fn each_step_gives_its_kernels_bytes() {
    let n = 3001;
    let x = f32s(&[n], &awkward_f32s(17, n, true));
    let y = f32s(&[n], &awkward_f32s(19, n, true));
    let unary = [
        ("exp", "aten.exp"),
        ("log", "aten.log"),
        ("silu", "aten.silu"),
        ("sqrt", "aten.sqrt"),
        ("rsqrt", "aten.rsqrt"),
        ("reciprocal", "aten.reciprocal"),
        ("neg", "aten.neg"),
        ("abs", "aten.abs"),
        ("relu", "aten.relu"),
    ];
    for (step, kernel) in unary {
        let want = values(&op(kernel, std::slice::from_ref(&x)));
        let got = chain(&format!("{step} $0"), std::slice::from_ref(&x));
        assert_same_f32_bits(&got, &want, step);
    }
    let binary = [
        ("sub", "aten.sub.Tensor"),
        ("pow", "aten.pow.Tensor_Tensor"),
    ];
    for (step, kernel) in binary {
        let want = values(&op(kernel, &[x.clone(), y.clone()]));
        let got = chain(&format!("{step} $0 $1"), &[x.clone(), y.clone()]);
        assert_same_f32_bits(&got, &want, step);
    }
    for e in [0.0f32, 0.5, 2.0, -1.0, 5.0, 1.5, -2.25] {
        let want = values(&op("aten.pow.Tensor_Tensor", &[x.clone(), scalar(e)]));
        let got = chain("pow $0 $1", &[x.clone(), scalar(e)]);
        assert_same_f32_bits(&got, &want, &format!("pow {e}"));
    }
}

/// The same bytes on every instruction set the CPU has (the unary steps are the vector
/// math's; the others are IEEE operations or f64 powers rounded once), over every kind
/// of step and operand, with a partial group at the end.
#[test]
fn every_isa_gives_the_same_bytes() {
    let n = 2048 + 77;
    let data = awkward_f32s(23, n, true);
    let gamma = awkward_f32s(41, 5, true);
    let row = awkward_f32s(43, 7, true);
    let program = Program::parse(
        "mul $0 $1; tanh $5; erf $0; add $6 $7; silu $8; pow $0 $4; pow $0 $1; \
         sub $10 $2; div $12 $3; neg $13; relu $14; abs $15; sqrt $16; rsqrt $16; \
         reciprocal $18; exp $19; log $20; sigmoid $21; gelu $22; gelu_tanh $23; pow $24 $0; \
         mul $25 $11",
        5,
    )
    .unwrap();
    let sources = [
        Operand::Full(&data),
        Operand::Splat(0.7),
        Operand::Along {
            data: &gamma,
            inner: 1,
        },
        Operand::Along {
            data: &row,
            inner: 13,
        },
        Operand::Splat(3.0),
    ];
    let steps = compile(&program, &sources);
    assert!(steps.iter().any(|s| s.op == Op::Cube));
    let mut want = vec![0.0; n];
    evaluate_on(Isa::Portable, &steps, &sources, 0, as_unfilled(&mut want));
    for isa in Isa::all_available() {
        for start in [0, 16, 64] {
            let mut got = vec![0.0; n - start];
            evaluate_on(isa, &steps, &sources, start, as_unfilled(&mut got));
            assert_same_f32_bits(
                &one_nan(got),
                &one_nan(want[start..].to_vec()),
                &format!("{isa:?} from {start}"),
            );
        }
    }
}

#[test]
fn bad_programs_and_operands_are_errors() {
    for bad in ["", "frob $0", "add $0", "exp $1", "exp 0", "exp $0; exp $3"] {
        assert!(Program::parse(bad, 1).is_err(), "{bad}");
    }
    let x = f32s(&[2, 4, 3], &[1.0; 24]);
    let y = f32s(&[2, 5, 3], &[1.0; 30]);
    let args = [Value::Str("add $0 $1".into()), x, y];
    let e = elementwise_chain(&Call {
        args: &args,
        results: &[unknown()],
    })
    .unwrap_err();
    assert!(e.to_string().contains("do not broadcast"), "{e}");
    let args = [Value::Str("exp $0".into()), Value::Int(3)];
    assert!(
        elementwise_chain(&Call {
            args: &args,
            results: &[unknown()]
        })
        .is_err()
    );
}

/// An input varying along two runs of axes ([2,1,3] against [2,4,3], sizes the pass
/// saw only as `?`) is broadcast whole first: the unfused bytes still.
#[test]
fn inputs_along_several_runs_are_broadcast_whole() {
    let x = f32s(&[2, 4, 3], &awkward_f32s(29, 24, false));
    let y = f32s(&[2, 1, 3], &awkward_f32s(31, 6, false));
    let z = f32s(&[4, 1], &awkward_f32s(37, 4, false));
    let s = op("aten.mul.Tensor", &[x.clone(), y.clone()]);
    let want = values(&op("aten.sub.Tensor", &[s, z.clone(), Value::Int(1)]));
    assert_same_f32_bits(
        &chain("mul $0 $1; sub $3 $2", &[x, y, z]),
        &want,
        "expanded",
    );
}

/// A consecutive operand whose period divides the group is staged once per phase and
/// reused; other periods are staged per group. Both read the right elements, from
/// any start.
#[test]
fn short_periods_are_read_at_their_phase() {
    let n = 4096 + 100;
    let x = awkward_f32s(47, n, false);
    for period in [16usize, 48, 128, 5] {
        let p: Vec<f32> = (0..period).map(|i| i as f32 * 0.25 - 3.0).collect();
        let sources = [Operand::Full(&x), Operand::Along { data: &p, inner: 1 }];
        let steps = compile(&Program::parse("add $0 $1", 2).unwrap(), &sources);
        for isa in Isa::all_available() {
            for start in [0, 16, 100] {
                let mut got = vec![0.0; n - start];
                evaluate_on(isa, &steps, &sources, start, as_unfilled(&mut got));
                let want: Vec<f32> = (start..n).map(|i| x[i] + p[i % period]).collect();
                assert_same_f32_bits(
                    &got,
                    &want,
                    &format!("{isa:?} period {period} from {start}"),
                );
            }
        }
    }
}
