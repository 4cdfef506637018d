// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Identity is its input.
// CHECK-LABEL: func.func @test_identity(
func.func @test_identity(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Identity"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  %1 = "torch.operator"(%0) {name = "onnx.Relu"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %1 : !torch.vtensor<[3,4],f32>
}
// CHECK-NOT: torch.operator
// CHECK: %[[Y:.+]] = "torch.aten.relu"(%arg0)
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_identity_graph_output(
func.func @test_identity_graph_output(%arg0: !torch.vtensor<[2],si64>) -> !torch.vtensor<[2],si64> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Identity"} : (!torch.vtensor<[2],si64>) -> !torch.vtensor<[2],si64>
  return %0 : !torch.vtensor<[2],si64>
}
// CHECK-NEXT: return %arg0 : !torch.vtensor<[2],si64>

// An output typed more precisely than the input meets it in a static info cast.
// CHECK-LABEL: func.func @test_identity_refined(
func.func @test_identity_refined(%arg0: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Identity"} : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.tensor_static_info_cast"(%arg0) : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]
