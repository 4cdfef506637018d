// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Symmetric pads: torch's transposed convolution crops them itself.
// CHECK-LABEL: func.func @test_convtranspose_pads(
func.func @test_convtranspose_pads(%x: !torch.vtensor<[1,1,3,3],f32>, %w: !torch.vtensor<[1,2,3,3],f32>) -> !torch.vtensor<[1,2,7,3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose", torch.onnx.pads = [1 : si64, 2 : si64, 1 : si64, 2 : si64], torch.onnx.strides = [3 : si64, 2 : si64]} : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,2,3,3],f32>) -> !torch.vtensor<[1,2,7,3],f32>
  return %0 : !torch.vtensor<[1,2,7,3],f32>
}
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[STRIDES:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]])
// CHECK: %[[DILATIONS:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[TRUE:.+]] = "torch.constant.bool"() {value = true}
// CHECK: %[[O0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[O1:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[OUTPAD:.+]] = "torch.prim.ListConstruct"(%[[O0]], %[[O1]])
// CHECK: %[[GROUPS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.convolution"(%arg0, %arg1, %[[NONE]], %[[STRIDES]], %[[PADS]], %[[DILATIONS]], %[[TRUE]], %[[OUTPAD]], %[[GROUPS]]) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,2,3,3],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,2,7,3],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_convtranspose_output_padding_bias(
func.func @test_convtranspose_output_padding_bias(%x: !torch.vtensor<[1,8,10,10],f32>, %w: !torch.vtensor<[8,4,3,3],f32>, %b: !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,20,20],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w, %b) {name = "onnx.ConvTranspose", torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.output_padding = [1 : si64, 1 : si64]} : (!torch.vtensor<[1,8,10,10],f32>, !torch.vtensor<[8,4,3,3],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[1,4,20,20],f32>
  return %0 : !torch.vtensor<[1,4,20,20],f32>
}
// CHECK: "torch.constant.bool"() {value = true}
// CHECK: %[[O0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[O1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[OUTPAD:.+]] = "torch.prim.ListConstruct"(%[[O0]], %[[O1]])
// CHECK: "torch.aten.convolution"(%arg0, %arg1, %arg2, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[OUTPAD]], %{{.+}}) : {{.*}} -> !torch.vtensor<[1,4,20,20],f32>

// Asymmetric pads: torch crops the smaller pad of each axis, a slice the rest.
// H pads 0/2: the slice drops the last 2. W pads 2/1: torch crops 1 from each end,
// the slice one more from the start.
// CHECK-LABEL: func.func @test_convtranspose_asymmetric_pads(
func.func @test_convtranspose_asymmetric_pads(%x: !torch.vtensor<[1,2,5,5],f32>, %w: !torch.vtensor<[2,3,3,3],f32>) -> !torch.vtensor<[1,3,9,8],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose", torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.pads = [0 : si64, 2 : si64, 2 : si64, 1 : si64]} : (!torch.vtensor<[1,2,5,5],f32>, !torch.vtensor<[2,3,3,3],f32>) -> !torch.vtensor<[1,3,9,8],f32>
  return %0 : !torch.vtensor<[1,3,9,8],f32>
}
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]])
// CHECK: %[[CONV:.+]] = "torch.aten.convolution"(%arg0, %arg1, %{{.+}}, %{{.+}}, %[[PADS]], {{.*}} -> !torch.vtensor<[1,3,11,9],f32>
// CHECK: %[[DIM_H:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[START_H:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[END_H:.+]] = "torch.constant.int"() {value = -2 : i64}
// CHECK: %[[STEP_H:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[H:.+]] = "torch.aten.slice.Tensor"(%[[CONV]], %[[DIM_H]], %[[START_H]], %[[END_H]], %[[STEP_H]]) : (!torch.vtensor<[1,3,11,9],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[1,3,9,9],f32>
// CHECK: %[[DIM_W:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[START_W:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[END_W:.+]] = "torch.constant.none"()
// CHECK: %[[STEP_W:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[W:.+]] = "torch.aten.slice.Tensor"(%[[H]], %[[DIM_W]], %[[START_W]], %[[END_W]], %[[STEP_W]]) : (!torch.vtensor<[1,3,9,9],f32>, !torch.int, !torch.int, !torch.none, !torch.int) -> !torch.vtensor<[1,3,9,8],f32>
// CHECK: return %[[W]]

// SAME_UPPER makes the output input * stride; the odd total pad puts the extra at the end.
// CHECK-LABEL: func.func @test_convtranspose_autopad_same(
func.func @test_convtranspose_autopad_same(%x: !torch.vtensor<[1,1,3,3],f32>, %w: !torch.vtensor<[1,2,3,3],f32>) -> !torch.vtensor<[1,2,6,6],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose", torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,2,3,3],f32>) -> !torch.vtensor<[1,2,6,6],f32>
  return %0 : !torch.vtensor<[1,2,6,6],f32>
}
// CHECK: %[[CONV:.+]] = "torch.aten.convolution"(%arg0, %arg1, {{.*}} -> !torch.vtensor<[1,2,7,7],f32>
// CHECK: %[[END_H:.+]] = "torch.constant.int"() {value = -1 : i64}
// CHECK: %[[H:.+]] = "torch.aten.slice.Tensor"(%[[CONV]], %{{.+}}, %{{.+}}, %[[END_H]], %{{.+}}) : {{.*}} -> !torch.vtensor<[1,2,6,7],f32>
// CHECK: %[[END_W:.+]] = "torch.constant.int"() {value = -1 : i64}
// CHECK: "torch.aten.slice.Tensor"(%[[H]], %{{.+}}, %{{.+}}, %[[END_W]], %{{.+}}) : {{.*}} -> !torch.vtensor<[1,2,6,6],f32>

