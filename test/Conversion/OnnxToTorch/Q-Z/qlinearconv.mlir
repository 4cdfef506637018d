// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Per-channel weights with distinct zero points stay a per-channel quantized tensor
// (axis 0); the int32 bias is dequantized with scale x_scale * w_scale[c], zero point 0.
// CHECK-LABEL: func.func @test_qlinearconv_per_channel(
func.func @test_qlinearconv_per_channel(%x: !torch.vtensor<[1,3,8,8],ui8>, %w: !torch.vtensor<[4,3,3,3],si8>, %b: !torch.vtensor<[4],si32>) -> !torch.vtensor<[1,4,8,8],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %xs = "torch.vtensor.literal"() {value = dense<2.0e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %xz = "torch.vtensor.literal"() {value = dense<128> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
  %ws = "torch.vtensor.literal"() {value = dense<[1.0e-02, 2.0e-02, 3.0e-02, 4.0e-02]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %wz = "torch.vtensor.literal"() {value = dense<[0, 1, -1, 2]> : tensor<4xsi8>} : () -> !torch.vtensor<[4],si8>
  %ys = "torch.vtensor.literal"() {value = dense<5.0e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %yz = "torch.vtensor.literal"() {value = dense<100> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
  %0 = "torch.operator"(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b) {name = "onnx.QLinearConv", torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,3,8,8],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[4,3,3,3],si8>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[4],si32>) -> !torch.vtensor<[1,4,8,8],ui8>
  return %0 : !torch.vtensor<[1,4,8,8],ui8>
}
// CHECK: %[[XS:.+]] = "torch.vtensor.literal"() {value = dense<2.000000e-02> : tensor<f32>}
// CHECK: %[[XZ:.+]] = "torch.vtensor.literal"() {value = dense<128> : tensor<ui8>}
// CHECK: %[[WS:.+]] = "torch.vtensor.literal"() {value = dense<[0.00999999977, 2.000000e-02, 3.000000e-02, 4.000000e-02]> : tensor<4xf32>}
// CHECK: %[[WZ:.+]] = "torch.vtensor.literal"() {value = dense<[0, 1, -1, 2]> : tensor<4xsi8>}
// CHECK: %[[YS:.+]] = "torch.vtensor.literal"()
// CHECK: %[[YZ:.+]] = "torch.vtensor.literal"()
// CHECK: %[[XSF:.+]] = "torch.aten.item"(%[[XS]]) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: %[[XZI:.+]] = "torch.aten.item"(%[[XZ]]) : (!torch.vtensor<[],ui8>) -> !torch.int
// CHECK: %[[XQ:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %[[XSF]], %[[XZI]]) : (!torch.vtensor<[1,3,8,8],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,3,8,8],!torch.quint8>
// CHECK: %[[XF:.+]] = "torch.aten.dequantize.self"(%[[XQ]]) : (!torch.vtensor<[1,3,8,8],!torch.quint8>) -> !torch.vtensor<[1,3,8,8],f32>
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[WQ:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%arg1, %[[WS]], %[[WZ]], %[[AXIS]]) : (!torch.vtensor<[4,3,3,3],si8>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],si8>, !torch.int) -> !torch.vtensor<[4,3,3,3],!torch.qint8>
// CHECK: %[[WF:.+]] = "torch.aten.dequantize.self"(%[[WQ]]) : (!torch.vtensor<[4,3,3,3],!torch.qint8>) -> !torch.vtensor<[4,3,3,3],f32>
// CHECK: %[[BS:.+]] = "torch.aten.mul.Tensor"(%[[WS]], %[[XS]]) : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32>
// CHECK: %[[BZ:.+]] = "torch.vtensor.literal"() {value = dense<0> : tensor<4xsi32>}
// CHECK: %[[BAXIS:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[BQ:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%arg2, %[[BS]], %[[BZ]], %[[BAXIS]]) : (!torch.vtensor<[4],si32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],si32>, !torch.int) -> !torch.vtensor<[4],!torch.qint32>
// CHECK: %[[BF:.+]] = "torch.aten.dequantize.self"(%[[BQ]])
// CHECK: %[[CONV:.+]] = "torch.aten.convolution"(%[[XF]], %[[WF]], %[[BF]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : {{.*}} -> !torch.vtensor<[1,4,8,8],f32>
// CHECK: %[[DT:.+]] = "torch.constant.int"() {value = 13 : i64}
// CHECK: %[[YSF:.+]] = "torch.aten.item"(%[[YS]])
// CHECK: %[[YZI:.+]] = "torch.aten.item"(%[[YZ]])
// CHECK: %[[YQ:.+]] = "torch.aten.quantize_per_tensor"(%[[CONV]], %[[YSF]], %[[YZI]], %[[DT]]) : (!torch.vtensor<[1,4,8,8],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,4,8,8],!torch.quint8>
// CHECK: %[[Y:.+]] = "torch.aten.int_repr"(%[[YQ]]) : (!torch.vtensor<[1,4,8,8],!torch.quint8>) -> !torch.vtensor<[1,4,8,8],ui8>
// CHECK: return %[[Y]]
// CHECK-NOT: torch.operator

// Depthwise: group equals the channel count; int8 activations quantize to qint8.
// CHECK-LABEL: func.func @test_qlinearconv_depthwise_int8(
func.func @test_qlinearconv_depthwise_int8(%x: !torch.vtensor<[1,8,6,6],si8>, %w: !torch.vtensor<[8,1,3,3],si8>, %ws: !torch.vtensor<[8],f32>, %wz: !torch.vtensor<[8],si8>) -> !torch.vtensor<[1,8,3,3],si8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<1.0e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %z = "torch.vtensor.literal"() {value = dense<-3> : tensor<si8>} : () -> !torch.vtensor<[],si8>
  %0 = "torch.operator"(%x, %s, %z, %w, %ws, %wz, %s, %z) {name = "onnx.QLinearConv", torch.onnx.group = 8 : si64, torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,8,6,6],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[8,1,3,3],si8>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,8,3,3],si8>
  return %0 : !torch.vtensor<[1,8,3,3],si8>
}
// CHECK: "torch.aten._make_per_tensor_quantized_tensor"(%arg0, {{.*}} -> !torch.vtensor<[1,8,6,6],!torch.qint8>
// CHECK: "torch.aten._make_per_channel_quantized_tensor"(%arg1, %arg2, %arg3, {{.*}} -> !torch.vtensor<[8,1,3,3],!torch.qint8>
// CHECK: %[[GROUPS:.+]] = "torch.constant.int"() {value = 8 : i64}
// CHECK: "torch.aten.convolution"({{.*}}, %[[GROUPS]]) : {{.*}} -> !torch.vtensor<[1,8,3,3],f32>
// CHECK: %[[QI8:.+]] = "torch.constant.int"() {value = 12 : i64}
// CHECK: "torch.aten.quantize_per_tensor"({{.*}}, %[[QI8]]) : {{.*}} -> !torch.vtensor<[1,8,3,3],!torch.qint8>
// CHECK: "torch.aten.int_repr"({{.*}} -> !torch.vtensor<[1,8,3,3],si8>

