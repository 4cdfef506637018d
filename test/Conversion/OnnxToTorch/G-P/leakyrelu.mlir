// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_leakyrelu(
func.func @test_leakyrelu(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LeakyRelu", torch.onnx.alpha = 1.000000e-01 : f32} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 0.10000000149011612 : f64} : () -> !torch.float
// CHECK: %[[Y:.+]] = "torch.aten.leaky_relu"(%arg0, %[[ALPHA]]) : (!torch.vtensor<[3,4,5],f32>, !torch.float) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// alpha defaults to 0.01.
// CHECK-LABEL: func.func @test_leakyrelu_default(
func.func @test_leakyrelu_default(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.LeakyRelu"} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 1.000000e-02 : f64}
// CHECK: "torch.aten.leaky_relu"(%arg0, %[[ALPHA]]) : (!torch.vtensor<[3,4,5],f32>, !torch.float) -> !torch.vtensor<[3,4,5],f32>
