// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// (Y_scale, Y_zero_point, then X, X_scale, X_zero_point per input): each input is
// dequantized with its own parameters, concatenated, and quantized with Y's.
// CHECK-LABEL: func.func @test_qlinearconcat(
func.func @test_qlinearconcat(%x: !torch.vtensor<[2,3],ui8>, %y: !torch.vtensor<[2,1],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>, %s2: !torch.vtensor<[],f32>, %z2: !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,4],ui8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%s, %z, %x, %s, %z, %y, %s2, %z2) {name = "com.microsoft.QLinearConcat", torch.onnx.axis = -1 : si64} : (!torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[2,3],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[2,1],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,4],ui8>
  return %0 : !torch.vtensor<[2,4],ui8>
}
// CHECK: %[[A:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %{{.+}}, %{{.+}}) : {{.*}} -> !torch.vtensor<[2,3],!torch.quint8>
// CHECK: %[[AF:.+]] = "torch.aten.dequantize.self"(%[[A]])
// CHECK: "torch.aten.item"(%arg4)
// CHECK: %[[B:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, {{.*}} -> !torch.vtensor<[2,1],!torch.quint8>
// CHECK: %[[BF:.+]] = "torch.aten.dequantize.self"(%[[B]])
// CHECK: %[[L:.+]] = "torch.prim.ListConstruct"(%[[AF]], %[[BF]])
// CHECK: %[[AX:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.cat"(%[[L]], %[[AX]]) : {{.*}} -> !torch.vtensor<[2,4],f32>
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%[[Y]],
// CHECK: "torch.aten.int_repr"(%[[Q]]) : (!torch.vtensor<[2,4],!torch.quint8>) -> !torch.vtensor<[2,4],ui8>
