// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_sigmoid(
func.func @test_sigmoid(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Sigmoid"} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.sigmoid"(%arg0) : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_sigmoid_dynamic_f16(
func.func @test_sigmoid_dynamic_f16(%arg0: !torch.vtensor<[?,4],f16>) -> !torch.vtensor<[?,4],f16> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Sigmoid"} : (!torch.vtensor<[?,4],f16>) -> !torch.vtensor<[?,4],f16>
  return %0 : !torch.vtensor<[?,4],f16>
}
// CHECK: "torch.aten.sigmoid"(%arg0) : (!torch.vtensor<[?,4],f16>) -> !torch.vtensor<[?,4],f16>
