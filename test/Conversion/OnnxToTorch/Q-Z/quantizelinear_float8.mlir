// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Float8 quantization has no torch quantized type, so it stays explicit arithmetic:
// x / scale, clamped to the format's finite range (saturate, the default), then
// to.dtype into float8 (24 is torch's Float8_e4m3fn). A constant zero zero point is
// left out: float8 zero points must be zero, and adding +0 would turn -0 into +0.
// CHECK-LABEL: func.func @test_quantizelinear_e4m3fn(
// CHECK: %[[S:.+]] = "torch.aten.reshape"(%arg1, %{{.+}}) : {{.+}} -> !torch.vtensor<[],f32>
// CHECK: %[[D:.+]] = "torch.aten.div.Tensor"(%arg0, %[[S]])
// CHECK-NOT: add.Tensor
// CHECK: %[[LO:.+]] = "torch.constant.float"() {value = -4.480000e+02 : f64}
// CHECK: %[[HI:.+]] = "torch.constant.float"() {value = 4.480000e+02 : f64}
// CHECK: %[[C:.+]] = "torch.aten.clamp"(%[[D]], %[[LO]], %[[HI]])
// CHECK: %[[DT:.+]] = "torch.constant.int"() {value = 24 : i64}
// CHECK: %[[Q:.+]] = "torch.aten.to.dtype"(%[[C]], %[[DT]], {{.+}} -> !torch.vtensor<[5],f8E4M3FN>
// CHECK: return %[[Q]]
func.func @test_quantizelinear_e4m3fn(%x: !torch.vtensor<[5],f32>, %s: !torch.vtensor<[],f32>) -> !torch.vtensor<[5],f8E4M3FN> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %z = "torch.vtensor.literal"() {value = dense<0.0> : tensor<f8E4M3FN>} : () -> !torch.vtensor<[],f8E4M3FN>
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear"} : (!torch.vtensor<[5],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f8E4M3FN>) -> !torch.vtensor<[5],f8E4M3FN>
  return %0 : !torch.vtensor<[5],f8E4M3FN>
}

// Per-axis, saturate = 0, and a zero point only known at run time: scale and zero
// point are reshaped along the axis, the zero point added in f32, and no clamp: the
// conversion itself maps overflow to infinity (E5M2, torch code 23).
// CHECK-LABEL: func.func @test_quantizelinear_e5m2_per_axis_no_saturate(
// CHECK: %[[S:.+]] = "torch.aten.reshape"(%arg1, %{{.+}}) : {{.+}} -> !torch.vtensor<[1,3],f32>
// CHECK: %[[D:.+]] = "torch.aten.div.Tensor"(%arg0, %[[S]])
// CHECK: %[[Z:.+]] = "torch.aten.reshape"(%arg2, %{{.+}}) : {{.+}} -> !torch.vtensor<[1,3],f8E5M2>
// CHECK: %[[ZF:.+]] = "torch.aten.to.dtype"(%[[Z]], {{.+}} -> !torch.vtensor<[1,3],f32>
// CHECK: %[[A:.+]] = "torch.aten.add.Tensor"(%[[D]], %[[ZF]],
// CHECK-NOT: clamp
// CHECK: %[[DT:.+]] = "torch.constant.int"() {value = 23 : i64}
// CHECK: %[[Q:.+]] = "torch.aten.to.dtype"(%[[A]], %[[DT]], {{.+}} -> !torch.vtensor<[2,3],f8E5M2>
// CHECK: return %[[Q]]
func.func @test_quantizelinear_e5m2_per_axis_no_saturate(%x: !torch.vtensor<[2,3],f32>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],f8E5M2>) -> !torch.vtensor<[2,3],f8E5M2> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear", torch.onnx.axis = 1 : si64, torch.onnx.saturate = 0 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f8E5M2>) -> !torch.vtensor<[2,3],f8E5M2>
  return %0 : !torch.vtensor<[2,3],f8E5M2>
}

// Without a zero point, output_dtype names the type: FNUZ formats clamp to their own
// maximum (240 for E4M3FNUZ, torch code 26).
// CHECK-LABEL: func.func @test_quantizelinear_output_dtype_e4m3fnuz(
// CHECK: "torch.constant.float"() {value = 2.400000e+02 : f64}
// CHECK: "torch.constant.int"() {value = 26 : i64}
// CHECK: "torch.aten.to.dtype"({{.+}} -> !torch.vtensor<[4],f8E4M3FNUZ>
func.func @test_quantizelinear_output_dtype_e4m3fnuz(%x: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f8E4M3FNUZ> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s) {name = "onnx.QuantizeLinear", torch.onnx.output_dtype = 18 : si64} : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f8E4M3FNUZ>
  return %0 : !torch.vtensor<[4],f8E4M3FNUZ>
}
