// sink-dequantize: ops that only move the elements of a per-tensor dequantized tensor
// move its quantized integers, and the dequantize follows them; a quantize of a
// dequantized tensor with that tensor's own parameters is the tensor itself.
// RUN: qlower-opt --split-input-file --sink-dequantize --dce %s | FileCheck %s

// QDQ Split → Concat → QuantizeLinear with one scale: the slices and the cat run on the
// quint8 integers, and the quantize after the cat is gone.
// CHECK-LABEL: func.func @split_then_concat(
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%arg0,
// CHECK: %[[A:.+]] = "torch.aten.slice.Tensor"(%[[Q]], {{.+}} -> !torch.vtensor<[1,2,4],!torch.quint8>
// CHECK: %[[B:.+]] = "torch.aten.slice.Tensor"(%[[Q]], {{.+}} -> !torch.vtensor<[1,2,4],!torch.quint8>
// CHECK: %[[L:.+]] = "torch.prim.ListConstruct"(%[[B]], %[[A]])
// CHECK: %[[C:.+]] = "torch.aten.cat"(%[[L]], {{.+}} -> !torch.vtensor<[1,4,4],!torch.quint8>
// CHECK-NOT: torch.aten.quantize_per_tensor
// CHECK-NOT: torch.aten.dequantize.self
// CHECK: return %[[C]]
func.func @split_then_concat(%arg0: !torch.vtensor<[1,4,4],f32>) -> !torch.vtensor<[1,4,4],!torch.quint8> {
  %s = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %q = "torch.aten.quantize_per_tensor"(%arg0, %s, %z, %dt) : (!torch.vtensor<[1,4,4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,4,4],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[1,4,4],!torch.quint8>) -> !torch.vtensor<[1,4,4],f32>
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %two = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %four = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %a = "torch.aten.slice.Tensor"(%x, %one, %zero, %two, %one) : (!torch.vtensor<[1,4,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[1,2,4],f32>
  %b = "torch.aten.slice.Tensor"(%x, %one, %two, %four, %one) : (!torch.vtensor<[1,4,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.vtensor<[1,2,4],f32>
  %l = "torch.prim.ListConstruct"(%b, %a) : (!torch.vtensor<[1,2,4],f32>, !torch.vtensor<[1,2,4],f32>) -> !torch.list<vtensor>
  %c = "torch.aten.cat"(%l, %one) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[1,4,4],f32>
  %s2 = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %y = "torch.aten.quantize_per_tensor"(%c, %s2, %z, %dt) : (!torch.vtensor<[1,4,4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,4,4],!torch.quint8>
  return %y : !torch.vtensor<[1,4,4],!torch.quint8>
}

// -----

// A chain of reshape and permute of QOperator integers: both move the qint8 tensor,
// and one dequantize at the end gives the floats.
// CHECK-LABEL: func.func @reshape_then_permute(
// CHECK: %[[M:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0,
// CHECK: %[[R:.+]] = "torch.aten.reshape"(%[[M]], {{.+}} -> !torch.vtensor<[2,6],!torch.qint8>
// CHECK: %[[P:.+]] = "torch.aten.permute"(%[[R]], {{.+}} -> !torch.vtensor<[6,2],!torch.qint8>
// CHECK: %[[D:.+]] = "torch.aten.dequantize.self"(%[[P]]) : {{.+}} -> !torch.vtensor<[6,2],f32>
// CHECK: return %[[D]]
func.func @reshape_then_permute(%arg0: !torch.vtensor<[3,4],si8>) -> !torch.vtensor<[6,2],f32> {
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = -3 : i64} : () -> !torch.int
  %m = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s, %z) : (!torch.vtensor<[3,4],si8>, !torch.float, !torch.int) -> !torch.vtensor<[3,4],!torch.qint8>
  %x = "torch.aten.dequantize.self"(%m) : (!torch.vtensor<[3,4],!torch.qint8>) -> !torch.vtensor<[3,4],f32>
  %two = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %six = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %shape = "torch.prim.ListConstruct"(%two, %six) : (!torch.int, !torch.int) -> !torch.list<int>
  %r = "torch.aten.reshape"(%x, %shape) : (!torch.vtensor<[3,4],f32>, !torch.list<int>) -> !torch.vtensor<[2,6],f32>
  %perm = "torch.prim.ListConstruct"(%one, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %p = "torch.aten.permute"(%r, %perm) : (!torch.vtensor<[2,6],f32>, !torch.list<int>) -> !torch.vtensor<[6,2],f32>
  return %p : !torch.vtensor<[6,2],f32>
}

// -----

// Left alone: a cat of parts with different scales (fuse-for-cpu makes it a
// qlower.qlinear_cat), a per-channel tensor, and a quantize with other parameters.
// CHECK-LABEL: func.func @left_alone(
// CHECK: "torch.aten.cat"({{.+}} -> !torch.vtensor<[4,2],f32>
// CHECK: "torch.aten.reshape"({{.+}} -> !torch.vtensor<[4],f32>
// CHECK: %[[Y:.+]] = "torch.aten.quantize_per_tensor"({{.+}} -> !torch.vtensor<[2,2],!torch.quint8>
// CHECK: return {{.+}}, {{.+}}, %[[Y]]
func.func @left_alone(%arg0: !torch.vtensor<[2,2],ui8>, %arg1: !torch.vtensor<[2,2],ui8>, %w: !torch.vtensor<[2,2],si8>) -> (!torch.vtensor<[4,2],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[2,2],!torch.quint8>) {
  %s1 = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %s2 = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %a = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %s1, %z) : (!torch.vtensor<[2,2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2,2],!torch.quint8>
  %b = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, %s2, %z) : (!torch.vtensor<[2,2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2,2],!torch.quint8>
  %fa = "torch.aten.dequantize.self"(%a) : (!torch.vtensor<[2,2],!torch.quint8>) -> !torch.vtensor<[2,2],f32>
  %fb = "torch.aten.dequantize.self"(%b) : (!torch.vtensor<[2,2],!torch.quint8>) -> !torch.vtensor<[2,2],f32>
  %l = "torch.prim.ListConstruct"(%fa, %fb) : (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2,2],f32>) -> !torch.list<vtensor>
  %c = "torch.aten.cat"(%l, %zero) : (!torch.list<vtensor>, !torch.int) -> !torch.vtensor<[4,2],f32>
  %scales = "torch.vtensor.literal"() {value = dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %zps = "torch.vtensor.literal"() {value = dense<0> : tensor<2xsi8>} : () -> !torch.vtensor<[2],si8>
  %pc = "torch.aten._make_per_channel_quantized_tensor"(%w, %scales, %zps, %zero) : (!torch.vtensor<[2,2],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.int) -> !torch.vtensor<[2,2],!torch.qint8>
  %fw = "torch.aten.dequantize.self"(%pc) : (!torch.vtensor<[2,2],!torch.qint8>) -> !torch.vtensor<[2,2],f32>
  %four = "torch.constant.int"() {value = 4 : i64} : () -> !torch.int
  %shape = "torch.prim.ListConstruct"(%four) : (!torch.int) -> !torch.list<int>
  %r = "torch.aten.reshape"(%fw, %shape) : (!torch.vtensor<[2,2],f32>, !torch.list<int>) -> !torch.vtensor<[4],f32>
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%fa, %s2, %z, %dt) : (!torch.vtensor<[2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2,2],!torch.quint8>
  return %c, %r, %y : !torch.vtensor<[4,2],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[2,2],!torch.quint8>
}

// -----

// Zero point 0 for uint8: quantizing clamps the negatives to 0 already, as ONNX Runtime's
// Relu removal assumes.
// CHECK-LABEL: func.func @relu_before_uint8_zero(
// CHECK: %[[Y:.+]] = "torch.aten.quantize_per_tensor"(%arg0,
// CHECK-NOT: torch.aten.relu
// CHECK: return %[[Y]]
func.func @relu_before_uint8_zero(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],!torch.quint8> {
  %r = "torch.aten.relu"(%arg0) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%r, %s, %z, %dt) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  return %y : !torch.vtensor<[4],!torch.quint8>
}

// -----

// Zero point -128 for int8: the same.
// CHECK-LABEL: func.func @relu_before_int8_lowest(
// CHECK: "torch.aten.quantize_per_tensor"(%arg0,
// CHECK-NOT: torch.aten.relu
func.func @relu_before_int8_lowest(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],!torch.qint8> {
  %r = "torch.aten.relu"(%arg0) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = -128 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%r, %s, %z, %dt) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4],!torch.qint8>
  return %y : !torch.vtensor<[4],!torch.qint8>
}

// -----

// Kept: with zero point 3, negative values would quantize below 3.
// CHECK-LABEL: func.func @relu_kept_for_other_zero_point(
// CHECK: %[[R:.+]] = "torch.aten.relu"(%arg0)
// CHECK: "torch.aten.quantize_per_tensor"(%[[R]],
func.func @relu_kept_for_other_zero_point(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],!torch.quint8> {
  %r = "torch.aten.relu"(%arg0) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%r, %s, %z, %dt) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  return %y : !torch.vtensor<[4],!torch.quint8>
}

