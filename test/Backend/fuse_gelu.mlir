// fuse-gelu: the GELUs exporters write op by op become one torch.aten.gelu. It fires
// on the tanh form as T5 and GPT-2 export it (pow(x, 3), then the 0.5 taken with x
// first), on x*x*x, on the erf form as BERT exports it (x / sqrt 2, 0.5 last) and with
// x * (1/sqrt 2) and (x * (1 + erf)) grouped with 0.5 first, and on torch's Scalar ops;
// it declines a constant off the formula, an intermediate value something else reads,
// a result broadcast past x's shape, and integers.
// RUN: qlower-opt --split-input-file --fuse-gelu --dce %s | FileCheck %s

// CHECK-LABEL: func.func @tanh_gelu_gated
// CHECK: %[[A:.+]] = "torch.constant.str"() {value = "tanh"}
// CHECK: %[[G:.+]] = "torch.aten.gelu"(%arg0, %[[A]]) : (!torch.vtensor<[1,?,8],f32>, !torch.str) -> !torch.vtensor<[1,?,8],f32>
// CHECK-NOT: torch.aten.tanh
// CHECK-NOT: torch.aten.pow
// CHECK: %[[Y:.+]] = "torch.aten.mul.Tensor"(%[[G]], %arg1)
// CHECK: return %[[Y]]
module {
  func.func @tanh_gelu_gated(%arg0: !torch.vtensor<[1,?,8],f32>, %arg1: !torch.vtensor<[1,?,8],f32>) -> !torch.vtensor<[1,?,8],f32> {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %three = "torch.vtensor.literal"() {value = dense<3.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %c = "torch.vtensor.literal"() {value = dense<4.471500e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %k = "torch.vtensor.literal"() {value = dense<0.797884583> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %one = "torch.vtensor.literal"() {value = dense<1.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %half = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %0 = "torch.aten.pow.Tensor_Tensor"(%arg0, %three) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[1,?,8],f32>
    %1 = "torch.aten.mul.Tensor"(%0, %c) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[1,?,8],f32>
    %2 = "torch.aten.add.Tensor"(%arg0, %1, %int1) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>, !torch.int) -> !torch.vtensor<[1,?,8],f32>
    %3 = "torch.aten.mul.Tensor"(%2, %k) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[1,?,8],f32>
    %4 = "torch.aten.mul.Tensor"(%arg0, %half) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[1,?,8],f32>
    %5 = "torch.aten.tanh"(%3) : (!torch.vtensor<[1,?,8],f32>) -> !torch.vtensor<[1,?,8],f32>
    %6 = "torch.aten.add.Tensor"(%5, %one, %int1) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[1,?,8],f32>
    %7 = "torch.aten.mul.Tensor"(%4, %6) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>) -> !torch.vtensor<[1,?,8],f32>
    %8 = "torch.aten.mul.Tensor"(%7, %arg1) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,8],f32>) -> !torch.vtensor<[1,?,8],f32>
    return %8 : !torch.vtensor<[1,?,8],f32>
  }
}

// -----

