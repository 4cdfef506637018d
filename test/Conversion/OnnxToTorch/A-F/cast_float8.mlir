// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Cast to float8 saturates by default (opset 19's `saturate` = 1): a clamp to the
// format's largest finite value (57344 for E5M2) before to.dtype, which rounds to
// nearest even and maps overflow to infinity or NaN, as torch's float8 casts do.
// CHECK-LABEL: func.func @test_cast_float_to_e5m2(
// CHECK: %[[LO:.+]] = "torch.constant.float"() {value = -5.734400e+04 : f64}
// CHECK: %[[HI:.+]] = "torch.constant.float"() {value = 5.734400e+04 : f64}
// CHECK: %[[C:.+]] = "torch.aten.clamp"(%arg0, %[[LO]], %[[HI]])
// CHECK: %[[DT:.+]] = "torch.constant.int"() {value = 23 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%[[C]], %[[DT]], {{.+}} -> !torch.vtensor<[3],f8E5M2>
// CHECK: return %[[Y]]
func.func @test_cast_float_to_e5m2(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f8E5M2> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x) {name = "onnx.Cast", torch.onnx.to = 19 : si64} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f8E5M2>
  return %0 : !torch.vtensor<[3],f8E5M2>
}

// saturate = 0: the conversion alone.
// CHECK-LABEL: func.func @test_cast_no_saturate_f16_to_e4m3fnuz(
// CHECK-NOT: clamp
// CHECK: %[[DT:.+]] = "torch.constant.int"() {value = 26 : i64}
// CHECK: "torch.aten.to.dtype"(%arg0, %[[DT]], {{.+}} -> !torch.vtensor<[3],f8E4M3FNUZ>
func.func @test_cast_no_saturate_f16_to_e4m3fnuz(%x: !torch.vtensor<[3],f16>) -> !torch.vtensor<[3],f8E4M3FNUZ> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x) {name = "onnx.Cast", torch.onnx.saturate = 0 : si64, torch.onnx.to = 18 : si64} : (!torch.vtensor<[3],f16>) -> !torch.vtensor<[3],f8E4M3FNUZ>
  return %0 : !torch.vtensor<[3],f8E4M3FNUZ>
}

// An integer source goes through f32 so that the clamp compares floats.
// CHECK-LABEL: func.func @test_cast_int_to_e4m3fn(
// CHECK: %[[F:.+]] = "torch.aten.to.dtype"(%arg0, {{.+}} -> !torch.vtensor<[2],f32>
// CHECK: %[[C:.+]] = "torch.aten.clamp"(%[[F]],
// CHECK: "torch.aten.to.dtype"(%[[C]], {{.+}} -> !torch.vtensor<[2],f8E4M3FN>
func.func @test_cast_int_to_e4m3fn(%x: !torch.vtensor<[2],si32>) -> !torch.vtensor<[2],f8E4M3FN> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x) {name = "onnx.Cast", torch.onnx.to = 17 : si64} : (!torch.vtensor<[2],si32>) -> !torch.vtensor<[2],f8E4M3FN>
  return %0 : !torch.vtensor<[2],f8E4M3FN>
}

// From float8 the cast is exact: to.dtype alone (CastLike likewise).
// CHECK-LABEL: func.func @test_castlike_e4m3fn_to_float(
// CHECK-NOT: clamp
// CHECK: "torch.aten.to.dtype"(%arg0, {{.+}} -> !torch.vtensor<[2],f32>
func.func @test_castlike_e4m3fn_to_float(%x: !torch.vtensor<[2],f8E4M3FN>, %like: !torch.vtensor<[1],f32>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %like) {name = "onnx.CastLike"} : (!torch.vtensor<[2],f8E4M3FN>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}
