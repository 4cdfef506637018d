use melior::Context;

use super::fused_plan;
use crate::ir::context::new_context;
use crate::ir::parse::parse_module;
use crate::kernels::tensor::{Data, Tensor};
use crate::runtime::plan::Plan;

/// A batch normalization between a dequantize and a quantize, on `storage` integers
/// (ui8 or si8), as QDQ models leave one not folded into its convolution.
fn batch_norm(storage: &str, quantized: &str, dtype_code: i64, zero_point: i64) -> String {
    format!(
        r#"func.func @bn(%arg0: !torch.vtensor<[1,3,16,16],{storage}>) -> !torch.vtensor<[1,3,16,16],{storage}> {{
  %s = "torch.constant.float"() {{value = 0.05 : f64}} : () -> !torch.float
  %z = "torch.constant.int"() {{value = 3 : i64}} : () -> !torch.int
  %q = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[1,3,16,16],{storage}>, !torch.float, !torch.int) -> !torch.vtensor<[1,3,16,16],{quantized}>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[1,3,16,16],{quantized}>) -> !torch.vtensor<[1,3,16,16],f32>
  %w = "torch.vtensor.literal"() {{value = dense<[1.5, -0.5, 2.0]> : tensor<3xf32>}} : () -> !torch.vtensor<[3],f32>
  %b = "torch.vtensor.literal"() {{value = dense<[0.25, 1.0, -2.0]> : tensor<3xf32>}} : () -> !torch.vtensor<[3],f32>
  %m = "torch.vtensor.literal"() {{value = dense<[0.1, -0.3, 0.7]> : tensor<3xf32>}} : () -> !torch.vtensor<[3],f32>
  %v = "torch.vtensor.literal"() {{value = dense<[0.9, 1.7, 0.3]> : tensor<3xf32>}} : () -> !torch.vtensor<[3],f32>
  %false = "torch.constant.bool"() {{value = false}} : () -> !torch.bool
  %mom = "torch.constant.float"() {{value = 0.9 : f64}} : () -> !torch.float
  %eps = "torch.constant.float"() {{value = 1.0e-05 : f64}} : () -> !torch.float
  %y = "torch.aten.batch_norm"(%x, %w, %b, %m, %v, %false, %mom, %eps, %false) : (!torch.vtensor<[1,3,16,16],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.bool, !torch.float, !torch.float, !torch.bool) -> !torch.vtensor<[1,3,16,16],f32>
  %ys = "torch.constant.float"() {{value = 0.0371 : f64}} : () -> !torch.float
  %yz = "torch.constant.int"() {{value = {zero_point} : i64}} : () -> !torch.int
  %dt = "torch.constant.int"() {{value = {dtype_code} : i64}} : () -> !torch.int
  %yq = "torch.aten.quantize_per_tensor"(%y, %ys, %yz, %dt) : (!torch.vtensor<[1,3,16,16],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,3,16,16],{quantized}>
  %r = "torch.aten.int_repr"(%yq) : (!torch.vtensor<[1,3,16,16],{quantized}>) -> !torch.vtensor<[1,3,16,16],{storage}>
  return %r : !torch.vtensor<[1,3,16,16],{storage}>
}}"#
    )
}

/// A GELU as exporters write it, `x · 0.5 · (1 + erf(x / √2))`, on a dequantized
/// tensor; its float result is returned when `float_result`, else quantized.
fn gelu(float_result: bool) -> String {
    let (tail, ty) = if float_result {
        (
            "return %g : !torch.vtensor<[4,64],f32>",
            "!torch.vtensor<[4,64],f32>",
        )
    } else {
        (
            r#"%ys = "torch.constant.float"() {value = 0.02 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %yq = "torch.aten.quantize_per_tensor"(%g, %ys, %yz, %dt) : (!torch.vtensor<[4,64],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4,64],!torch.quint8>
  %r = "torch.aten.int_repr"(%yq) : (!torch.vtensor<[4,64],!torch.quint8>) -> !torch.vtensor<[4,64],ui8>
  return %r : !torch.vtensor<[4,64],ui8>"#,
            "!torch.vtensor<[4,64],ui8>",
        )
    };
    format!(
        r#"func.func @gelu(%arg0: !torch.vtensor<[4,64],ui8>) -> {ty} {{
  %s = "torch.constant.float"() {{value = 0.031 : f64}} : () -> !torch.float
  %z = "torch.constant.int"() {{value = 128 : i64}} : () -> !torch.int
  %q = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[4,64],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[4,64],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[4,64],!torch.quint8>) -> !torch.vtensor<[4,64],f32>
  %sqrt2 = "torch.vtensor.literal"() {{value = dense<1.41421354> : tensor<f32>}} : () -> !torch.vtensor<[],f32>
  %one = "torch.vtensor.literal"() {{value = dense<1.0> : tensor<f32>}} : () -> !torch.vtensor<[],f32>
  %half = "torch.vtensor.literal"() {{value = dense<0.5> : tensor<f32>}} : () -> !torch.vtensor<[],f32>
  %alpha = "torch.constant.int"() {{value = 1 : i64}} : () -> !torch.int
  %d = "torch.aten.div.Tensor"(%x, %sqrt2) : (!torch.vtensor<[4,64],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4,64],f32>
  %e = "torch.aten.erf"(%d) : (!torch.vtensor<[4,64],f32>) -> !torch.vtensor<[4,64],f32>
  %a = "torch.aten.add.Tensor"(%e, %one, %alpha) : (!torch.vtensor<[4,64],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[4,64],f32>
  %h = "torch.aten.mul.Tensor"(%half, %a) : (!torch.vtensor<[],f32>, !torch.vtensor<[4,64],f32>) -> !torch.vtensor<[4,64],f32>
  %g = "torch.aten.mul.Tensor"(%x, %h) : (!torch.vtensor<[4,64],f32>, !torch.vtensor<[4,64],f32>) -> !torch.vtensor<[4,64],f32>
  {tail}
}}"#
    )
}

