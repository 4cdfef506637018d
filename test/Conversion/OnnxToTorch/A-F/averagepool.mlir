// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_averagepool_2d_default(
func.func @test_averagepool_2d_default(%arg0: !torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,31,31],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.AveragePool", torch.onnx.kernel_shape = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,31,31],f32>
  return %0 : !torch.vtensor<[1,3,31,31],f32>
}
// CHECK: %[[K0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[K1:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[KERNEL:.+]] = "torch.prim.ListConstruct"(%[[K0]], %[[K1]])
// CHECK: %[[STRIDES:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[CEIL:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[COUNT_PAD:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[DIVISOR:.+]] = "torch.constant.none"()
// CHECK: %[[Y:.+]] = "torch.aten.avg_pool2d"(%arg0, %[[KERNEL]], %[[STRIDES]], %[[PADS]], %[[CEIL]], %[[COUNT_PAD]], %[[DIVISOR]]) : (!torch.vtensor<[1,3,32,32],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,3,31,31],f32>
// CHECK: return %[[Y]]

// Symmetric pads: torch's padding and count_include_pad mean what ONNX's do.
// CHECK-LABEL: func.func @test_averagepool_2d_pads_count_include_pad(
func.func @test_averagepool_2d_pads_count_include_pad(%arg0: !torch.vtensor<[1,3,28,28],f32>) -> !torch.vtensor<[1,3,30,30],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.AveragePool", torch.onnx.count_include_pad = 1 : si64, torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [2 : si64, 2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,28,28],f32>) -> !torch.vtensor<[1,3,30,30],f32>
  return %0 : !torch.vtensor<[1,3,30,30],f32>
}
// Pads over half the kernel are explicit zeros, counted as ONNX counts them.
// CHECK: %[[ZERO:.+]] = "torch.constant.float"() {value = 0.000000e+00 : f64}
// CHECK: %[[PADDED:.+]] = "torch.aten.constant_pad_nd"(%arg0, %{{.+}}, %[[ZERO]]) : {{.*}} -> !torch.vtensor<[1,3,32,32],f32>
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[NOPADS:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]])
// CHECK: %[[CEIL:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[COUNT_PAD:.+]] = "torch.constant.bool"() {value = true}
// CHECK: "torch.aten.avg_pool2d"(%[[PADDED]], %{{.+}}, %{{.+}}, %[[NOPADS]], %[[CEIL]], %[[COUNT_PAD]], %{{.+}}) : {{.*}} -> !torch.vtensor<[1,3,30,30],f32>

// CHECK-LABEL: func.func @test_averagepool_2d_pads(
func.func @test_averagepool_2d_pads(%arg0: !torch.vtensor<[1,3,28,28],f32>) -> !torch.vtensor<[1,3,28,28],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.AveragePool", torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,3,28,28],f32>) -> !torch.vtensor<[1,3,28,28],f32>
  return %0 : !torch.vtensor<[1,3,28,28],f32>
}
// CHECK: %[[KERNEL:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[STRIDES:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[P0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[P1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[P0]], %[[P1]])
// CHECK: %[[CEIL:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[COUNT_PAD:.+]] = "torch.constant.bool"() {value = false}
// CHECK: "torch.aten.avg_pool2d"(%arg0, %[[KERNEL]], %[[STRIDES]], %[[PADS]], %[[CEIL]], %[[COUNT_PAD]], %{{.+}}) : {{.*}} -> !torch.vtensor<[1,3,28,28],f32>

// Asymmetric pads counted in the average are zeros like any others.
// CHECK-LABEL: func.func @test_averagepool_asymmetric_count_include_pad(
func.func @test_averagepool_asymmetric_count_include_pad(%arg0: !torch.vtensor<[1,1,6,6],f32>) -> !torch.vtensor<[1,1,3,3],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.AveragePool", torch.onnx.count_include_pad = 1 : si64, torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.pads = [0 : si64, 0 : si64, 1 : si64, 1 : si64]} : (!torch.vtensor<[1,1,6,6],f32>) -> !torch.vtensor<[1,1,3,3],f32>
  return %0 : !torch.vtensor<[1,1,3,3],f32>
}
// CHECK: %[[ZERO:.+]] = "torch.constant.float"() {value = 0.000000e+00 : f64}
// CHECK: %[[W0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[W1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[H0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[H1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[LIST:.+]] = "torch.prim.ListConstruct"(%[[W0]], %[[W1]], %[[H0]], %[[H1]])
// CHECK: %[[PADDED:.+]] = "torch.aten.constant_pad_nd"(%arg0, %[[LIST]], %[[ZERO]]) : {{.*}} -> !torch.vtensor<[1,1,7,7],f32>
// CHECK: %[[COUNT_PAD:.+]] = "torch.constant.bool"() {value = true}
// CHECK: %[[Y:.+]] = "torch.aten.avg_pool2d"(%[[PADDED]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[COUNT_PAD]], %{{.+}}) : {{.*}} -> !torch.vtensor<[1,1,3,3],f32>
// CHECK-NEXT: return %[[Y]]

