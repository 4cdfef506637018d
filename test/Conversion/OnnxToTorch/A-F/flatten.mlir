// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Flatten collapses the dimensions after the axis, then those before it.
// CHECK-LABEL: func.func @test_flatten_axis2(
func.func @test_flatten_axis2(%arg0: !torch.vtensor<[2,3,4,5],f32>) -> !torch.vtensor<[6,20],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Flatten", torch.onnx.axis = 2 : si64} : (!torch.vtensor<[2,3,4,5],f32>) -> !torch.vtensor<[6,20],f32>
  return %0 : !torch.vtensor<[6,20],f32>
}
// CHECK: %[[A2:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[A3:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[RIGHT:.+]] = "torch.aten.flatten.using_ints"(%arg0, %[[A2]], %[[A3]]) : (!torch.vtensor<[2,3,4,5],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,3,20],f32>
// CHECK: %[[B0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[B1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.flatten.using_ints"(%[[RIGHT]], %[[B0]], %[[B1]]) : (!torch.vtensor<[2,3,20],f32>, !torch.int, !torch.int) -> !torch.vtensor<[6,20],f32>
// CHECK: return %[[Y]]

// Axis 0 gives [1, N]: the left range is empty and becomes a new leading dimension.
// CHECK-LABEL: func.func @test_flatten_axis0_dynamic(
func.func @test_flatten_axis0_dynamic(%arg0: !torch.vtensor<[2,?,4],f32>) -> !torch.vtensor<[1,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Flatten", torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2,?,4],f32>) -> !torch.vtensor<[1,?],f32>
  return %0 : !torch.vtensor<[1,?],f32>
}
// CHECK: %[[ALL:.+]] = "torch.aten.flatten.using_ints"(%arg0, %{{.+}}, %{{.+}}) : (!torch.vtensor<[2,?,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[?],f32>
// CHECK: %[[Z:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.unsqueeze"(%[[ALL]], %[[Z]]) : (!torch.vtensor<[?],f32>, !torch.int) -> !torch.vtensor<[1,?],f32>
// CHECK: return %[[Y]]

// Axis equal to the rank: the right range is empty and becomes a trailing 1.
// CHECK-LABEL: func.func @test_flatten_axis_rank(
func.func @test_flatten_axis_rank(%arg0: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[24,1],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Flatten", torch.onnx.axis = 3 : si64} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[24,1],f32>
  return %0 : !torch.vtensor<[24,1],f32>
}
// CHECK: %[[R:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[U:.+]] = "torch.aten.unsqueeze"(%arg0, %[[R]]) : (!torch.vtensor<[2,3,4],f32>, !torch.int) -> !torch.vtensor<[2,3,4,1],f32>
// CHECK: %[[Y:.+]] = "torch.aten.flatten.using_ints"(%[[U]], %{{.+}}, %{{.+}}) : (!torch.vtensor<[2,3,4,1],f32>, !torch.int, !torch.int) -> !torch.vtensor<[24,1],f32>
// CHECK: return %[[Y]]

// A negative axis counts from the back; the default axis 1 of a 4-D input only
// collapses the right range.
// CHECK-LABEL: func.func @test_flatten_negative_axis(
func.func @test_flatten_negative_axis(%arg0: !torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[12,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Flatten", torch.onnx.axis = -1 : si64} : (!torch.vtensor<[1,3,4,4],f32>) -> !torch.vtensor<[12,4],f32>
  return %0 : !torch.vtensor<[12,4],f32>
}
// CHECK: %[[S:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[E:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.flatten.using_ints"(%arg0, %[[S]], %[[E]]) : (!torch.vtensor<[1,3,4,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[12,4],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_flatten_default_axis(
func.func @test_flatten_default_axis(%arg0: !torch.vtensor<[1,64,1,1],f32>) -> !torch.vtensor<[1,64],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Flatten"} : (!torch.vtensor<[1,64,1,1],f32>) -> !torch.vtensor<[1,64],f32>
  return %0 : !torch.vtensor<[1,64],f32>
}
// CHECK: %[[S:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[E:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.flatten.using_ints"(%arg0, %[[S]], %[[E]]) : (!torch.vtensor<[1,64,1,1],f32>, !torch.int, !torch.int) -> !torch.vtensor<[1,64],f32>
// CHECK-NOT: torch.aten
// CHECK: return %[[Y]]

// A 2-D input with axis 1 is already flat.
// CHECK-LABEL: func.func @test_flatten_noop(
func.func @test_flatten_noop(%arg0: !torch.vtensor<[2,3],si8>) -> !torch.vtensor<[2,3],si8> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Flatten"} : (!torch.vtensor<[2,3],si8>) -> !torch.vtensor<[2,3],si8>
  return %0 : !torch.vtensor<[2,3],si8>
}
// CHECK-NOT: torch.operator
// CHECK: return %arg0
