// decompose-quantize-per-channel (`--target iree|torch-mlir`): the same per-axis
// QuantizeLinear in both forms. The canonical form is quantize_per_channel + int_repr
// (CANON); for torch-mlir and IREE, which have no lowering of quantize_per_channel, the
// int_repr becomes ONNX's arithmetic, saturate(round(x / s[c]) + z[c]), with the scales
// and zero points reshaped along the axis and converted through si32 (torch-mlir
// converts f32 to ui8 as to si8). To int32 the zero point is added in si64.
// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s --check-prefix=CANON
// RUN: qlower-opt --convert-onnx-to-torch --decompose-quantize-per-channel --dce %s | FileCheck %s

// CANON-LABEL: func.func @per_axis_negative(
// CANON: %[[Q:.+]] = "torch.aten.quantize_per_channel"(%arg0, %arg1, %arg2, {{.+}} -> !torch.vtensor<[2,3,4],!torch.qint8>
// CANON: "torch.aten.int_repr"(%[[Q]])
// CHECK-LABEL: func.func @per_axis_negative(
// CHECK-NOT: quantize_per_channel
// CHECK: %[[SHAPE:.+]] = "torch.prim.ListConstruct"(
// CHECK: %[[S:.+]] = "torch.aten.reshape"(%arg1, %[[SHAPE]]) : {{.+}} -> !torch.vtensor<[1,3,1],f32>
// CHECK: %[[Z:.+]] = "torch.aten.reshape"(%arg2, %[[SHAPE]]) : {{.+}} -> !torch.vtensor<[1,3,1],si8>
// CHECK: %[[ZF:.+]] = "torch.aten.to.dtype"(%[[Z]], {{.+}} -> !torch.vtensor<[1,3,1],f32>
// CHECK: %[[D:.+]] = "torch.aten.div.Tensor"(%arg0, %[[S]])
// CHECK: %[[R:.+]] = "torch.aten.round"(%[[D]])
// CHECK: %[[A:.+]] = "torch.aten.add.Tensor"(%[[R]], %[[ZF]],
// CHECK: %[[LO:.+]] = "torch.constant.float"() {value = -1.280000e+02 : f64}
// CHECK: %[[HI:.+]] = "torch.constant.float"() {value = 1.270000e+02 : f64}
// CHECK: %[[C:.+]] = "torch.aten.clamp"(%[[A]], %[[LO]], %[[HI]])
// CHECK: %[[W:.+]] = "torch.aten.to.dtype"(%[[C]], {{.+}} -> !torch.vtensor<[2,3,4],si32>
// CHECK: %[[I:.+]] = "torch.aten.to.dtype"(%[[W]], {{.+}} -> !torch.vtensor<[2,3,4],si8>
// CHECK-NOT: quantize_per_channel
// CHECK: return %[[I]]
func.func @per_axis_negative(%x: !torch.vtensor<[2,3,4],f32>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3,4],si8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear", torch.onnx.axis = -2 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si8>) -> !torch.vtensor<[2,3,4],si8>
  return %0 : !torch.vtensor<[2,3,4],si8>
}

// uint8 per axis, with the DequantizeLinear that reads it: the integers feed
// _make_per_channel_quantized_tensor with the same scales, zero points and axis.
// CANON-LABEL: func.func @per_axis_uint8_pair(
// CANON: %[[Q:.+]] = "torch.aten.quantize_per_channel"({{.+}} -> !torch.vtensor<[3,2],!torch.quint8>
// CANON: %[[I:.+]] = "torch.aten.int_repr"(%[[Q]])
// CANON: "torch.aten._make_per_channel_quantized_tensor"(%[[I]], %arg1, %arg2,
// CHECK-LABEL: func.func @per_axis_uint8_pair(
// CHECK: %[[HI:.+]] = "torch.constant.float"() {value = 2.550000e+02 : f64}
// CHECK: %[[C:.+]] = "torch.aten.clamp"({{.+}}, %[[HI]])
// CHECK: %[[W:.+]] = "torch.aten.to.dtype"(%[[C]], {{.+}} -> !torch.vtensor<[3,2],si32>
// CHECK: %[[I:.+]] = "torch.aten.to.dtype"(%[[W]], {{.+}} -> !torch.vtensor<[3,2],ui8>
// CHECK: %[[M:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%[[I]], %arg1, %arg2, %{{.+}}) : {{.+}} -> !torch.vtensor<[3,2],!torch.quint8>
// CHECK: "torch.aten.dequantize.self"(%[[M]])
func.func @per_axis_uint8_pair(%x: !torch.vtensor<[3,2],f32>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],ui8>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear", torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3,2],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],ui8>) -> !torch.vtensor<[3,2],ui8>
  %1 = "torch.operator"(%0, %s, %z) {name = "onnx.DequantizeLinear", torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3,2],ui8>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],ui8>) -> !torch.vtensor<[3,2],f32>
  return %1 : !torch.vtensor<[3,2],f32>
}

// To int32: the rounded f32 quotient (bounded to ±2^33) goes to si64, where the zero
// point is added and the sum saturated to int32's range.
// CANON-LABEL: func.func @int32_per_axis(
// CANON: "torch.aten.quantize_per_channel"({{.+}} -> !torch.vtensor<[2,3],!torch.qint32>
// CHECK-LABEL: func.func @int32_per_axis(
// CHECK-NOT: quantize_per_channel
// CHECK: %[[Q:.+]] = "torch.aten.round"
// CHECK: %[[B:.+]] = "torch.aten.clamp"(%[[Q]], {{.+}} -> !torch.vtensor<[2,3],f32>
// CHECK: %[[W:.+]] = "torch.aten.to.dtype"(%[[B]], {{.+}} -> !torch.vtensor<[2,3],si64>
// CHECK: %[[Z:.+]] = "torch.aten.to.dtype"({{.+}} -> !torch.vtensor<[1,3],si64>
// CHECK: %[[S:.+]] = "torch.aten.add.Tensor"(%[[W]], %[[Z]], {{.+}} -> !torch.vtensor<[2,3],si64>
// CHECK: %[[C:.+]] = "torch.aten.clamp"(%[[S]], {{.+}} -> !torch.vtensor<[2,3],si64>
// CHECK: "torch.aten.to.dtype"(%[[C]], {{.+}} -> !torch.vtensor<[2,3],si32>
// CHECK: return
func.func @int32_per_axis(%x: !torch.vtensor<[2,3],f32>, %s: !torch.vtensor<[3],f32>, %z: !torch.vtensor<[3],si32>) -> !torch.vtensor<[2,3],si32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],si32>) -> !torch.vtensor<[2,3],si32>
  return %0 : !torch.vtensor<[2,3],si32>
}

// Per-tensor quantization is not touched.
// CANON-LABEL: func.func @per_tensor(
// CHECK-LABEL: func.func @per_tensor(
// CHECK: "torch.aten.quantize_per_tensor"
// CHECK-NOT: div.Tensor
// CHECK: return
func.func @per_tensor(%x: !torch.vtensor<[6],f32>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui8>) -> !torch.vtensor<[6],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear"} : (!torch.vtensor<[6],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[6],ui8>
  return %0 : !torch.vtensor<[6],ui8>
}