// SAME_UPPER without counting the padding: the average over the zero-padded input is
// divided by the share of real elements, the same pool over padded ones.
// CHECK-LABEL: func.func @test_averagepool_same_upper(
func.func @test_averagepool_same_upper(%arg0: !torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,16,16],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.AveragePool", torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,16,16],f32>
  return %0 : !torch.vtensor<[1,3,16,16],f32>
}
// CHECK: %[[PADDED:.+]] = "torch.aten.constant_pad_nd"(%arg0, {{.*}} -> !torch.vtensor<[1,3,33,33],f32>
// CHECK: %[[SUMS:.+]] = "torch.aten.avg_pool2d"(%[[PADDED]], {{.*}} -> !torch.vtensor<[1,3,16,16],f32>
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[ONES:.+]] = "torch.aten.ones_like"(%arg0, %[[NONE]], %[[NONE]], %[[NONE]], %[[NONE]], %[[NONE]]) : (!torch.vtensor<[1,3,32,32],f32>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[1,3,32,32],f32>
// CHECK: %[[ZERO:.+]] = "torch.constant.float"() {value = 0.000000e+00 : f64}
// CHECK: %[[PADDED_ONES:.+]] = "torch.aten.constant_pad_nd"(%[[ONES]], %{{.+}}, %[[ZERO]]) : {{.*}} -> !torch.vtensor<[1,3,33,33],f32>
// CHECK: %[[COUNT_PAD:.+]] = "torch.constant.bool"() {value = true}
// CHECK: %[[SHARES:.+]] = "torch.aten.avg_pool2d"(%[[PADDED_ONES]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[COUNT_PAD]], %{{.+}}) : {{.*}} -> !torch.vtensor<[1,3,16,16],f32>
// CHECK: %[[Y:.+]] = "torch.aten.div.Tensor"(%[[SUMS]], %[[SHARES]]) : (!torch.vtensor<[1,3,16,16],f32>, !torch.vtensor<[1,3,16,16],f32>) -> !torch.vtensor<[1,3,16,16],f32>
// CHECK-NEXT: return %[[Y]]

// CHECK-LABEL: func.func @test_averagepool_1d_ceil(
func.func @test_averagepool_1d_ceil(%arg0: !torch.vtensor<[1,3,10],f32>) -> !torch.vtensor<[1,3,5],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.AveragePool", torch.onnx.ceil_mode = 1 : si64, torch.onnx.kernel_shape = [3 : si64], torch.onnx.strides = [2 : si64]} : (!torch.vtensor<[1,3,10],f32>) -> !torch.vtensor<[1,3,5],f32>
  return %0 : !torch.vtensor<[1,3,5],f32>
}
// CHECK: %[[K:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[KERNEL:.+]] = "torch.prim.ListConstruct"(%[[K]]) : (!torch.int) -> !torch.list<int>
// CHECK: %[[CEIL:.+]] = "torch.constant.bool"() {value = true}
// CHECK: %[[COUNT_PAD:.+]] = "torch.constant.bool"() {value = false}
// CHECK: "torch.aten.avg_pool1d"(%arg0, %[[KERNEL]], %{{.+}}, %{{.+}}, %[[CEIL]], %[[COUNT_PAD]]) : (!torch.vtensor<[1,3,10],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool) -> !torch.vtensor<[1,3,5],f32>

// CHECK-LABEL: func.func @test_averagepool_3d(
func.func @test_averagepool_3d(%arg0: !torch.vtensor<[1,2,8,8,8],f32>) -> !torch.vtensor<[1,2,4,4,4],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.AveragePool", torch.onnx.kernel_shape = [2 : si64, 2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,2,8,8,8],f32>) -> !torch.vtensor<[1,2,4,4,4],f32>
  return %0 : !torch.vtensor<[1,2,4,4,4],f32>
}
// CHECK: "torch.aten.avg_pool3d"(%arg0, {{.*}} : (!torch.vtensor<[1,2,8,8,8],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,2,4,4,4],f32>
// CHECK-NOT: torch.operator

// SAME_LOWER over sizes known only at run time: the input is padded by pads computed
// from its sizes (the odd one at the start), and, since the padding is not counted,
// the sums are divided by the same pool over ones padded with zeros.
// CHECK-LABEL: func.func @test_averagepool_same_lower_run_time(
func.func @test_averagepool_same_lower_run_time(%arg0: !torch.vtensor<[1,3,?,?],f32>) -> !torch.vtensor<[1,3,?,?],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.AveragePool", torch.onnx.auto_pad = "SAME_LOWER", torch.onnx.kernel_shape = [3 : si64, 3 : si64]} : (!torch.vtensor<[1,3,?,?],f32>) -> !torch.vtensor<[1,3,?,?],f32>
  return %0 : !torch.vtensor<[1,3,?,?],f32>
}
// CHECK: "torch.aten.size.int"(%arg0, {{.*}}) : (!torch.vtensor<[1,3,?,?],f32>, !torch.int) -> !torch.int
// CHECK: "torch.prim.max.int"
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"({{.*}}) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[X:.+]] = "torch.aten.constant_pad_nd"(%arg0, %[[PADS]], {{.*}}) : (!torch.vtensor<[1,3,?,?],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,3,?,?],f32>
// CHECK: %[[SUMS:.+]] = "torch.aten.avg_pool2d"(%[[X]], {{.*}}) : {{.*}} -> !torch.vtensor<[1,3,?,?],f32>
// CHECK: %[[ONES:.+]] = "torch.aten.ones_like"(%arg0, {{.*}})
// CHECK: %[[PADDED_ONES:.+]] = "torch.aten.constant_pad_nd"(%[[ONES]], {{.*}})
// CHECK: %[[SHARES:.+]] = "torch.aten.avg_pool2d"(%[[PADDED_ONES]], {{.*}})
// CHECK: "torch.aten.div.Tensor"(%[[SUMS]], %[[SHARES]])
