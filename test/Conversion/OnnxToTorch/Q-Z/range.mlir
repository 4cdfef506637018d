// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Constant bounds: arange with constants, which folding evaluates.
// CHECK-LABEL: func.func @test_range_int_constant(
func.func @test_range_int_constant() -> !torch.vtensor<[3],si64> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<1> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %l = "torch.vtensor.literal"() {value = dense<8> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %d = "torch.vtensor.literal"() {value = dense<3> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %0 = "torch.operator"(%s, %l, %d) {name = "onnx.Range"} : (!torch.vtensor<[],si64>, !torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[3],si64>
  return %0 : !torch.vtensor<[3],si64>
}
// CHECK: %[[START:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[LIMIT:.+]] = "torch.constant.int"() {value = 8 : i64}
// CHECK: %[[DELTA:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK: %[[NONE:.+]] = "torch.constant.none"
// CHECK: %[[Y:.+]] = "torch.aten.arange.start_step"(%[[START]], %[[LIMIT]], %[[DELTA]], %[[DTYPE]], %[[NONE]], %[[NONE]], %[[NONE]]) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[3],si64>
// CHECK: return %[[Y]]

// A limit known only at run time (YOLO's anchor grids): read with item as !torch.float.
// CHECK-LABEL: func.func @test_range_float_run_time(
func.func @test_range_float_run_time(%arg0: !torch.vtensor<[],f32>) -> !torch.vtensor<[?],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<0.5> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %d = "torch.vtensor.literal"() {value = dense<1.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %0 = "torch.operator"(%s, %arg0, %d) {name = "onnx.Range"} : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}
// CHECK: %[[START:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK: %[[LIMIT:.+]] = "torch.aten.item"(%arg0) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: %[[DELTA:.+]] = "torch.constant.float"() {value = 1.000000e+00 : f64}
// CHECK: %[[DTYPE:.+]] = "torch.constant.int"() {value = 6 : i64}
// CHECK: "torch.aten.arange.start_step"(%[[START]], %[[LIMIT]], %[[DELTA]], %[[DTYPE]], {{.*}}) : (!torch.float, !torch.float, !torch.float, !torch.int, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[?],f32>
