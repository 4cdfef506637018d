// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_dequantizelinear_per_tensor(
func.func @test_dequantizelinear_per_tensor(%x: !torch.vtensor<[6],ui8>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[6],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear"} : (!torch.vtensor<[6],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[6],f32>
  return %0 : !torch.vtensor<[6],f32>
}
// CHECK: %[[S:.+]] = "torch.aten.item"(%arg1) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: %[[Z:.+]] = "torch.aten.item"(%arg2) : (!torch.vtensor<[],ui8>) -> !torch.int
// CHECK: %[[Q:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %[[S]], %[[Z]]) : (!torch.vtensor<[6],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[6],!torch.quint8>
// CHECK: %[[F:.+]] = "torch.aten.dequantize.self"(%[[Q]]) : (!torch.vtensor<[6],!torch.quint8>) -> !torch.vtensor<[6],f32>
// CHECK: return %[[F]]

// Per-axis along axis 1: the axis survives as the operand of
// _make_per_channel_quantized_tensor, with the scale and zero point tensors.
// CHECK-LABEL: func.func @test_dequantizelinear_axis1(
func.func @test_dequantizelinear_axis1(%x: !torch.vtensor<[2,3,4],si8>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3,4],si8>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}
// CHECK: %[[AX:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Q:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%arg0, %arg1, %arg2, %[[AX]]) : (!torch.vtensor<[2,3,4],si8>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>, !torch.int) -> !torch.vtensor<[2,3,4],!torch.qint8>
// CHECK: "torch.aten.dequantize.self"(%[[Q]]) : (!torch.vtensor<[2,3,4],!torch.qint8>) -> !torch.vtensor<[2,3,4],f32>

// A negative axis is normalized: -1 of a rank-3 tensor is axis 2.
// CHECK-LABEL: func.func @test_dequantizelinear_negative_axis(
func.func @test_dequantizelinear_negative_axis(%x: !torch.vtensor<[2,3,4],ui8>, %s: !torch.vtensor<[4],f32>, %z: !torch.vtensor<[4],ui8>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear", torch.onnx.axis = -1 : si64} : (!torch.vtensor<[2,3,4],ui8>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],ui8>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}
// CHECK: %[[AX:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: "torch.aten._make_per_channel_quantized_tensor"(%arg0, %arg1, %arg2, %[[AX]]) : {{.*}} -> !torch.vtensor<[2,3,4],!torch.quint8>

// int32 input (a quantized bias) dequantizes through qint32, zero point 0.
// CHECK-LABEL: func.func @test_dequantizelinear_int32(
func.func @test_dequantizelinear_int32(%x: !torch.vtensor<[5],si32>, %s: !torch.vtensor<[],f32>) -> !torch.vtensor<[5],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s) {name = "onnx.DequantizeLinear"} : (!torch.vtensor<[5],si32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[5],f32>
  return %0 : !torch.vtensor<[5],f32>
}
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %{{.+}}, %[[ZERO]]) : (!torch.vtensor<[5],si32>, !torch.float, !torch.int) -> !torch.vtensor<[5],!torch.qint32>