/// The steps of the fused plan, and both plans' outputs on `input`.
fn fused_and_unfused(source: &str, input: Tensor) -> (Vec<String>, Tensor, Tensor) {
    let context: Context = new_context();
    let fused = fused_plan(&context, parse_module(&context, source, "test").unwrap());
    let unfused = Plan::new(&parse_module(&context, source, "test").unwrap()).unwrap();
    let ops = fused.step_ops().iter().map(|s| s.to_string()).collect();
    let a = fused.run(vec![input.clone()]).unwrap().remove(0);
    let b = unfused.run(vec![input]).unwrap().remove(0);
    (ops, a, b)
}

/// Every 8-bit value once in each of `rows` rows of 256.
fn every_value(rows: usize, signed: bool) -> Data {
    let bits = (0..rows * 256).map(|i| (i % 256) as u8);
    if signed {
        Data::I8(bits.map(|b| b as i8).collect())
    } else {
        Data::U8(bits.collect())
    }
}

#[test]
fn a_requantized_batch_norm_is_one_table_lookup_equal_to_the_float_ops() {
    for (storage, quantized, code, zero_point, signed) in [
        ("ui8", "!torch.quint8", 13, 7, false),
        ("si8", "!torch.qint8", 12, -7, true),
    ] {
        let x = Tensor::new(vec![1, 3, 16, 16], every_value(3, signed)).unwrap();
        let (ops, fused, unfused) =
            fused_and_unfused(&batch_norm(storage, quantized, code, zero_point), x);
        assert_eq!(
            ops,
            ["qlower.qlinear_lookup", "torch.aten.int_repr"],
            "{storage}"
        );
        assert_eq!(fused, unfused, "{storage}");
        // The channels differ: the table really is per channel.
        let values = fused.data.to_i64();
        assert_ne!(values[..256], values[256..512]);
    }
}

#[test]
fn a_gelu_between_quantizations_is_a_table_and_its_floats_are_too() {
    let x = || Tensor::new(vec![4, 64], every_value(1, false)).unwrap();
    let (ops, fused, unfused) = fused_and_unfused(&gelu(false), x());
    assert_eq!(ops, ["qlower.qlinear_lookup", "torch.aten.int_repr"]);
    assert_eq!(fused, unfused);
    let (ops, fused, unfused) = fused_and_unfused(&gelu(true), x());
    assert_eq!(ops, ["qlower.dequantized_lookup"]);
    assert_eq!(fused, unfused);
}

#[test]
fn a_float_read_elsewhere_or_a_second_input_keeps_the_float_ops() {
    // The erf is also returned: the chain stays, only its end can be a table.
    let shared = gelu(true)
        .replace(
            "return %g : !torch.vtensor<[4,64],f32>",
            "return %g, %e : !torch.vtensor<[4,64],f32>, !torch.vtensor<[4,64],f32>",
        )
        .replace(
            "-> !torch.vtensor<[4,64],f32> {",
            "-> (!torch.vtensor<[4,64],f32>, !torch.vtensor<[4,64],f32>) {",
        );
    let context = new_context();
    let plan = fused_plan(&context, parse_module(&context, &shared, "test").unwrap());
    assert!(
        plan.step_ops().contains(&"torch.aten.erf"),
        "{:?}",
        plan.step_ops()
    );
    // A second run-time input: no function of one tensor.
    let two = gelu(true)
        .replace(
            "(%arg0: !torch.vtensor<[4,64],ui8>)",
            "(%arg0: !torch.vtensor<[4,64],ui8>, %arg1: !torch.vtensor<[],f32>)",
        )
        .replace("(%x, %sqrt2)", "(%x, %arg1)");
    let plan = fused_plan(&context, parse_module(&context, &two, "test").unwrap());
    assert!(
        !plan.step_ops().iter().any(|o| o.contains("lookup")),
        "{:?}",
        plan.step_ops()
    );
}
