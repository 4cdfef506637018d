// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// (A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias): the zero points come after
// both scales; a missing b_zero_point is 0.
// CHECK-LABEL: func.func @test_matmulintegertofloat(
func.func @test_matmulintegertofloat(%a: !torch.vtensor<[2,4],ui8>, %b: !torch.vtensor<[4,3],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%a, %b, %s, %s, %z, %none) {name = "com.microsoft.MatMulIntegerToFloat"} : (!torch.vtensor<[2,4],ui8>, !torch.vtensor<[4,3],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.none) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
// CHECK: %[[A:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, {{.*}} -> !torch.vtensor<[2,4],!torch.quint8>
// CHECK: %[[AF:.+]] = "torch.aten.dequantize.self"(%[[A]])
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[B:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, %{{.+}}, %[[ZERO]]) : {{.*}} -> !torch.vtensor<[4,3],!torch.quint8>
// CHECK: %[[BF:.+]] = "torch.aten.dequantize.self"(%[[B]])
// CHECK: %[[Y:.+]] = "torch.aten.matmul"(%[[AF]], %[[BF]]) : {{.*}} -> !torch.vtensor<[2,3],f32>
// CHECK-NEXT: return %[[Y]]
