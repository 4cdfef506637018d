//! Plan-time fusion of quantized element-wise add and multiply. QLinearAdd and
//! QLinearMul (and QDQ `DequantizeLinear → Add/Mul → QuantizeLinear`, which ONNX Runtime
//! rewrites into them) lower to `quantize_per_tensor(add.Tensor(dequantize(a),
//! dequantize(b), 1))` or the same with `mul.Tensor`. ONNX Runtime does not compute that
//! literally: it folds scales and zero points into float32 ratios and an offset, and
//! near a rounding tie its result differs by one step, which the next layers of a deep
//! network spread. Where the pattern appears, the plan runs `kernels::qlinear_binary`
//! instead, and the float steps it replaces become dead.
//!
//! Anything else declines, and runs step by step: per-channel operands, operands or a
//! result whose 8-bit types differ (ONNX Runtime fuses only one type), an `alpha`
//! other than 1, and a float sum or product that something else reads too (ONNX
//! Runtime keeps such a node unfused).

use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::{Value as MlirValue, ValueLike};

use super::fuse::{self, Fused, Operand};
use crate::dialect::types::TensorType;
use crate::ir::matchers::{constant_float, constant_int, defining, named, op_name};
use crate::kernels::Kernel;
use crate::kernels::quantized::{qlinear_binary, qlinear_softmax};
use crate::onnx::dtype::DType;

/// An 8-bit operand: its integers, scale and zero point, and whether ONNX Runtime
/// would see it as a QuantizeLinear → DequantizeLinear pair of its own.
pub(super) struct Quantized<'c, 'a> {
    pub int: MlirValue<'c, 'a>,
    pub scale: MlirValue<'c, 'a>,
    pub zero_point: MlirValue<'c, 'a>,
    qdq_pair: bool,
}

/// The storage type (U8 or I8) of a value typed as 8-bit integers or 8-bit quantized.
pub(super) fn storage_of(v: MlirValue) -> Option<DType> {
    let ty = TensorType::parse(&v.r#type().to_string())?;
    match ty.dtype? {
        DType::U8 | DType::QUInt8 => Some(DType::U8),
        DType::I8 | DType::QInt8 => Some(DType::I8),
        _ => None,
    }
}

/// `v = dequantize.self(q)` where `q` is a per-tensor quantized tensor: made from
/// integers (`_make_per_tensor_quantized_tensor`, QOperator models) or quantized in
/// the graph (`quantize_per_tensor`, QDQ models, where `q` holds the integers itself).
pub(super) fn dequantized<'c: 'a, 'a>(v: MlirValue<'c, 'a>) -> Option<Quantized<'c, 'a>> {
    let dq = named(v, "torch.aten.dequantize.self")?;
    let q = dq.operand(0).ok()?;
    let operand = fuse::quantized(q).filter(|d| d.axis.is_none())?;
    let make = defining(q)?;
    // Only int8 pairs matter (see `match_quantized`); the scan is linear.
    let qdq_pair = op_name(make) == "torch.aten.quantize_per_tensor"
        && storage_of(q) == Some(DType::I8)
        && is_lone_pair(make, q, dq);
    Some(Quantized {
        int: operand.int,
        scale: operand.scale,
        zero_point: operand.zero_point,
        qdq_pair,
    })
}

/// Whether `quantize` (defining `q`) and `dq` form a QuantizeLinear → DequantizeLinear
/// pair that ONNX Runtime turns uint8: `dq` dequantizes `q`, nothing else reads `q`, and
/// one op reads `dq`'s floats (ONNX Runtime first gives every consumer of a shared
/// DequantizeLinear its own copy, and then leaves a QuantizeLinear with several alone).
fn is_lone_pair<'c: 'a, 'a>(
    quantize: OperationRef<'c, 'a>,
    q: MlirValue<'c, 'a>,
    dq: OperationRef<'c, 'a>,
) -> bool {
    op_name(dq) == "torch.aten.dequantize.self"
        && users_after(quantize, q).len() == 1
        && dq
            .result(0)
            .is_ok_and(|r| users_after(dq, r.into()).len() == 1)
}

