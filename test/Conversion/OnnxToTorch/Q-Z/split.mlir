// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Split-18's num_outputs: three equal parts, one slice.Tensor per output.
// CHECK-LABEL: func.func @test_split_num_outputs_3(
func.func @test_split_num_outputs_3(%arg0: !torch.vtensor<[2,6],f32>) -> (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0:3 = "torch.operator"(%arg0) {name = "onnx.Split", torch.onnx.axis = 1 : si64, torch.onnx.num_outputs = 3 : si64} : (!torch.vtensor<[2,6],f32>) -> (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>
}
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[STEP:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[S0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[E0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[Y0:.+]] = "torch.aten.slice.Tensor"(%arg0, %[[DIM]], %[[S0]], %[[E0]], %[[STEP]]) : (!torch.vtensor<[2,6],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,2],f32>
// CHECK: %[[S1:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[E1:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK: %[[Y1:.+]] = "torch.aten.slice.Tensor"(%arg0, %[[DIM]], %[[S1]], %[[E1]], %[[STEP]])
// CHECK: %[[S2:.+]] = "torch.constant.int"() {value = 4 : i64}
// CHECK: %[[E2:.+]] = "torch.constant.int"() {value = 6 : i64}
// CHECK: %[[Y2:.+]] = "torch.aten.slice.Tensor"(%arg0, %[[DIM]], %[[S2]], %[[E2]], %[[STEP]])
// CHECK: return %[[Y0]], %[[Y1]], %[[Y2]]

// Uneven num_outputs: parts of ceil(7 / 3) = 3, the last one smaller.
// CHECK-LABEL: func.func @test_split_num_outputs_uneven(
func.func @test_split_num_outputs_uneven(%arg0: !torch.vtensor<[7],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[1],f32>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0:3 = "torch.operator"(%arg0) {name = "onnx.Split", torch.onnx.num_outputs = 3 : si64} : (!torch.vtensor<[7],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[1],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[1],f32>
}
// CHECK: "torch.aten.slice.Tensor"(%arg0, {{.+}} -> !torch.vtensor<[3],f32>
// CHECK: "torch.aten.slice.Tensor"(%arg0, {{.+}} -> !torch.vtensor<[3],f32>
// CHECK: %[[S2:.+]] = "torch.constant.int"() {value = 6 : i64}
// CHECK: %[[E2:.+]] = "torch.constant.int"() {value = 7 : i64}
// CHECK: "torch.aten.slice.Tensor"(%arg0, %{{.+}}, %[[S2]], %[[E2]], %{{.+}}) : (!torch.vtensor<[7],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[1],f32>

// Split-13 takes the sizes as an input; a negative axis counts from the back.
// CHECK-LABEL: func.func @test_split_sizes_input(
func.func @test_split_sizes_input(%arg0: !torch.vtensor<[?,6],f32>) -> (!torch.vtensor<[?,1],f32>, !torch.vtensor<[?,5],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[1, 5]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0:2 = "torch.operator"(%arg0, %s) {name = "onnx.Split", torch.onnx.axis = -1 : si64} : (!torch.vtensor<[?,6],f32>, !torch.vtensor<[2],si64>) -> (!torch.vtensor<[?,1],f32>, !torch.vtensor<[?,5],f32>)
  return %0#0, %0#1 : !torch.vtensor<[?,1],f32>, !torch.vtensor<[?,5],f32>
}
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y0:.+]] = "torch.aten.slice.Tensor"(%arg0, %[[DIM]], %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[?,6],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[?,1],f32>
// CHECK: %[[S1:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[E1:.+]] = "torch.constant.int"() {value = 6 : i64}
// CHECK: %[[Y1:.+]] = "torch.aten.slice.Tensor"(%arg0, %[[DIM]], %[[S1]], %[[E1]], %{{.+}}) : (!torch.vtensor<[?,6],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[?,5],f32>
// CHECK: return %[[Y0]], %[[Y1]]

// Split-11 takes the sizes as an attribute; without them the parts are equal.
// CHECK-LABEL: func.func @test_split_sizes_attribute(
func.func @test_split_sizes_attribute(%arg0: !torch.vtensor<[5,2],f32>) -> (!torch.vtensor<[2,2],f32>, !torch.vtensor<[3,2],f32>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0:2 = "torch.operator"(%arg0) {name = "onnx.Split", torch.onnx.split = [2 : si64, 3 : si64]} : (!torch.vtensor<[5,2],f32>) -> (!torch.vtensor<[2,2],f32>, !torch.vtensor<[3,2],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2,2],f32>, !torch.vtensor<[3,2],f32>
}
// CHECK: %[[E0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: "torch.aten.slice.Tensor"(%arg0, %{{.+}}, %{{.+}}, %[[E0]], %{{.+}}) : (!torch.vtensor<[5,2],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,2],f32>
// CHECK: %[[E1:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: "torch.aten.slice.Tensor"(%arg0, %{{.+}}, %{{.+}}, %[[E1]], %{{.+}}) : (!torch.vtensor<[5,2],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[3,2],f32>

// CHECK-LABEL: func.func @test_split_equal_default(
func.func @test_split_equal_default(%arg0: !torch.vtensor<[4,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) attributes {torch.onnx_meta.opset_version = 2 : si64} {
  %0:2 = "torch.operator"(%arg0) {name = "onnx.Split"} : (!torch.vtensor<[4,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>
}
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: "torch.aten.slice.Tensor"(%arg0, %[[DIM]], %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[4,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,3],f32>
// CHECK: "torch.aten.slice.Tensor"(%arg0, %[[DIM]], %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[4,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,3],f32>

// Constant sizes over an axis of unknown size keep constant bounds (YOLOv8's head).
// CHECK-LABEL: func.func @test_split_constant_sizes_unknown_axis(
func.func @test_split_constant_sizes_unknown_axis(%arg0: !torch.vtensor<[1,?,8],f32>) -> (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = "torch.vtensor.literal"() {value = dense<[64, 80]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0:2 = "torch.operator"(%arg0, %s) {name = "onnx.Split", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[2],si64>) -> (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>)
  return %0#0, %0#1 : !torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>
}
// CHECK: %[[B:.+]] = "torch.constant.int"() {value = 64 : i64}
// CHECK: "torch.aten.slice.Tensor"(%arg0, %{{.*}}, %{{.*}}, %[[B]], %{{.*}})
// CHECK: %[[E:.+]] = "torch.constant.int"() {value = 144 : i64}
// CHECK: "torch.aten.slice.Tensor"(%arg0, %{{.*}}, %{{.*}}, %[[E]], %{{.*}})

// Sizes known only at run time: each bound is the running sum of the sizes read with
// item.
// CHECK-LABEL: func.func @test_split_run_time_sizes(
func.func @test_split_run_time_sizes(%arg0: !torch.vtensor<[1,?,8],f32>, %arg1: !torch.vtensor<[2],si64>) -> (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0:2 = "torch.operator"(%arg0, %arg1) {name = "onnx.Split", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[2],si64>) -> (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>)
  return %0#0, %0#1 : !torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>
}
// CHECK: %[[S0:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[S1:.+]] = "torch.aten.item"({{.*}}) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[START:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[END0:.+]] = "torch.aten.add.int"(%[[START]], %[[S0]])
// CHECK: "torch.aten.slice.Tensor"(%arg0, %{{.*}}, %[[START]], %[[END0]], %{{.*}})
// CHECK: %[[END1:.+]] = "torch.aten.add.int"(%[[END0]], %[[S1]])
// CHECK: "torch.aten.slice.Tensor"(%arg0, %{{.*}}, %[[END0]], %[[END1]], %{{.*}})
