// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_shape(
func.func @test_shape(%arg0: !torch.vtensor<[2,?,4],f32>) -> !torch.vtensor<[3],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Shape"} : (!torch.vtensor<[2,?,4],f32>) -> !torch.vtensor<[3],si64>
  return %0 : !torch.vtensor<[3],si64>
}
// CHECK: %[[Y:.+]] = "torch.aten._shape_as_tensor"(%arg0) : (!torch.vtensor<[2,?,4],f32>) -> !torch.vtensor<[3],si64>
// CHECK: return %[[Y]]

// Shape-15's start and end pick part of the shape; negative bounds count from the back.
// CHECK-LABEL: func.func @test_shape_start_negative(
func.func @test_shape_start_negative(%arg0: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2],si64> attributes {torch.onnx_meta.opset_version = 15 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Shape", torch.onnx.start = -2 : si64} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[2],si64>
  return %0 : !torch.vtensor<[2],si64>
}
// CHECK: %[[FULL:.+]] = "torch.aten._shape_as_tensor"(%arg0) : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[3],si64>
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[START:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[END:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[STEP:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.slice.Tensor"(%[[FULL]], %[[DIM]], %[[START]], %[[END]], %[[STEP]]) : (!torch.vtensor<[3],si64>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2],si64>
// CHECK: return %[[Y]]

// Bounds beyond the rank are clamped.
// CHECK-LABEL: func.func @test_shape_clamped(
func.func @test_shape_clamped(%arg0: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[1],si64> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Shape", torch.onnx.start = -10 : si64, torch.onnx.end = 1 : si64} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[1],si64>
  return %0 : !torch.vtensor<[1],si64>
}
// CHECK: %[[FULL:.+]] = "torch.aten._shape_as_tensor"(%arg0)
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[START:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[END:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[STEP:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: "torch.aten.slice.Tensor"(%[[FULL]], %[[DIM]], %[[START]], %[[END]], %[[STEP]]) : (!torch.vtensor<[3],si64>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[1],si64>
