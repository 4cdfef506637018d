// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Squeeze-13 takes axes as an input; one squeeze.dim per axis, from the last, so the
// remaining axes keep their positions. -2 of rank 4 is axis 2.
// CHECK-LABEL: func.func @test_squeeze_axes_input(
func.func @test_squeeze_axes_input(%arg0: !torch.vtensor<[1,3,1,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %a = "torch.vtensor.literal"() {value = dense<[0, -2]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %a) {name = "onnx.Squeeze"} : (!torch.vtensor<[1,3,1,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[A2:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[S:.+]] = "torch.aten.squeeze.dim"(%arg0, %[[A2]]) : (!torch.vtensor<[1,3,1,4],f32>, !torch.int) -> !torch.vtensor<[1,3,4],f32>
// CHECK: %[[A0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.squeeze.dim"(%[[S]], %[[A0]]) : (!torch.vtensor<[1,3,4],f32>, !torch.int) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// Squeeze-11 takes axes as an attribute.
// CHECK-LABEL: func.func @test_squeeze_axes_attribute(
func.func @test_squeeze_axes_attribute(%arg0: !torch.vtensor<[?,1,4],f32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Squeeze", torch.onnx.axes = [-2 : si64]} : (!torch.vtensor<[?,1,4],f32>) -> !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}
// CHECK: %[[A:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: "torch.aten.squeeze.dim"(%arg0, %[[A]]) : (!torch.vtensor<[?,1,4],f32>, !torch.int) -> !torch.vtensor<[?,4],f32>

// Without axes every dimension of size 1 goes.
// CHECK-LABEL: func.func @test_squeeze_all(
func.func @test_squeeze_all(%arg0: !torch.vtensor<[1,3,1,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Squeeze"} : (!torch.vtensor<[1,3,1,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.squeeze"(%arg0) : (!torch.vtensor<[1,3,1,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// One axis known only at run time: squeeze.dim takes it as a !torch.int.
// CHECK-LABEL: func.func @test_squeeze_run_time_axis(
func.func @test_squeeze_run_time_axis(%arg0: !torch.vtensor<[1,3,4],f32>, %arg1: !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Squeeze"} : (!torch.vtensor<[1,3,4],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?],f32>
  return %0 : !torch.vtensor<[?,?],f32>
}
// CHECK: %[[AXIS:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: "torch.aten.squeeze.dim"(%arg0, %[[AXIS]]) : (!torch.vtensor<[1,3,4],f32>, !torch.int) -> !torch.vtensor<[?,?],f32>
