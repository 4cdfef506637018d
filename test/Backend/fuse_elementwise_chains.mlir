// fuse-elementwise-chains: f32 element-wise ops of one shape whose intermediate values
// nothing else reads become one qlower.elementwise_chain whose program names each
// step ($0.. are the chain's inputs, then the steps' results). It fires on the tanh
// GELU as T5 exports it (gated by a second tensor), the erf GELU, x*sigmoid(x) and a
// norm's tail (per-row statistic and per-column gamma, each along one run of axes),
// and an attention mask of dynamic shape [?,1,1,?] (sizes known only at run time may be
// 1: at batch 1 it is one run), and declines a lone op, a middle value something else
// reads, integers, an alpha that is not 1, and a constant that varies along two
// separate runs of axes.
// RUN: qlower-opt --split-input-file --fuse-elementwise-chains --dce %s | FileCheck %s

// CHECK-LABEL: func.func @gated_tanh_gelu
// CHECK: %[[P:.+]] = "torch.constant.str"() {value = "pow $0 $1; mul $7 $2; add $0 $8; mul $9 $3; mul $0 $4; tanh $10; add $12 $5; mul $11 $13; mul $14 $6"}
// CHECK: %[[Y:.+]] = "qlower.elementwise_chain"(%[[P]], %arg0, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %arg1) : (!torch.str, !torch.vtensor<[1,?,8],f32>, !torch.vtensor<[],f32>, {{.+}}, !torch.vtensor<[1,?,8],f32>) -> !torch.vtensor<[1,?,8],f32>
// CHECK-NOT: torch.aten.
// CHECK: return %[[Y]]
module {
  func.func @gated_tanh_gelu(%arg0: !torch.vtensor<[1,?,8],f32>, %arg1: !torch.vtensor<[1,?,8],f32>) -> !torch.vtensor<[1,?,8],f32> {
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

// The erf GELU after a bias add, then SiLU written as x * sigmoid(x): one chain, since
// each value with two users (the bias add's, the GELU's) has both in it; the bias is
// read along the last axis.
// CHECK-LABEL: func.func @erf_gelu_and_silu
// CHECK: "torch.constant.str"() {value = "add $0 $1; div $5 $2; erf $6; add $7 $3; mul $5 $8; mul $9 $4; sigmoid $10; mul $10 $11"}
// CHECK: %[[S:.+]] = "qlower.elementwise_chain"(%{{.+}}, %arg0, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.str, !torch.vtensor<[2,4],f32>, !torch.vtensor<[4],f32>, {{.+}}) -> !torch.vtensor<[2,4],f32>
// CHECK-NOT: torch.aten.
// CHECK: return %[[S]]
module {
  func.func @erf_gelu_and_silu(%arg0: !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,4],f32> {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %bias = "torch.vtensor.literal"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
    %r2 = "torch.vtensor.literal"() {value = dense<1.41421354> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %one = "torch.vtensor.literal"() {value = dense<1.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %half = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %0 = "torch.aten.add.Tensor"(%arg0, %bias, %int1) : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[4],f32>, !torch.int) -> !torch.vtensor<[2,4],f32>
    %1 = "torch.aten.div.Tensor"(%0, %r2) : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,4],f32>
    %2 = "torch.aten.erf"(%1) : (!torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,4],f32>
    %3 = "torch.aten.add.Tensor"(%2, %one, %int1) : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[2,4],f32>
    %4 = "torch.aten.mul.Tensor"(%0, %3) : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,4],f32>
    %5 = "torch.aten.mul.Tensor"(%4, %half) : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,4],f32>
    %6 = "torch.aten.sigmoid"(%5) : (!torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,4],f32>
    %7 = "torch.aten.mul.Tensor"(%5, %6) : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>) -> !torch.vtensor<[2,4],f32>
    return %7 : !torch.vtensor<[2,4],f32>
  }
}

// -----

