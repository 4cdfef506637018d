// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Symmetric pads and strides go to torch's convolution directly, with the bias.
// CHECK-LABEL: func.func @test_conv_with_strides_padding(
func.func @test_conv_with_strides_padding(%x: !torch.vtensor<[1,1,7,5],f32>, %w: !torch.vtensor<[1,1,3,3],f32>, %b: !torch.vtensor<[1],f32>) -> !torch.vtensor<[1,1,4,3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%x, %w, %b) {name = "onnx.Conv", torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,7,5],f32>, !torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[1,1,4,3],f32>
  return %0 : !torch.vtensor<[1,1,4,3],f32>
}
// CHECK: %[[S0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[S1:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[STRIDES:.+]] = "torch.prim.ListConstruct"(%[[S0]], %[[S1]])
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]])
// CHECK: %[[DILATIONS:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[OUTPAD:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[GROUPS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.convolution"(%arg0, %arg1, %arg2, %[[STRIDES]], %[[PADS]], %[[DILATIONS]], %[[FALSE]], %[[OUTPAD]], %[[GROUPS]]) : (!torch.vtensor<[1,1,7,5],f32>, !torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,4,3],f32>
// CHECK: return %[[Y]]

// Depthwise: groups equal the channels; no bias gives a none operand.
// CHECK-LABEL: func.func @test_conv_depthwise(
func.func @test_conv_depthwise(%x: !torch.vtensor<[2,8,6,6],f32>, %w: !torch.vtensor<[8,1,3,3],f32>) -> !torch.vtensor<[2,8,4,4],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.Conv", torch.onnx.group = 8 : si64, torch.onnx.dilations = [1 : si64, 1 : si64]} : (!torch.vtensor<[2,8,6,6],f32>, !torch.vtensor<[8,1,3,3],f32>) -> !torch.vtensor<[2,8,4,4],f32>
  return %0 : !torch.vtensor<[2,8,4,4],f32>
}
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[GROUPS:.+]] = "torch.constant.int"() {value = 8 : i64}
// CHECK: "torch.aten.convolution"(%arg0, %arg1, %[[NONE]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[GROUPS]]) : {{.*}} -> !torch.vtensor<[2,8,4,4],f32>

// Asymmetric pads are applied with zeros first; the convolution then pads nothing.
// CHECK-LABEL: func.func @test_conv_asymmetric_pads(
func.func @test_conv_asymmetric_pads(%x: !torch.vtensor<[1,3,8,8],f32>, %w: !torch.vtensor<[4,3,3,3],f32>) -> !torch.vtensor<[1,4,7,9],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.Conv", torch.onnx.pads = [0 : si64, 1 : si64, 1 : si64, 2 : si64]} : (!torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[4,3,3,3],f32>) -> !torch.vtensor<[1,4,7,9],f32>
  return %0 : !torch.vtensor<[1,4,7,9],f32>
}
// constant_pad_nd lists pads from the last dimension: [W begin, W end, H begin, H end].
// CHECK: %[[W0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[W1:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[H0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[H1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[LIST:.+]] = "torch.prim.ListConstruct"(%[[W0]], %[[W1]], %[[H0]], %[[H1]])
// CHECK: %[[ZERO:.+]] = "torch.constant.float"() {value = 0.000000e+00 : f64}
// CHECK: %[[PADDED:.+]] = "torch.aten.constant_pad_nd"(%arg0, %[[LIST]], %[[ZERO]]) : (!torch.vtensor<[1,3,8,8],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,3,9,11],f32>
// CHECK: %[[Q0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[Q1:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[NOPADS:.+]] = "torch.prim.ListConstruct"(%[[Q0]], %[[Q1]])
// CHECK: "torch.aten.convolution"(%[[PADDED]], %arg1, %{{.+}}, %{{.+}}, %[[NOPADS]], {{.*}} -> !torch.vtensor<[1,4,7,9],f32>

// SAME_UPPER with stride 2 over an even size puts the odd pad at the end.
// CHECK-LABEL: func.func @test_conv_same_upper(
func.func @test_conv_same_upper(%x: !torch.vtensor<[1,1,6,6],f32>, %w: !torch.vtensor<[2,1,3,3],f32>, %b: !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,2,3,3],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w, %b) {name = "onnx.Conv", torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,6,6],f32>, !torch.vtensor<[2,1,3,3],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,2,3,3],f32>
  return %0 : !torch.vtensor<[1,2,3,3],f32>
}
// CHECK: %[[W0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[W1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[H0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[H1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[LIST:.+]] = "torch.prim.ListConstruct"(%[[W0]], %[[W1]], %[[H0]], %[[H1]])
// CHECK: %[[PADDED:.+]] = "torch.aten.constant_pad_nd"(%arg0, %[[LIST]], %{{.+}}) : {{.*}} -> !torch.vtensor<[1,1,7,7],f32>
// CHECK: "torch.aten.convolution"(%[[PADDED]], %arg1, %arg2, {{.*}} -> !torch.vtensor<[1,2,3,3],f32>

