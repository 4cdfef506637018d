// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// QLinearMul broadcasts B onto A; both are dequantized, multiplied in float, and the product
// quantized with C's parameters.
// CHECK-LABEL: func.func @test_qlinearmul(
func.func @test_qlinearmul(%a: !torch.vtensor<[2,3],ui8>, %b: !torch.vtensor<[3],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],ui8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%a, %s, %z, %b, %s, %z, %s, %z) {name = "com.microsoft.QLinearMul"} : (!torch.vtensor<[2,3],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[3],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],ui8>
  return %0 : !torch.vtensor<[2,3],ui8>
}
// CHECK: %[[A:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, {{.*}} -> !torch.vtensor<[2,3],!torch.quint8>
// CHECK: %[[AF:.+]] = "torch.aten.dequantize.self"(%[[A]])
// CHECK: %[[B:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, {{.*}} -> !torch.vtensor<[3],!torch.quint8>
// CHECK: %[[BF:.+]] = "torch.aten.dequantize.self"(%[[B]])
// CHECK: %[[Y:.+]] = "torch.aten.mul.Tensor"(%[[AF]], %[[BF]]) : {{.*}} -> !torch.vtensor<[2,3],f32>
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%[[Y]],
// CHECK: "torch.aten.int_repr"(%[[Q]]) : (!torch.vtensor<[2,3],!torch.quint8>) -> !torch.vtensor<[2,3],ui8>