// Two groups, per-tensor uint8 weights, asymmetric pads: the input is padded first.
// CHECK-LABEL: func.func @test_qlinearconv_group2_asymmetric_pads(
func.func @test_qlinearconv_group2_asymmetric_pads(%x: !torch.vtensor<[1,4,5,5],ui8>, %w: !torch.vtensor<[6,2,3,3],ui8>) -> !torch.vtensor<[1,6,4,4],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<5.0e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %z = "torch.vtensor.literal"() {value = dense<7> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
  %0 = "torch.operator"(%x, %s, %z, %w, %s, %z, %s, %z) {name = "onnx.QLinearConv", torch.onnx.group = 2 : si64, torch.onnx.pads = [0 : si64, 0 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,4,5,5],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[6,2,3,3],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,6,4,4],ui8>
  return %0 : !torch.vtensor<[1,6,4,4],ui8>
}
// CHECK: "torch.aten._make_per_tensor_quantized_tensor"(%arg1, {{.*}} -> !torch.vtensor<[6,2,3,3],!torch.quint8>
// CHECK: %[[PAD:.+]] = "torch.aten.constant_pad_nd"(%{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[1,4,5,5],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,4,6,6],f32>
// CHECK: "torch.aten.convolution"(%[[PAD]],
// CHECK-SAME: -> !torch.vtensor<[1,6,4,4],f32>

// auto_pad SAME_UPPER on a 1-D convolution.
// CHECK-LABEL: func.func @test_qlinearconv_1d_same_upper(
func.func @test_qlinearconv_1d_same_upper(%x: !torch.vtensor<[1,2,7],ui8>, %w: !torch.vtensor<[3,2,4],si8>) -> !torch.vtensor<[1,3,4],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<2.5e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %z = "torch.vtensor.literal"() {value = dense<0> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
  %wz = "torch.vtensor.literal"() {value = dense<0> : tensor<si8>} : () -> !torch.vtensor<[],si8>
  %0 = "torch.operator"(%x, %s, %z, %w, %s, %wz, %s, %z) {name = "onnx.QLinearConv", torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.strides = [2 : si64]} : (!torch.vtensor<[1,2,7],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[3,2,4],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,3,4],ui8>
  return %0 : !torch.vtensor<[1,3,4],ui8>
}
// (7 + 1) / 2 = 4 outputs need 3 pads in total: 1 before, 2 after (SAME_UPPER).
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK-NEXT: %[[P1:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK-NEXT: "torch.prim.ListConstruct"(%[[P0]], %[[P1]])
// CHECK: "torch.aten.constant_pad_nd"({{.*}} -> !torch.vtensor<[1,2,10],f32>
// CHECK: "torch.aten.convolution"({{.*}} -> !torch.vtensor<[1,3,4],f32>

// A 3-D convolution with dilations.
// CHECK-LABEL: func.func @test_qlinearconv_3d_dilated(
func.func @test_qlinearconv_3d_dilated(%x: !torch.vtensor<[1,1,5,5,5],ui8>, %w: !torch.vtensor<[2,1,2,2,2],si8>) -> !torch.vtensor<[1,2,3,3,3],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<1.0e+00> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %z = "torch.vtensor.literal"() {value = dense<0> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
  %wz = "torch.vtensor.literal"() {value = dense<0> : tensor<si8>} : () -> !torch.vtensor<[],si8>
  %0 = "torch.operator"(%x, %s, %z, %w, %s, %wz, %s, %z) {name = "onnx.QLinearConv", torch.onnx.dilations = [2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,5,5,5],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>, !torch.vtensor<[2,1,2,2,2],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[1,2,3,3,3],ui8>
  return %0 : !torch.vtensor<[1,2,3,3,3],ui8>
}
// CHECK: %[[D0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK-NEXT: %[[D1:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK-NEXT: %[[D2:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK-NEXT: %[[DIL:.+]] = "torch.prim.ListConstruct"(%[[D0]], %[[D1]], %[[D2]])
// CHECK: "torch.aten.convolution"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[DIL]],
// CHECK-SAME: -> !torch.vtensor<[1,2,3,3,3],f32>