// RMSNorm as T5 exports it: the statistic's add eps → sqrt is one chain of its own
// shape (the mean between is not element-wise), and x / statistic * gamma another,
// reading the [1,?,1] statistic and the [8] gamma each along one run of axes.
// CHECK-LABEL: func.func @rms_norm_tail
// CHECK: "torch.aten.mean.dim"
// CHECK: "torch.constant.str"() {value = "add $0 $1; sqrt $2"}
// CHECK: %[[R:.+]] = "qlower.elementwise_chain"(%{{.+}}, %{{.+}}, %{{.+}}) : (!torch.str, !torch.vtensor<[1,?,1],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[1,?,1],f32>
// CHECK: "torch.constant.str"() {value = "div $0 $1; mul $3 $2"}
// CHECK: %[[Y:.+]] = "qlower.elementwise_chain"(%{{.+}}, %arg0, %[[R]], %{{.+}}) : (!torch.str, !torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,1],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[1,?,8],f32>
// CHECK-NOT: torch.aten.div
// CHECK: return %[[Y]]
module {
  func.func @rms_norm_tail(%arg0: !torch.vtensor<[1,?,8],f32>) -> !torch.vtensor<[1,?,8],f32> {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %true = "torch.constant.bool"() {value = true} : () -> !torch.bool
    %none = "torch.constant.none"() : () -> !torch.none
    %int_1 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
    %dims = "torch.prim.ListConstruct"(%int_1) : (!torch.int) -> !torch.list<int>
    %two = "torch.vtensor.literal"() {value = dense<2.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %eps = "torch.vtensor.literal"() {value = dense<9.99999997E-7> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %gamma = "torch.vtensor.literal"() {value = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>} : () -> !torch.vtensor<[8],f32>
    %0 = "torch.aten.pow.Tensor_Tensor"(%arg0, %two) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[1,?,8],f32>
    %1 = "torch.aten.mean.dim"(%0, %dims, %true, %none) : (!torch.vtensor<[1,?,8],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[1,?,1],f32>
    %2 = "torch.aten.add.Tensor"(%1, %eps, %int1) : (!torch.vtensor<[1,?,1],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[1,?,1],f32>
    %3 = "torch.aten.sqrt"(%2) : (!torch.vtensor<[1,?,1],f32>) -> !torch.vtensor<[1,?,1],f32>
    %4 = "torch.aten.div.Tensor"(%arg0, %3) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[1,?,1],f32>) -> !torch.vtensor<[1,?,8],f32>
    %5 = "torch.aten.mul.Tensor"(%4, %gamma) : (!torch.vtensor<[1,?,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[1,?,8],f32>
    return %5 : !torch.vtensor<[1,?,8],f32>
  }
}

// -----

// A middle value returned too ends its chain there: mul → tanh is a chain, the add
// after it a lone op, left as it is.
// CHECK-LABEL: func.func @middle_value_read_elsewhere
// CHECK: "torch.constant.str"() {value = "mul $0 $1; tanh $2"}
// CHECK: %[[T:.+]] = "qlower.elementwise_chain"
// CHECK: %[[Y:.+]] = "torch.aten.add.Tensor"(%[[T]],
// CHECK: return %[[Y]], %[[T]]
module {
  func.func @middle_value_read_elsewhere(%arg0: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %c = "torch.vtensor.literal"() {value = dense<3.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %0 = "torch.aten.mul.Tensor"(%arg0, %c) : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32>
    %1 = "torch.aten.tanh"(%0) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
    %2 = "torch.aten.add.Tensor"(%1, %c, %int1) : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[4],f32>
    return %2, %1 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
  }
}

// -----

// Declined: integers, an alpha of 2, a constant varying along axes 0 and 2 of the
// output but not 1 (two runs), and a lone float op.
// CHECK-LABEL: func.func @declined
// CHECK-NOT: qlower.elementwise_chain
// CHECK: "torch.aten.mul.Tensor"(%arg0,
// CHECK: "torch.aten.add.Tensor"
// CHECK: "torch.aten.mul.Tensor"(%arg1,
// CHECK: "torch.aten.tanh"
// CHECK: "torch.aten.sub.Tensor"(%arg2, %{{.+}}, %[[TWO:.+]])
// CHECK: "torch.aten.exp"
// CHECK: "torch.aten.exp"(%arg3)
// CHECK-NOT: qlower.elementwise_chain
module {
  func.func @declined(%arg0: !torch.vtensor<[4],si64>, %arg1: !torch.vtensor<[2,4,3],f32>, %arg2: !torch.vtensor<[4],f32>, %arg3: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[4],si64>, !torch.vtensor<[2,4,3],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %int2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
    %i = "torch.vtensor.literal"() {value = dense<3> : tensor<si64>} : () -> !torch.vtensor<[],si64>
    %g = "torch.vtensor.literal"() {value = dense<1.0> : tensor<2x1x3xf32>} : () -> !torch.vtensor<[2,1,3],f32>
    %c = "torch.vtensor.literal"() {value = dense<3.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %0 = "torch.aten.mul.Tensor"(%arg0, %i) : (!torch.vtensor<[4],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[4],si64>
    %1 = "torch.aten.add.Tensor"(%0, %i, %int1) : (!torch.vtensor<[4],si64>, !torch.vtensor<[],si64>, !torch.int) -> !torch.vtensor<[4],si64>
    %2 = "torch.aten.mul.Tensor"(%arg1, %g) : (!torch.vtensor<[2,4,3],f32>, !torch.vtensor<[2,1,3],f32>) -> !torch.vtensor<[2,4,3],f32>
    %3 = "torch.aten.tanh"(%2) : (!torch.vtensor<[2,4,3],f32>) -> !torch.vtensor<[2,4,3],f32>
    %4 = "torch.aten.sub.Tensor"(%arg2, %c, %int2) : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[4],f32>
    %5 = "torch.aten.exp"(%4) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
    %6 = "torch.aten.exp"(%arg3) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
    return %1, %3, %5, %6 : !torch.vtensor<[4],si64>, !torch.vtensor<[2,4,3],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
  }
}

// -----

// BiasGelu and FastGelu lower to a bias add and torch.aten.gelu, erf or tanh form:
// the gelu is a step of the chain (the kernel runs the op's own vector function); a
// gelu whose approximation is not a known constant is left alone.
// CHECK-LABEL: func.func @bias_gelu
// CHECK: %[[P:.+]] = "torch.constant.str"() {value = "add $0 $1; gelu $2"}
// CHECK: "qlower.elementwise_chain"(%[[P]], %arg0, %arg1)
// CHECK: %[[Q:.+]] = "torch.constant.str"() {value = "add $0 $1; gelu_tanh $2"}
// CHECK: "qlower.elementwise_chain"(%[[Q]], %arg0, %arg1)
// CHECK: "torch.aten.add.Tensor"
// CHECK: "torch.aten.gelu"(%{{.+}}, %arg2)
module {
  func.func @bias_gelu(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.vtensor<[8],f32>, %arg2: !torch.str) -> (!torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>) {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %none = "torch.constant.str"() {value = "none"} : () -> !torch.str
    %tanh = "torch.constant.str"() {value = "tanh"} : () -> !torch.str
    %0 = "torch.aten.add.Tensor"(%arg0, %arg1, %int1) : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[8],f32>, !torch.int) -> !torch.vtensor<[2,8],f32>
    %1 = "torch.aten.gelu"(%0, %none) : (!torch.vtensor<[2,8],f32>, !torch.str) -> !torch.vtensor<[2,8],f32>
    %2 = "torch.aten.add.Tensor"(%arg0, %arg1, %int1) : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[8],f32>, !torch.int) -> !torch.vtensor<[2,8],f32>
    %3 = "torch.aten.gelu"(%2, %tanh) : (!torch.vtensor<[2,8],f32>, !torch.str) -> !torch.vtensor<[2,8],f32>
    %4 = "torch.aten.add.Tensor"(%arg0, %arg1, %int1) : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[8],f32>, !torch.int) -> !torch.vtensor<[2,8],f32>
    %5 = "torch.aten.gelu"(%4, %arg2) : (!torch.vtensor<[2,8],f32>, !torch.str) -> !torch.vtensor<[2,8],f32>
    return %1, %3, %5 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>
  }
}

// -----

// Ops of a tensor and a constant scalar (QuickGelu's mul.Scalar, an add.Scalar with
// alpha 1, rsub's scalar - x) are steps too: the scalar becomes a one-element f32
// literal input, as their kernels round it to f32; equal scalars are one input. A
// scalar known only at run time, or an alpha that is not 1, leaves the op alone.
// CHECK-LABEL: func.func @scalar_steps
// CHECK: %[[P:.+]] = "torch.constant.str"() {value = "mul $0 $1; sigmoid $4; mul $0 $5; add $6 $2; sub $3 $7; mul $8 $2"}
// CHECK: %[[A:.+]] = "torch.vtensor.literal"() {value = dense<1.702000e+00> : tensor<f32>}
// CHECK: %[[B:.+]] = "torch.vtensor.literal"() {value = dense<5.000000e-01> : tensor<f32>}
// CHECK: %[[C:.+]] = "torch.vtensor.literal"() {value = dense<3.000000e+00> : tensor<f32>}
// CHECK: "qlower.elementwise_chain"(%[[P]], %arg0, %[[A]], %[[B]], %[[C]])
// CHECK: "torch.aten.mul.Scalar"(%arg0, %arg1)
// CHECK: "torch.aten.add.Scalar"
module {
  func.func @scalar_steps(%arg0: !torch.vtensor<[2,8],f32>, %arg1: !torch.float) -> (!torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>) {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %int2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
    %int3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
    %alpha = "torch.constant.float"() {value = 1.702 : f64} : () -> !torch.float
    %half = "torch.constant.float"() {value = 0.5 : f64} : () -> !torch.float
    %half2 = "torch.constant.float"() {value = 0.5 : f64} : () -> !torch.float
    %0 = "torch.aten.mul.Scalar"(%arg0, %alpha) : (!torch.vtensor<[2,8],f32>, !torch.float) -> !torch.vtensor<[2,8],f32>
    %1 = "torch.aten.sigmoid"(%0) : (!torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32>
    %2 = "torch.aten.mul.Tensor"(%arg0, %1) : (!torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>) -> !torch.vtensor<[2,8],f32>
    %3 = "torch.aten.add.Scalar"(%2, %half, %int1) : (!torch.vtensor<[2,8],f32>, !torch.float, !torch.int) -> !torch.vtensor<[2,8],f32>
    %4 = "torch.aten.rsub.Scalar"(%3, %int3, %int1) : (!torch.vtensor<[2,8],f32>, !torch.int, !torch.int) -> !torch.vtensor<[2,8],f32>
    %5 = "torch.aten.mul.Scalar"(%4, %half2) : (!torch.vtensor<[2,8],f32>, !torch.float) -> !torch.vtensor<[2,8],f32>
    %6 = "torch.aten.mul.Scalar"(%arg0, %arg1) : (!torch.vtensor<[2,8],f32>, !torch.float) -> !torch.vtensor<[2,8],f32>
    %7 = "torch.aten.add.Scalar"(%arg0, %half, %int2) : (!torch.vtensor<[2,8],f32>, !torch.float, !torch.int) -> !torch.vtensor<[2,8],f32>
    return %5, %6, %7 : !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>, !torch.vtensor<[2,8],f32>
  }
}

// -----

// Attention scores scaled, then the [?,1,1,?] mask added: one chain, the mask an input.
// CHECK-LABEL: func.func @scaled_scores_and_dynamic_mask
// CHECK: "torch.constant.str"() {value = "div $0 $1; add $3 $2"}
// CHECK: %[[Y:.+]] = "qlower.elementwise_chain"(%{{.+}}, %arg0, %{{.+}}, %arg1) : (!torch.str, !torch.vtensor<[?,4,?,?],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[?,1,1,?],f32>) -> !torch.vtensor<[?,4,?,?],f32>
// CHECK-NOT: torch.aten.
// CHECK: return %[[Y]]
module {
  func.func @scaled_scores_and_dynamic_mask(%arg0: !torch.vtensor<[?,4,?,?],f32>, %arg1: !torch.vtensor<[?,1,1,?],f32>) -> !torch.vtensor<[?,4,?,?],f32> {
    %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %d = "torch.vtensor.literal"() {value = dense<4.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %0 = "torch.aten.div.Tensor"(%arg0, %d) : (!torch.vtensor<[?,4,?,?],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[?,4,?,?],f32>
    %1 = "torch.aten.add.Tensor"(%0, %arg1, %int1) : (!torch.vtensor<[?,4,?,?],f32>, !torch.vtensor<[?,1,1,?],f32>, !torch.int) -> !torch.vtensor<[?,4,?,?],f32>
    return %1 : !torch.vtensor<[?,4,?,?],f32>
  }
}
