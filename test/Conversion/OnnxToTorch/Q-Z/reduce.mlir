// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// CHECK-LABEL: func.func @test_reduce_sum(
// Axes as an input (opset 13 for ReduceSum), keepdims 0.
func.func @test_reduce_sum(%arg0: !torch.vtensor<[3,2,2],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %axes = "torch.vtensor.literal"() {value = dense<[-1, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %axes) {name = "onnx.ReduceSum", torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,2,2],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[V0:.+]] = "torch.vtensor.literal"() {value = dense<[-1, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
// CHECK: %[[V3:.+]] = "torch.prim.ListConstruct"(%[[V1]], %[[V2]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[V4:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[V5:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V6:.+]] = "torch.aten.sum.dim_IntList"(%arg0, %[[V3]], %[[V4]], %[[V5]]) : (!torch.vtensor<[3,2,2],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[3],f32>
// CHECK: return %[[V6]] : !torch.vtensor<[3],f32>

// CHECK-LABEL: func.func @test_reduce_sum_empty_axes(
// No axes: every axis, unless noop_with_empty_axes.
func.func @test_reduce_sum_empty_axes(%arg0: !torch.vtensor<[3,2],si32>) -> (!torch.vtensor<[1,1],si32>, !torch.vtensor<[3,2],si32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ReduceSum"} : (!torch.vtensor<[3,2],si32>) -> !torch.vtensor<[1,1],si32>
  %1 = "torch.operator"(%arg0) {name = "onnx.ReduceSum", torch.onnx.noop_with_empty_axes = 1 : si64} : (!torch.vtensor<[3,2],si32>) -> !torch.vtensor<[3,2],si32>
  return %0, %1 : !torch.vtensor<[1,1],si32>, !torch.vtensor<[3,2],si32>
}
// CHECK: %[[V0:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.prim.ListConstruct"(%[[V0]], %[[V1]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[V3:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V4:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V5:.+]] = "torch.aten.sum.dim_IntList"(%arg0, %[[V2]], %[[V3]], %[[V4]]) : (!torch.vtensor<[3,2],si32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[1,1],si32>
// CHECK: return %[[V5]], %arg0 : !torch.vtensor<[1,1],si32>, !torch.vtensor<[3,2],si32>

// CHECK-LABEL: func.func @test_reduce_mean_max_min(
// Axes as an attribute (before opset 18).
func.func @test_reduce_mean_max_min(%arg0: !torch.vtensor<[3,?,4],f32>) -> (!torch.vtensor<[3,1,1],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[3,?,1],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ReduceMean", torch.onnx.axes = [1 : si64, 2 : si64]} : (!torch.vtensor<[3,?,4],f32>) -> !torch.vtensor<[3,1,1],f32>
  %1 = "torch.operator"(%arg0) {name = "onnx.ReduceMax", torch.onnx.axes = [0 : si64], torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,?,4],f32>) -> !torch.vtensor<[?,4],f32>
  %2 = "torch.operator"(%arg0) {name = "onnx.ReduceMin", torch.onnx.axes = [-1 : si64]} : (!torch.vtensor<[3,?,4],f32>) -> !torch.vtensor<[3,?,1],f32>
  return %0, %1, %2 : !torch.vtensor<[3,1,1],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[3,?,1],f32>
}
// CHECK: %[[V0:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.prim.ListConstruct"(%[[V0]], %[[V1]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[V3:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V4:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V5:.+]] = "torch.aten.mean.dim"(%arg0, %[[V2]], %[[V3]], %[[V4]]) : (!torch.vtensor<[3,?,4],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[3,1,1],f32>
// CHECK: %[[V6:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V7:.+]] = "torch.prim.ListConstruct"(%[[V6]]) : (!torch.int) -> !torch.list<int>
// CHECK: %[[V8:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[V9:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V10:.+]] = "torch.aten.amax"(%arg0, %[[V7]], %[[V8]]) : (!torch.vtensor<[3,?,4],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[?,4],f32>
// CHECK: %[[V11:.+]] = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
// CHECK: %[[V12:.+]] = "torch.prim.ListConstruct"(%[[V11]]) : (!torch.int) -> !torch.list<int>
// CHECK: %[[V13:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V14:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V15:.+]] = "torch.aten.amin"(%arg0, %[[V12]], %[[V13]]) : (!torch.vtensor<[3,?,4],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[3,?,1],f32>
// CHECK: return %[[V5]], %[[V10]], %[[V15]] : !torch.vtensor<[3,1,1],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[3,?,1],f32>

// CHECK-LABEL: func.func @test_reduce_prod_l2(
// Axes as an input (opset 18): ReduceProd takes one prod.dim_int per axis, the highest first.
func.func @test_reduce_prod_l2(%arg0: !torch.vtensor<[3,2,4],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[3,2,1],f32>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %axes = "torch.vtensor.literal"() {value = dense<[0, 2]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %last = "torch.vtensor.literal"() {value = dense<[2]> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = "torch.operator"(%arg0, %axes) {name = "onnx.ReduceProd", torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,2,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[2],f32>
  %1 = "torch.operator"(%arg0, %last) {name = "onnx.ReduceL2"} : (!torch.vtensor<[3,2,4],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[3,2,1],f32>
  return %0, %1 : !torch.vtensor<[2],f32>, !torch.vtensor<[3,2,1],f32>
}
// CHECK: %[[V0:.+]] = "torch.vtensor.literal"() {value = dense<[0, 2]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
// CHECK: %[[V1:.+]] = "torch.vtensor.literal"() {value = dense<2> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
// CHECK: %[[V2:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V3:.+]] = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
// CHECK: %[[V4:.+]] = "torch.prim.ListConstruct"(%[[V2]], %[[V3]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[V5:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[V6:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V7:.+]] = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
// CHECK: %[[V8:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[V9:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V10:.+]] = "torch.aten.prod.dim_int"(%arg0, %[[V7]], %[[V8]], %[[V9]]) : (!torch.vtensor<[3,2,4],f32>, !torch.int, !torch.bool, !torch.none) -> !torch.vtensor<[3,2],f32>
// CHECK: %[[V11:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V12:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[V13:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V14:.+]] = "torch.aten.prod.dim_int"(%[[V10]], %[[V11]], %[[V12]], %[[V13]]) : (!torch.vtensor<[3,2],f32>, !torch.int, !torch.bool, !torch.none) -> !torch.vtensor<[2],f32>
// CHECK: %[[V15:.+]] = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
// CHECK: %[[V16:.+]] = "torch.prim.ListConstruct"(%[[V15]]) : (!torch.int) -> !torch.list<int>
// CHECK: %[[V17:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V18:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V19:.+]] = "torch.constant.float"() {value = 2.000000e+00 : f64} : () -> !torch.float
// CHECK: %[[V20:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V21:.+]] = "torch.aten.linalg_vector_norm"(%arg0, %[[V19]], %[[V16]], %[[V17]], %[[V20]]) : (!torch.vtensor<[3,2,4],f32>, !torch.float, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[3,2,1],f32>
// CHECK: return %[[V14]], %[[V21]] : !torch.vtensor<[2],f32>, !torch.vtensor<[3,2,1],f32>

// CHECK-LABEL: func.func @test_reduce_mean_run_time_axes(
// Axes known only at run time: each entry is read with select.int and item.
func.func @test_reduce_mean_run_time_axes(%arg0: !torch.vtensor<[3,2,2],f32>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?,?],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.ReduceMean"} : (!torch.vtensor<[3,2,2],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?,?],f32>
  return %0 : !torch.vtensor<[?,?,?],f32>
}
// CHECK: %[[V0:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.aten.select.int"(%arg1, %[[V0]], %[[V1]]) : (!torch.vtensor<[2],si64>, !torch.int, !torch.int) -> !torch.vtensor<[],si64>
// CHECK: %[[V3:.+]] = "torch.aten.item"(%[[V2]]) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[V4:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V5:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V6:.+]] = "torch.aten.select.int"(%arg1, %[[V4]], %[[V5]]) : (!torch.vtensor<[2],si64>, !torch.int, !torch.int) -> !torch.vtensor<[],si64>
// CHECK: %[[V7:.+]] = "torch.aten.item"(%[[V6]]) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[V8:.+]] = "torch.prim.ListConstruct"(%[[V3]], %[[V7]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[V9:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V10:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V11:.+]] = "torch.aten.mean.dim"(%arg0, %[[V8]], %[[V9]], %[[V10]]) : (!torch.vtensor<[3,2,2],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[?,?,?],f32>
// CHECK: return %[[V11]] : !torch.vtensor<[?,?,?],f32>

// CHECK-LABEL: func.func @test_reduce_prod_run_time_axes(
// ReduceProd with run-time axes and keepdims: one prod.dim_int per entry.
func.func @test_reduce_prod_run_time_axes(%arg0: !torch.vtensor<[3,2,2],f32>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?,?],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.ReduceProd"} : (!torch.vtensor<[3,2,2],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?,?],f32>
  return %0 : !torch.vtensor<[?,?,?],f32>
}
// CHECK: %[[V0:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.aten.select.int"(%arg1, %[[V0]], %[[V1]]) : (!torch.vtensor<[2],si64>, !torch.int, !torch.int) -> !torch.vtensor<[],si64>
// CHECK: %[[V3:.+]] = "torch.aten.item"(%[[V2]]) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[V4:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V5:.+]] = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
// CHECK: %[[V6:.+]] = "torch.aten.select.int"(%arg1, %[[V4]], %[[V5]]) : (!torch.vtensor<[2],si64>, !torch.int, !torch.int) -> !torch.vtensor<[],si64>
// CHECK: %[[V7:.+]] = "torch.aten.item"(%[[V6]]) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[V8:.+]] = "torch.prim.ListConstruct"(%[[V3]], %[[V7]]) : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: %[[V9:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V10:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V11:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V12:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V13:.+]] = "torch.aten.prod.dim_int"(%arg0, %[[V3]], %[[V11]], %[[V12]]) : (!torch.vtensor<[3,2,2],f32>, !torch.int, !torch.bool, !torch.none) -> !torch.vtensor<[?,?,?],f32>
// CHECK: %[[V14:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V15:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V16:.+]] = "torch.aten.prod.dim_int"(%[[V13]], %[[V7]], %[[V14]], %[[V15]]) : (!torch.vtensor<[?,?,?],f32>, !torch.int, !torch.bool, !torch.none) -> !torch.vtensor<[?,?,?],f32>
// CHECK: return %[[V16]] : !torch.vtensor<[?,?,?],f32>

// CHECK-LABEL: func.func @test_reduce_prod_run_time_axes_dropped(
// Without keepdims, a sum over the same run-time axes drops the kept size-1 dimensions.
func.func @test_reduce_prod_run_time_axes_dropped(%arg0: !torch.vtensor<[3,2,2],si32>, %arg1: !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?],si32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.ReduceProd", torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,2,2],si32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,?],si32>
  return %0 : !torch.vtensor<[?,?],si32>
}
// CHECK: %[[V0:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V1:.+]] = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
// CHECK: %[[V2:.+]] = "torch.aten.select.int"(%arg1, %[[V0]], %[[V1]]) : (!torch.vtensor<[1],si64>, !torch.int, !torch.int) -> !torch.vtensor<[],si64>
// CHECK: %[[V3:.+]] = "torch.aten.item"(%[[V2]]) : (!torch.vtensor<[],si64>) -> !torch.int
// CHECK: %[[V4:.+]] = "torch.prim.ListConstruct"(%[[V3]]) : (!torch.int) -> !torch.list<int>
// CHECK: %[[V5:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[V6:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V7:.+]] = "torch.constant.bool"() {value = true} : () -> !torch.bool
// CHECK: %[[V8:.+]] = "torch.constant.none"() : () -> !torch.none
// CHECK: %[[V9:.+]] = "torch.aten.prod.dim_int"(%arg0, %[[V3]], %[[V7]], %[[V8]]) : (!torch.vtensor<[3,2,2],si32>, !torch.int, !torch.bool, !torch.none) -> !torch.vtensor<[?,?,?],si32>
// CHECK: %[[V10:.+]] = "torch.aten.sum.dim_IntList"(%[[V9]], %[[V4]], %[[V5]], %[[V6]]) : (!torch.vtensor<[?,?,?],si32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[?,?],si32>
// CHECK: return %[[V10]] : !torch.vtensor<[?,?],si32>