// -----

// Kept: the ReLU's floats are returned too.
// CHECK-LABEL: func.func @relu_kept_when_read_twice(
// CHECK: %[[R:.+]] = "torch.aten.relu"(%arg0)
// CHECK: "torch.aten.quantize_per_tensor"(%[[R]],
func.func @relu_kept_when_read_twice(%arg0: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[4],!torch.quint8>, !torch.vtensor<[4],f32>) {
  %r = "torch.aten.relu"(%arg0) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%r, %s, %z, %dt) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  return %y, %r : !torch.vtensor<[4],!torch.quint8>, !torch.vtensor<[4],f32>
}

// -----

// Clip(0, 200) before a quantize to 0 .. 127.5 (scale 0.5, zero point 0): dropped.
// CHECK-LABEL: func.func @clip_wider_than_the_range(
// CHECK: "torch.aten.quantize_per_tensor"(%arg0,
// CHECK-NOT: torch.aten.clamp
func.func @clip_wider_than_the_range(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],!torch.quint8> {
  %lo = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
  %hi = "torch.constant.float"() {value = 2.000000e+02 : f64} : () -> !torch.float
  %c = "torch.aten.clamp"(%arg0, %lo, %hi) : (!torch.vtensor<[4],f32>, !torch.float, !torch.float) -> !torch.vtensor<[4],f32>
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%c, %s, %z, %dt) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  return %y : !torch.vtensor<[4],!torch.quint8>
}

