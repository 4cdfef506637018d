// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_cumsum(
// Exclusive and reverse: flip, shift by one (slice + pad), sum, flip back.
func.func @test_cumsum(%arg0: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %axis = "torch.vtensor.literal"() {value = dense<1> : tensor<si32>} : () -> !torch.vtensor<[],si32>
  %0 = "torch.operator"(%arg0, %axis) {name = "onnx.CumSum"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[],si32>) -> !torch.vtensor<[2,3],f32>
  %1 = "torch.operator"(%arg0, %axis) {name = "onnx.CumSum", torch.onnx.exclusive = 1 : si64, torch.onnx.reverse = 1 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[],si32>) -> !torch.vtensor<[2,3],f32>
  return %0, %1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>
}
// CHECK: %[[V0:.+]] = "torch.vtensor.literal"() {value = dense<1> : tensor<si32>} : () -> !torch.vtensor<[],si32>
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V3:.+]] = "torch.aten.cumsum"(%arg0, %[[V1]], %[[V2]]) : (!torch.vtensor<[2,3],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[V4:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V5:.+]] = "torch.prim.ListConstruct"(%[[V4]]) : (!torch.int) -> !torch.list<int>
// CHECK: %[[V6:.+]] = "torch.aten.flip"(%arg0, %[[V5]]) : (!torch.vtensor<[2,3],f32>, !torch.list<int>) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[V7:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V8:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V9:.+]] = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
// CHECK: %[[V10:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V11:.+]] = "torch.aten.slice.Tensor"(%[[V6]], %[[V4]], %[[V8]], %[[V9]], %[[V10]]) : (!torch.vtensor<[2,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[2,2],f32>
// CHECK: %[[V12:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V13:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V14:.+]] = "torch.prim.ListConstruct"(%[[V12]], %[[V13]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[V15:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V16:.+]] = "torch.aten.constant_pad_nd"(%[[V11]], %[[V14]], %[[V15]]) : (!torch.vtensor<[2,2],f32>, !torch.list<int>, !torch.int) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[V17:.+]] = "torch.aten.cumsum"(%[[V16]], %[[V4]], %[[V7]]) : (!torch.vtensor<[2,3],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,3],f32>
// CHECK: %[[V18:.+]] = "torch.aten.flip"(%[[V17]], %[[V5]]) : (!torch.vtensor<[2,3],f32>, !torch.list<int>) -> !torch.vtensor<[2,3],f32>
// CHECK: return %[[V3]], %[[V18]] : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>

// CHECK-LABEL: func.func @test_trilu(
func.func @test_trilu(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[],si64>) -> (!torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],f32>) attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Trilu"} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>
  %1 = "torch.operator"(%arg0, %arg1) {name = "onnx.Trilu", torch.onnx.upper = 0 : si64} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[3,4],f32>
  return %0, %1 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],f32>
}
// CHECK: %[[V0:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V1:.+]] = "torch.aten.triu"(%arg0, %[[V0]]) : (!torch.vtensor<[3,4],f32>, !torch.int) -> !torch.vtensor<[3,4],f32>
// CHECK: %[[V2:.+]] = "torch.aten.item"(%arg1) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[V3:.+]] = "torch.aten.tril"(%arg0, %[[V2]]) : (!torch.vtensor<[3,4],f32>, !torch.int) -> !torch.vtensor<[3,4],f32>
// CHECK: return %[[V1]], %[[V3]] : !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],f32>

// CHECK-LABEL: func.func @test_gather_elements(
// Indices known only at run time may be negative: they are wrapped first.
func.func @test_gather_elements(%arg0: !torch.vtensor<[3,3],f32>, %arg1: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.GatherElements"} : (!torch.vtensor<[3,3],f32>, !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3],f32>
  return %0 : !torch.vtensor<[2,3],f32>
}
// CHECK: %[[V0:.+]] = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.aten.lt.Scalar"(%arg1, %[[V1]]) : (!torch.vtensor<[2,3],si64>, !torch.int) -> !torch.vtensor<[2,3],i1>
// CHECK: %[[V3:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V4:.+]] = "torch.aten.add.Scalar"(%arg1, %[[V0]], %[[V3]]) : (!torch.vtensor<[2,3],si64>, !torch.int, !torch.int) -> !torch.vtensor<[2,3],si64>
// CHECK: %[[V5:.+]] = "torch.aten.where.self"(%[[V2]], %[[V4]], %arg1) : (!torch.vtensor<[2,3],i1>, !torch.vtensor<[2,3],si64>, !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3],si64>
// CHECK: %[[V6:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V7:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[V8:.+]] = "torch.aten.gather"(%arg0, %[[V6]], %[[V5]], %[[V7]]) : (!torch.vtensor<[3,3],f32>, !torch.int, !torch.vtensor<[2,3],si64>, !torch.bool) -> !torch.vtensor<[2,3],f32>
// CHECK: return %[[V8]] : !torch.vtensor<[2,3],f32>