// x * x * x for the cube, the constants first in each product, and (x * w) * 0.5.
// CHECK-LABEL: func.func @tanh_gelu_products_of_x
// CHECK: %[[A:.+]] = "torch.constant.str"() {value = "tanh"}
// CHECK: %[[G:.+]] = "torch.aten.gelu"(%arg0, %[[A]])
// CHECK-NOT: torch.aten.mul
// CHECK: return %[[G]]
module {
  func.func @tanh_gelu_products_of_x(%arg0: !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32> {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %c = "torch.vtensor.literal"() {value = dense<4.471500e-02> : tensor<1xf32>} : () -> !torch.vtensor<[1],f32>
    %k = "torch.vtensor.literal"() {value = dense<0.797884583> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %one = "torch.vtensor.literal"() {value = dense<1.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %half = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %0 = "torch.aten.mul.Tensor"(%arg0, %arg0) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %1 = "torch.aten.mul.Tensor"(%0, %arg0) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %2 = "torch.aten.mul.Tensor"(%c, %1) : (!torch.vtensor<[1],f32>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %3 = "torch.aten.add.Tensor"(%2, %arg0, %int1) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],f32>
    %4 = "torch.aten.mul.Tensor"(%k, %3) : (!torch.vtensor<[],f32>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %5 = "torch.aten.tanh"(%4) : (!torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %6 = "torch.aten.add.Tensor"(%one, %5, %int1) : (!torch.vtensor<[],f32>, !torch.vtensor<[4,8],f32>, !torch.int) -> !torch.vtensor<[4,8],f32>
    %7 = "torch.aten.mul.Tensor"(%arg0, %6) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[4,8],f32>) -> !torch.vtensor<[4,8],f32>
    %8 = "torch.aten.mul.Tensor"(%7, %half) : (!torch.vtensor<[4,8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4,8],f32>
    return %8 : !torch.vtensor<[4,8],f32>
  }
}

// -----

// BERT's erf GELU: x / sqrt 2, (x * (1 + erf)) * 0.5.
// CHECK-LABEL: func.func @erf_gelu
// CHECK: %[[A:.+]] = "torch.constant.str"() {value = "none"}
// CHECK: %[[G:.+]] = "torch.aten.gelu"(%arg0, %[[A]])
// CHECK-NOT: torch.aten.erf
// CHECK: return %[[G]]
module {
  func.func @erf_gelu(%arg0: !torch.vtensor<[2,?,16],f32>) -> !torch.vtensor<[2,?,16],f32> {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %s = "torch.vtensor.literal"() {value = dense<1.41421354> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %one = "torch.vtensor.literal"() {value = dense<1.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %half = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %0 = "torch.aten.div.Tensor"(%arg0, %s) : (!torch.vtensor<[2,?,16],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,?,16],f32>
    %1 = "torch.aten.erf"(%0) : (!torch.vtensor<[2,?,16],f32>) -> !torch.vtensor<[2,?,16],f32>
    %2 = "torch.aten.add.Tensor"(%1, %one, %int1) : (!torch.vtensor<[2,?,16],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[2,?,16],f32>
    %3 = "torch.aten.mul.Tensor"(%arg0, %2) : (!torch.vtensor<[2,?,16],f32>, !torch.vtensor<[2,?,16],f32>) -> !torch.vtensor<[2,?,16],f32>
    %4 = "torch.aten.mul.Tensor"(%3, %half) : (!torch.vtensor<[2,?,16],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,?,16],f32>
    return %4 : !torch.vtensor<[2,?,16],f32>
  }
}

// -----

// torch's Scalar ops: x * (1/sqrt 2), and ((1 + erf) * 0.5) * x.
// CHECK-LABEL: func.func @erf_gelu_scalar_ops
// CHECK: %[[A:.+]] = "torch.constant.str"() {value = "none"}
// CHECK: %[[G:.+]] = "torch.aten.gelu"(%arg0, %[[A]])
// CHECK: return %[[G]]
module {
  func.func @erf_gelu_scalar_ops(%arg0: !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32> {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %r = "torch.constant.float"() {value = 0.70710678118654757 : f64} : () -> !torch.float
    %one = "torch.constant.float"() {value = 1.0 : f64} : () -> !torch.float
    %half = "torch.constant.float"() {value = 0.5 : f64} : () -> !torch.float
    %0 = "torch.aten.mul.Scalar"(%arg0, %r) : (!torch.vtensor<[8],f32>, !torch.float) -> !torch.vtensor<[8],f32>
    %1 = "torch.aten.erf"(%0) : (!torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    %2 = "torch.aten.add.Scalar"(%1, %one, %int1) : (!torch.vtensor<[8],f32>, !torch.float, !torch.int) -> !torch.vtensor<[8],f32>
    %3 = "torch.aten.mul.Scalar"(%2, %half) : (!torch.vtensor<[8],f32>, !torch.float) -> !torch.vtensor<[8],f32>
    %4 = "torch.aten.mul.Tensor"(%3, %arg0) : (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    return %4 : !torch.vtensor<[8],f32>
  }
}

// -----

// Declined: the erf's argument divided by 1.5, not sqrt 2.
// CHECK-LABEL: func.func @other_constant
// CHECK-NOT: torch.aten.gelu
// CHECK: torch.aten.erf
module {
  func.func @other_constant(%arg0: !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32> {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %s = "torch.vtensor.literal"() {value = dense<1.5> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %one = "torch.vtensor.literal"() {value = dense<1.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %half = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %0 = "torch.aten.div.Tensor"(%arg0, %s) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[8],f32>
    %1 = "torch.aten.erf"(%0) : (!torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    %2 = "torch.aten.add.Tensor"(%1, %one, %int1) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[8],f32>
    %3 = "torch.aten.mul.Tensor"(%arg0, %2) : (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    %4 = "torch.aten.mul.Tensor"(%3, %half) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[8],f32>
    return %4 : !torch.vtensor<[8],f32>
  }
}

// -----

// Declined: the tanh's value is returned too, so the ops must stay.
// CHECK-LABEL: func.func @intermediate_read_elsewhere
// CHECK-NOT: torch.aten.gelu
// CHECK: torch.aten.tanh
module {
  func.func @intermediate_read_elsewhere(%arg0: !torch.vtensor<[8],f32>) -> (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %three = "torch.vtensor.literal"() {value = dense<3.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %c = "torch.vtensor.literal"() {value = dense<4.471500e-02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %k = "torch.vtensor.literal"() {value = dense<0.797884583> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %one = "torch.vtensor.literal"() {value = dense<1.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %half = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %0 = "torch.aten.pow.Tensor_Tensor"(%arg0, %three) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[8],f32>
    %1 = "torch.aten.mul.Tensor"(%0, %c) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[8],f32>
    %2 = "torch.aten.add.Tensor"(%arg0, %1, %int1) : (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.int) -> !torch.vtensor<[8],f32>
    %3 = "torch.aten.mul.Tensor"(%2, %k) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[8],f32>
    %5 = "torch.aten.tanh"(%3) : (!torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    %6 = "torch.aten.add.Tensor"(%5, %one, %int1) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[8],f32>
    %7 = "torch.aten.mul.Tensor"(%arg0, %6) : (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    %8 = "torch.aten.mul.Tensor"(%7, %half) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[8],f32>
    return %8, %5 : !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>
  }
}

// -----

// Declined: the 0.5 is a [2,8] tensor, so the result is broadcast past x's [8].
// CHECK-LABEL: func.func @broadcast_result
// CHECK-NOT: torch.aten.gelu
// CHECK: torch.aten.erf
module {
  func.func @broadcast_result(%arg0: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,8],f32> {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %s = "torch.vtensor.literal"() {value = dense<1.41421354> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %one = "torch.vtensor.literal"() {value = dense<1.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %half = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<2x8xf32>} : () -> !torch.vtensor<[2,8],f32>
    %0 = "torch.aten.div.Tensor"(%arg0, %s) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[8],f32>
    %1 = "torch.aten.erf"(%0) : (!torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    %2 = "torch.aten.add.Tensor"(%1, %one, %int1) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[8],f32>
    %3 = "torch.aten.mul.Tensor"(%arg0, %2) : (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    %4 = "torch.aten.mul.Tensor"(%3, %half) : (!torch.vtensor<[8],f32>, !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32>
    return %4 : !torch.vtensor<[2,8],f32>
  }
}

// -----

// Declined: f64, which the backend's GELU does not run.
// CHECK-LABEL: func.func @double
// CHECK-NOT: torch.aten.gelu
module {
  func.func @double(%arg0: !torch.vtensor<[8],f64>) -> !torch.vtensor<[8],f64> {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %s = "torch.vtensor.literal"() {value = dense<1.4142135623730951> : tensor<f64>} : () -> !torch.vtensor<[],f64>
    %one = "torch.vtensor.literal"() {value = dense<1.0> : tensor<f64>} : () -> !torch.vtensor<[],f64>
    %half = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<f64>} : () -> !torch.vtensor<[],f64>
    %0 = "torch.aten.div.Tensor"(%arg0, %s) : (!torch.vtensor<[8],f64>, !torch.vtensor<[],f64>) -> !torch.vtensor<[8],f64>
    %1 = "torch.aten.erf"(%0) : (!torch.vtensor<[8],f64>) -> !torch.vtensor<[8],f64>
    %2 = "torch.aten.add.Tensor"(%1, %one, %int1) : (!torch.vtensor<[8],f64>, !torch.vtensor<[],f64>, !torch.int) -> !torch.vtensor<[8],f64>
    %3 = "torch.aten.mul.Tensor"(%arg0, %2) : (!torch.vtensor<[8],f64>, !torch.vtensor<[8],f64>) -> !torch.vtensor<[8],f64>
    %4 = "torch.aten.mul.Tensor"(%3, %half) : (!torch.vtensor<[8],f64>, !torch.vtensor<[],f64>) -> !torch.vtensor<[8],f64>
    return %4 : !torch.vtensor<[8],f64>
  }
}

// -----

// A GELU of a GELU: both fire, the second reading the first's replacement.
// CHECK-LABEL: func.func @gelu_of_gelu
// CHECK: %[[G1:.+]] = "torch.aten.gelu"(%arg0, %{{.+}})
// CHECK: %[[G2:.+]] = "torch.aten.gelu"(%[[G1]], %{{.+}})
// CHECK-NOT: torch.aten.erf
// CHECK: return %[[G2]]
module {
  func.func @gelu_of_gelu(%arg0: !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32> {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %s = "torch.vtensor.literal"() {value = dense<1.41421354> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %one = "torch.vtensor.literal"() {value = dense<1.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %half = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %0 = "torch.aten.div.Tensor"(%arg0, %s) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[8],f32>
    %1 = "torch.aten.erf"(%0) : (!torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    %2 = "torch.aten.add.Tensor"(%1, %one, %int1) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[8],f32>
    %3 = "torch.aten.mul.Tensor"(%arg0, %2) : (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    %4 = "torch.aten.mul.Tensor"(%3, %half) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[8],f32>
    %5 = "torch.aten.div.Tensor"(%4, %s) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[8],f32>
    %6 = "torch.aten.erf"(%5) : (!torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    %7 = "torch.aten.add.Tensor"(%6, %one, %int1) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[8],f32>
    %8 = "torch.aten.mul.Tensor"(%4, %7) : (!torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
    %9 = "torch.aten.mul.Tensor"(%8, %half) : (!torch.vtensor<[8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[8],f32>
    return %9 : !torch.vtensor<[8],f32>
  }
}
