// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_mul(
func.func @test_mul(%arg0: !torch.vtensor<[3,4,5],f32>, %arg1: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Mul"} : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.mul.Tensor"(%arg0, %arg1) : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_mul_bcast(
func.func @test_mul_bcast(%arg0: !torch.vtensor<[?,3,1],f32>, %arg1: !torch.vtensor<[5],f32>) -> !torch.vtensor<[?,3,5],f32> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Mul"} : (!torch.vtensor<[?,3,1],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[?,3,5],f32>
  return %0 : !torch.vtensor<[?,3,5],f32>
}
// CHECK: "torch.aten.mul.Tensor"(%arg0, %arg1) : (!torch.vtensor<[?,3,1],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[?,3,5],f32>

// CHECK-LABEL: func.func @test_mul_legacy_axis(
func.func @test_mul_legacy_axis(%arg0: !torch.vtensor<[2,3,4,5],f32>, %arg1: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[2,3,4,5],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Mul", torch.onnx.axis = 1 : si64, torch.onnx.broadcast = 1 : si64} : (!torch.vtensor<[2,3,4,5],f32>, !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[2,3,4,5],f32>
  return %0 : !torch.vtensor<[2,3,4,5],f32>
}
// CHECK: %[[B:.+]] = "torch.aten.unsqueeze"(%arg1, %{{.+}}) : (!torch.vtensor<[3,4],f32>, !torch.int) -> !torch.vtensor<[3,4,1],f32>
// CHECK: "torch.aten.mul.Tensor"(%arg0, %[[B]]) : (!torch.vtensor<[2,3,4,5],f32>, !torch.vtensor<[3,4,1],f32>) -> !torch.vtensor<[2,3,4,5],f32>

// Without `broadcast`, legacy operands have equal shapes.
// CHECK-LABEL: func.func @test_mul_legacy_same_shape(
func.func @test_mul_legacy_same_shape(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Mul", torch.onnx.consumed_inputs = [0 : si64, 0 : si64]} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
// CHECK: "torch.aten.mul.Tensor"(%arg0, %arg1) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
