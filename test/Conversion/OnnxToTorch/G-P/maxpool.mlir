// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_maxpool_2d_default(
func.func @test_maxpool_2d_default(%arg0: !torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,31,31],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,31,31],f32>
  return %0 : !torch.vtensor<[1,3,31,31],f32>
}
// CHECK: %[[K0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[K1:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[KERNEL:.+]] = "torch.prim.ListConstruct"(%[[K0]], %[[K1]])
// CHECK: %[[STRIDES:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[CEIL:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[DILATIONS:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[Y:.+]] = "torch.aten.max_pool2d"(%arg0, %[[KERNEL]], %[[STRIDES]], %[[PADS]], %[[DILATIONS]], %[[CEIL]]) : (!torch.vtensor<[1,3,32,32],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,3,31,31],f32>
// CHECK: return %[[Y]]

// Symmetric pads of at most half the kernel are torch's own padding.
// CHECK-LABEL: func.func @test_maxpool_symmetric_pads(
func.func @test_maxpool_symmetric_pads(%arg0: !torch.vtensor<[1,64,112,112],f32>) -> !torch.vtensor<[1,64,56,56],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,64,112,112],f32>) -> !torch.vtensor<[1,64,56,56],f32>
  return %0 : !torch.vtensor<[1,64,56,56],f32>
}
// CHECK: %[[KERNEL:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[S0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[S1:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[STRIDES:.+]] = "torch.prim.ListConstruct"(%[[S0]], %[[S1]])
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]])
// CHECK: "torch.aten.max_pool2d"(%arg0, %[[KERNEL]], %[[STRIDES]], %[[PADS]], {{.*}} -> !torch.vtensor<[1,64,56,56],f32>

// Asymmetric pads become -inf padding. With ceil_mode torch keeps a third window that
// starts in the end padding, which ONNX drops: a slice per axis removes it.
// CHECK-LABEL: func.func @test_maxpool_asymmetric_pads_ceil(
func.func @test_maxpool_asymmetric_pads_ceil(%arg0: !torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,2,2],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.pads = [0 : si64, 0 : si64, 1 : si64, 1 : si64], torch.onnx.ceil_mode = 1 : si64} : (!torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,2,2],f32>
  return %0 : !torch.vtensor<[1,1,2,2],f32>
}
// CHECK: %[[NEG_INF:.+]] = "torch.constant.float"() {value = 0xFFF0000000000000 : f64}
// CHECK: %[[W0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[W1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[H0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[H1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[LIST:.+]] = "torch.prim.ListConstruct"(%[[W0]], %[[W1]], %[[H0]], %[[H1]])
// CHECK: %[[PADDED:.+]] = "torch.aten.constant_pad_nd"(%arg0, %[[LIST]], %[[NEG_INF]]) : (!torch.vtensor<[1,1,4,4],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,1,5,5],f32>
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[NOPADS:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]])
// CHECK: %[[CEIL:.+]] = "torch.constant.bool"() {value = true}
// CHECK: %[[POOL:.+]] = "torch.aten.max_pool2d"(%[[PADDED]], %{{.+}}, %{{.+}}, %[[NOPADS]], %{{.+}}, %[[CEIL]]) : {{.*}} -> !torch.vtensor<[1,1,3,3],f32>
// CHECK: %[[DIM_H:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[START_H:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[END_H:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[STEP_H:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[H:.+]] = "torch.aten.slice.Tensor"(%[[POOL]], %[[DIM_H]], %[[START_H]], %[[END_H]], %[[STEP_H]]) : (!torch.vtensor<[1,1,3,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,3],f32>
// CHECK: %[[DIM_W:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[W:.+]] = "torch.aten.slice.Tensor"(%[[H]], %[[DIM_W]], {{.*}} -> !torch.vtensor<[1,1,2,2],f32>
// CHECK: return %[[W]]

// ceil_mode with torch's own padding: torch counts windows as ONNX does.
// CHECK-LABEL: func.func @test_maxpool_ceil(
func.func @test_maxpool_ceil(%arg0: !torch.vtensor<[1,1,5,5],f32>) -> !torch.vtensor<[1,1,3,3],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.ceil_mode = 1 : si64} : (!torch.vtensor<[1,1,5,5],f32>) -> !torch.vtensor<[1,1,3,3],f32>
  return %0 : !torch.vtensor<[1,1,3,3],f32>
}
// CHECK: %[[CEIL:.+]] = "torch.constant.bool"() {value = true}
// CHECK: %[[Y:.+]] = "torch.aten.max_pool2d"(%arg0, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[CEIL]]) : {{.*}} -> !torch.vtensor<[1,1,3,3],f32>
// CHECK-NEXT: return %[[Y]]

// SAME_UPPER over 32 with kernel 3, stride 2 pads 0 before and 1 after.
// CHECK-LABEL: func.func @test_maxpool_same_upper(
func.func @test_maxpool_same_upper(%arg0: !torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,16,16],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,16,16],f32>
  return %0 : !torch.vtensor<[1,3,16,16],f32>
}
// CHECK: %[[NEG_INF:.+]] = "torch.constant.float"() {value = 0xFFF0000000000000 : f64}
// CHECK: %[[W0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[W1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[H0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[H1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[LIST:.+]] = "torch.prim.ListConstruct"(%[[W0]], %[[W1]], %[[H0]], %[[H1]])
// CHECK: %[[PADDED:.+]] = "torch.aten.constant_pad_nd"(%arg0, %[[LIST]], %[[NEG_INF]]) : {{.*}} -> !torch.vtensor<[1,3,33,33],f32>
// CHECK: %[[CEIL:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[Y:.+]] = "torch.aten.max_pool2d"(%[[PADDED]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[CEIL]]) : {{.*}} -> !torch.vtensor<[1,3,16,16],f32>
// CHECK-NEXT: return %[[Y]]