/// The ops after `op` in its block that read `v`, once per operand: the lowered
/// function is one flat block, and a value is only read after its definition.
pub(super) fn users_after<'c: 'a, 'a>(
    op: OperationRef<'c, 'a>,
    v: MlirValue,
) -> Vec<OperationRef<'c, 'a>> {
    let mut users = Vec::new();
    let mut next = op.next_in_block();
    while let Some(o) = next {
        for i in 0..o.operand_count() {
            if o.operand(i).is_ok_and(|x| x == v) {
                users.push(o);
            }
        }
        next = o.next_in_block();
    }
    users
}

/// The fused step for `quantize` (a `torch.aten.quantize_per_tensor`) of the sum or
/// product of two dequantized 8-bit tensors.
pub fn match_quantized<'c: 'a, 'a>(quantize: OperationRef<'c, 'a>) -> Option<Fused<'c, 'a>> {
    let input = quantize.operand(0).ok()?;
    let float_op = defining(input)?;
    if op_name(float_op) == "torch.aten.softmax.int" {
        return softmax(quantize, float_op);
    }
    // (as computed, as computed in uint8)
    let kernels: [Kernel; 2] = match op_name(float_op).as_str() {
        "torch.aten.add.Tensor" => {
            let alpha = float_op.operand(2).ok()?;
            if constant_int(alpha) != Some(1) && constant_float(alpha) != Some(1.0) {
                return None;
            }
            [
                qlinear_binary::qlinear_add,
                qlinear_binary::qlinear_add_as_uint8,
            ]
        }
        "torch.aten.mul.Tensor" => [
            qlinear_binary::qlinear_mul,
            qlinear_binary::qlinear_mul_as_uint8,
        ],
        _ => return None,
    };
    let a = dequantized(float_op.operand(0).ok()?)?;
    let b = dequantized(float_op.operand(1).ok()?)?;
    let result: MlirValue = quantize.result(0).ok()?.into();
    let storage = storage_of(result)?;
    if storage_of(a.int)? != storage || storage_of(b.int)? != storage {
        return None;
    }
    if users_after(float_op, input).len() != 1 {
        return None;
    }
    // ONNX Runtime on x86-64 runs every int8 QuantizeLinear → DequantizeLinear pair as
    // uint8 (zero point + 128), and fuses only when all three are alike.
    let mut kernel = kernels[0];
    if storage == DType::I8 {
        let users = users_after(quantize, result);
        let output_pair = users.len() == 1 && is_lone_pair(quantize, result, users[0]);
        match (a.qdq_pair, b.qdq_pair, output_pair) {
            (true, true, true) => kernel = kernels[1],
            (false, false, false) => {}
            _ => return None,
        }
    }
    Some(Fused {
        kernel,
        prepare: None,
        operands: vec![
            Operand::Ir(a.int),
            Operand::Ir(a.scale),
            Operand::Ir(a.zero_point),
            Operand::Ir(b.int),
            Operand::Ir(b.scale),
            Operand::Ir(b.zero_point),
            Operand::Ir(quantize.operand(1).ok()?),
            Operand::Ir(quantize.operand(2).ok()?),
        ],
    })
}

/// Whether ONNX Runtime on x86-64 computes this int8 result as uint8: it turns every
/// int8 QuantizeLinear → DequantizeLinear pair into a uint8 one, and fuses only when
/// the operands' pairs and the result's are alike. `None` when they are not (no
/// fusion); always `Some(false)` for uint8.
fn as_uint8(quantize: OperationRef, operands: &[&Quantized]) -> Option<bool> {
    let result: MlirValue = quantize.result(0).ok()?.into();
    if storage_of(result)? != DType::I8 {
        return Some(false);
    }
    let users = users_after(quantize, result);
    let output_pair = users.len() == 1 && is_lone_pair(quantize, result, users[0]);
    operands
        .iter()
        .all(|o| o.qdq_pair == output_pair)
        .then_some(output_pair)
}

