// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_qlinearmatmul_per_tensor(
func.func @test_qlinearmatmul_per_tensor(%a: !torch.vtensor<[2,4],ui8>, %b: !torch.vtensor<[4,3],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],ui8> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%a, %s, %z, %b, %s, %z, %s, %z) {name = "onnx.QLinearMatMul"} : (!torch.vtensor<[2,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[4,3],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[2,3],ui8>
  return %0 : !torch.vtensor<[2,3],ui8>
}
// CHECK: %[[A:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, {{.*}} -> !torch.vtensor<[2,4],!torch.quint8>
// CHECK: %[[AF:.+]] = "torch.aten.dequantize.self"(%[[A]])
// CHECK: %[[B:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, {{.*}} -> !torch.vtensor<[4,3],!torch.quint8>
// CHECK: %[[BF:.+]] = "torch.aten.dequantize.self"(%[[B]])
// CHECK: %[[P:.+]] = "torch.aten.matmul"(%[[AF]], %[[BF]]) : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%[[P]],
// CHECK: "torch.aten.int_repr"(%[[Q]]) : (!torch.vtensor<[2,3],!torch.quint8>) -> !torch.vtensor<[2,3],ui8>

// Per-column b: its parameters stay per-channel along the last axis.
// CHECK-LABEL: func.func @test_qlinearmatmul_per_column(
func.func @test_qlinearmatmul_per_column(%a: !torch.vtensor<[2,4],si8>, %b: !torch.vtensor<[4,3],si8>, %bs: !torch.vtensor<[3],f32>, %bz: !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3],si8> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<1.0e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %z = "torch.vtensor.literal"() {value = dense<1> : tensor<si8>} : () -> !torch.vtensor<[],si8>
  %0 = "torch.operator"(%a, %s, %z, %b, %bs, %bz, %s, %z) {name = "onnx.QLinearMatMul"} : (!torch.vtensor<[2,4],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[4,3],si8>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[2,3],si8>
  return %0 : !torch.vtensor<[2,3],si8>
}
// CHECK: %[[AX:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: "torch.aten._make_per_channel_quantized_tensor"(%arg1, %arg2, %arg3, %[[AX]]) : {{.*}} -> !torch.vtensor<[4,3],!torch.qint8>
// CHECK: "torch.aten.matmul"
// CHECK: "torch.aten.quantize_per_tensor"({{.*}} -> !torch.vtensor<[2,3],!torch.qint8>