// output_shape [8, 7] of full sizes [10, 8] (with output_padding): pads 1/1 along H and,
// for an odd total without SAME_UPPER, 1/0 along W.
// CHECK-LABEL: func.func @test_convtranspose_output_shape(
func.func @test_convtranspose_output_shape(%x: !torch.vtensor<[1,1,3,3],f32>, %w: !torch.vtensor<[1,2,3,3],f32>) -> !torch.vtensor<[1,2,8,7],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose", torch.onnx.strides = [3 : si64, 2 : si64], torch.onnx.output_shape = [8 : si64, 7 : si64], torch.onnx.output_padding = [1 : si64, 1 : si64]} : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,2,3,3],f32>) -> !torch.vtensor<[1,2,8,7],f32>
  return %0 : !torch.vtensor<[1,2,8,7],f32>
}
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]])
// CHECK: "torch.constant.bool"() {value = true}
// CHECK: %[[O0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[O1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[OUTPAD:.+]] = "torch.prim.ListConstruct"(%[[O0]], %[[O1]])
// CHECK: %[[CONV:.+]] = "torch.aten.convolution"(%arg0, %arg1, %{{.+}}, %{{.+}}, %[[PADS]], %{{.+}}, %{{.+}}, %[[OUTPAD]], {{.*}} -> !torch.vtensor<[1,2,8,8],f32>
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[START:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: "torch.aten.slice.Tensor"(%[[CONV]], %[[DIM]], %[[START]], {{.*}} -> !torch.vtensor<[1,2,8,7],f32>

// CHECK-LABEL: func.func @test_convtranspose_1d_groups(
func.func @test_convtranspose_1d_groups(%x: !torch.vtensor<[2,4,?],f32>, %w: !torch.vtensor<[4,3,3],f32>) -> !torch.vtensor<[2,6,?],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose", torch.onnx.group = 2 : si64, torch.onnx.pads = [0 : si64, 1 : si64]} : (!torch.vtensor<[2,4,?],f32>, !torch.vtensor<[4,3,3],f32>) -> !torch.vtensor<[2,6,?],f32>
  return %0 : !torch.vtensor<[2,6,?],f32>
}
// A dynamic length needs no arithmetic: the slice ends 1 before the end.
// CHECK: %[[GROUPS:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[CONV:.+]] = "torch.aten.convolution"(%arg0, %arg1, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[GROUPS]]) : {{.*}} -> !torch.vtensor<[2,6,?],f32>
// CHECK: %[[END:.+]] = "torch.constant.int"() {value = -1 : i64}
// CHECK: "torch.aten.slice.Tensor"(%[[CONV]], %{{.+}}, %{{.+}}, %[[END]], %{{.+}}) : {{.*}} -> !torch.vtensor<[2,6,?],f32>

// CHECK-LABEL: func.func @test_convtranspose_3d(
func.func @test_convtranspose_3d(%x: !torch.vtensor<[1,1,3,4,5],f32>, %w: !torch.vtensor<[1,2,3,3,3],f32>) -> !torch.vtensor<[1,2,5,6,7],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose"} : (!torch.vtensor<[1,1,3,4,5],f32>, !torch.vtensor<[1,2,3,3,3],f32>) -> !torch.vtensor<[1,2,5,6,7],f32>
  return %0 : !torch.vtensor<[1,2,5,6,7],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.convolution"(%arg0, %arg1, {{.*}} -> !torch.vtensor<[1,2,5,6,7],f32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: torch.operator

// output_shape [10, 8] one longer than the full sizes [9, 7]: as ONNX Runtime, the end
// grows by one (bias only), which torch's output_padding says.
// CHECK-LABEL: func.func @test_convtranspose_output_shape_longer(
func.func @test_convtranspose_output_shape_longer(%x: !torch.vtensor<[1,1,3,3],f32>, %w: !torch.vtensor<[1,2,3,3],f32>) -> !torch.vtensor<[1,2,10,8],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose", torch.onnx.strides = [3 : si64, 2 : si64], torch.onnx.output_shape = [10 : si64, 8 : si64]} : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,2,3,3],f32>) -> !torch.vtensor<[1,2,10,8],f32>
  return %0 : !torch.vtensor<[1,2,10,8],f32>
}
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]])
// CHECK: "torch.constant.bool"() {value = true}
// CHECK: %[[O0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[O1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[OUTPAD:.+]] = "torch.prim.ListConstruct"(%[[O0]], %[[O1]])
// CHECK: %[[CONV:.+]] = "torch.aten.convolution"(%arg0, %arg1, %{{.+}}, %{{.+}}, %[[PADS]], %{{.+}}, %{{.+}}, %[[OUTPAD]], {{.*}} -> !torch.vtensor<[1,2,10,8],f32>
// CHECK: return %[[CONV]]
