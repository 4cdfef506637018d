// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_qlinearsigmoid(
func.func @test_qlinearsigmoid(%x: !torch.vtensor<[2,3],si8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],si8>) -> !torch.vtensor<[2,3],si8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%x, %s, %z, %s, %z) {name = "com.microsoft.QLinearSigmoid"} : (!torch.vtensor<[2,3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[2,3],si8>
  return %0 : !torch.vtensor<[2,3],si8>
}
// CHECK: %[[X:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, {{.*}} -> !torch.vtensor<[2,3],!torch.qint8>
// CHECK: %[[XF:.+]] = "torch.aten.dequantize.self"(%[[X]])
// CHECK: %[[Y:.+]] = "torch.aten.sigmoid"(%[[XF]]) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%[[Y]],
// CHECK: "torch.aten.int_repr"(%[[Q]]) : (!torch.vtensor<[2,3],!torch.qint8>) -> !torch.vtensor<[2,3],si8>
