// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_add(
func.func @test_add(%arg0: !torch.vtensor<[3,4,5],f32>, %arg1: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Add"} : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[Y:.+]] = "torch.aten.add.Tensor"(%arg0, %arg1, %[[ONE]]) : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[3,4,5],f32>, !torch.int) -> !torch.vtensor<[3,4,5],f32>
// CHECK: return %[[Y]]

// Multidirectional broadcasting is torch's own: the operands go in unchanged.
// CHECK-LABEL: func.func @test_add_bcast(
func.func @test_add_bcast(%arg0: !torch.vtensor<[3,4,5],f32>, %arg1: !torch.vtensor<[5],f32>) -> !torch.vtensor<[3,4,5],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Add"} : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[3,4,5],f32>
  return %0 : !torch.vtensor<[3,4,5],f32>
}
// CHECK: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: "torch.aten.add.Tensor"(%arg0, %arg1, %[[ONE]]) : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[5],f32>, !torch.int) -> !torch.vtensor<[3,4,5],f32>

// CHECK-LABEL: func.func @test_add_bcast_both_ways(
func.func @test_add_bcast_both_ways(%arg0: !torch.vtensor<[3,1],si64>, %arg1: !torch.vtensor<[1,4],si64>) -> !torch.vtensor<[3,4],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Add"} : (!torch.vtensor<[3,1],si64>, !torch.vtensor<[1,4],si64>) -> !torch.vtensor<[3,4],si64>
  return %0 : !torch.vtensor<[3,4],si64>
}
// CHECK: "torch.aten.add.Tensor"(%arg0, %arg1, %{{.+}}) : (!torch.vtensor<[3,1],si64>, !torch.vtensor<[1,4],si64>, !torch.int) -> !torch.vtensor<[3,4],si64>

// CHECK-LABEL: func.func @test_add_uint8_dynamic(
func.func @test_add_uint8_dynamic(%arg0: !torch.vtensor<[?,4],ui8>, %arg1: !torch.vtensor<[],ui8>) -> !torch.vtensor<[?,4],ui8> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Add"} : (!torch.vtensor<[?,4],ui8>, !torch.vtensor<[],ui8>) -> !torch.vtensor<[?,4],ui8>
  return %0 : !torch.vtensor<[?,4],ui8>
}
// CHECK: "torch.aten.add.Tensor"(%arg0, %arg1, %{{.+}}) : (!torch.vtensor<[?,4],ui8>, !torch.vtensor<[],ui8>, !torch.int) -> !torch.vtensor<[?,4],ui8>

// Before opset 7, `broadcast = 1` with `axis` lines B up with A from that axis:
// B [3,4] at axis 1 of A [2,3,4,5] gets a trailing size-1 dimension.
// CHECK-LABEL: func.func @test_add_legacy_axis(
func.func @test_add_legacy_axis(%arg0: !torch.vtensor<[2,3,4,5],f32>, %arg1: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[2,3,4,5],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Add", torch.onnx.axis = 1 : si64, torch.onnx.broadcast = 1 : si64} : (!torch.vtensor<[2,3,4,5],f32>, !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[2,3,4,5],f32>
  return %0 : !torch.vtensor<[2,3,4,5],f32>
}
// CHECK: %[[LAST:.+]] = "torch.constant.int"() {value = -1 : i64}
// CHECK: %[[B:.+]] = "torch.aten.unsqueeze"(%arg1, %[[LAST]]) : (!torch.vtensor<[3,4],f32>, !torch.int) -> !torch.vtensor<[3,4,1],f32>
// CHECK: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: "torch.aten.add.Tensor"(%arg0, %[[B]], %[[ONE]]) : (!torch.vtensor<[2,3,4,5],f32>, !torch.vtensor<[3,4,1],f32>, !torch.int) -> !torch.vtensor<[2,3,4,5],f32>

// B [2] at axis 0 of A [2,3,4] needs two.
// CHECK-LABEL: func.func @test_add_legacy_axis0(
func.func @test_add_legacy_axis0(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Add", torch.onnx.axis = 0 : si64, torch.onnx.broadcast = 1 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}
// CHECK: %[[B1:.+]] = "torch.aten.unsqueeze"(%arg1, %{{.+}}) : (!torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2,1],f32>
// CHECK: %[[B2:.+]] = "torch.aten.unsqueeze"(%[[B1]], %{{.+}}) : (!torch.vtensor<[2,1],f32>, !torch.int) -> !torch.vtensor<[2,1,1],f32>
// CHECK: "torch.aten.add.Tensor"(%arg0, %[[B2]], %{{.+}}) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,1,1],f32>, !torch.int) -> !torch.vtensor<[2,3,4],f32>

// Without `axis`, legacy broadcasting aligns the trailing dimensions, as numpy does.
// CHECK-LABEL: func.func @test_add_legacy_suffix(
func.func @test_add_legacy_suffix(%arg0: !torch.vtensor<[2,3,4],f32>, %arg1: !torch.vtensor<[4],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Add", torch.onnx.broadcast = 1 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}
// CHECK-NOT: torch.aten.unsqueeze
// CHECK: "torch.aten.add.Tensor"(%arg0, %arg1, %{{.+}}) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4],f32>, !torch.int) -> !torch.vtensor<[2,3,4],f32>
