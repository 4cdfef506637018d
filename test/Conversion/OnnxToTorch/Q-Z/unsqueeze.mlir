// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Axes count in the output's rank (-1 of rank 4 is 3) and are inserted in
// ascending order. Unsqueeze-11 takes them as an attribute.
// CHECK-LABEL: func.func @test_unsqueeze_axes_attribute(
func.func @test_unsqueeze_axes_attribute(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[1,3,4,1],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Unsqueeze", torch.onnx.axes = [-1 : si64, 0 : si64]} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[1,3,4,1],f32>
  return %0 : !torch.vtensor<[1,3,4,1],f32>
}
// CHECK: %[[A0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[U:.+]] = "torch.aten.unsqueeze"(%arg0, %[[A0]]) : (!torch.vtensor<[3,4],f32>, !torch.int) -> !torch.vtensor<[1,3,4],f32>
// CHECK: %[[A3:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.unsqueeze"(%[[U]], %[[A3]]) : (!torch.vtensor<[1,3,4],f32>, !torch.int) -> !torch.vtensor<[1,3,4,1],f32>
// CHECK: return %[[Y]]

// Unsqueeze-13 takes axes as an input.
// CHECK-LABEL: func.func @test_unsqueeze_axes_input(
func.func @test_unsqueeze_axes_input(%arg0: !torch.vtensor<[?,4],si64>) -> !torch.vtensor<[?,1,1,4],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %a = "torch.vtensor.literal"() {value = dense<[2, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %a) {name = "onnx.Unsqueeze"} : (!torch.vtensor<[?,4],si64>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,1,1,4],si64>
  return %0 : !torch.vtensor<[?,1,1,4],si64>
}
// CHECK: %[[A1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[U:.+]] = "torch.aten.unsqueeze"(%arg0, %[[A1]]) : (!torch.vtensor<[?,4],si64>, !torch.int) -> !torch.vtensor<[?,1,4],si64>
// CHECK: %[[A2:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: "torch.aten.unsqueeze"(%[[U]], %[[A2]]) : (!torch.vtensor<[?,1,4],si64>, !torch.int) -> !torch.vtensor<[?,1,1,4],si64>

// A scalar becomes a 1-element tensor.
// CHECK-LABEL: func.func @test_unsqueeze_scalar(
func.func @test_unsqueeze_scalar(%arg0: !torch.vtensor<[],si64>) -> !torch.vtensor<[1],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %a = "torch.vtensor.literal"() {value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = "torch.operator"(%arg0, %a) {name = "onnx.Unsqueeze"} : (!torch.vtensor<[],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1],si64>
  return %0 : !torch.vtensor<[1],si64>
}
// CHECK: "torch.aten.unsqueeze"(%arg0, %{{.+}}) : (!torch.vtensor<[],si64>, !torch.int) -> !torch.vtensor<[1],si64>

// One axis known only at run time: unsqueeze takes it as a !torch.int.
// CHECK-LABEL: func.func @test_unsqueeze_run_time_axis(
func.func @test_unsqueeze_run_time_axis(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Unsqueeze"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?,?],f32>
  return %0 : !torch.vtensor<[?,?,?],f32>
}
// CHECK: %[[AXIS:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: "torch.aten.unsqueeze"(%arg0, %[[AXIS]]) : (!torch.vtensor<[3,4],f32>, !torch.int) -> !torch.vtensor<[?,?,?],f32>

// Two axes known only at run time: a reshape whose sizes are 1 where an axis (made
// non-negative) names the position, else the data's next dimension.
// CHECK-LABEL: func.func @test_unsqueeze_run_time_axes(
func.func @test_unsqueeze_run_time_axes(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Unsqueeze"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?,?,?],f32>
  return %0 : !torch.vtensor<[?,?,?,?],f32>
}
// CHECK: %[[A0:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[A1:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: "torch.aten.lt.int"(%[[A0]], {{.*}}) : (!torch.int, !torch.int) -> !torch.bool
// CHECK: "torch.prim.min.int"
// CHECK: "torch.aten.size.int"(%arg0, {{.*}}) : (!torch.vtensor<[3,4],f32>, !torch.int) -> !torch.int
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"({{.*}}) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: "torch.aten.reshape"(%arg0, %[[SIZES]]) : (!torch.vtensor<[3,4],f32>, !torch.list<int>) -> !torch.vtensor<[?,?,?,?],f32>
