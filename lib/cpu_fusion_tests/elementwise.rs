use super::fused_plan;
use crate::ir::context::new_context;
use crate::ir::parse::parse_module;
use crate::kernels::tensor::{Data, Tensor};

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
    let plan = fused_plan(&context, module);
    let ops = plan.step_ops().iter().map(|s| s.to_string()).collect();
    let a = Tensor::new(vec![2], Data::U8(vec![247, 0])).unwrap();
    let b = Tensor::new(vec![2], Data::U8(vec![133, 0])).unwrap();
    let out = plan.run(vec![a, b]).unwrap();
    (ops, out[0].clone())
}

#[test]
fn a_requantized_sum_of_dequantized_operands_runs_as_one_integer_step() {
    let (ops, y) = run(&qlinear_add(ONE, false));
    assert_eq!(ops, ["qlower.qlinear_add", "torch.aten.int_repr"]);
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
        let plan = fused_plan(&context, module);
        let ops: Vec<String> = plan.step_ops().iter().map(|s| s.to_string()).collect();
        // a = 11 and b = 108 once quantized.
        let x = Tensor::new(vec![2], Data::F32(vec![-20.0 * 0.017672596; 2])).unwrap();
        let y = Tensor::new(vec![2], Data::F32(vec![40.0 * 0.05229742; 2])).unwrap();
        (ops, plan.run(vec![x, y]).unwrap().remove(0))
    };
    let (ops, out) = run(&qdq_int8_add(true));
    assert!(!ops.iter().any(|o| o == "torch.aten.add.Tensor"), "{ops:?}");
    assert!(
        ops.iter().any(|o| o == "qlower.qlinear_add_as_uint8"),
        "{ops:?}"
    );
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
