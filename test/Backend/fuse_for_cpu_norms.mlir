// fuse-for-cpu, normalizations over the last axis with the residual sum before them:
// layer_norm(a + b (+ bias)) becomes qlower.skip_layer_norm(a, b, bias, gamma, beta,
// eps), and the RMS norm in the forms SimplifiedLayerNormalization lowers to
// (mul(x, x), add.Scalar) and T5 exports write (pow(x, 2), an eps literal) becomes
// qlower.rms_norm(a, b, bias, gamma, eps, gamma_first), of the sum or of a plain
// tensor. The sum, read again after the norm (the residual stream), is the fused op's
// second result. A mean over another axis, a squared value read elsewhere, or a sum
// read before the norm (for the layer norm) leave the ops alone.
// RUN: qlower-opt --fuse-for-cpu --dce %s | FileCheck %s

// CHECK-LABEL: func.func @skip_layer_norm_sum_returned(
// CHECK: %[[N:.+]]:2 = "qlower.skip_layer_norm"(%arg0, %arg1, %arg2, %arg3, %arg4, %{{.+}}) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.float) -> (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>)
// CHECK: "torch.aten.relu"(%[[N]]#1)
// CHECK: return %[[N]]#0
func.func @skip_layer_norm_sum_returned(%arg0: !torch.vtensor<[2,3,8],f32>, %arg1: !torch.vtensor<[2,3,8],f32>, %arg2: !torch.vtensor<[8],f32>, %arg3: !torch.vtensor<[8],f32>, %arg4: !torch.vtensor<[8],f32>) -> (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>) {
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %int8 = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
  %eps = "torch.constant.float"() {value = 9.9999999999999998E-13 : f64} : () -> !torch.float
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %0 = "torch.aten.add.Tensor"(%arg0, %arg1, %int1) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>, !torch.int) -> !torch.vtensor<[2,3,8],f32>
  %1 = "torch.aten.add.Tensor"(%0, %arg2, %int1) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[8],f32>, !torch.int) -> !torch.vtensor<[2,3,8],f32>
  %h = "torch.prim.ListConstruct"(%int8) : (!torch.int) -> !torch.list<int>
  %2 = "torch.aten.layer_norm"(%1, %h, %arg3, %arg4, %eps, %false) : (!torch.vtensor<[2,3,8],f32>, !torch.list<int>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[2,3,8],f32>
  %3 = "torch.aten.relu"(%1) : (!torch.vtensor<[2,3,8],f32>) -> !torch.vtensor<[2,3,8],f32>
  return %2, %3 : !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>
}

// CHECK-LABEL: func.func @rms_t5_form(
// CHECK: %[[N:.+]]:2 = "qlower.rms_norm"(%arg0, %arg1, %{{.+}}, %arg2, %{{.+}}, %{{.+}}) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>, !torch.none, !torch.vtensor<[8],f32>, !torch.float, !torch.bool) -> (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>)
// CHECK-NOT: torch.aten.pow
// CHECK: "torch.aten.add.Tensor"(%[[N]]#1, %[[N]]#0
func.func @rms_t5_form(%arg0: !torch.vtensor<[1,?,8],f32>, %arg1: !torch.vtensor<[1,?,8],f32>, %arg2: !torch.vtensor<[8],f32>) -> !torch.vtensor<[1,?,8],f32> {
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %intm1 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %true = "torch.constant.bool"() {value = true} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %two = "torch.vtensor.literal"() {value = dense<2.000000e+00> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %eps = "torch.vtensor.literal"() {value = dense<9.99999997E-7> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %0 = "torch.aten.add.Tensor"(%arg0, %arg1, %int1) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>, !torch.int) -> !torch.vtensor<[1,?,8],f32>
  %1 = "torch.aten.pow.Tensor_Tensor"(%0, %two) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[1,?,8],f32>
  %dims = "torch.prim.ListConstruct"(%intm1) : (!torch.int) -> !torch.list<int>
  %2 = "torch.aten.mean.dim"(%1, %dims, %true, %none) : (!torch.vtensor<[1,?,8],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[1,?,1],f32>
  %3 = "torch.aten.add.Tensor"(%2, %eps, %int1) : (!torch.vtensor<[1,?,1],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[1,?,1],f32>
  %4 = "torch.aten.sqrt"(%3) : (!torch.vtensor<[1,?,1],f32>) -> !torch.vtensor<[1,?,1],f32>
  %5 = "torch.aten.div.Tensor"(%0, %4) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,1],f32>) -> !torch.vtensor<[1,?,8],f32>
  %6 = "torch.aten.mul.Tensor"(%5, %arg2) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[1,?,8],f32>
  %7 = "torch.aten.add.Tensor"(%0, %6, %int1) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>, !torch.int) -> !torch.vtensor<[1,?,8],f32>
  return %7 : !torch.vtensor<[1,?,8],f32>
}

