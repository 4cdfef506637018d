// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_hardswish(
func.func @test_hardswish(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.HardSwish"} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.hardswish"(%arg0) : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_hardswish_dynamic_f16(
func.func @test_hardswish_dynamic_f16(%arg0: !torch.vtensor<[?,4],f16>) -> !torch.vtensor<[?,4],f16> attributes {torch.onnx_meta.opset_version = 22 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.HardSwish"} : (!torch.vtensor<[?,4],f16>) -> !torch.vtensor<[?,4],f16>
  return %0 : !torch.vtensor<[?,4],f16>
}
// CHECK: "torch.aten.hardswish"(%arg0) : (!torch.vtensor<[?,4],f16>) -> !torch.vtensor<[?,4],f16>
