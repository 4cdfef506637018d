// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Constant indices are made non-negative at compile time: -1 and -5 of a dimension
// of 5 are 4 and 0. 2-D indices are flattened for index_select, and the result
// unflattened back to their shape.
// CHECK-LABEL: func.func @test_gather_negative_constant_indices(
func.func @test_gather_negative_constant_indices(%arg0: !torch.vtensor<[5,4],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %i = "torch.vtensor.literal"() {value = dense<[[0, -1, 2], [-5, 4, 1]]> : tensor<2x3xsi64>} : () -> !torch.vtensor<[2,3],si64>
  %0 = "torch.operator"(%arg0, %i) {name = "onnx.Gather"} : (!torch.vtensor<[5,4],f32>, !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}
// CHECK: %[[IDX:.+]] = "torch.vtensor.literal"() {value = dense<{{\[\[}}0, 4, 2], [0, 4, 1]]> : tensor<2x3xsi64>} : () -> !torch.vtensor<[2,3],si64>
// CHECK: %[[S:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[E:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[FLAT:.+]] = "torch.aten.flatten.using_ints"(%[[IDX]], %[[S]], %[[E]]) : (!torch.vtensor<[2,3],si64>, !torch.int, !torch.int) -> !torch.vtensor<[6],si64>
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[SEL:.+]] = "torch.aten.index_select"(%arg0, %[[AXIS]], %[[FLAT]]) : (!torch.vtensor<[5,4],f32>, !torch.int, !torch.vtensor<[6],si64>) -> !torch.vtensor<[6,4],f32>
// CHECK: %[[D0:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[D1:.+]] = "torch.constant.int"() {value = 3 : i64}
// CHECK: %[[SIZES:.+]] = "torch.prim.ListConstruct"(%[[D0]], %[[D1]])
// CHECK: %[[Y:.+]] = "torch.aten.unflatten.int"(%[[SEL]], %[[AXIS]], %[[SIZES]]) : (!torch.vtensor<[6,4],f32>, !torch.int, !torch.list<int>) -> !torch.vtensor<[2,3,4],f32>
// CHECK: return %[[Y]]

// Non-negative 1-D constant indices are used as they are.
// CHECK-LABEL: func.func @test_gather_constant_1d(
func.func @test_gather_constant_1d(%arg0: !torch.vtensor<[5,4],ui8>) -> !torch.vtensor<[5,2],ui8> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %i = "torch.vtensor.literal"() {value = dense<[3, 1]> : tensor<2xsi32>} : () -> !torch.vtensor<[2],si32>
  %0 = "torch.operator"(%arg0, %i) {name = "onnx.Gather", torch.onnx.axis = -1 : si64} : (!torch.vtensor<[5,4],ui8>, !torch.vtensor<[2],si32>) -> !torch.vtensor<[5,2],ui8>
  return %0 : !torch.vtensor<[5,2],ui8>
}
// CHECK: %[[IDX:.+]] = "torch.vtensor.literal"() {value = dense<[3, 1]> : tensor<2xsi32>}
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.index_select"(%arg0, %[[AXIS]], %[[IDX]]) : (!torch.vtensor<[5,4],ui8>, !torch.int, !torch.vtensor<[2],si32>) -> !torch.vtensor<[5,2],ui8>
// CHECK: return %[[Y]]

