// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_concat_2d_axis_1(
func.func @test_concat_2d_axis_1(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,7],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Concat", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,7],f32>
  return %0 : !torch.vtensor<[2,7],f32>
}
// CHECK: %[[LIST:.+]] = "torch.prim.ListConstruct"(%arg0, %arg1) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,4],f32>) -> !torch.list<vtensor>
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.cat"(%[[LIST]], %[[DIM]]) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,7],f32>
// CHECK: return %[[Y]]

// A negative axis counts from the back; three inputs, one of them dynamic.
// CHECK-LABEL: func.func @test_concat_negative_axis(
func.func @test_concat_negative_axis(%arg0: !torch.vtensor<[1,8,4],ui8>, %arg1: !torch.vtensor<[?,8,4],ui8>, %arg2: !torch.vtensor<[3,8,4],ui8>) -> !torch.vtensor<[?,8,4],ui8> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.Concat", torch.onnx.axis = -3 : si64} : (!torch.vtensor<[1,8,4],ui8>, !torch.vtensor<[?,8,4],ui8>, !torch.vtensor<[3,8,4],ui8>) -> !torch.vtensor<[?,8,4],ui8>
  return %0 : !torch.vtensor<[?,8,4],ui8>
}
// CHECK: %[[LIST:.+]] = "torch.prim.ListConstruct"(%arg0, %arg1, %arg2) : (!torch.vtensor<[1,8,4],ui8>, !torch.vtensor<[?,8,4],ui8>, !torch.vtensor<[3,8,4],ui8>) -> !torch.list<vtensor>
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: "torch.aten.cat"(%[[LIST]], %[[DIM]]) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[?,8,4],ui8>

// Concat-1 made the axis optional, defaulting to 1.
// CHECK-LABEL: func.func @test_concat_v1_default_axis(
func.func @test_concat_v1_default_axis(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,6],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Concat"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,6],f32>
  return %0 : !torch.vtensor<[2,6],f32>
}
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: "torch.aten.cat"(%{{.+}}, %[[DIM]]) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[2,6],f32>
