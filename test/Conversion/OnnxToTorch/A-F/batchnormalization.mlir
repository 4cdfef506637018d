// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Inference: batch_norm with training = false, the given statistics, momentum and
// epsilon, and cudnn_enabled = false.
// CHECK-LABEL: func.func @test_batchnorm(
func.func @test_batchnorm(%arg0: !torch.vtensor<[2,3,4,5],f32>, %arg1: !torch.vtensor<[3],f32>, %arg2: !torch.vtensor<[3],f32>, %arg3: !torch.vtensor<[3],f32>, %arg4: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4,5],f32> attributes {torch.onnx_meta.opset_version = 15 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2, %arg3, %arg4) {name = "onnx.BatchNormalization", torch.onnx.epsilon = 1.000000e-03 : f32} : (!torch.vtensor<[2,3,4,5],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4,5],f32>
  return %0 : !torch.vtensor<[2,3,4,5],f32>
}
// CHECK: %[[FALSE:.+]] = "torch.constant.bool"() {value = false} : () -> !torch.bool
// CHECK: %[[MOMENTUM:.+]] = "torch.constant.float"() {value = 9.000000e-01 : f64} : () -> !torch.float
// CHECK: %[[EPS:.+]] = "torch.constant.float"() {value = 0.0010000000474974513 : f64} : () -> !torch.float
// CHECK: %[[Y:.+]] = "torch.aten.batch_norm"(%arg0, %arg1, %arg2, %arg3, %arg4, %[[FALSE]], %[[MOMENTUM]], %[[EPS]], %[[FALSE]]) : (!torch.vtensor<[2,3,4,5],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.bool, !torch.float, !torch.float, !torch.bool) -> !torch.vtensor<[2,3,4,5],f32>
// CHECK: return %[[Y]]

// Before opset 14 the op may declare its training outputs; unused, they do not matter.
// CHECK-LABEL: func.func @test_batchnorm_opset9_unused_outputs(
func.func @test_batchnorm_opset9_unused_outputs(%arg0: !torch.vtensor<[1,3,?,?],f32>, %arg1: !torch.vtensor<[3],f32>, %arg2: !torch.vtensor<[3],f32>, %arg3: !torch.vtensor<[3],f32>, %arg4: !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,3,?,?],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0:5 = "torch.operator"(%arg0, %arg1, %arg2, %arg3, %arg4) {name = "onnx.BatchNormalization", torch.onnx.momentum = 0.99 : f32} : (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>)
  return %0#0 : !torch.vtensor<[1,3,?,?],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.batch_norm"(%arg0, %arg1, %arg2, %arg3, %arg4, %{{.+}}) : (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.bool, !torch.float, !torch.float, !torch.bool) -> !torch.vtensor<[1,3,?,?],f32>
// CHECK: return %[[Y]]

// Opset 15 lets the statistics have their own float type; torch wants X's.
// CHECK-LABEL: func.func @test_batchnorm_mixed_types(
func.func @test_batchnorm_mixed_types(%arg0: !torch.vtensor<[2,3],f16>, %arg1: !torch.vtensor<[3],f16>, %arg2: !torch.vtensor<[3],f16>, %arg3: !torch.vtensor<[3],f32>, %arg4: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f16> attributes {torch.onnx_meta.opset_version = 15 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2, %arg3, %arg4) {name = "onnx.BatchNormalization"} : (!torch.vtensor<[2,3],f16>, !torch.vtensor<[3],f16>, !torch.vtensor<[3],f16>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f16>
  return %0 : !torch.vtensor<[2,3],f16>
}
// CHECK: %[[MEAN:.+]] = "torch.aten.to.dtype"(%arg3, %{{.+}}) : (!torch.vtensor<[3],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3],f16>
// CHECK: %[[VAR:.+]] = "torch.aten.to.dtype"(%arg4, %{{.+}}) : (!torch.vtensor<[3],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3],f16>
// CHECK: "torch.aten.batch_norm"(%arg0, %arg1, %arg2, %[[MEAN]], %[[VAR]], %{{.+}}) : (!torch.vtensor<[2,3],f16>, !torch.vtensor<[3],f16>, !torch.vtensor<[3],f16>, !torch.vtensor<[3],f16>, !torch.vtensor<[3],f16>, !torch.bool, !torch.float, !torch.float, !torch.bool) -> !torch.vtensor<[2,3],f16>