/// `quantize(softmax.int(dequantize(x), dim, none))`: ONNX Runtime's QLinearSoftmax.
fn softmax<'c: 'a, 'a>(
    quantize: OperationRef<'c, 'a>,
    softmax: OperationRef<'c, 'a>,
) -> Option<Fused<'c, 'a>> {
    let x = dequantized(softmax.operand(0).ok()?)?;
    let result: MlirValue = quantize.result(0).ok()?.into();
    let none = softmax.operand(2).ok()?.r#type().to_string() == "!torch.none";
    let float: MlirValue = softmax.result(0).ok()?.into();
    if !none || storage_of(x.int)? != storage_of(result)? || users_after(softmax, float).len() != 1
    {
        return None;
    }
    let kernel: Kernel = if as_uint8(quantize, &[&x])? {
        qlinear_softmax::softmax_as_uint8
    } else {
        qlinear_softmax::softmax
    };
    Some(Fused {
        kernel,
        prepare: None,
        operands: vec![
            Operand::Ir(x.int),
            Operand::Ir(x.scale),
            Operand::Ir(softmax.operand(1).ok()?),
            Operand::Ir(quantize.operand(1).ok()?),
            Operand::Ir(quantize.operand(2).ok()?),
            Operand::Ir(quantize.operand(3).ok()?),
        ],
    })
}

#[cfg(test)]
mod tests {
    use crate::ir::context::new_context;
    use crate::ir::parse::parse_module;
    use crate::kernels::tensor::{Data, Tensor};
    use crate::runtime::plan::Plan;

