// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Before opset 11 the bounds are float attributes.
// CHECK-LABEL: func.func @test_clip_attributes(
func.func @test_clip_attributes(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Clip", torch.onnx.max = 6.000000e+00 : f32, torch.onnx.min = 0.000000e+00 : f32} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[LO:.+]] = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
// CHECK: %[[HI:.+]] = "torch.constant.float"() {value = 6.000000e+00 : f64} : () -> !torch.float
// CHECK: %[[Y:.+]] = "torch.aten.clamp"(%arg0, %[[LO]], %[[HI]]) : (!torch.vtensor<[3,4],f32>, !torch.float, !torch.float) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// A missing bound attribute means no bound on that side.
// CHECK-LABEL: func.func @test_clip_attribute_min_only(
func.func @test_clip_attribute_min_only(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Clip", torch.onnx.min = -1.000000e+00 : f32} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[LO:.+]] = "torch.constant.float"() {value = -1.000000e+00 : f64}
// CHECK: %[[NONE:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: "torch.aten.clamp"(%arg0, %[[LO]], %[[NONE]]) : (!torch.vtensor<[3,4],f32>, !torch.float, !torch.none) -> !torch.vtensor<[3,4],f32>

// CHECK-LABEL: func.func @test_clip_attribute_max_only(
func.func @test_clip_attribute_max_only(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Clip", torch.onnx.max = 1.000000e+00 : f32} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[HI:.+]] = "torch.constant.float"() {value = 1.000000e+00 : f64}
// CHECK: "torch.aten.clamp"(%arg0, %[[NONE]], %[[HI]]) : (!torch.vtensor<[3,4],f32>, !torch.none, !torch.float) -> !torch.vtensor<[3,4],f32>

// From opset 11 the bounds are optional scalar inputs.
// CHECK-LABEL: func.func @test_clip(
func.func @test_clip(%arg0: !torch.vtensor<[3,4,5],f32>, %arg1: !torch.vtensor<[],f32>, %arg2: !torch.vtensor<[],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.Clip"} : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.clamp.Tensor"(%arg0, %arg1, %arg2) : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// Clip without min: the importer passes `none` for the skipped input.
// CHECK-LABEL: func.func @test_clip_default_min(
func.func @test_clip_default_min(%arg0: !torch.vtensor<[3,4,5],f32>, %arg1: !torch.vtensor<[],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %none, %arg1) {name = "onnx.Clip"} : (!torch.vtensor<[3,4,5],f32>, !torch.none, !torch.vtensor<[],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: "torch.aten.clamp.Tensor"(%arg0, %{{.+}}, %arg1) : (!torch.vtensor<[3,4,5],f32>, !torch.none, !torch.vtensor<[],f32>) -> !torch.vtensor<[3,4,5],f32>

// CHECK-LABEL: func.func @test_clip_default_max(
func.func @test_clip_default_max(%arg0: !torch.vtensor<[3,4,5],si32>, %arg1: !torch.vtensor<[],si32>) -> !torch.vtensor<[3,4,5],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Clip"} : (!torch.vtensor<[3,4,5],si32>, !torch.vtensor<[],si32>) -> !torch.vtensor<[3,4,5],si32>
  return %0 : !torch.vtensor<[3,4,5],si32>
}
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: "torch.aten.clamp.Tensor"(%arg0, %arg1, %[[NONE]]) : (!torch.vtensor<[3,4,5],si32>, !torch.vtensor<[],si32>, !torch.none) -> !torch.vtensor<[3,4,5],si32>

// Without bounds Clip copies its input.
// CHECK-LABEL: func.func @test_clip_no_bounds(
func.func @test_clip_no_bounds(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Clip"} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK-NOT: torch.aten.clamp
// CHECK: return %arg0

// Some exporters write the bounds as one-element 1-D tensors.
// CHECK-LABEL: func.func @test_clip_1d_bounds(
func.func @test_clip_1d_bounds(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %lo = "torch.vtensor.literal"() {value = dense<0.0> : tensor<1xf32>} : () -> !torch.vtensor<[1],f32>
  %hi = "torch.vtensor.literal"() {value = dense<6.0> : tensor<1xf32>} : () -> !torch.vtensor<[1],f32>
  %0 = "torch.operator"(%arg0, %lo, %hi) {name = "onnx.Clip"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[LO:.+]] = "torch.vtensor.literal"() {value = dense<0.000000e+00> : tensor<1xf32>}
// CHECK: %[[HI:.+]] = "torch.vtensor.literal"() {value = dense<6.000000e+00> : tensor<1xf32>}
// CHECK: "torch.aten.clamp.Tensor"(%arg0, %[[LO]], %[[HI]]) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[3,4],f32>
