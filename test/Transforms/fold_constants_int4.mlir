// RUN: qlower-opt --split-input-file --fold-constants --dce %s | FileCheck %s

// 4-bit constants fold like others: a reshape of an si4 literal is an si4 literal (MLIR
// keeps one nibble per byte; negative values survive the round trip), the widening to
// si8 an si8 literal; the quantized tensor made from it is not folded.
// CHECK-LABEL: func.func @int4_weight(
// CHECK-DAG: "torch.vtensor.literal"() {value = dense<{{\[\[}}-8, 7], [0, -1], [2, -3]]> : tensor<3x2xsi8>}
// CHECK-DAG: "torch.aten._make_per_tensor_quantized_tensor"
// CHECK-NOT: tensor<2x3xsi4>
func.func @int4_weight() -> !torch.vtensor<[3,2],f32> {
  %w = "torch.vtensor.literal"() {value = dense<[[-8, 7, 0], [-1, 2, -3]]> : tensor<2x3xsi4>} : () -> !torch.vtensor<[2,3],si4>
  %int3 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %int2 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %shape = "torch.prim.ListConstruct"(%int3, %int2) : (!torch.int, !torch.int) -> !torch.list<int>
  %r = "torch.aten.reshape"(%w, %shape) : (!torch.vtensor<[2,3],si4>, !torch.list<int>) -> !torch.vtensor<[3,2],si4>
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %x = "torch.aten.to.dtype"(%r, %int1, %false, %false, %none) : (!torch.vtensor<[3,2],si4>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,2],si8>
  %scale = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %zp = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %q = "torch.aten._make_per_tensor_quantized_tensor"(%x, %scale, %zp) : (!torch.vtensor<[3,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[3,2],!torch.qint8>
  %y = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[3,2],!torch.qint8>) -> !torch.vtensor<[3,2],f32>
  return %y : !torch.vtensor<[3,2],f32>
}

// -----

// A cast to si4 folds to an si4 literal, each value wrapped to its low four bits.
// CHECK-LABEL: func.func @to_int4(
// CHECK: %[[L:.+]] = "torch.vtensor.literal"() {value = dense<[-8, 7, -1, 1]> : tensor<4xsi4>}
// CHECK: return %[[L]]
func.func @to_int4() -> !torch.vtensor<[4],si4> {
  %v = "torch.vtensor.literal"() {value = dense<[8, -9, 15, 17]> : tensor<4xsi32>} : () -> !torch.vtensor<[4],si32>
  %int4 = "torch.constant.int"() {value = 40 : i64} : () -> !torch.int
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %none = "torch.constant.none"() : () -> !torch.none
  %y = "torch.aten.to.dtype"(%v, %int4, %false, %false, %none) : (!torch.vtensor<[4],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[4],si4>
  return %y : !torch.vtensor<[4],si4>
}
