// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// NonZero: aten.nonzero's rows [n, rank], transposed to ONNX's columns [rank, n]; n is
// known only at run time.
// CHECK-LABEL: func.func @test_nonzero(
func.func @test_nonzero(%arg0: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,?],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.NonZero"} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,?],si64>
  return %0 : !torch.vtensor<[2,?],si64>
}
// CHECK: %[[ROWS:.+]] = "torch.aten.nonzero"(%arg0) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[?,2],si64>
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.transpose.int"(%[[ROWS]], %[[ZERO]], %[[ONE]]) : (!torch.vtensor<[?,2],si64>, !torch.int, !torch.int) -> !torch.vtensor<[2,?],si64>
// CHECK: return %[[Y]]

// NonMaxSuppression with every input: one qlower.non_max_suppression operator, the
// inputs then center_point_box.
// CHECK-LABEL: func.func @test_nms(
func.func @test_nms(%arg0: !torch.vtensor<[1,6,4],f32>, %arg1: !torch.vtensor<[1,2,6],f32>, %arg2: !torch.vtensor<[1],si64>, %arg3: !torch.vtensor<[1],f32>, %arg4: !torch.vtensor<[1],f32>) -> !torch.vtensor<[?,3],si64> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2, %arg3, %arg4) {name = "onnx.NonMaxSuppression", torch.onnx.center_point_box = 1 : si64} : (!torch.vtensor<[1,6,4],f32>, !torch.vtensor<[1,2,6],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[?,3],si64>
  return %0 : !torch.vtensor<[?,3],si64>
}
// CHECK: %[[C:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.operator"(%arg0, %arg1, %arg2, %arg3, %arg4, %[[C]]) {name = "qlower.non_max_suppression"} : (!torch.vtensor<[1,6,4],f32>, !torch.vtensor<[1,2,6],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],f32>, !torch.int) -> !torch.vtensor<[?,3],si64>
// CHECK: return %[[Y]]

// The optional inputs left out become none; center_point_box defaults to 0.
// CHECK-LABEL: func.func @test_nms_minimal(
func.func @test_nms_minimal(%arg0: !torch.vtensor<[2,?,4],f32>, %arg1: !torch.vtensor<[2,1,?],f32>) -> !torch.vtensor<[?,3],si64> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.NonMaxSuppression"} : (!torch.vtensor<[2,?,4],f32>, !torch.vtensor<[2,1,?],f32>) -> !torch.vtensor<[?,3],si64>
  return %0 : !torch.vtensor<[?,3],si64>
}
// CHECK: %[[N0:.+]] = "torch.constant.none"()
// CHECK: %[[N1:.+]] = "torch.constant.none"()
// CHECK: %[[N2:.+]] = "torch.constant.none"()
// CHECK: %[[C:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: "torch.operator"(%arg0, %arg1, %[[N0]], %[[N1]], %[[N2]], %[[C]]) {name = "qlower.non_max_suppression"}
