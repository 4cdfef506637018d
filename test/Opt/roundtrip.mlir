// qlower-opt reads generic-form torch ops (unregistered dialect) and prints them back
// unchanged when no pass is named.
// RUN: qlower-opt %s | FileCheck %s
// RUN: qlower-opt %s | qlower-opt - | FileCheck %s

// CHECK-LABEL: func.func @roundtrip(
// CHECK-SAME: %arg0: !torch.vtensor<[1,3],f32> {onnx.name = "x"}
// CHECK: %[[L:.+]] = "torch.vtensor.literal"() {value = dense<[1, 2, 3]> : tensor<3xui8>} : () -> !torch.vtensor<[3],ui8>
// CHECK: %[[R:.+]] = "torch.operator"(%arg0, %[[L]]) {name = "onnx.Relu", torch.onnx.alpha = 1.000000e+00 : f32}
// CHECK: return %[[R]] : !torch.vtensor<[1,3],f32>
func.func @roundtrip(%arg0: !torch.vtensor<[1,3],f32> {onnx.name = "x"}) -> (!torch.vtensor<[1,3],f32> {onnx.name = "y"}) {
  %0 = "torch.vtensor.literal"() {value = dense<[1, 2, 3]> : tensor<3xui8>} : () -> !torch.vtensor<[3],ui8>
  %1 = "torch.operator"(%arg0, %0) {name = "onnx.Relu", torch.onnx.alpha = 1.0 : f32} : (!torch.vtensor<[1,3],f32>, !torch.vtensor<[3],ui8>) -> !torch.vtensor<[1,3],f32>
  return %1 : !torch.vtensor<[1,3],f32>
}
