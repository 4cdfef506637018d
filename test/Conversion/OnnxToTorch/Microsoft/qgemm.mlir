// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Per-column B stored transposed (transB = 1): its parameters are per channel along
// axis 0. The int32 bias C is at scale a_scale·b_scale; alpha scales the biased sum.
// CHECK-LABEL: func.func @test_qgemm_quantized(
func.func @test_qgemm_quantized(%a: !torch.vtensor<[2,4],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>, %b: !torch.vtensor<[3,4],si8>, %bs: !torch.vtensor<[3],f32>, %bz: !torch.vtensor<[3],si8>, %c: !torch.vtensor<[3],si32>) -> !torch.vtensor<[2,3],ui8> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%a, %s, %z, %b, %bs, %bz, %c, %s, %z) {name = "com.microsoft.QGemm", torch.onnx.alpha = 5.000000e-01 : f32, torch.onnx.transB = 1 : si64} : (!torch.vtensor<[2,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[3,4],si8>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>, !torch.vtensor<[3],si32>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],ui8>
  return %0 : !torch.vtensor<[2,3],ui8>
}
// CHECK: %[[AF:.+]] = "torch.aten.dequantize.self"({{.*}} -> !torch.vtensor<[2,4],f32>
// CHECK: %[[AX:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[B:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%arg3, %arg4, %arg5, %[[AX]]) : {{.*}} -> !torch.vtensor<[3,4],!torch.qint8>
// CHECK: %[[BF:.+]] = "torch.aten.dequantize.self"(%[[B]])
// CHECK: %[[BT:.+]] = "torch.aten.transpose.int"(%[[BF]], {{.*}} -> !torch.vtensor<[4,3],f32>
// CHECK: %[[MM:.+]] = "torch.aten.mm"(%[[AF]], %[[BT]]) : {{.*}} -> !torch.vtensor<[2,3],f32>
// CHECK: %[[CF:.+]] = "torch.aten.to.dtype"(%arg6, {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: %[[CS:.+]] = "torch.aten.mul.Tensor"(%arg4, %arg1) : {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: %[[C:.+]] = "torch.aten.mul.Tensor"(%[[CF]], %[[CS]])
// CHECK: %[[SUM:.+]] = "torch.aten.add.Tensor"(%[[MM]], %[[C]],
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK: %[[Y:.+]] = "torch.aten.mul.Scalar"(%[[SUM]], %[[ALPHA]])
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%[[Y]],
// CHECK: "torch.aten.int_repr"(%[[Q]]) : (!torch.vtensor<[2,3],!torch.quint8>) -> !torch.vtensor<[2,3],ui8>

// Without y_scale and y_zero_point the result is FLOAT.
// CHECK-LABEL: func.func @test_qgemm_float(
func.func @test_qgemm_float(%a: !torch.vtensor<[4,2],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>, %b: !torch.vtensor<[4,3],ui8>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%a, %s, %z, %b, %s, %z, %none) {name = "com.microsoft.QGemm", torch.onnx.transA = 1 : si64} : (!torch.vtensor<[4,2],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[4,3],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.none) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
// CHECK: %[[AF:.+]] = "torch.aten.dequantize.self"({{.*}} -> !torch.vtensor<[4,2],f32>
// CHECK: %[[BF:.+]] = "torch.aten.dequantize.self"({{.*}} -> !torch.vtensor<[4,3],f32>
// CHECK: %[[AT:.+]] = "torch.aten.transpose.int"(%[[AF]], {{.*}} -> !torch.vtensor<[2,4],f32>
// CHECK: %[[Y:.+]] = "torch.aten.mm"(%[[AT]], %[[BF]])
// CHECK-NEXT: return %[[Y]] : !torch.vtensor<[2,3],f32>
