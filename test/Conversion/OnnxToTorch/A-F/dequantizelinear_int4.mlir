// RUN: qlower-opt --split-input-file --convert-onnx-to-torch %s | FileCheck %s

// INT4 per tensor: torch has no 4-bit quantized type, so the integers and the zero point
// are widened to si8 (every 4-bit value is exact there) and dequantized as !torch.qint8.
// CHECK-LABEL: func.func @test_dequantizelinear_int4(
func.func @test_dequantizelinear_int4(%x: !torch.vtensor<[5],si4>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],si4>) -> !torch.vtensor<[5],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear"} : (!torch.vtensor<[5],si4>, !torch.vtensor<[],f32>, !torch.vtensor<[],si4>) -> !torch.vtensor<[5],f32>
  return %0 : !torch.vtensor<[5],f32>
}
// CHECK: %[[INT8:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[X:.+]] = "torch.aten.to.dtype"(%arg0, %[[INT8]], {{.+}} -> !torch.vtensor<[5],si8>
// CHECK: %[[Z:.+]] = "torch.aten.to.dtype"(%arg2, {{.+}} -> !torch.vtensor<[],si8>
// CHECK: %[[S:.+]] = "torch.aten.item"(%arg1)
// CHECK: %[[ZI:.+]] = "torch.aten.item"(%[[Z]])
// CHECK: %[[Q:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[X]], %[[S]], %[[ZI]]) {{.+}} -> !torch.vtensor<[5],!torch.qint8>
// CHECK: %[[Y:.+]] = "torch.aten.dequantize.self"(%[[Q]]) {{.+}} -> !torch.vtensor<[5],f32>
// CHECK: return %[[Y]]

// -----

// UINT4 per axis: widened to ui8 and dequantized as a per-channel !torch.quint8, with
// the scales, zero points and axis kept.
// CHECK-LABEL: func.func @test_dequantizelinear_uint4_per_axis(
func.func @test_dequantizelinear_uint4_per_axis(%x: !torch.vtensor<[2,3],ui4>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],ui4>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3],ui4>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],ui4>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
// CHECK: %[[X:.+]] = "torch.aten.to.dtype"(%arg0, {{.+}} -> !torch.vtensor<[2,3],ui8>
// CHECK: %[[Z:.+]] = "torch.aten.to.dtype"(%arg2, {{.+}} -> !torch.vtensor<[3],ui8>
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Q:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%[[X]], %arg1, %[[Z]], %[[AXIS]]) {{.+}} -> !torch.vtensor<[2,3],!torch.quint8>
// CHECK: "torch.aten.dequantize.self"(%[[Q]])

// -----

// Blocked INT4 weight (block_size 2 along axis 1, no zero point): a constant kept as an
// si4 literal, viewed as one row per block, widened and dequantized per row.
// CHECK-LABEL: func.func @test_dequantizelinear_int4_blocked(
func.func @test_dequantizelinear_int4_blocked(%s: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[2,4],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %w = "torch.vtensor.literal"() {value = dense<[[-8, 7, 0, 1], [2, -3, 4, -5]]> : tensor<2x4xsi4>} : () -> !torch.vtensor<[2,4],si4>
  %0 = "torch.operator"(%w, %s) {name = "onnx.DequantizeLinear", torch.onnx.axis = 1 : si64, torch.onnx.block_size = 2 : si64} : (!torch.vtensor<[2,4],si4>, !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[2,4],f32>
  return %0 : !torch.vtensor<[2,4],f32>
}
// CHECK: %[[W:.+]] = "torch.vtensor.literal"() {value = dense<{{\[\[}}-8, 7, 0, 1], [2, -3, 4, -5]]> : tensor<2x4xsi4>}
// CHECK: %[[ROWS:.+]] = "torch.aten.reshape"(%[[W]], {{.+}} -> !torch.vtensor<[4,2],si4>
// CHECK: %[[X:.+]] = "torch.aten.to.dtype"(%[[ROWS]], {{.+}} -> !torch.vtensor<[4,2],si8>
// CHECK: %[[ZERO:.+]] = "torch.vtensor.literal"() {value = dense<0> : tensor<4xsi8>}
// CHECK: %[[Q:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%[[X]], {{.+}}, %[[ZERO]], {{.+}} -> !torch.vtensor<[4,2],!torch.qint8>
// CHECK: %[[F:.+]] = "torch.aten.dequantize.self"(%[[Q]])
// CHECK: %[[Y:.+]] = "torch.aten.reshape"(%[[F]], {{.+}} -> !torch.vtensor<[2,4],f32>
// CHECK: return %[[Y]]
