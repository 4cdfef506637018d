// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Dropout at inference passes its input on.
// CHECK-LABEL: func.func @test_dropout(
func.func @test_dropout(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Dropout", torch.onnx.seed = 0 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK-NOT: torch.aten
// CHECK: return %arg0

// Its mask keeps every element: all true. A constant false training_mode and any
// ratio are inference.
// CHECK-LABEL: func.func @test_dropout_mask(
func.func @test_dropout_mask(%arg0: !torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],i1>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %ratio = "torch.vtensor.literal"() {value = dense<0.5> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %mode = "torch.vtensor.literal"() {value = dense<false> : tensor<i1>} : () -> !torch.vtensor<[],i1>
  %0:2 = "torch.operator"(%arg0, %ratio, %mode) {name = "onnx.Dropout"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],i1>) -> (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],i1>)
  return %0#0, %0#1 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],i1>
}
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[BOOL:.+]] = "torch.constant.int"() {value = 11 : i64}
// CHECK: %[[MASK:.+]] = "torch.aten.ones_like"(%arg0, %[[BOOL]], %[[NONE]], %[[NONE]], %[[NONE]], %[[NONE]]) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.none) -> !torch.vtensor<[3,4],i1>
// CHECK: return %arg0, %[[MASK]]

// Before opset 10 the mask had the input's type: all ones.
// CHECK-LABEL: func.func @test_dropout_old_mask(
func.func @test_dropout_old_mask(%arg0: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0:2 = "torch.operator"(%arg0) {name = "onnx.Dropout", torch.onnx.ratio = 2.000000e-01 : f32} : (!torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
}
// CHECK: %[[F32:.+]] = "torch.constant.int"() {value = 6 : i64}
// CHECK: "torch.aten.ones_like"(%arg0, %[[F32]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : {{.+}} -> !torch.vtensor<[2],f32>

// Size is the product of the shape, as a 0-D int64 (read at run time when a
// dimension is dynamic).
// CHECK-LABEL: func.func @test_size(
func.func @test_size(%arg0: !torch.vtensor<[3,?],f32>) -> !torch.vtensor<[],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Size"} : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[],si64>
  return %0 : !torch.vtensor<[],si64>
}
// CHECK: %[[SHAPE:.+]] = "torch.aten._shape_as_tensor"(%arg0) : (!torch.vtensor<[3,?],f32>) -> !torch.vtensor<[2],si64>
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[KEEP:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[NONE:.+]] = "torch.constant.none"()
// CHECK: %[[N:.+]] = "torch.aten.prod.dim_int"(%[[SHAPE]], %[[DIM]], %[[KEEP]], %[[NONE]]) : (!torch.vtensor<[2],si64>, !torch.int, !torch.bool, !torch.none) -> !torch.vtensor<[],si64>
// CHECK: return %[[N]]
