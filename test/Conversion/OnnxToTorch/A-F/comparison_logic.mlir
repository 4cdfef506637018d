// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_compare(
func.func @test_compare(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>) attributes {torch.onnx_meta.opset_version = 16 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Equal"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],i1>
  %1 = "torch.operator"(%arg0, %arg1) {name = "onnx.Less"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],i1>
  %2 = "torch.operator"(%arg0, %arg1) {name = "onnx.Greater"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],i1>
  %3 = "torch.operator"(%arg0, %arg1) {name = "onnx.LessOrEqual"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],i1>
  %4 = "torch.operator"(%arg0, %arg1) {name = "onnx.GreaterOrEqual"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],i1>
  return %0, %1, %2, %3, %4 : !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>
}
// CHECK: %[[V0:.+]] = "torch.aten.eq.Tensor"(%arg0, %arg1) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],i1>
// CHECK: %[[V1:.+]] = "torch.aten.lt.Tensor"(%arg0, %arg1) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],i1>
// CHECK: %[[V2:.+]] = "torch.aten.gt.Tensor"(%arg0, %arg1) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],i1>
// CHECK: %[[V3:.+]] = "torch.aten.le.Tensor"(%arg0, %arg1) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],i1>
// CHECK: %[[V4:.+]] = "torch.aten.ge.Tensor"(%arg0, %arg1) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],i1>
// CHECK: return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]] : !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>

// CHECK-LABEL: func.func @test_logic(
func.func @test_logic(%arg0: !torch.vtensor<[3,4],i1>, %arg1: !torch.vtensor<[3,1],i1>) -> (!torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>) attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.And"} : (!torch.vtensor<[3,4],i1>, !torch.vtensor<[3,1],i1>) -> !torch.vtensor<[3,4],i1>
  %1 = "torch.operator"(%arg0, %arg1) {name = "onnx.Or"} : (!torch.vtensor<[3,4],i1>, !torch.vtensor<[3,1],i1>) -> !torch.vtensor<[3,4],i1>
  %2 = "torch.operator"(%arg0, %arg1) {name = "onnx.Xor"} : (!torch.vtensor<[3,4],i1>, !torch.vtensor<[3,1],i1>) -> !torch.vtensor<[3,4],i1>
  %3 = "torch.operator"(%arg0) {name = "onnx.Not"} : (!torch.vtensor<[3,4],i1>) -> !torch.vtensor<[3,4],i1>
  return %0, %1, %2, %3 : !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>
}
// CHECK: %[[V0:.+]] = "torch.aten.logical_and"(%arg0, %arg1) : (!torch.vtensor<[3,4],i1>, !torch.vtensor<[3,1],i1>) -> !torch.vtensor<[3,4],i1>
// CHECK: %[[V1:.+]] = "torch.aten.logical_or"(%arg0, %arg1) : (!torch.vtensor<[3,4],i1>, !torch.vtensor<[3,1],i1>) -> !torch.vtensor<[3,4],i1>
// CHECK: %[[V2:.+]] = "torch.aten.logical_xor"(%arg0, %arg1) : (!torch.vtensor<[3,4],i1>, !torch.vtensor<[3,1],i1>) -> !torch.vtensor<[3,4],i1>
// CHECK: %[[V3:.+]] = "torch.aten.logical_not"(%arg0) : (!torch.vtensor<[3,4],i1>) -> !torch.vtensor<[3,4],i1>
// CHECK: return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],i1>

// CHECK-LABEL: func.func @test_where(
// An additive attention mask: Where picks the lowest f32 where the mask is false.
func.func @test_where(%arg0: !torch.vtensor<[1,4],i1>, %arg1: !torch.vtensor<[2,4],f32>, %arg2: !torch.vtensor<[],f32>) -> !torch.vtensor<[2,4],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.Where"} : (!torch.vtensor<[1,4],i1>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,4],f32>
  return %0 : !torch.vtensor<[2,4],f32>
}
// CHECK: %[[V0:.+]] = "torch.aten.where.self"(%arg0, %arg1, %arg2) : (!torch.vtensor<[1,4],i1>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,4],f32>
// CHECK: return %[[V0]] : !torch.vtensor<[2,4],f32>

// CHECK-LABEL: func.func @test_variadic(
// Variadic ops chain left to right; each step is typed by the broadcast so far.
func.func @test_variadic(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.vtensor<[2,1],f32>, %arg2: !torch.vtensor<[1],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.Min"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[2,3],f32>
  %1 = "torch.operator"(%arg0, %arg1) {name = "onnx.Max"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,1],f32>) -> !torch.vtensor<[2,3],f32>
  %2 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.Sum"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[2,3],f32>
  %3 = "torch.operator"(%arg0) {name = "onnx.Max"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0, %1, %2, %3 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>
}
// CHECK: %[[V0:.+]] = "torch.aten.minimum"(%arg0, %arg1) : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,1],f32>) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[V1:.+]] = "torch.aten.minimum"(%[[V0]], %arg2) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[V2:.+]] = "torch.aten.maximum"(%arg0, %arg1) : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,1],f32>) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[V3:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V4:.+]] = "torch.aten.add.Tensor"(%arg0, %arg1, %[[V3]]) : (!torch.vtensor<[3],f32>, !torch.vtensor<[2,1],f32>, !torch.int) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[V5:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V6:.+]] = "torch.aten.add.Tensor"(%[[V4]], %arg2, %[[V5]]) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[1],f32>, !torch.int) -> !torch.vtensor<[2,3],f32>
// CHECK: return %[[V1]], %[[V2]], %[[V6]], %arg0 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>