// CHECK-LABEL: func.func @test_scatter_nd(
func.func @test_scatter_nd(%arg0: !torch.vtensor<[4,4,4],f32>, %arg1: !torch.vtensor<[2,1],si64>, %arg2: !torch.vtensor<[2,4,4],f32>) -> !torch.vtensor<[4,4,4],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.ScatterND", torch.onnx.reduction = "add"} : (!torch.vtensor<[4,4,4],f32>, !torch.vtensor<[2,1],si64>, !torch.vtensor<[2,4,4],f32>) -> !torch.vtensor<[4,4,4],f32>
  return %0 : !torch.vtensor<[4,4,4],f32>
}
// CHECK: %[[V0:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.aten.select.int"(%arg1, %[[V0]], %[[V1]]) : (!torch.vtensor<[2,1],si64>, !torch.int, !torch.int) -> !torch.vtensor<[2],si64>
// CHECK: %[[V3:.+]] = "torch.prim.ListConstruct"(%[[V2]]) : (!torch.vtensor<[2],si64>) -> !torch.list<optional<vtensor>>
// CHECK: %[[V4:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V5:.+]] = "torch.aten.index_put"(%arg0, %[[V3]], %arg2, %[[V4]]) : (!torch.vtensor<[4,4,4],f32>, !torch.list<optional<vtensor>>, !torch.vtensor<[2,4,4],f32>, !torch.bool) -> !torch.vtensor<[4,4,4],f32>
// CHECK: return %[[V5]] : !torch.vtensor<[4,4,4],f32>

// reduction mul (max and min alike): data [4, 4, 4] as 16 rows of 4 by its two
// leading axes, each index tuple (i, j) the row 4·i + j (negative entries wrapped),
// the updates [2, 4] folded into their rows by scatter_reduce.two "prod" from data's
// own values, then the table back in data's shape.
// CHECK-LABEL: func.func @test_scatter_nd_mul(
// CHECK: %[[TABLE:.+]] = "torch.aten.reshape"(%arg0, {{.+}} -> !torch.vtensor<[16,4],f32>
// CHECK: "torch.aten.select.int"(%arg1,
// CHECK: "torch.aten.where.self"
// CHECK: %[[I:.+]] = "torch.aten.mul.Scalar"
// CHECK: "torch.aten.select.int"(%arg1,
// CHECK: %[[J:.+]] = "torch.aten.mul.Scalar"
// CHECK: %[[ROW:.+]] = "torch.aten.add.Tensor"(%[[I]], %[[J]],
// CHECK: %[[INDEX:.+]] = "torch.aten.expand"({{.+}} -> !torch.vtensor<[2,4],si64>
// CHECK: %[[SRC:.+]] = "torch.aten.reshape"(%arg2, {{.+}} -> !torch.vtensor<[2,4],f32>
// CHECK: %[[PROD:.+]] = "torch.constant.str"() {value = "prod"}
// CHECK: %[[R:.+]] = "torch.aten.scatter_reduce.two"(%[[TABLE]], %{{.+}}, %[[INDEX]], %[[SRC]], %[[PROD]], %{{.+}}) : {{.+}} -> !torch.vtensor<[16,4],f32>
// CHECK: %[[OUT:.+]] = "torch.aten.reshape"(%[[R]], {{.+}} -> !torch.vtensor<[4,4,4],f32>
// CHECK: return %[[OUT]]
func.func @test_scatter_nd_mul(%arg0: !torch.vtensor<[4,4,4],f32>, %arg1: !torch.vtensor<[2,2],si64>, %arg2: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[4,4,4],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.ScatterND", torch.onnx.reduction = "mul"} : (!torch.vtensor<[4,4,4],f32>, !torch.vtensor<[2,2],si64>, !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[4,4,4],f32>
  return %0 : !torch.vtensor<[4,4,4],f32>
}

// reduction max over data [?, 3] of run-time size: the row count is size(data, 0),
// read at run time, and negative entries wrap by it; the table is [?, 3].
// CHECK-LABEL: func.func @test_scatter_nd_max_run_time_size(
func.func @test_scatter_nd_max_run_time_size(%arg0: !torch.vtensor<[?,3],f32>, %arg1: !torch.vtensor<[2,1],si64>, %arg2: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[?,3],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.ScatterND", torch.onnx.reduction = "max"} : (!torch.vtensor<[?,3],f32>, !torch.vtensor<[2,1],si64>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[?,3],f32>
  return %0 : !torch.vtensor<[?,3],f32>
}
// CHECK: %[[N:.+]] = "torch.aten.size.int"(%arg0, %{{.+}}) : (!torch.vtensor<[?,3],f32>, !torch.int) -> !torch.int
// CHECK: %[[TABLE:.+]] = "torch.aten.reshape"(%arg0, {{.+}} -> !torch.vtensor<[?,3],f32>
// CHECK: "torch.aten.add.Scalar"(%{{.+}}, %[[N]], %{{.+}})
// CHECK: %[[AMAX:.+]] = "torch.constant.str"() {value = "amax"}
// CHECK: %[[R:.+]] = "torch.aten.scatter_reduce.two"(%[[TABLE]], %{{.+}}, %{{.+}}, %{{.+}}, %[[AMAX]], %{{.+}}) : {{.+}} -> !torch.vtensor<[?,3],f32>
// CHECK: %[[SHAPE:.+]] = "torch.prim.ListConstruct"(%[[N]], %{{.+}})
// CHECK: %[[Y:.+]] = "torch.aten.reshape"(%[[R]], %[[SHAPE]]) : {{.+}} -> !torch.vtensor<[?,3],f32>
// CHECK: return %[[Y]]
