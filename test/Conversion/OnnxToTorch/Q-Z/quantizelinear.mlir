// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_quantizelinear_per_tensor(
func.func @test_quantizelinear_per_tensor(%x: !torch.vtensor<[6],f32>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[6],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear"} : (!torch.vtensor<[6],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[6],ui8>
  return %0 : !torch.vtensor<[6],ui8>
}
// CHECK: %[[DT:.+]] = "torch.constant.int"() {value = 13 : i64}
// CHECK: %[[S:.+]] = "torch.aten.item"(%arg1) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: %[[Z:.+]] = "torch.aten.item"(%arg2) : (!torch.vtensor<[],ui8>) -> !torch.int
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%arg0, %[[S]], %[[Z]], %[[DT]]) : (!torch.vtensor<[6],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[6],!torch.quint8>
// CHECK: %[[R:.+]] = "torch.aten.int_repr"(%[[Q]]) : (!torch.vtensor<[6],!torch.quint8>) -> !torch.vtensor<[6],ui8>
// CHECK: return %[[R]]

// Per-axis with a negative axis: quantize_per_channel along the normalized axis (1)
// with the scale and zero point tensors as they are, then int_repr, the form
// torch-mlir's own ONNX importer writes. (`--target` decomposes it into ONNX's
// arithmetic: test/Transforms/decompose_quantize_per_channel.mlir.)
// CHECK-LABEL: func.func @test_quantizelinear_per_axis_negative(
// CHECK: %[[DT:.+]] = "torch.constant.int"() {value = 12 : i64}
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_channel"(%arg0, %arg1, %arg2, %[[AXIS]], %[[DT]]) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>, !torch.int, !torch.int) -> !torch.vtensor<[2,3,4],!torch.qint8>
// CHECK: %[[I:.+]] = "torch.aten.int_repr"(%[[Q]]) : (!torch.vtensor<[2,3,4],!torch.qint8>) -> !torch.vtensor<[2,3,4],si8>
// CHECK: return %[[I]]
func.func @test_quantizelinear_per_axis_negative(%x: !torch.vtensor<[2,3,4],f32>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3,4],si8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear", torch.onnx.axis = -2 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3,4],si8>
  return %0 : !torch.vtensor<[2,3,4],si8>
}

// Without a zero point the output is uint8 with zero point 0.
// CHECK-LABEL: func.func @test_quantizelinear_default_zero_point(
func.func @test_quantizelinear_default_zero_point(%x: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[],f32>) -> !torch.vtensor<[4],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s) {name = "onnx.QuantizeLinear"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],ui8>
  return %0 : !torch.vtensor<[4],ui8>
}
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: "torch.aten.quantize_per_tensor"(%arg0, %{{.+}}, %[[ZERO]], %{{.+}}) : {{.*}} -> !torch.vtensor<[4],!torch.quint8>

// output_dtype (opset 21) chooses int8 when there is no zero point.
// CHECK-LABEL: func.func @test_quantizelinear_output_dtype(
func.func @test_quantizelinear_output_dtype(%x: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[],f32>) -> !torch.vtensor<[4],si8> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s) {name = "onnx.QuantizeLinear", torch.onnx.output_dtype = 3 : si64} : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],si8>
  return %0 : !torch.vtensor<[4],si8>
}
// CHECK: "torch.aten.quantize_per_tensor"({{.*}} -> !torch.vtensor<[4],!torch.qint8>
// CHECK: "torch.aten.int_repr"({{.*}} -> !torch.vtensor<[4],si8>

// Per-axis to int32 (opset 21): quantize_per_channel to !torch.qint32 (ScalarType 14).
// CHECK-LABEL: func.func @test_quantizelinear_int32_per_axis(
// CHECK: %[[DT:.+]] = "torch.constant.int"() {value = 14 : i64}
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_channel"(%arg0, %arg1, %arg2, %{{.+}}, %[[DT]]) : {{.+}} -> !torch.vtensor<[2,3],!torch.qint32>
// CHECK: %[[I:.+]] = "torch.aten.int_repr"(%[[Q]]) : {{.+}} -> !torch.vtensor<[2,3],si32>
// CHECK: return %[[I]]
func.func @test_quantizelinear_int32_per_axis(%x: !torch.vtensor<[2,3],f32>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],si32>) -> !torch.vtensor<[2,3],si32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si32>) -> !torch.vtensor<[2,3],si32>
  return %0 : !torch.vtensor<[2,3],si32>
}

// 16-bit (opset 21): torch has no UINT16 quantized type, so QuantizeLinear is the
// arithmetic ONNX defines with the scalar scale and zero point, saturated to
// [0, 65535] and converted through si32.
// CHECK-LABEL: func.func @test_quantizelinear_uint16(
func.func @test_quantizelinear_uint16(%x: !torch.vtensor<[6],f32>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui16>) -> !torch.vtensor<[6],ui16> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear"} : (!torch.vtensor<[6],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui16>) -> !torch.vtensor<[6],ui16>
  return %0 : !torch.vtensor<[6],ui16>
}
// CHECK-NOT: quantize_per_tensor
// CHECK: %[[D:.+]] = "torch.aten.div.Tensor"(%arg0, {{.+}}) : (!torch.vtensor<[6],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[6],f32>
// CHECK: %[[R:.+]] = "torch.aten.round"(%[[D]])
// CHECK: %[[A:.+]] = "torch.aten.add.Tensor"(%[[R]],
// CHECK: %[[HI:.+]] = "torch.constant.float"() {value = 6.553500e+04 : f64}
// CHECK: %[[C:.+]] = "torch.aten.clamp"(%[[A]], %{{.+}}, %[[HI]])
// CHECK: %[[W:.+]] = "torch.aten.to.dtype"(%[[C]], {{.+}} -> !torch.vtensor<[6],si32>
// CHECK: %[[Y:.+]] = "torch.aten.to.dtype"(%[[W]], {{.+}} -> !torch.vtensor<[6],ui16>
// CHECK: return %[[Y]]

