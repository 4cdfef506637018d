// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_logsoftmax_default_axis(
func.func @test_logsoftmax_default_axis(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LogSoftmax"} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
// CHECK: %[[Y:.+]] = "torch.aten.log_softmax.int"(%arg0, %[[DIM]], %[[NONE]]) : (!torch.vtensor<[3,4,5],f32>, !torch.int, !torch.none) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_logsoftmax_negative_axis(
func.func @test_logsoftmax_negative_axis(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LogSoftmax", torch.onnx.axis = -3 : si64} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: "torch.aten.log_softmax.int"(%arg0, %[[DIM]], %{{.+}}) : (!torch.vtensor<[3,4,5],f32>, !torch.int, !torch.none) -> !torch.vtensor<[3,4,5],f32>

// Before opset 13: coerced to 2-D at axis 1, as Softmax.
// CHECK-LABEL: func.func @test_logsoftmax_opset11(
func.func @test_logsoftmax_opset11(%arg0: !torch.vtensor<[2,3,4,5],f32>) -> !torch.vtensor<[2,3,4,5],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LogSoftmax"} : (!torch.vtensor<[2,3,4,5],f32>) -> !torch.vtensor<[2,3,4,5],f32>
  return %0 : !torch.vtensor<[2,3,4,5],f32>
}
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%{{.+}}, %{{.+}}, %{{.+}}) : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[START:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[END:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[FLAT:.+]] = "torch.aten.flatten.using_ints"(%arg0, %[[START]], %[[END]]) : (!torch.vtensor<[2,3,4,5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,60],f32>
// CHECK: %[[LSM:.+]] = "torch.aten.log_softmax.int"(%[[FLAT]], %[[START]], %{{.+}}) : (!torch.vtensor<[2,60],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,60],f32>
// CHECK: %[[Y:.+]] = "torch.aten.unflatten.int"(%[[LSM]], %[[START]], %[[SIZES]]) : (!torch.vtensor<[2,60],f32>, !torch.int, !torch.list<int>) -> !torch.vtensor<[2,3,4,5],f32>
// CHECK: return %[[Y]]
