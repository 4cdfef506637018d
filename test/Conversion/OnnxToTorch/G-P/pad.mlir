// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// ONNX lists every begin, then every end; torch lists (begin, end) pairs from the
// last dimension backwards.
// CHECK-LABEL: func.func @test_pad_constant_value_input(
func.func @test_pad_constant_value_input(%arg0: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,3,6,9],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %p = "torch.vtensor.literal"() {value = dense<[0, 0, 1, 2, 0, 0, 1, 2]> : tensor<8xsi64>} : () -> !torch.vtensor<[8],si64>
  %v = "torch.vtensor.literal"() {value = dense<1.5> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %0 = "torch.operator"(%arg0, %p, %v) {name = "onnx.Pad"} : (!torch.vtensor<[1,3,4,5],f32>, !torch.vtensor<[8],si64>, !torch.vtensor<[],f32>) -> !torch.vtensor<[1,3,6,9],f32>
  return %0 : !torch.vtensor<[1,3,6,9],f32>
}
// CHECK: %[[W0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[W1:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[H0:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[H1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[W0]], %[[W1]], %[[H0]], %[[H1]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[VALUE:.+]] = "torch.constant.float"() {value = 1.500000e+00 : f64}
// CHECK: %[[Y:.+]] = "torch.aten.constant_pad_nd"(%arg0, %[[PADS]], %[[VALUE]]) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,3,6,9],f32>
// CHECK: return %[[Y]]

// Without constant_value the padding is 0, an int for integer data.
// Negative pads crop.
// CHECK-LABEL: func.func @test_pad_negative_int(
func.func @test_pad_negative_int(%arg0: !torch.vtensor<[4,5],ui8>) -> !torch.vtensor<[3,7],ui8> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %p = "torch.vtensor.literal"() {value = dense<[-1, 1, 0, 1]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %0 = "torch.operator"(%arg0, %p) {name = "onnx.Pad"} : (!torch.vtensor<[4,5],ui8>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[3,7],ui8>
  return %0 : !torch.vtensor<[3,7],ui8>
}
// CHECK: %[[A:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[B:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[C:.+]] = "torch.constant.int"() {value = -1 : i64}
// CHECK: %[[D:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[A]], %[[B]], %[[C]], %[[D]])
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: "torch.aten.constant_pad_nd"(%arg0, %[[PADS]], %[[ZERO]]) : (!torch.vtensor<[4,5],ui8>, !torch.list<int>, !torch.int) -> !torch.vtensor<[3,7],ui8>

// A constant_value known only at run time is read with item.
// CHECK-LABEL: func.func @test_pad_runtime_value(
func.func @test_pad_runtime_value(%arg0: !torch.vtensor<[2,2],f32>, %arg1: !torch.vtensor<[],f32>) -> !torch.vtensor<[2,4],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %p = "torch.vtensor.literal"() {value = dense<[0, 1, 0, 1]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %0 = "torch.operator"(%arg0, %p, %arg1) {name = "onnx.Pad"} : (!torch.vtensor<[2,2],f32>, !torch.vtensor<[4],si64>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,4],f32>
  return %0 : !torch.vtensor<[2,4],f32>
}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[VALUE:.+]] = "torch.aten.item"(%arg1) : (!torch.vtensor<[],f32>) -> !torch.float
// CHECK: "torch.aten.constant_pad_nd"(%arg0, %[[PADS]], %[[VALUE]])

// Pad-2 takes pads and value as attributes, Pad-1 calls pads 'paddings'.
// CHECK-LABEL: func.func @test_pad_v2_attributes(
func.func @test_pad_v2_attributes(%arg0: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 2 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Pad", torch.onnx.pads = [1 : si64, 0 : si64, 0 : si64, 0 : si64], torch.onnx.value = -2.5 : f32} : (!torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32>
  return %0 : !torch.vtensor<[3,2],f32>
}
// CHECK: %[[VALUE:.+]] = "torch.constant.float"() {value = -2.500000e+00 : f64}
// CHECK: "torch.aten.constant_pad_nd"(%arg0, %{{.+}}, %[[VALUE]]) : (!torch.vtensor<[2,2],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[3,2],f32>

