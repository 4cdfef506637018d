// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_relu(
func.func @test_relu(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Relu"} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.relu"(%arg0) : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_relu_dynamic_f16(
func.func @test_relu_dynamic_f16(%arg0: !torch.vtensor<[?,4],f16>) -> !torch.vtensor<[?,4],f16> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Relu"} : (!torch.vtensor<[?,4],f16>) -> !torch.vtensor<[?,4],f16>
  return %0 : !torch.vtensor<[?,4],f16>
}
// CHECK: "torch.aten.relu"(%arg0) : (!torch.vtensor<[?,4],f16>) -> !torch.vtensor<[?,4],f16>

// Relu takes integers from opset 14.
// CHECK-LABEL: func.func @test_relu_int8(
func.func @test_relu_int8(%arg0: !torch.vtensor<[8],si8>) -> !torch.vtensor<[8],si8> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Relu"} : (!torch.vtensor<[8],si8>) -> !torch.vtensor<[8],si8>
  return %0 : !torch.vtensor<[8],si8>
}
// CHECK: "torch.aten.relu"(%arg0) : (!torch.vtensor<[8],si8>) -> !torch.vtensor<[8],si8>