// CHECK-LABEL: func.func @test_conv_1d_dilated(
func.func @test_conv_1d_dilated(%x: !torch.vtensor<[2,4,100],f32>, %w: !torch.vtensor<[8,4,5],f32>) -> !torch.vtensor<[2,8,30],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.Conv", torch.onnx.strides = [3 : si64], torch.onnx.dilations = [2 : si64]} : (!torch.vtensor<[2,4,100],f32>, !torch.vtensor<[8,4,5],f32>) -> !torch.vtensor<[2,8,30],f32>
  return %0 : !torch.vtensor<[2,8,30],f32>
}
// CHECK: %[[S:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[STRIDES:.+]] = "torch.prim.ListConstruct"(%[[S]]) : (!torch.int) -> !torch.list<int>
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[D:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[DILATIONS:.+]] = "torch.prim.ListConstruct"(%[[D]]) : (!torch.int) -> !torch.list<int>
// CHECK: "torch.aten.convolution"(%arg0, %arg1, %{{.+}}, %[[STRIDES]], %[[PADS]], %[[DILATIONS]], {{.*}} -> !torch.vtensor<[2,8,30],f32>

// CHECK-LABEL: func.func @test_conv_3d(
func.func @test_conv_3d(%x: !torch.vtensor<[1,2,8,16,16],f32>, %w: !torch.vtensor<[4,2,3,3,3],f32>, %b: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,8,16,16],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w, %b) {name = "onnx.Conv", torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,2,8,16,16],f32>, !torch.vtensor<[4,2,3,3,3],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,8,16,16],f32>
  return %0 : !torch.vtensor<[1,4,8,16,16],f32>
}
// CHECK: "torch.aten.convolution"(%arg0, %arg1, %arg2, {{.*}} : (!torch.vtensor<[1,2,8,16,16],f32>, !torch.vtensor<[4,2,3,3,3],f32>, !torch.vtensor<[4],f32>, {{.*}} -> !torch.vtensor<[1,4,8,16,16],f32>
// CHECK-NOT: torch.operator

// SAME_UPPER over a width known only at run time: the pads come from the input's size,
// total = max((ceil(W / s) - 1) * s + extent - W, 0), the odd one at the end; a known
// height gets constants.
// CHECK-LABEL: func.func @test_conv_same_upper_run_time(
func.func @test_conv_same_upper_run_time(%arg0: !torch.vtensor<[1,1,5,?],f32>, %arg1: !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,3,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Conv", torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.strides = [2, 2]} : (!torch.vtensor<[1,1,5,?],f32>, !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,3,?],f32>
  return %0 : !torch.vtensor<[1,1,3,?],f32>
}
// CHECK: %[[HB:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[HE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[W:.+]] = "torch.aten.size.int"(%arg0, %[[DIM]]) : (!torch.vtensor<[1,1,5,?],f32>, !torch.int) -> !torch.int
// CHECK: %[[OUT:.+]] = "torch.aten.floordiv.int"
// CHECK: %[[SHORT:.+]] = "torch.aten.sub.int"({{.*}}, %[[W]])
// CHECK: %[[TOTAL:.+]] = "torch.prim.max.int"(%[[SHORT]], {{.*}}) : (!torch.int, !torch.int) -> !torch.int
// CHECK: %[[SMALL:.+]] = "torch.aten.floordiv.int"(%[[TOTAL]], {{.*}})
// CHECK: %[[LARGE:.+]] = "torch.aten.sub.int"(%[[TOTAL]], %[[SMALL]])
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[SMALL]], %[[LARGE]], %[[HB]], %[[HE]]) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[X:.+]] = "torch.aten.constant_pad_nd"(%arg0, %[[PADS]], {{.*}}) : (!torch.vtensor<[1,1,5,?],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,1,7,?],f32>
// CHECK: "torch.aten.convolution"(%[[X]], %arg1, {{.*}}) : {{.*}} -> !torch.vtensor<[1,1,3,?],f32>
