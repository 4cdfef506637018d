// fuse-for-cpu, lookup tables: float ops between a dequantize and a quantize that
// form an element-wise function of that one 8-bit tensor become one table lookup,
// computed by the ops' own kernels at every input (per channel when a constant varies
// along one axis); the cases it must leave alone keep their float ops.
// RUN: qlower-opt --split-input-file --fuse-for-cpu --dce %s | FileCheck %s

// A batch normalization left in float: a table per channel (axis 1), each row the
// requantized value at one of the 256 inputs.
// CHECK-LABEL: func.func @batch_norm(
// CHECK-DAG: %[[T:.+]] = "torch.vtensor.literal"() {value = dense<"0x{{[0-9A-F]+}}"> : tensor<3x256xui8>}
// CHECK-DAG: %[[AXIS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK-DAG: %[[YS:.+]] = "torch.constant.float"() {value = 3.710000e-02 : f64}
// CHECK-DAG: %[[YZ:.+]] = "torch.constant.int"() {value = 7 : i64}
// CHECK: %[[Y:.+]] = "qlower.qlinear_lookup"(%arg0, %[[T]], %[[AXIS]], %[[YS]], %[[YZ]]) : (!torch.vtensor<[1,3,4,4],ui8>, !torch.vtensor<[3,256],ui8>, !torch.int, !torch.float, !torch.int) -> !torch.vtensor<[1,3,4,4],!torch.quint8>
// CHECK: "torch.aten.int_repr"(%[[Y]])
// CHECK-NOT: torch.aten.batch_norm
// CHECK-NOT: torch.aten.dequantize.self
// CHECK: return
func.func @batch_norm(%arg0: !torch.vtensor<[1,3,4,4],ui8>) -> !torch.vtensor<[1,3,4,4],ui8> {
  %s = "torch.constant.float"() {value = 0.05 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %q = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[1,3,4,4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,3,4,4],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[1,3,4,4],!torch.quint8>) -> !torch.vtensor<[1,3,4,4],f32>
  %w = "torch.vtensor.literal"() {value = dense<[1.5, -0.5, 2.0]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %b = "torch.vtensor.literal"() {value = dense<[0.25, 1.0, -2.0]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %m = "torch.vtensor.literal"() {value = dense<[0.1, -0.3, 0.7]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %v = "torch.vtensor.literal"() {value = dense<[0.9, 1.7, 0.3]> : tensor<3xf32>} : () -> !torch.vtensor<[3],f32>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %mom = "torch.constant.float"() {value = 0.9 : f64} : () -> !torch.float
  %eps = "torch.constant.float"() {value = 1.0e-05 : f64} : () -> !torch.float
  %y = "torch.aten.batch_norm"(%x, %w, %b, %m, %v, %false, %mom, %eps, %false) : (!torch.vtensor<[1,3,4,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.bool, !torch.float, !torch.float, !torch.bool) -> !torch.vtensor<[1,3,4,4],f32>
  %ys = "torch.constant.float"() {value = 0.0371 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 7 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %yq = "torch.aten.quantize_per_tensor"(%y, %ys, %yz, %dt) : (!torch.vtensor<[1,3,4,4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,3,4,4],!torch.quint8>
  %r = "torch.aten.int_repr"(%yq) : (!torch.vtensor<[1,3,4,4],!torch.quint8>) -> !torch.vtensor<[1,3,4,4],ui8>
  return %r : !torch.vtensor<[1,3,4,4],ui8>
}

// -----

// A ReLU of int8 values whose scale is 1 and zero point 0: the table is the identity
// for the bit patterns of 0..127 and 0 for those of -128..-1. A float result that is
// used as such becomes qlower.dequantized_lookup, whose table holds the floats.
// CHECK-LABEL: func.func @relu(
// CHECK-DAG: %[[T:.+]] = "torch.vtensor.literal"() {value = dense<"0x000102030405060708090A0B0C0D0E0F{{[0-9A-F]+}}7E7F0000000000000000{{0+}}"> : tensor<1x256xsi8>}
// CHECK: %[[Y:.+]] = "qlower.qlinear_lookup"(%arg0, %[[T]], %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[8],si8>, !torch.vtensor<[1,256],si8>
// CHECK: %[[F:.+]] = "qlower.dequantized_lookup"(%arg0, %{{.+}}, %{{.+}}) : (!torch.vtensor<[8],si8>, !torch.vtensor<[1,256],f32>, !torch.int) -> !torch.vtensor<[8],f32>
// CHECK-NOT: torch.aten.relu
// CHECK: return %{{.+}}, %[[F]]
func.func @relu(%arg0: !torch.vtensor<[8],si8>) -> (!torch.vtensor<[8],si8>, !torch.vtensor<[8],f32>) {
  %s = "torch.constant.float"() {value = 1.0 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %q = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[8],si8>, !torch.float, !torch.int) -> !torch.vtensor<[8],!torch.qint8>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[8],!torch.qint8>) -> !torch.vtensor<[8],f32>
  %y = "torch.aten.relu"(%x) : (!torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
  %dt = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %yq = "torch.aten.quantize_per_tensor"(%y, %s, %z, %dt) : (!torch.vtensor<[8],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[8],!torch.qint8>
  %r = "torch.aten.int_repr"(%yq) : (!torch.vtensor<[8],!torch.qint8>) -> !torch.vtensor<[8],si8>
  %f = "torch.aten.relu"(%x) : (!torch.vtensor<[8],f32>) -> !torch.vtensor<[8],f32>
  return %r, %f : !torch.vtensor<[8],si8>, !torch.vtensor<[8],f32>
}

// -----

// Not a function of one tensor: the sum of two dequantized tensors of different types
// (no QLinearAdd either), and a constant varying along two axes.
// CHECK-LABEL: func.func @declined(
// CHECK-NOT: lookup
// CHECK: torch.aten.add.Tensor
// CHECK: torch.aten.mul.Tensor
// CHECK: return
func.func @declined(%arg0: !torch.vtensor<[2,3],ui8>, %arg1: !torch.vtensor<[2,3],si8>) -> (!torch.vtensor<[2,3],ui8>, !torch.vtensor<[2,3],ui8>) {
  %s = "torch.constant.float"() {value = 0.5 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %qa = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[2,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2,3],!torch.quint8>
  %a = "torch.aten.dequantize.self"(%qa) : (!torch.vtensor<[2,3],!torch.quint8>) -> !torch.vtensor<[2,3],f32>
  %qb = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, %s, %z) : (!torch.vtensor<[2,3],si8>, !torch.float, !torch.int) -> !torch.vtensor<[2,3],!torch.qint8>
  %b = "torch.aten.dequantize.self"(%qb) : (!torch.vtensor<[2,3],!torch.qint8>) -> !torch.vtensor<[2,3],f32>
  %sum = "torch.aten.add.Tensor"(%a, %b, %one) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>, !torch.int) -> !torch.vtensor<[2,3],f32>
  %q1 = "torch.aten.quantize_per_tensor"(%sum, %s, %z, %dt) : (!torch.vtensor<[2,3],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2,3],!torch.quint8>
  %r1 = "torch.aten.int_repr"(%q1) : (!torch.vtensor<[2,3],!torch.quint8>) -> !torch.vtensor<[2,3],ui8>
  %c = "torch.vtensor.literal"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> !torch.vtensor<[2,3],f32>
  %p = "torch.aten.mul.Tensor"(%a, %c) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %q2 = "torch.aten.quantize_per_tensor"(%p, %s, %z, %dt) : (!torch.vtensor<[2,3],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2,3],!torch.quint8>
  %r2 = "torch.aten.int_repr"(%q2) : (!torch.vtensor<[2,3],!torch.quint8>) -> !torch.vtensor<[2,3],ui8>
  return %r1, %r2 : !torch.vtensor<[2,3],ui8>, !torch.vtensor<[2,3],ui8>
}

// -----

// A requantization, quantize(dequantize(q)) with other parameters, is a table too:
// (q - 128)·0.5 quantized with 0.25 and zero point 3, rounded half to even and
// saturated, so bytes 0..126 give 0 and byte 128 gives 3.
// CHECK-LABEL: func.func @requantize(
// CHECK: %[[T:.+]] = "torch.vtensor.literal"() {value = dense<"0x0000{{(00)+}}01030507{{[0-9A-F]+}}FFFF"> : tensor<1x256xui8>}
// CHECK: %[[Y:.+]] = "qlower.qlinear_lookup"(%arg0, %[[T]],
// CHECK-NOT: torch.aten.quantize_per_tensor
// CHECK: return
func.func @requantize(%arg0: !torch.vtensor<[8],ui8>) -> !torch.vtensor<[8],ui8> {
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %q = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[8],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[8],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[8],!torch.quint8>) -> !torch.vtensor<[8],f32>
  %ys = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%x, %ys, %yz, %dt) : (!torch.vtensor<[8],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[8],!torch.quint8>
  %r = "torch.aten.int_repr"(%y) : (!torch.vtensor<[8],!torch.quint8>) -> !torch.vtensor<[8],ui8>
  return %r : !torch.vtensor<[8],ui8>
}