// CHECK-LABEL: func.func @rms_lowering_form(
// CHECK: %[[N:.+]] = "qlower.rms_norm"(%arg0, %{{.+}}, %{{.+}}, %arg1, %{{.+}}, %{{.+}}) : (!torch.vtensor<[2,3,8],f32>, !torch.none, !torch.none, !torch.vtensor<[8],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[2,3,8],f32>
// CHECK-NOT: torch.aten.mean.dim
// CHECK: return %[[N]]
func.func @rms_lowering_form(%arg0: !torch.vtensor<[2,3,8],f32>, %arg1: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,3,8],f32> {
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %int2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %true = "torch.constant.bool"() {value = true} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %eps = "torch.constant.float"() {value = 9.9999999999999995E-7 : f64} : () -> !torch.float
  %0 = "torch.aten.mul.Tensor"(%arg0, %arg0) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>) -> !torch.vtensor<[2,3,8],f32>
  %dims = "torch.prim.ListConstruct"(%int2) : (!torch.int) -> !torch.list<int>
  %1 = "torch.aten.mean.dim"(%0, %dims, %true, %none) : (!torch.vtensor<[2,3,8],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[2,3,1],f32>
  %2 = "torch.aten.add.Scalar"(%1, %eps, %int1) : (!torch.vtensor<[2,3,1],f32>, !torch.float, !torch.int) -> !torch.vtensor<[2,3,1],f32>
  %3 = "torch.aten.sqrt"(%2) : (!torch.vtensor<[2,3,1],f32>) -> !torch.vtensor<[2,3,1],f32>
  %4 = "torch.aten.div.Tensor"(%arg0, %3) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,1],f32>) -> !torch.vtensor<[2,3,8],f32>
  %5 = "torch.aten.mul.Tensor"(%arg1, %4) : (!torch.vtensor<[8],f32>, !torch.vtensor<[2,3,8],f32>) -> !torch.vtensor<[2,3,8],f32>
  return %5 : !torch.vtensor<[2,3,8],f32>
}

// CHECK-LABEL: func.func @declined(
// CHECK-NOT: qlower.
// CHECK: "torch.aten.layer_norm"
// CHECK: "torch.aten.mean.dim"
// CHECK: "torch.aten.mean.dim"
func.func @declined(%arg0: !torch.vtensor<[2,3,8],f32>, %arg1: !torch.vtensor<[2,3,8],f32>, %arg2: !torch.vtensor<[8],f32>, %arg3: !torch.vtensor<[3,1],f32>) -> (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>) {
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %int2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %int8 = "torch.constant.int"() {value = 8 : i64} : () -> !torch.int
  %true = "torch.constant.bool"() {value = true} : () -> !torch.bool
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %eps = "torch.constant.float"() {value = 9.9999999999999995E-7 : f64} : () -> !torch.float
  // The sum is read before the norm.
  %0 = "torch.aten.add.Tensor"(%arg0, %arg1, %int1) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>, !torch.int) -> !torch.vtensor<[2,3,8],f32>
  %early = "torch.aten.relu"(%0) : (!torch.vtensor<[2,3,8],f32>) -> !torch.vtensor<[2,3,8],f32>
  %h = "torch.prim.ListConstruct"(%int8) : (!torch.int) -> !torch.list<int>
  %1 = "torch.aten.layer_norm"(%0, %h, %arg2, %arg2, %eps, %false) : (!torch.vtensor<[2,3,8],f32>, !torch.list<int>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.float, !torch.bool) -> !torch.vtensor<[2,3,8],f32>
  // A mean over the middle axis.
  %sq = "torch.aten.mul.Tensor"(%arg0, %arg0) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>) -> !torch.vtensor<[2,3,8],f32>
  %mid = "torch.prim.ListConstruct"(%int1) : (!torch.int) -> !torch.list<int>
  %m = "torch.aten.mean.dim"(%sq, %mid, %true, %none) : (!torch.vtensor<[2,3,8],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[2,1,8],f32>
  %s = "torch.aten.add.Scalar"(%m, %eps, %int1) : (!torch.vtensor<[2,1,8],f32>, !torch.float, !torch.int) -> !torch.vtensor<[2,1,8],f32>
  %r = "torch.aten.sqrt"(%s) : (!torch.vtensor<[2,1,8],f32>) -> !torch.vtensor<[2,1,8],f32>
  %d = "torch.aten.div.Tensor"(%arg0, %r) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,1,8],f32>) -> !torch.vtensor<[2,3,8],f32>
  %y = "torch.aten.mul.Tensor"(%d, %arg2) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,3,8],f32>
  // The squares are read elsewhere too.
  %sq2 = "torch.aten.mul.Tensor"(%arg1, %arg1) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>) -> !torch.vtensor<[2,3,8],f32>
  %last = "torch.prim.ListConstruct"(%int2) : (!torch.int) -> !torch.list<int>
  %m2 = "torch.aten.mean.dim"(%sq2, %last, %true, %none) : (!torch.vtensor<[2,3,8],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[2,3,1],f32>
  %s2 = "torch.aten.add.Scalar"(%m2, %eps, %int1) : (!torch.vtensor<[2,3,1],f32>, !torch.float, !torch.int) -> !torch.vtensor<[2,3,1],f32>
  %r2 = "torch.aten.sqrt"(%s2) : (!torch.vtensor<[2,3,1],f32>) -> !torch.vtensor<[2,3,1],f32>
  %d2 = "torch.aten.div.Tensor"(%arg1, %r2) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,1],f32>) -> !torch.vtensor<[2,3,8],f32>
  %y2 = "torch.aten.mul.Tensor"(%d2, %arg2) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,3,8],f32>
  return %1, %early, %y, %y2, %sq2 : !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>, !torch.vtensor<[2,3,8],f32>
}
