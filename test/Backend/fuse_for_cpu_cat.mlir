// fuse-for-cpu, concatenation: a quantize of a cat of dequantized 8-bit per-tensor
// tensors becomes qlower.qlinear_cat (dim, y's scale and zero point, then the quantized
// parts), which requantizes each part's bytes by a table as QLinearConcat does.
// RUN: qlower-opt --split-input-file --fuse-for-cpu --dce %s | FileCheck %s

// CHECK-LABEL: func.func @parts_with_other_scales(
// CHECK-DAG: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK-DAG: %[[A:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0,
// CHECK-DAG: %[[B:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg1,
// CHECK-DAG: %[[YS:.+]] = "torch.constant.float"() {value = 1.000000e+00 : f64}
// CHECK: %[[Y:.+]] = "qlower.qlinear_cat"(%[[ZERO]], %[[YS]], %[[ZERO]], %[[A]], %[[B]]) : {{.+}} -> !torch.vtensor<[4,2],!torch.quint8>
// CHECK-NOT: torch.aten.cat
// CHECK: return %[[Y]]
func.func @parts_with_other_scales(%arg0: !torch.vtensor<[2,2],ui8>, %arg1: !torch.vtensor<[2,2],ui8>) -> !torch.vtensor<[4,2],!torch.quint8> {
  %s1 = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %s2 = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %a = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s1, %zero) : (!torch.vtensor<[2,2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2,2],!torch.quint8>
  %b = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, %s2, %zero) : (!torch.vtensor<[2,2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2,2],!torch.quint8>
  %fa = "torch.aten.dequantize.self"(%a) : (!torch.vtensor<[2,2],!torch.quint8>) -> !torch.vtensor<[2,2],f32>
  %fb = "torch.aten.dequantize.self"(%b) : (!torch.vtensor<[2,2],!torch.quint8>) -> !torch.vtensor<[2,2],f32>
  %l = "torch.prim.ListConstruct"(%fa, %fb) : (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>) -> !torch.list<vtensor>
  %c = "torch.aten.cat"(%l, %zero) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[4,2],f32>
  %ys = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%c, %ys, %zero, %dt) : (!torch.vtensor<[4,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4,2],!torch.quint8>
  return %y : !torch.vtensor<[4,2],!torch.quint8>
}

// -----

// Not fused: a part that is not quantized, and parts of another 8-bit type than the
// result.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: qlower.qlinear_cat
// CHECK: "torch.aten.cat"
// CHECK: "torch.aten.cat"
// CHECK-NOT: qlower.qlinear_cat
func.func @left_alone(%arg0: !torch.vtensor<[2,2],ui8>, %arg1: !torch.vtensor<[2,2],f32>, %arg2: !torch.vtensor<[2,2],si8>) -> (!torch.vtensor<[4,2],!torch.quint8>, !torch.vtensor<[4,2],!torch.quint8>) {
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %a = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %zero) : (!torch.vtensor<[2,2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2,2],!torch.quint8>
  %fa = "torch.aten.dequantize.self"(%a) : (!torch.vtensor<[2,2],!torch.quint8>) -> !torch.vtensor<[2,2],f32>
  %l = "torch.prim.ListConstruct"(%fa, %arg1) : (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>) -> !torch.list<vtensor>
  %c = "torch.aten.cat"(%l, %zero) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[4,2],f32>
  %y = "torch.aten.quantize_per_tensor"(%c, %s, %zero, %dt) : (!torch.vtensor<[4,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4,2],!torch.quint8>
  %i = "torch.aten._make_per_tensor_quantized_tensor"(%arg2, %s, %zero) : (!torch.vtensor<[2,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[2,2],!torch.qint8>
  %fi = "torch.aten.dequantize.self"(%i) : (!torch.vtensor<[2,2],!torch.qint8>) -> !torch.vtensor<[2,2],f32>
  %l2 = "torch.prim.ListConstruct"(%fi, %fi) : (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>) -> !torch.list<vtensor>
  %c2 = "torch.aten.cat"(%l2, %zero) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[4,2],f32>
  %y2 = "torch.aten.quantize_per_tensor"(%c2, %s, %zero, %dt) : (!torch.vtensor<[4,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4,2],!torch.quint8>
  return %y, %y2 : !torch.vtensor<[4,2],!torch.quint8>, !torch.vtensor<[4,2],!torch.quint8>
}
