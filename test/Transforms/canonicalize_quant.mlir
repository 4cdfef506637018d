// collapse-quant-round-trips (the CPU pipelines only): the round trip
// make(int_repr(quantize(x, params)), params) is the quantize op itself, but only with
// provably identical parameters. canonicalize-quant: duplicate literals and constants
// merge; item of a literal becomes a torch.constant; the round trip stays (the form
// torch-mlir's importer writes, which torch-mlir and IREE compile).
// RUN: qlower-opt --collapse-quant-round-trips --canonicalize-quant --dce %s | FileCheck %s
// RUN: qlower-opt --canonicalize-quant --dce %s | FileCheck %s --check-prefix=KEEP

// KEEP-LABEL: func.func @round_trip_same
// KEEP: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%arg0,
// KEEP: %[[I:.+]] = "torch.aten.int_repr"(%[[Q]])
// KEEP: %[[M:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[I]],
// KEEP: "torch.aten.dequantize.self"(%[[M]])

// Identical parameters: the same SSA values, equal constants, or item of the same
// literal value.
// CHECK-LABEL: func.func @round_trip_same
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%arg0,
// CHECK-NOT: int_repr
// CHECK-NOT: _make_per_tensor_quantized_tensor
// CHECK: %[[DQ:.+]] = "torch.aten.dequantize.self"(%[[Q]])
// CHECK: %[[DQ2:.+]] = "torch.aten.dequantize.self"(%[[Q]])
// CHECK: return %[[DQ]], %[[DQ2]]
func.func @round_trip_same(%arg0: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %s = "torch.constant.float"() {value = 0.5 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %q = "torch.aten.quantize_per_tensor"(%arg0, %s, %z, %dtype) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  %i = "torch.aten.int_repr"(%q) : (!torch.vtensor<[4],!torch.quint8>) -> !torch.vtensor<[4],ui8>
  %m = "torch.aten._make_per_tensor_quantized_tensor"(%i, %s, %z) : (!torch.vtensor<[4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  %dq = "torch.aten.dequantize.self"(%m) : (!torch.vtensor<[4],!torch.quint8>) -> !torch.vtensor<[4],f32>
  %ls = "torch.vtensor.literal"() {value = dense<0.5> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %lz = "torch.vtensor.literal"() {value = dense<3> : tensor<ui8>} : () -> !torch.vtensor<[],ui8>
  %s2 = "torch.aten.item"(%ls) : (!torch.vtensor<[],f32>) -> !torch.float
  %z2 = "torch.aten.item"(%lz) : (!torch.vtensor<[],ui8>) -> !torch.int
  %m2 = "torch.aten._make_per_tensor_quantized_tensor"(%i, %s2, %z2) : (!torch.vtensor<[4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  %dq2 = "torch.aten.dequantize.self"(%m2) : (!torch.vtensor<[4],!torch.quint8>) -> !torch.vtensor<[4],f32>
  return %dq, %dq2 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}

// A different scale or zero point requantizes: the round trip stays.
// CHECK-LABEL: func.func @round_trip_different
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%arg0,
// CHECK: %[[I:.+]] = "torch.aten.int_repr"(%[[Q]])
// CHECK: "torch.aten._make_per_tensor_quantized_tensor"(%[[I]],
// CHECK: "torch.aten._make_per_tensor_quantized_tensor"(%[[I]],
func.func @round_trip_different(%arg0: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %s = "torch.constant.float"() {value = 0.5 : f64} : () -> !torch.float
  %s2 = "torch.constant.float"() {value = 0.25 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %z2 = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %q = "torch.aten.quantize_per_tensor"(%arg0, %s, %z, %dtype) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  %i = "torch.aten.int_repr"(%q) : (!torch.vtensor<[4],!torch.quint8>) -> !torch.vtensor<[4],ui8>
  %m = "torch.aten._make_per_tensor_quantized_tensor"(%i, %s2, %z) : (!torch.vtensor<[4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  %dq = "torch.aten.dequantize.self"(%m) : (!torch.vtensor<[4],!torch.quint8>) -> !torch.vtensor<[4],f32>
  %m2 = "torch.aten._make_per_tensor_quantized_tensor"(%i, %s, %z2) : (!torch.vtensor<[4],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  %dq2 = "torch.aten.dequantize.self"(%m2) : (!torch.vtensor<[4],!torch.quint8>) -> !torch.vtensor<[4],f32>
  return %dq, %dq2 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}

// Per channel: scales, zero points and axis must all be identical; a different axis
// keeps the round trip.
// CHECK-LABEL: func.func @per_channel
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_channel"(%arg0,
// CHECK: %[[I:.+]] = "torch.aten.int_repr"(%[[Q]])
// CHECK: %[[DQ:.+]] = "torch.aten.dequantize.self"(%[[Q]])
// CHECK: %[[M:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%[[I]],
// CHECK: %[[DQ2:.+]] = "torch.aten.dequantize.self"(%[[M]])
// CHECK: return %[[DQ]], %[[DQ2]]
func.func @per_channel(%arg0: !torch.vtensor<[2,2],f32>) -> (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>) {
  %scales = "torch.vtensor.literal"() {value = dense<[0.5, 0.25]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %zps = "torch.vtensor.literal"() {value = dense<[0, 1]> : tensor<2xsi8>} : () -> !torch.vtensor<[2],si8>
  %scales2 = "torch.vtensor.literal"() {value = dense<[0.5, 0.25]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %axis0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %axis1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %q = "torch.aten.quantize_per_channel"(%arg0, %scales, %zps, %axis0, %dtype) : (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.int, !torch.int) -> !torch.vtensor<[2,2],!torch.qint8>
  %i = "torch.aten.int_repr"(%q) : (!torch.vtensor<[2,2],!torch.qint8>) -> !torch.vtensor<[2,2],si8>
  %m = "torch.aten._make_per_channel_quantized_tensor"(%i, %scales2, %zps, %axis0) : (!torch.vtensor<[2,2],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.int) -> !torch.vtensor<[2,2],!torch.qint8>
  %dq = "torch.aten.dequantize.self"(%m) : (!torch.vtensor<[2,2],!torch.qint8>) -> !torch.vtensor<[2,2],f32>
  %m2 = "torch.aten._make_per_channel_quantized_tensor"(%i, %scales, %zps, %axis1) : (!torch.vtensor<[2,2],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.int) -> !torch.vtensor<[2,2],!torch.qint8>
  %dq2 = "torch.aten.dequantize.self"(%m2) : (!torch.vtensor<[2,2],!torch.qint8>) -> !torch.vtensor<[2,2],f32>
  return %dq, %dq2 : !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>
}

// Duplicate literals, constants and constant lists merge into the first; item of a
// literal becomes a constant (and merges with an equal one).
// CHECK-LABEL: func.func @merge
// CHECK-NEXT: %[[A:.+]] = "torch.vtensor.literal"() {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}
// CHECK-NEXT: %[[B:.+]] = "torch.vtensor.literal"() {value = dense<[1, 2]> : tensor<2xsi32>}
// CHECK-NEXT: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK-NEXT: %[[L:.+]] = "torch.prim.ListConstruct"(%[[ONE]], %[[ONE]])
// CHECK-NEXT: %[[F:.+]] = "torch.constant.float"() {value = 2.500000e+00 : f64}
// CHECK-NEXT: return %[[A]], %[[A]], %[[B]], %[[ONE]], %[[ONE]], %[[L]], %[[L]], %[[F]], %[[F]]
func.func @merge() -> (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si32>, !torch.int, !torch.int, !torch.list<int>, !torch.list<int>, !torch.float, !torch.float) {
  %a = "torch.vtensor.literal"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %a2 = "torch.vtensor.literal"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %b = "torch.vtensor.literal"() {value = dense<[1, 2]> : tensor<2xsi32>} : () -> !torch.vtensor<[2],si32>
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %one2 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %l = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %l2 = "torch.prim.ListConstruct"(%one2, %one2) : (!torch.int, !torch.int) -> !torch.list<int>
  %lit = "torch.vtensor.literal"() {value = dense<2.5> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %f = "torch.aten.item"(%lit) : (!torch.vtensor<[],f32>) -> !torch.float
  %f2 = "torch.constant.float"() {value = 2.5 : f64} : () -> !torch.float
  return %a, %a2, %b, %one, %one2, %l, %l2, %f, %f2 : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si32>, !torch.int, !torch.int, !torch.list<int>, !torch.list<int>, !torch.float, !torch.float
}