// -----

// Clip with no upper bound: dropped too.
// CHECK-LABEL: func.func @clip_without_upper_bound(
// CHECK: "torch.aten.quantize_per_tensor"(%arg0,
// CHECK-NOT: torch.aten.clamp
func.func @clip_without_upper_bound(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],!torch.quint8> {
  %lo = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
  %hi = "torch.constant.none"() : () -> !torch.none
  %c = "torch.aten.clamp"(%arg0, %lo, %hi) : (!torch.vtensor<[4],f32>, !torch.float, !torch.none) -> !torch.vtensor<[4],f32>
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%c, %s, %z, %dt) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  return %y : !torch.vtensor<[4],!torch.quint8>
}

// -----

// clamp.Tensor with literal bounds -1 and 128: the range starts at 0, inside them.
// CHECK-LABEL: func.func @clip_tensor_bounds(
// CHECK: "torch.aten.quantize_per_tensor"(%arg0,
// CHECK-NOT: torch.aten.clamp
func.func @clip_tensor_bounds(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],!torch.quint8> {
  %lo = "torch.vtensor.literal"() {value = dense<-1.000000e+00> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %hi = "torch.vtensor.literal"() {value = dense<1.280000e+02> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %c = "torch.aten.clamp.Tensor"(%arg0, %lo, %hi) : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32>
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%c, %s, %z, %dt) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  return %y : !torch.vtensor<[4],!torch.quint8>
}

// -----

// Kept: Clip(0, 6) clamps below the range's top, 127.5.
// CHECK-LABEL: func.func @clip_inside_the_range(
// CHECK: %[[C:.+]] = "torch.aten.clamp"(%arg0,
// CHECK: "torch.aten.quantize_per_tensor"(%[[C]],
func.func @clip_inside_the_range(%arg0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],!torch.quint8> {
  %lo = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
  %hi = "torch.constant.float"() {value = 6.000000e+00 : f64} : () -> !torch.float
  %c = "torch.aten.clamp"(%arg0, %lo, %hi) : (!torch.vtensor<[4],f32>, !torch.float, !torch.float) -> !torch.vtensor<[4],f32>
  %s = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%c, %s, %z, %dt) : (!torch.vtensor<[4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[4],!torch.quint8>
  return %y : !torch.vtensor<[4],!torch.quint8>
}

// -----

// QDQ Pad with a 0.0 fill (the NHWC ResNets' stem): the integers are padded with the
// zero point, which dequantizes to 0.0, and the quantize after the pad is gone. A
// fill of 0.3 is no code of scale 0.25 (it would quantize to 0.25), and no code
// dequantizes to -0.0: those pads stay on the floats. So does a 0.0 pad read by
// anything but a quantize (a pool fuses its pad with ONNX Runtime's rounding).
// CHECK-LABEL: func.func @pad_with_zero_point(
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%arg0,
// CHECK: %[[X:.+]] = "torch.aten.dequantize.self"(%[[Q]])
// CHECK: %[[I:.+]] = "torch.aten.int_repr"(%[[Q]]) {{.+}} -> !torch.vtensor<[1,4],ui8>
// CHECK: %[[Z:.+]] = "torch.constant.int"() {value = 128 : i64}
// CHECK: %[[P:.+]] = "torch.aten.constant_pad_nd"(%[[I]], %{{.+}}, %[[Z]]) {{.+}} -> !torch.vtensor<[1,6],ui8>
// CHECK: %[[M:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[P]], {{.+}} -> !torch.vtensor<[1,6],!torch.quint8>
// CHECK: %[[P3:.+]] = "torch.aten.constant_pad_nd"(%[[X]], {{.+}} -> !torch.vtensor<[1,6],f32>
// CHECK: "torch.aten.quantize_per_tensor"(%[[P3]],
// CHECK: %[[PM:.+]] = "torch.aten.constant_pad_nd"(%[[X]], {{.+}} -> !torch.vtensor<[1,6],f32>
// CHECK: "torch.aten.quantize_per_tensor"(%[[PM]],
// CHECK: %[[PF:.+]] = "torch.aten.constant_pad_nd"(%[[X]], {{.+}} -> !torch.vtensor<[1,6],f32>
// CHECK: return %[[M]], {{.+}}, {{.+}}, %[[PF]]
func.func @pad_with_zero_point(%arg0: !torch.vtensor<[1,4],f32>) -> (!torch.vtensor<[1,6],!torch.quint8>, !torch.vtensor<[1,6],!torch.quint8>, !torch.vtensor<[1,6],!torch.quint8>, !torch.vtensor<[1,6],f32>) {
  %s = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %f0 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
  %f3 = "torch.constant.float"() {value = 3.000000e-01 : f64} : () -> !torch.float
  %fm0 = "torch.constant.float"() {value = -0.000000e+00 : f64} : () -> !torch.float
  %pads = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %q = "torch.aten.quantize_per_tensor"(%arg0, %s, %z, %dt) : (!torch.vtensor<[1,4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,4],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[1,4],!torch.quint8>) -> !torch.vtensor<[1,4],f32>
  %p = "torch.aten.constant_pad_nd"(%x, %pads, %f0) : (!torch.vtensor<[1,4],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,6],f32>
  %y = "torch.aten.quantize_per_tensor"(%p, %s, %z, %dt) : (!torch.vtensor<[1,6],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,6],!torch.quint8>
  %p3 = "torch.aten.constant_pad_nd"(%x, %pads, %f3) : (!torch.vtensor<[1,4],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,6],f32>
  %y3 = "torch.aten.quantize_per_tensor"(%p3, %s, %z, %dt) : (!torch.vtensor<[1,6],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,6],!torch.quint8>
  %pm0 = "torch.aten.constant_pad_nd"(%x, %pads, %fm0) : (!torch.vtensor<[1,4],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,6],f32>
  %ym0 = "torch.aten.quantize_per_tensor"(%pm0, %s, %z, %dt) : (!torch.vtensor<[1,6],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,6],!torch.quint8>
  %pf = "torch.aten.constant_pad_nd"(%x, %pads, %f0) : (!torch.vtensor<[1,4],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,6],f32>
  return %y, %y3, %ym0, %pf : !torch.vtensor<[1,6],!torch.quint8>, !torch.vtensor<[1,6],!torch.quint8>, !torch.vtensor<[1,6],!torch.quint8>, !torch.vtensor<[1,6],f32>
}

// -----

// MaxPool with auto_pad SAME in a QDQ model: the floats are padded with -inf, which no
// code dequantizes to. Feeding only max pools quantized again with q's parameters, the
// pad moves the integers padded with the lowest code (0 for uint8): it loses every
// max to the window's elements, and a window wholly in the padding quantizes to it
// either way. A pool quantized with other parameters keeps its pad on the floats.
// CHECK-LABEL: func.func @max_pool_pad_with_lowest_code(
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%arg0,
// CHECK: %[[X:.+]] = "torch.aten.dequantize.self"(%[[Q]])
// CHECK: %[[I:.+]] = "torch.aten.int_repr"(%[[Q]])
// CHECK: %[[LOW:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[P:.+]] = "torch.aten.constant_pad_nd"(%[[I]], %{{.+}}, %[[LOW]]) {{.+}} -> !torch.vtensor<[1,1,5,5],ui8>
// CHECK: %[[M:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[P]],
// CHECK: %[[D:.+]] = "torch.aten.dequantize.self"(%[[M]])
// CHECK: %[[POOL:.+]] = "torch.aten.max_pool2d"(%[[D]],
// CHECK: "torch.aten.quantize_per_tensor"(%[[POOL]],
// CHECK: %[[PF:.+]] = "torch.aten.constant_pad_nd"(%[[X]], {{.+}} -> !torch.vtensor<[1,1,5,5],f32>
// CHECK: "torch.aten.max_pool2d"(%[[PF]],
func.func @max_pool_pad_with_lowest_code(%arg0: !torch.vtensor<[1,1,4,4],f32>) -> (!torch.vtensor<[1,1,2,2],!torch.quint8>, !torch.vtensor<[1,1,2,2],!torch.quint8>) {
  %s = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %s2 = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %z = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %two = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %ninf = "torch.constant.float"() {value = 0xFFF0000000000000 : f64} : () -> !torch.float
  %pads = "torch.prim.ListConstruct"(%zero, %one, %zero, %one) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %k = "torch.prim.ListConstruct"(%two, %two) : (!torch.int, !torch.int) -> !torch.list<int>
  %no = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %d = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %q = "torch.aten.quantize_per_tensor"(%arg0, %s, %z, %dt) : (!torch.vtensor<[1,1,4,4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,4,4],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%q) : (!torch.vtensor<[1,1,4,4],!torch.quint8>) -> !torch.vtensor<[1,1,4,4],f32>
  %p = "torch.aten.constant_pad_nd"(%x, %pads, %ninf) : (!torch.vtensor<[1,1,4,4],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,1,5,5],f32>
  %m = "torch.aten.max_pool2d"(%p, %k, %k, %no, %d, %false) : (!torch.vtensor<[1,1,5,5],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,1,2,2],f32>
  %y = "torch.aten.quantize_per_tensor"(%m, %s, %z, %dt) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  %p2 = "torch.aten.constant_pad_nd"(%x, %pads, %ninf) : (!torch.vtensor<[1,1,4,4],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,1,5,5],f32>
  %m2 = "torch.aten.max_pool2d"(%p2, %k, %k, %no, %d, %false) : (!torch.vtensor<[1,1,5,5],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool) -> !torch.vtensor<[1,1,2,2],f32>
  %y2 = "torch.aten.quantize_per_tensor"(%m2, %s2, %z, %dt) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  return %y, %y2 : !torch.vtensor<[1,1,2,2],!torch.quint8>, !torch.vtensor<[1,1,2,2],!torch.quint8>
}
