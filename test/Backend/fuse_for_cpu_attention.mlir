// fuse-for-cpu, float attention: matmul(softmax(scores ∘ scale + mask, -1), v) over
// scores = matmul(q, kᵀ) becomes one qlower.attention, which keeps each head's scores
// in scratch. The scale may divide or multiply, by a float or a one-element tensor,
// the mask may come on either side of the add, and either may be absent; a soft cap
// may sit between the scale and the mask. Nothing is
// fused when an intermediate has another reader, the softmax is not along the last
// axis, or the scale is a tensor of several elements.
// RUN: qlower-opt --fuse-for-cpu --dce %s | FileCheck %s

// CHECK-LABEL: func.func @bert_style(
// CHECK-SAME: %[[Q:.+]]: !torch.vtensor<[?,4,?,16],f32>, %[[KT:.+]]: !torch.vtensor<[?,4,16,?],f32>, %[[V:.+]]: !torch.vtensor<[?,4,?,16],f32>, %[[M:.+]]: !torch.vtensor<[?,1,1,?],f32>
// CHECK: %[[S:.+]] = "torch.vtensor.literal"() {value = dense<4.000000e+00> : tensor<f32>}
// CHECK: %[[DIV:.+]] = "torch.constant.bool"() {value = true}
// CHECK: %[[A:.+]] = "qlower.attention"(%[[Q]], %[[KT]], %[[V]], %[[S]], %[[DIV]], %[[M]], %{{.+}}, %{{.+}})
// CHECK-NOT: torch.aten.softmax.int
// CHECK-NOT: torch.aten.matmul
// CHECK: return %[[A]]
func.func @bert_style(%q: !torch.vtensor<[?,4,?,16],f32>, %kt: !torch.vtensor<[?,4,16,?],f32>, %v: !torch.vtensor<[?,4,?,16],f32>, %mask: !torch.vtensor<[?,1,1,?],f32>) -> !torch.vtensor<[?,4,?,16],f32> {
  %s = "torch.vtensor.literal"() {value = dense<4.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %last = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.aten.matmul"(%q, %kt) : (!torch.vtensor<[?,4,?,16],f32>, !torch.vtensor<[?,4,16,?],f32>) -> !torch.vtensor<[?,4,?,?],f32>
  %1 = "torch.aten.div.Tensor"(%0, %s) : (!torch.vtensor<[?,4,?,?],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[?,4,?,?],f32>
  %2 = "torch.aten.add.Tensor"(%1, %mask, %one) : (!torch.vtensor<[?,4,?,?],f32>, !torch.vtensor<[?,1,1,?],f32>, !torch.int) -> !torch.vtensor<[?,4,?,?],f32>
  %3 = "torch.aten.softmax.int"(%2, %last, %none) : (!torch.vtensor<[?,4,?,?],f32>, !torch.int, !torch.none) -> !torch.vtensor<[?,4,?,?],f32>
  %4 = "torch.aten.matmul"(%3, %v) : (!torch.vtensor<[?,4,?,?],f32>, !torch.vtensor<[?,4,?,16],f32>) -> !torch.vtensor<[?,4,?,16],f32>
  return %4 : !torch.vtensor<[?,4,?,16],f32>
}

// T5 has no scale; its position bias comes first in the add. A multiply by a float
// constant is a scale too.
// CHECK-LABEL: func.func @t5_style(
// CHECK: %[[NONE:.+]] = "torch.constant.none"
// CHECK: %[[NO:.+]] = "torch.constant.bool"() {value = false}
// CHECK: "qlower.attention"(%arg0, %arg1, %arg2, %[[NONE]], %[[NO]], %arg3, %{{.+}}, %{{.+}})
// CHECK-LABEL: func.func @scaled_by_a_float(
// CHECK: %[[F:.+]] = "torch.constant.float"() {value = 1.250000e-01 : f64}
// CHECK: "qlower.attention"(%arg0, %arg1, %arg2, %[[F]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}})
func.func @t5_style(%q: !torch.vtensor<[1,8,?,32],f32>, %kt: !torch.vtensor<[1,8,32,?],f32>, %v: !torch.vtensor<[1,8,?,32],f32>, %bias: !torch.vtensor<[1,8,?,?],f32>) -> !torch.vtensor<[1,8,?,32],f32> {
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %last = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.aten.matmul"(%q, %kt) : (!torch.vtensor<[1,8,?,32],f32>, !torch.vtensor<[1,8,32,?],f32>) -> !torch.vtensor<[1,8,?,?],f32>
  %1 = "torch.aten.add.Tensor"(%bias, %0, %one) : (!torch.vtensor<[1,8,?,?],f32>, !torch.vtensor<[1,8,?,?],f32>, !torch.int) -> !torch.vtensor<[1,8,?,?],f32>
  %2 = "torch.aten.softmax.int"(%1, %last, %none) : (!torch.vtensor<[1,8,?,?],f32>, !torch.int, !torch.none) -> !torch.vtensor<[1,8,?,?],f32>
  %3 = "torch.aten.matmul"(%2, %v) : (!torch.vtensor<[1,8,?,?],f32>, !torch.vtensor<[1,8,?,32],f32>) -> !torch.vtensor<[1,8,?,32],f32>
  return %3 : !torch.vtensor<[1,8,?,32],f32>
}
func.func @scaled_by_a_float(%q: !torch.vtensor<[2,7,16],f32>, %kt: !torch.vtensor<[2,16,7],f32>, %v: !torch.vtensor<[2,7,16],f32>) -> !torch.vtensor<[2,7,16],f32> {
  %f = "torch.constant.float"() {value = 0.125 : f64} : () -> !torch.float
  %last = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.aten.matmul"(%q, %kt) : (!torch.vtensor<[2,7,16],f32>, !torch.vtensor<[2,16,7],f32>) -> !torch.vtensor<[2,7,7],f32>
  %1 = "torch.aten.mul.Scalar"(%0, %f) : (!torch.vtensor<[2,7,7],f32>, !torch.float) -> !torch.vtensor<[2,7,7],f32>
  %2 = "torch.aten.softmax.int"(%1, %last, %none) : (!torch.vtensor<[2,7,7],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,7,7],f32>
  %3 = "torch.aten.matmul"(%2, %v) : (!torch.vtensor<[2,7,7],f32>, !torch.vtensor<[2,7,16],f32>) -> !torch.vtensor<[2,7,16],f32>
  return %3 : !torch.vtensor<[2,7,16],f32>
}

// The probabilities are returned too: they must exist, so nothing is fused.
// CHECK-LABEL: func.func @probabilities_returned(
// CHECK-NOT: qlower.attention
// CHECK: torch.aten.softmax.int
// CHECK-LABEL: func.func @softmax_not_along_the_last_axis(
// CHECK-NOT: qlower.attention
// CHECK: torch.aten.softmax.int
// CHECK-LABEL: func.func @scale_of_several_elements(
// CHECK-NOT: qlower.attention
// CHECK: torch.aten.softmax.int
func.func @probabilities_returned(%q: !torch.vtensor<[2,7,16],f32>, %kt: !torch.vtensor<[2,16,7],f32>, %v: !torch.vtensor<[2,7,16],f32>) -> (!torch.vtensor<[2,7,16],f32>, !torch.vtensor<[2,7,7],f32>) {
  %last = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.aten.matmul"(%q, %kt) : (!torch.vtensor<[2,7,16],f32>, !torch.vtensor<[2,16,7],f32>) -> !torch.vtensor<[2,7,7],f32>
  %2 = "torch.aten.softmax.int"(%0, %last, %none) : (!torch.vtensor<[2,7,7],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,7,7],f32>
  %3 = "torch.aten.matmul"(%2, %v) : (!torch.vtensor<[2,7,7],f32>, !torch.vtensor<[2,7,16],f32>) -> !torch.vtensor<[2,7,16],f32>
  return %3, %2 : !torch.vtensor<[2,7,16],f32>, !torch.vtensor<[2,7,7],f32>
}
func.func @softmax_not_along_the_last_axis(%q: !torch.vtensor<[2,7,16],f32>, %kt: !torch.vtensor<[2,16,7],f32>, %v: !torch.vtensor<[2,7,16],f32>) -> !torch.vtensor<[2,7,16],f32> {
  %dim = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.aten.matmul"(%q, %kt) : (!torch.vtensor<[2,7,16],f32>, !torch.vtensor<[2,16,7],f32>) -> !torch.vtensor<[2,7,7],f32>
  %2 = "torch.aten.softmax.int"(%0, %dim, %none) : (!torch.vtensor<[2,7,7],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,7,7],f32>
  %3 = "torch.aten.matmul"(%2, %v) : (!torch.vtensor<[2,7,7],f32>, !torch.vtensor<[2,7,16],f32>) -> !torch.vtensor<[2,7,16],f32>
  return %3 : !torch.vtensor<[2,7,16],f32>
}
func.func @scale_of_several_elements(%q: !torch.vtensor<[2,7,16],f32>, %kt: !torch.vtensor<[2,16,7],f32>, %v: !torch.vtensor<[2,7,16],f32>, %s: !torch.vtensor<[7],f32>) -> !torch.vtensor<[2,7,16],f32> {
  %last = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.aten.matmul"(%q, %kt) : (!torch.vtensor<[2,7,16],f32>, !torch.vtensor<[2,16,7],f32>) -> !torch.vtensor<[2,7,7],f32>
  %1 = "torch.aten.mul.Tensor"(%0, %s) : (!torch.vtensor<[2,7,7],f32>, !torch.vtensor<[7],f32>) -> !torch.vtensor<[2,7,7],f32>
  %2 = "torch.aten.softmax.int"(%1, %last, %none) : (!torch.vtensor<[2,7,7],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,7,7],f32>
  %3 = "torch.aten.matmul"(%2, %v) : (!torch.vtensor<[2,7,7],f32>, !torch.vtensor<[2,7,16],f32>) -> !torch.vtensor<[2,7,16],f32>
  return %3 : !torch.vtensor<[2,7,16],f32>
}

// GroupQueryAttention's lowering: grouped heads, a float scale, and the keys not
// allowed replaced by the lowest float. With the replacement a tensor (where.self),
// nothing is fused.
// CHECK-LABEL: func.func @allowed_keys(
// CHECK: %[[LOW:.+]] = "torch.constant.float"() {value = -3.40
// CHECK: "qlower.attention"(%arg0, %arg1, %arg2, %{{.+}}, %{{.+}}, %{{.+}}, %arg3, %[[LOW]], %{{.+}})
// CHECK-NOT: torch.aten.softmax.int
// CHECK-LABEL: func.func @replaced_by_a_tensor(
// CHECK-NOT: qlower.attention
// CHECK: torch.aten.softmax.int
func.func @allowed_keys(%q: !torch.vtensor<[1,2,2,8,16],f32>, %kt: !torch.vtensor<[1,2,1,16,8],f32>, %v: !torch.vtensor<[1,2,1,8,16],f32>, %keep: !torch.vtensor<[1,1,1,8,8],i1>) -> !torch.vtensor<[1,2,2,8,16],f32> {
  %f = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %low = "torch.constant.float"() {value = -3.4028234663852886E+38 : f64} : () -> !torch.float
  %last = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.aten.matmul"(%q, %kt) : (!torch.vtensor<[1,2,2,8,16],f32>, !torch.vtensor<[1,2,1,16,8],f32>) -> !torch.vtensor<[1,2,2,8,8],f32>
  %1 = "torch.aten.mul.Scalar"(%0, %f) : (!torch.vtensor<[1,2,2,8,8],f32>, !torch.float) -> !torch.vtensor<[1,2,2,8,8],f32>
  %2 = "torch.aten.where.ScalarOther"(%keep, %1, %low) : (!torch.vtensor<[1,1,1,8,8],i1>, !torch.vtensor<[1,2,2,8,8],f32>, !torch.float) -> !torch.vtensor<[1,2,2,8,8],f32>
  %3 = "torch.aten.softmax.int"(%2, %last, %none) : (!torch.vtensor<[1,2,2,8,8],f32>, !torch.int, !torch.none) -> !torch.vtensor<[1,2,2,8,8],f32>
  %4 = "torch.aten.matmul"(%3, %v) : (!torch.vtensor<[1,2,2,8,8],f32>, !torch.vtensor<[1,2,1,8,16],f32>) -> !torch.vtensor<[1,2,2,8,16],f32>
  return %4 : !torch.vtensor<[1,2,2,8,16],f32>
}
func.func @replaced_by_a_tensor(%q: !torch.vtensor<[2,7,16],f32>, %kt: !torch.vtensor<[2,16,7],f32>, %v: !torch.vtensor<[2,7,16],f32>, %keep: !torch.vtensor<[7,7],i1>, %other: !torch.vtensor<[],f32>) -> !torch.vtensor<[2,7,16],f32> {
  %last = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.aten.matmul"(%q, %kt) : (!torch.vtensor<[2,7,16],f32>, !torch.vtensor<[2,16,7],f32>) -> !torch.vtensor<[2,7,7],f32>
  %1 = "torch.aten.where.self"(%keep, %0, %other) : (!torch.vtensor<[7,7],i1>, !torch.vtensor<[2,7,7],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2,7,7],f32>
  %2 = "torch.aten.softmax.int"(%1, %last, %none) : (!torch.vtensor<[2,7,7],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,7,7],f32>
  %3 = "torch.aten.matmul"(%2, %v) : (!torch.vtensor<[2,7,7],f32>, !torch.vtensor<[2,7,16],f32>) -> !torch.vtensor<[2,7,16],f32>
  return %3 : !torch.vtensor<[2,7,16],f32>
}

// A soft cap (Gemma 2, ONNX Attention's softcap) between the scale and the mask,
// c · tanh(s / c), is the kernel's ninth operand. Caps that differ, or a tanh with
// another reader, leave the chain unfused.
// CHECK-LABEL: func.func @soft_capped(
// CHECK: %[[SCALE:.+]] = "torch.constant.float"() {value = 1.250000e-01 : f64}
// CHECK: %[[CAP:.+]] = "torch.constant.float"() {value = 5.000000e+01 : f64}
// CHECK: %[[A:.+]] = "qlower.attention"(%arg0, %arg1, %arg2, %[[SCALE]], %{{[^,]+}}, %arg3, %arg4, %{{[^,]+}}, %[[CAP]])
// CHECK-NOT: torch.aten.tanh
// CHECK-NOT: torch.aten.softmax.int
// CHECK: return %[[A]]
// CHECK-LABEL: func.func @caps_that_differ(
// CHECK-NOT: qlower.attention
// CHECK: torch.aten.softmax.int
// CHECK-LABEL: func.func @capped_scores_returned(
// CHECK-NOT: qlower.attention
// CHECK: torch.aten.softmax.int
func.func @soft_capped(%q: !torch.vtensor<[1,2,2,8,16],f32>, %kt: !torch.vtensor<[1,2,1,16,8],f32>, %v: !torch.vtensor<[1,2,1,8,16],f32>, %mask: !torch.vtensor<[1,1,1,8,8],f32>, %keep: !torch.vtensor<[1,1,1,8,8],i1>) -> !torch.vtensor<[1,2,2,8,16],f32> {
  %scale = "torch.constant.float"() {value = 0.125 : f64} : () -> !torch.float
  %cap = "torch.constant.float"() {value = 50.0 : f64} : () -> !torch.float
  %low = "torch.constant.float"() {value = -3.4028234663852886E+38 : f64} : () -> !torch.float
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %last = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.aten.matmul"(%q, %kt) : (!torch.vtensor<[1,2,2,8,16],f32>, !torch.vtensor<[1,2,1,16,8],f32>) -> !torch.vtensor<[1,2,2,8,8],f32>
  %1 = "torch.aten.mul.Scalar"(%0, %scale) : (!torch.vtensor<[1,2,2,8,8],f32>, !torch.float) -> !torch.vtensor<[1,2,2,8,8],f32>
  %2 = "torch.aten.div.Scalar"(%1, %cap) : (!torch.vtensor<[1,2,2,8,8],f32>, !torch.float) -> !torch.vtensor<[1,2,2,8,8],f32>
  %3 = "torch.aten.tanh"(%2) : (!torch.vtensor<[1,2,2,8,8],f32>) -> !torch.vtensor<[1,2,2,8,8],f32>
  %4 = "torch.aten.mul.Scalar"(%3, %cap) : (!torch.vtensor<[1,2,2,8,8],f32>, !torch.float) -> !torch.vtensor<[1,2,2,8,8],f32>
  %5 = "torch.aten.add.Tensor"(%4, %mask, %one) : (!torch.vtensor<[1,2,2,8,8],f32>, !torch.vtensor<[1,1,1,8,8],f32>, !torch.int) -> !torch.vtensor<[1,2,2,8,8],f32>
  %6 = "torch.aten.where.ScalarOther"(%keep, %5, %low) : (!torch.vtensor<[1,1,1,8,8],i1>, !torch.vtensor<[1,2,2,8,8],f32>, !torch.float) -> !torch.vtensor<[1,2,2,8,8],f32>
  %7 = "torch.aten.softmax.int"(%6, %last, %none) : (!torch.vtensor<[1,2,2,8,8],f32>, !torch.int, !torch.none) -> !torch.vtensor<[1,2,2,8,8],f32>
  %8 = "torch.aten.matmul"(%7, %v) : (!torch.vtensor<[1,2,2,8,8],f32>, !torch.vtensor<[1,2,1,8,16],f32>) -> !torch.vtensor<[1,2,2,8,16],f32>
  return %8 : !torch.vtensor<[1,2,2,8,16],f32>
}
func.func @caps_that_differ(%q: !torch.vtensor<[2,7,16],f32>, %kt: !torch.vtensor<[2,16,7],f32>, %v: !torch.vtensor<[2,7,16],f32>) -> !torch.vtensor<[2,7,16],f32> {
  %c1 = "torch.constant.float"() {value = 50.0 : f64} : () -> !torch.float
  %c2 = "torch.constant.float"() {value = 30.0 : f64} : () -> !torch.float
  %last = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.aten.matmul"(%q, %kt) : (!torch.vtensor<[2,7,16],f32>, !torch.vtensor<[2,16,7],f32>) -> !torch.vtensor<[2,7,7],f32>
  %1 = "torch.aten.div.Scalar"(%0, %c1) : (!torch.vtensor<[2,7,7],f32>, !torch.float) -> !torch.vtensor<[2,7,7],f32>
  %2 = "torch.aten.tanh"(%1) : (!torch.vtensor<[2,7,7],f32>) -> !torch.vtensor<[2,7,7],f32>
  %3 = "torch.aten.mul.Scalar"(%2, %c2) : (!torch.vtensor<[2,7,7],f32>, !torch.float) -> !torch.vtensor<[2,7,7],f32>
  %4 = "torch.aten.softmax.int"(%3, %last, %none) : (!torch.vtensor<[2,7,7],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,7,7],f32>
  %5 = "torch.aten.matmul"(%4, %v) : (!torch.vtensor<[2,7,7],f32>, !torch.vtensor<[2,7,16],f32>) -> !torch.vtensor<[2,7,16],f32>
  return %5 : !torch.vtensor<[2,7,16],f32>
}
func.func @capped_scores_returned(%q: !torch.vtensor<[2,7,16],f32>, %kt: !torch.vtensor<[2,16,7],f32>, %v: !torch.vtensor<[2,7,16],f32>) -> (!torch.vtensor<[2,7,16],f32>, !torch.vtensor<[2,7,7],f32>) {
  %c = "torch.constant.float"() {value = 50.0 : f64} : () -> !torch.float
  %last = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %none = "torch.constant.none"() : () -> !torch.none
  %0 = "torch.aten.matmul"(%q, %kt) : (!torch.vtensor<[2,7,16],f32>, !torch.vtensor<[2,16,7],f32>) -> !torch.vtensor<[2,7,7],f32>
  %1 = "torch.aten.div.Scalar"(%0, %c) : (!torch.vtensor<[2,7,7],f32>, !torch.float) -> !torch.vtensor<[2,7,7],f32>
  %2 = "torch.aten.tanh"(%1) : (!torch.vtensor<[2,7,7],f32>) -> !torch.vtensor<[2,7,7],f32>
  %3 = "torch.aten.mul.Scalar"(%2, %c) : (!torch.vtensor<[2,7,7],f32>, !torch.float) -> !torch.vtensor<[2,7,7],f32>
  %4 = "torch.aten.softmax.int"(%3, %last, %none) : (!torch.vtensor<[2,7,7],f32>, !torch.int, !torch.none) -> !torch.vtensor<[2,7,7],f32>
  %5 = "torch.aten.matmul"(%4, %v) : (!torch.vtensor<[2,7,7],f32>, !torch.vtensor<[2,7,16],f32>) -> !torch.vtensor<[2,7,16],f32>
  return %5, %2 : !torch.vtensor<[2,7,16],f32>, !torch.vtensor<[2,7,7],f32>
}