// CHECK-LABEL: func.func @test_pad_v1_paddings(
func.func @test_pad_v1_paddings(%arg0: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Pad", torch.onnx.paddings = [0 : si64, 0 : si64, 0 : si64, 1 : si64]} : (!torch.vtensor<[2,2],f32>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
// CHECK: %[[A:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[B:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[A]], %[[B]], %{{.+}}, %{{.+}})
// CHECK: "torch.aten.constant_pad_nd"(%arg0, %[[PADS]], %{{.+}}) : (!torch.vtensor<[2,2],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[2,3],f32>

// Reflect over the last axis (Pad-18 axes): torch's pad list covers the last two
// dimensions of an NCHW tensor, with zeros for H.
// CHECK-LABEL: func.func @test_pad_reflect_axes(
func.func @test_pad_reflect_axes(%arg0: !torch.vtensor<[1,3,4,5],f32>) -> !torch.vtensor<[1,3,4,7],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %p = "torch.vtensor.literal"() {value = dense<[1, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %ax = "torch.vtensor.literal"() {value = dense<[-1]> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %n = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %p, %n, %ax) {name = "onnx.Pad", torch.onnx.mode = "reflect"} : (!torch.vtensor<[1,3,4,5],f32>, !torch.vtensor<[2],si64>, !torch.none, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1,3,4,7],f32>
  return %0 : !torch.vtensor<[1,3,4,7],f32>
}
// CHECK: %[[A:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[B:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[C:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[D:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[A]], %[[B]], %[[C]], %[[D]]) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "reflect"} : () -> !torch.str
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[Y:.+]] = "torch.aten.pad"(%arg0, %[[PADS]], %[[MODE]], %[[NONE]]) : (!torch.vtensor<[1,3,4,5],f32>, !torch.list<int>, !torch.str, !torch.none) -> !torch.vtensor<[1,3,4,7],f32>
// CHECK: return %[[Y]]

// Edge padding is torch's replicate mode.
// CHECK-LABEL: func.func @test_pad_edge(
func.func @test_pad_edge(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %p = "torch.vtensor.literal"() {value = dense<[0, 2, 0, 0]> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %0 = "torch.operator"(%arg0, %p) {name = "onnx.Pad", torch.onnx.mode = "edge"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[3,6],f32>
  return %0 : !torch.vtensor<[3,6],f32>
}
// CHECK: %[[A:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[B:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(%[[A]], %[[B]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[MODE:.+]] = "torch.constant.str"() {value = "replicate"}
// CHECK: "torch.aten.pad"(%arg0, %[[PADS]], %[[MODE]], %{{.+}}) : (!torch.vtensor<[3,4],f32>, !torch.list<int>, !torch.str, !torch.none) -> !torch.vtensor<[3,6],f32>

// All-zero pads change nothing.
// CHECK-LABEL: func.func @test_pad_zero(
func.func @test_pad_zero(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %p = "torch.vtensor.literal"() {value = dense<0> : tensor<4xsi64>} : () -> !torch.vtensor<[4],si64>
  %0 = "torch.operator"(%arg0, %p) {name = "onnx.Pad"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK-NOT: torch.aten
// CHECK: return %arg0

// Pads known only at run time (a ResNet exported with NHWC input computes them):
// constant_pad_nd with every dimension's begin and end, last dimension first.
// CHECK-LABEL: func.func @test_pad_run_time_pads(
func.func @test_pad_run_time_pads(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Pad"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,?],f32>
  return %0 : !torch.vtensor<[?,?],f32>
}
// CHECK: %[[B0:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[B1:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[E0:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[E1:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[LIST:.+]] = "torch.prim.ListConstruct"(%[[B1]], %[[E1]], %[[B0]], %[[E0]]) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[FILL:.+]] = "torch.constant.float"() {value = 0.000000e+00 : f64}
// CHECK: "torch.aten.constant_pad_nd"(%arg0, %[[LIST]], %[[FILL]]) : (!torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[?,?],f32>

// Axes known only at run time (Pad-18): each axis is checked against the rank with
// torch.runtime.assert and taken modulo the rank; dimension d sums the pads of the
// axes equal to d.
// CHECK-LABEL: func.func @test_pad_run_time_axes(
func.func @test_pad_run_time_axes(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %p = "torch.vtensor.literal"() {value = dense<[1, 2]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.operator"(%arg0, %p, %none, %arg1) {name = "onnx.Pad"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>, !torch.none, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?],f32>
  return %0 : !torch.vtensor<[?,?],f32>
}
// CHECK: %[[AXIS:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[LOW:.+]] = "torch.aten.ge.int"(%[[AXIS]], %{{.+}}) : (!torch.int, !torch.int) -> !torch.bool
// CHECK: "torch.runtime.assert"(%[[LOW]]) {message = "an entry of 'axes' is outside [-2, 2)"} : (!torch.bool) -> ()
// CHECK: %[[HIGH:.+]] = "torch.aten.lt.int"(%[[AXIS]], %{{.+}}) : (!torch.int, !torch.int) -> !torch.bool
// CHECK: "torch.runtime.assert"(%[[HIGH]])
// CHECK: %[[N:.+]] = "torch.aten.remainder.int"(%[[AXIS]], %{{.+}}) : (!torch.int, !torch.int) -> !torch.int
// CHECK: "torch.aten.eq.int"(%[[N]], %{{.+}}) : (!torch.int, !torch.int) -> !torch.bool
// CHECK: %[[LIST:.+]] = "torch.prim.ListConstruct"({{.*}}) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: "torch.aten.constant_pad_nd"(%arg0, %[[LIST]], %{{.+}}) : (!torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[?,?],f32>
