// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_matmul_2d(
func.func @test_matmul_2d(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[3,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.MatMul"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[3,3],f32>
  return %0 : !torch.vtensor<[3,3],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.matmul"(%arg0, %arg1) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[3,3],f32>
// CHECK-NEXT: return %[[Y]]

// Batch dimensions broadcast, numpy-style.
// CHECK-LABEL: func.func @test_matmul_batched_broadcast(
func.func @test_matmul_batched_broadcast(%arg0: !torch.vtensor<[2,1,3,4],f32>, %arg1: !torch.vtensor<[5,4,6],f32>) -> !torch.vtensor<[2,5,3,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.MatMul"} : (!torch.vtensor<[2,1,3,4],f32>, !torch.vtensor<[5,4,6],f32>) -> !torch.vtensor<[2,5,3,6],f32>
  return %0 : !torch.vtensor<[2,5,3,6],f32>
}
// CHECK: "torch.aten.matmul"(%arg0, %arg1) : (!torch.vtensor<[2,1,3,4],f32>, !torch.vtensor<[5,4,6],f32>) -> !torch.vtensor<[2,5,3,6],f32>

// A 1-D operand is a vector; its dimension is dropped from the result.
// CHECK-LABEL: func.func @test_matmul_vector(
func.func @test_matmul_vector(%arg0: !torch.vtensor<[?,8,16],f32>, %arg1: !torch.vtensor<[16],f32>) -> !torch.vtensor<[?,8],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.MatMul"} : (!torch.vtensor<[?,8,16],f32>, !torch.vtensor<[16],f32>) -> !torch.vtensor<[?,8],f32>
  return %0 : !torch.vtensor<[?,8],f32>
}
// CHECK: "torch.aten.matmul"(%arg0, %arg1) : (!torch.vtensor<[?,8,16],f32>, !torch.vtensor<[16],f32>) -> !torch.vtensor<[?,8],f32>

// CHECK-LABEL: func.func @test_matmul_int32(
func.func @test_matmul_int32(%arg0: !torch.vtensor<[2,3],si32>, %arg1: !torch.vtensor<[3,2],si32>) -> !torch.vtensor<[2,2],si32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.MatMul"} : (!torch.vtensor<[2,3],si32>, !torch.vtensor<[3,2],si32>) -> !torch.vtensor<[2,2],si32>
  return %0 : !torch.vtensor<[2,2],si32>
}
// CHECK: "torch.aten.matmul"(%arg0, %arg1) : (!torch.vtensor<[2,3],si32>, !torch.vtensor<[3,2],si32>) -> !torch.vtensor<[2,2],si32>
// CHECK-NOT: torch.operator