// 16-bit DequantizeLinear, per axis: the integers and zero points widened to si32 and
// dequantized as !torch.qint32 (every 16-bit value is exact in it), with the scales,
// zero points and axis kept.
// CHECK-LABEL: func.func @test_dequantizelinear_int16_per_axis(
func.func @test_dequantizelinear_int16_per_axis(%x: !torch.vtensor<[2,3],si16>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],si16>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3],si16>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si16>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
// CHECK: %[[X:.+]] = "torch.aten.to.dtype"(%arg0, {{.+}} -> !torch.vtensor<[2,3],si32>
// CHECK: %[[Z:.+]] = "torch.aten.to.dtype"(%arg2, {{.+}} -> !torch.vtensor<[3],si32>
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Q:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%[[X]], %arg1, %[[Z]], %[[AXIS]]) : {{.+}} -> !torch.vtensor<[2,3],!torch.qint32>
// CHECK: %[[Y:.+]] = "torch.aten.dequantize.self"(%[[Q]]) : (!torch.vtensor<[2,3],!torch.qint32>) -> !torch.vtensor<[2,3],f32>
// CHECK: return %[[Y]]

// Blocked DequantizeLinear (block_size 2 along axis 1 of [2,5]: 3 blocks, the last one
// partial): the axis moved last, padded to whole blocks and viewed as one row per
// block, each row a channel of axis 0 with its own scale and zero point; then the rows
// are put back in x's shape. The axis is already last, so nothing is permuted.
// CHECK-LABEL: func.func @test_dequantizelinear_blocked(
// CHECK-NOT: permute
func.func @test_dequantizelinear_blocked(%x: !torch.vtensor<[2,5],ui8>, %s: !torch.vtensor<[2,3],f32>, %z: !torch.vtensor<[2,3],ui8>) -> !torch.vtensor<[2,5],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear", torch.onnx.axis = 1 : si64, torch.onnx.block_size = 2 : si64} : (!torch.vtensor<[2,5],ui8>, !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],ui8>) -> !torch.vtensor<[2,5],f32>
  return %0 : !torch.vtensor<[2,5],f32>
}
// CHECK: %[[S:.+]] = "torch.aten.reshape"(%arg1, {{.+}}) : {{.+}} -> !torch.vtensor<[6],f32>
// CHECK: %[[Z:.+]] = "torch.aten.reshape"(%arg2, {{.+}}) : {{.+}} -> !torch.vtensor<[6],ui8>
// CHECK: %[[P:.+]] = "torch.aten.constant_pad_nd"(%arg0, {{.+}}) : {{.+}} -> !torch.vtensor<[2,6],ui8>
// CHECK: %[[ROWS:.+]] = "torch.aten.reshape"(%[[P]], {{.+}}) : {{.+}} -> !torch.vtensor<[6,2],ui8>
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[Q:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%[[ROWS]], %[[S]], %[[Z]], %[[AXIS]]) : {{.+}} -> !torch.vtensor<[6,2],!torch.quint8>
// CHECK: %[[D:.+]] = "torch.aten.dequantize.self"(%[[Q]]) : (!torch.vtensor<[6,2],!torch.quint8>) -> !torch.vtensor<[6,2],f32>
// CHECK: %[[BACK:.+]] = "torch.aten.reshape"(%[[D]], {{.+}}) : {{.+}} -> !torch.vtensor<[2,6],f32>
// CHECK: %[[CUT:.+]] = "torch.aten.slice.Tensor"(%[[BACK]], {{.+}}) : {{.+}} -> !torch.vtensor<[2,5],f32>
// CHECK: return %[[CUT]]

// A block_size beyond the axis (here the largest a model can hold) is one block of the
// axis: no overflow, no padding, one row per slice of the other dimensions.
// CHECK-LABEL: func.func @test_dequantizelinear_blocked_one_block(
func.func @test_dequantizelinear_blocked_one_block(%x: !torch.vtensor<[2,4],ui8>, %s: !torch.vtensor<[2,1],f32>) -> !torch.vtensor<[2,4],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s) {name = "onnx.DequantizeLinear", torch.onnx.axis = 1 : si64, torch.onnx.block_size = 9223372036854775807 : si64} : (!torch.vtensor<[2,4],ui8>, !torch.vtensor<[2,1],f32>) -> !torch.vtensor<[2,4],f32>
  return %0 : !torch.vtensor<[2,4],f32>
}
// CHECK-NOT: constant_pad_nd
// CHECK: "torch.aten._make_per_channel_quantized_tensor"({{.+}}) : {{.+}} -> !torch.vtensor<[2,4],!torch.quint8>
// CHECK-NOT: slice.Tensor
// CHECK: return
