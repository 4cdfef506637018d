// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// ReduceLogSum is the log of the sum.
// CHECK-LABEL: func.func @test_reduce_log_sum(
func.func @test_reduce_log_sum(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,1,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ReduceLogSum", torch.onnx.axes = [1]} : (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,1,5],f32>
  return %0 : !torch.vtensor<[3,1,5],f32>
}
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[AXES:.+]] = "torch.prim.ListConstruct"(%[[AXIS]])
// CHECK: %[[KEEP:.+]] = "torch.constant.bool"() {value = true}
// CHECK: %[[SUM:.+]] = "torch.aten.sum.dim_IntList"(%arg0, %[[AXES]], %[[KEEP]], %{{.+}}) : (!torch.vtensor<[3,4,5],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[3,1,5],f32>
// CHECK: %[[Y:.+]] = "torch.aten.log"(%[[SUM]]) : (!torch.vtensor<[3,1,5],f32>) -> !torch.vtensor<[3,1,5],f32>
// CHECK: return %[[Y]]

// ReduceLogSumExp is torch's logsumexp; from opset 18 the axes are an input.
// CHECK-LABEL: func.func @test_reduce_log_sum_exp(
func.func @test_reduce_log_sum_exp(%arg0: !torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %axes = "torch.vtensor.literal"() {value = dense<[0, -1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  %0 = "torch.operator"(%arg0, %axes) {name = "onnx.ReduceLogSumExp", torch.onnx.keepdims = 0 : si64} : (!torch.vtensor<[3,4,5],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}
// CHECK: %[[A0:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[A2:.+]] = "torch.constant.int"() {value = 2 : i64}
// CHECK: %[[AXES:.+]] = "torch.prim.ListConstruct"(%[[A0]], %[[A2]])
// CHECK: %[[KEEP:.+]] = "torch.constant.bool"() {value = false}
// CHECK: %[[Y:.+]] = "torch.aten.logsumexp"(%arg0, %[[AXES]], %[[KEEP]]) : (!torch.vtensor<[3,4,5],f32>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[4],f32>
// CHECK: return %[[Y]]