    /// QLinearAdd as the lowering writes it, with `alpha` and an extra use of the float
    /// sum substituted in.
    fn qlinear_add(alpha: &str, extra_use: bool) -> String {
        let ret = if extra_use {
            "return %14, %9 : !torch.vtensor<[2],ui8>, !torch.vtensor<[2],f32>"
        } else {
            "return %14 : !torch.vtensor<[2],ui8>"
        };
        let results = if extra_use {
            "(!torch.vtensor<[2],ui8>, !torch.vtensor<[2],f32>)"
        } else {
            "!torch.vtensor<[2],ui8>"
        };
        format!(
            r#"func.func @g(%arg0: !torch.vtensor<[2],ui8>, %arg1: !torch.vtensor<[2],ui8>) -> {results} {{
  %0 = "torch.constant.float"() {{value = 0.09027937054634094 : f64}} : () -> !torch.float
  %1 = "torch.constant.int"() {{value = 219 : i64}} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],f32>
  %4 = "torch.constant.float"() {{value = 0.08520194888114929 : f64}} : () -> !torch.float
  %5 = "torch.constant.int"() {{value = 152 : i64}} : () -> !torch.int
  %6 = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, %4, %5) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %7 = "torch.aten.dequantize.self"(%6) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],f32>
  %8 = {alpha}
  %9 = "torch.aten.add.Tensor"(%3, %7, %8) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2],f32>
  %10 = "torch.constant.int"() {{value = 13 : i64}} : () -> !torch.int
  %11 = "torch.constant.float"() {{value = 0.042278442531824112 : f64}} : () -> !torch.float
  %12 = "torch.constant.int"() {{value = 126 : i64}} : () -> !torch.int
  %13 = "torch.aten.quantize_per_tensor"(%9, %11, %12, %10) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %14 = "torch.aten.int_repr"(%13) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],ui8>
  {ret}
}}"#
        )
    }

    const ONE: &str = r#""torch.constant.int"() {value = 1 : i64} : () -> !torch.int"#;
    const TWO: &str = r#""torch.constant.int"() {value = 2 : i64} : () -> !torch.int"#;

    /// The plan's steps by op name, and its first output on a = [247, 0], b = [133, 0].
    fn run(source: &str) -> (Vec<String>, Tensor) {
        let context = new_context();
        let module = parse_module(&context, source, "test").unwrap();
        let plan = Plan::new(&module).unwrap();
        let ops = plan.steps.iter().map(|s| s.op.clone()).collect();
        let a = Tensor::new(vec![2], Data::U8(vec![247, 0])).unwrap();
        let b = Tensor::new(vec![2], Data::U8(vec![133, 0])).unwrap();
        let out = plan.run(vec![a, b]).unwrap();
        (ops, out[0].clone())
    }

    #[test]
    fn a_requantized_sum_of_dequantized_operands_runs_as_one_integer_step() {
        let (ops, y) = run(&qlinear_add(ONE, false));
        assert_eq!(
            ops,
            ["torch.aten.quantize_per_tensor", "torch.aten.int_repr"]
        );
        // ONNX Runtime's 148 at the near tie; dequantize-add-quantize gives 147.
        assert_eq!(y.data, Data::U8(vec![148, 0]));
    }

    #[test]
    fn other_alphas_and_shared_float_sums_are_not_fused() {
        for source in [qlinear_add(TWO, false), qlinear_add(ONE, true)] {
            let (ops, _) = run(&source);
            assert!(ops.iter().any(|o| o == "torch.aten.add.Tensor"), "{ops:?}");
        }
        // The float path's result at the near tie.
        let (_, y) = run(&qlinear_add(ONE, true));
        assert_eq!(y.data, Data::U8(vec![147, 0]));
    }

    /// An int8 QDQ add: Q → DQ on both float inputs, Add, then Q and, when `output_dq`,
    /// DQ again (else the integers are the result).
    fn qdq_int8_add(output_dq: bool) -> String {
        let (tail, ty) = if output_dq {
            (
                r#"%16 = "torch.aten.dequantize.self"(%15) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>"#,
                "f32",
            )
        } else {
            (
                r#"%16 = "torch.aten.int_repr"(%15) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],si8>"#,
                "si8",
            )
        };
        format!(
            r#"func.func @g(%arg0: !torch.vtensor<[2],f32>, %arg1: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],{ty}> {{
  %0 = "torch.constant.int"() {{value = 12 : i64}} : () -> !torch.int
  %1 = "torch.constant.float"() {{value = 0.017672596126794815 : f64}} : () -> !torch.float
  %2 = "torch.constant.int"() {{value = 31 : i64}} : () -> !torch.int
  %3 = "torch.aten.quantize_per_tensor"(%arg0, %1, %2, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %4 = "torch.aten.dequantize.self"(%3) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>
  %5 = "torch.constant.float"() {{value = 0.052297420054674149 : f64}} : () -> !torch.float
  %6 = "torch.constant.int"() {{value = 68 : i64}} : () -> !torch.int
  %7 = "torch.aten.quantize_per_tensor"(%arg1, %5, %6, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %8 = "torch.aten.dequantize.self"(%7) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>
  %9 = "torch.constant.int"() {{value = 1 : i64}} : () -> !torch.int
  %10 = "torch.aten.add.Tensor"(%4, %8, %9) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2],f32>
  %11 = "torch.constant.float"() {{value = 0.051893882453441620 : f64}} : () -> !torch.float
  %12 = "torch.constant.int"() {{value = -1 : i64}} : () -> !torch.int
  %15 = "torch.aten.quantize_per_tensor"(%10, %11, %12, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  {tail}
  return %16 : !torch.vtensor<[2],{ty}>
}}"#
        )
    }

    #[test]
    fn int8_qdq_pairs_are_computed_as_uint8_and_mixed_ones_are_not_fused() {
        let context = new_context();
        let run = |source: &str| {
            let module = parse_module(&context, source, "test").unwrap();
            let plan = Plan::new(&module).unwrap();
            let ops: Vec<String> = plan.steps.iter().map(|s| s.op.clone()).collect();
            // a = 11 and b = 108 once quantized.
            let x = Tensor::new(vec![2], Data::F32(vec![-20.0 * 0.017672596; 2])).unwrap();
            let y = Tensor::new(vec![2], Data::F32(vec![40.0 * 0.05229742; 2])).unwrap();
            (ops, plan.run(vec![x, y]).unwrap().remove(0))
        };
        let (ops, out) = run(&qdq_int8_add(true));
        assert!(!ops.iter().any(|o| o == "torch.aten.add.Tensor"), "{ops:?}");
        // ONNX Runtime's 33 (as uint8, 161 - 128); int8 arithmetic would give 32.
        let Data::F32(values) = &out.data else {
            panic!("not f32")
        };
        assert_eq!(values[0], (34.0f32) * 0.051893882);
        // The result's integers are the graph's output: ONNX Runtime keeps that
        // QuantizeLinear int8 and the inputs' pairs uint8, and runs the float Add.
        let (ops, _) = run(&qdq_int8_add(false));
        assert!(ops.iter().any(|o| o == "torch.aten.add.Tensor"), "{ops:?}");
    }
}