// Indices known only at run time are wrapped with where(i < 0, i + size, i); a
// scalar index selects one slice and drops the axis.
// CHECK-LABEL: func.func @test_gather_scalar_runtime_index(
func.func @test_gather_scalar_runtime_index(%arg0: !torch.vtensor<[5,?],f32>, %arg1: !torch.vtensor<[],si64>) -> !torch.vtensor<[5],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Gather", torch.onnx.axis = 1 : si64} : (!torch.vtensor<[5,?],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[5],f32>
  return %0 : !torch.vtensor<[5],f32>
}
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[NEG:.+]] = "torch.aten.lt.Scalar"(%arg1, %[[ZERO]]) : (!torch.vtensor<[],si64>, !torch.int) -> !torch.vtensor<[],i1>
// CHECK: %[[DIM:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[SIZE:.+]] = "torch.aten.size.int"(%arg0, %[[DIM]]) : (!torch.vtensor<[5,?],f32>, !torch.int) -> !torch.int
// CHECK: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[WRAP:.+]] = "torch.aten.add.Scalar"(%arg1, %[[SIZE]], %[[ONE]]) : (!torch.vtensor<[],si64>, !torch.int, !torch.int) -> !torch.vtensor<[],si64>
// CHECK: %[[IDX:.+]] = "torch.aten.where.self"(%[[NEG]], %[[WRAP]], %arg1) : (!torch.vtensor<[],i1>, !torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
// CHECK: %[[UZ:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[ONE_D:.+]] = "torch.aten.unsqueeze"(%[[IDX]], %[[UZ]]) : (!torch.vtensor<[],si64>, !torch.int) -> !torch.vtensor<[1],si64>
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[SEL:.+]] = "torch.aten.index_select"(%arg0, %[[AXIS]], %[[ONE_D]]) : (!torch.vtensor<[5,?],f32>, !torch.int, !torch.vtensor<[1],si64>) -> !torch.vtensor<[5,1],f32>
// CHECK: %[[Y:.+]] = "torch.aten.squeeze.dim"(%[[SEL]], %[[AXIS]]) : (!torch.vtensor<[5,1],f32>, !torch.int) -> !torch.vtensor<[5],f32>
// CHECK: return %[[Y]]

// With a static size the wrap adds a constant.
// CHECK-LABEL: func.func @test_gather_runtime_indices_static_size(
func.func @test_gather_runtime_indices_static_size(%arg0: !torch.vtensor<[5,4],f32>, %arg1: !torch.vtensor<[3],si64>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Gather"} : (!torch.vtensor<[5,4],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}
// CHECK: %[[SIZE:.+]] = "torch.constant.int"() {value = 5 : i64}
// CHECK: "torch.aten.add.Scalar"(%arg1, %[[SIZE]], %{{.+}})
// CHECK: %[[IDX:.+]] = "torch.aten.where.self"
// CHECK: %[[Y:.+]] = "torch.aten.index_select"(%arg0, %{{.+}}, %[[IDX]]) : (!torch.vtensor<[5,4],f32>, !torch.int, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[Y]]

// Indices from a Constant node are made non-negative at compile time too, once the
// Constant is lowered.
// CHECK-LABEL: func.func @test_gather_indices_from_constant_node(
func.func @test_gather_indices_from_constant_node(%arg0: !torch.vtensor<[3],si64>) -> !torch.vtensor<[],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %i = "torch.operator"() {name = "onnx.Constant", torch.onnx.value = dense<-1> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %0 = "torch.operator"(%arg0, %i) {name = "onnx.Gather"} : (!torch.vtensor<[3],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  return %0 : !torch.vtensor<[],si64>
}
// CHECK-NOT: torch.aten.where.self
// CHECK: %[[IDX:.+]] = "torch.vtensor.literal"() {value = dense<2> : tensor<si64>}
// CHECK: %[[ONE_D:.+]] = "torch.aten.unsqueeze"(%[[IDX]], %{{.+}}) : (!torch.vtensor<[],si64>, !torch.int) -> !torch.vtensor<[1],si64>
// CHECK: %[[SEL:.+]] = "torch.aten.index_select"(%arg0, %{{.+}}, %[[ONE_D]]) : (!torch.vtensor<[3],si64>, !torch.int, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1],si64>
// CHECK: "torch.aten.squeeze.dim"(%[[SEL]], %{{.+}}) : (!torch.vtensor<[1],si64>, !torch.int) -> !torch.vtensor<[],si64>