// Pads over half the kernel are more than torch's padding allows: explicit padding.
// CHECK-LABEL: func.func @test_maxpool_large_pads_uint8(
func.func @test_maxpool_large_pads_uint8(%arg0: !torch.vtensor<[1,1,5,5],ui8>) -> !torch.vtensor<[1,1,7,7],ui8> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [2 : si64, 2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,5,5],ui8>) -> !torch.vtensor<[1,1,7,7],ui8>
  return %0 : !torch.vtensor<[1,1,7,7],ui8>
}
// The padding of a uint8 max pool is 0, the smallest uint8.
// CHECK: %[[FILL:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[PADDED:.+]] = "torch.aten.constant_pad_nd"(%arg0, %{{.+}}, %[[FILL]]) : (!torch.vtensor<[1,1,5,5],ui8>, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,9,9],ui8>
// CHECK: "torch.aten.max_pool2d"(%[[PADDED]], {{.*}} -> !torch.vtensor<[1,1,7,7],ui8>

// CHECK-LABEL: func.func @test_maxpool_1d_dilations(
func.func @test_maxpool_1d_dilations(%arg0: !torch.vtensor<[1,3,32],f32>) -> !torch.vtensor<[1,3,30],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64], torch.onnx.dilations = [2 : si64]} : (!torch.vtensor<[1,3,32],f32>) -> !torch.vtensor<[1,3,30],f32>
  return %0 : !torch.vtensor<[1,3,30],f32>
}
// CHECK: "torch.constant.bool"() {value = false}
// CHECK: %[[D:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[DILATIONS:.+]] = "torch.prim.ListConstruct"(%[[D]]) : (!torch.int) -> !torch.list<int>
// CHECK: "torch.aten.max_pool1d"(%arg0, %{{.+}}, %{{.+}}, %{{.+}}, %[[DILATIONS]], %{{.+}}) : {{.*}} -> !torch.vtensor<[1,3,30],f32>

// CHECK-LABEL: func.func @test_maxpool_3d_int8_asymmetric(
func.func @test_maxpool_3d_int8_asymmetric(%arg0: !torch.vtensor<[1,2,4,4,4],si8>) -> !torch.vtensor<[1,2,4,3,3],si8> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64, 2 : si64, 2 : si64], torch.onnx.pads = [1 : si64, 0 : si64, 0 : si64, 0 : si64, 0 : si64, 0 : si64]} : (!torch.vtensor<[1,2,4,4,4],si8>) -> !torch.vtensor<[1,2,4,3,3],si8>
  return %0 : !torch.vtensor<[1,2,4,3,3],si8>
}
// CHECK: %[[FILL:.+]] = "torch.constant.int"() {value = -128 : i64}
// CHECK: %[[PADDED:.+]] = "torch.aten.constant_pad_nd"(%arg0, %{{.+}}, %[[FILL]]) : {{.*}} -> !torch.vtensor<[1,2,5,4,4],si8>
// CHECK: "torch.aten.max_pool3d"(%[[PADDED]], {{.*}} -> !torch.vtensor<[1,2,4,3,3],si8>

// An Indices output that nothing reads is no obstacle.
// CHECK-LABEL: func.func @test_maxpool_unused_indices(
func.func @test_maxpool_unused_indices(%arg0: !torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,4,4],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0:2 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,8,8],f32>) -> (!torch.vtensor<[1,3,4,4],f32>, !torch.vtensor<[1,3,4,4],si64>)
  return %0#0 : !torch.vtensor<[1,3,4,4],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.max_pool2d"(%arg0, {{.*}} -> !torch.vtensor<[1,3,4,4],f32>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: torch.operator

// SAME_UPPER with a known height and a width known only at run time (PP-OCR's
// recognizer): the height's pads are constants, the width's computed; the output keeps
// ceil(24 / 1) = 24 rows.
// CHECK-LABEL: func.func @test_maxpool_same_upper_mixed(
func.func @test_maxpool_same_upper_mixed(%arg0: !torch.vtensor<[?,48,24,?],f32>) -> !torch.vtensor<[?,48,24,?],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [1 : si64, 1 : si64]} : (!torch.vtensor<[?,48,24,?],f32>) -> !torch.vtensor<[?,48,24,?],f32>
  return %0 : !torch.vtensor<[?,48,24,?],f32>
}
// CHECK: %[[HB:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[HE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: "torch.prim.max.int"
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%{{.*}}, %{{.*}}, %[[HB]], %[[HE]]) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[X:.+]] = "torch.aten.constant_pad_nd"(%arg0, %[[PADS]], {{.*}}) : (!torch.vtensor<[?,48,24,?],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[?,48,25,?],f32>
// CHECK: "torch.aten.max_pool2d"(%[[X]], {{.*}}) : {{.*}} -> !torch.vtensor<[?,48,24,?],f32>
