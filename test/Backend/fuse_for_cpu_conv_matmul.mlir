// fuse-for-cpu, convolution and matmul family: a quantize of a convolution or matmul
// of dequantized 8-bit operands (in the lowering's float form or the qint32 form that
// fuse-quantized-ops writes) becomes qlower.qlinear_conv or qlower.qlinear_matmul, and
// the qint32 form used as floats becomes qlower.dequantized_conv or _matmul. The CPU
// backend runs each as one kernel. The cases it must leave alone keep their ops.
// RUN: qlower-opt --split-input-file --fuse-for-cpu --dce %s | FileCheck %s
// RUN: qlower-opt --split-input-file --fuse-quantized-ops --canonicalize-quant --fuse-for-cpu --dce %s | FileCheck %s --check-prefix=FUSED

// A requantized convolution of dequantized operands becomes one qlower.qlinear_conv:
// x, its scale and zero point, w, its scale and zero point, no bias (none, none),
// stride, padding, dilation, groups, no explicit pads (none), y's scale and zero point.
// The float convolution is gone. After fuse-quantized-ops, the qint32 form fuses the
// same way.
// CHECK-LABEL: func.func @conv_requantized(
// CHECK-DAG: %[[XS:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK-DAG: %[[XZ:.+]] = "torch.constant.int"() {value = 128 : i64}
// CHECK-DAG: %[[W:.+]] = "torch.vtensor.literal"()
// CHECK-DAG: %[[WS:.+]] = "torch.constant.float"() {value = 2.500000e-01 : f64}
// CHECK-DAG: %[[YS:.+]] = "torch.constant.float"() {value = 1.000000e+00 : f64}
// CHECK-DAG: %[[YZ:.+]] = "torch.constant.int"() {value = 10 : i64}
// CHECK: %[[N1:.+]] = "torch.constant.none"()
// CHECK-NEXT: %[[N2:.+]] = "torch.constant.none"()
// CHECK-NEXT: %[[N3:.+]] = "torch.constant.none"()
// CHECK-NEXT: %[[Y:.+]] = "qlower.qlinear_conv"(%arg0, %[[XS]], %[[XZ]], %[[W]], %[[WS]], %{{.+}}, %[[N1]], %[[N2]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[N3]], %[[YS]], %[[YZ]]) : {{.+}} -> !torch.vtensor<[1,1,2,2],!torch.quint8>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: torch.aten.convolution
// FUSED-LABEL: func.func @conv_requantized(
// FUSED: %[[Y:.+]] = "qlower.qlinear_conv"(%arg0,
// FUSED-NEXT: return %[[Y]]
func.func @conv_requantized(%arg0: !torch.vtensor<[1,1,3,3],ui8>) -> !torch.vtensor<[1,1,2,2],!torch.quint8> {
  %xs = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %qx = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %xs, %xz) : (!torch.vtensor<[1,1,3,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,3,3],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,3,3],!torch.quint8>) -> !torch.vtensor<[1,1,3,3],f32>
  %w8 = "torch.vtensor.literal"() {value = dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xsi8>} : () -> !torch.vtensor<[1,1,2,2],si8>
  %ws = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %wz = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %qw = "torch.aten._make_per_tensor_quantized_tensor"(%w8, %ws, %wz) : (!torch.vtensor<[1,1,2,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.qint8>
  %w = "torch.aten.dequantize.self"(%qw) : (!torch.vtensor<[1,1,2,2],!torch.qint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %ones = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %transposed = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %conv = "torch.aten.convolution"(%x, %w, %none, %ones, %zeros, %ones, %transposed, %zeros, %one) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,2,2],f32>
  %ys = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%conv, %ys, %yz, %dtype) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  return %y : !torch.vtensor<[1,1,2,2],!torch.quint8>
}

// -----

// When the quantized result's only use is int_repr, the fused op replaces the int_repr
// and writes the integers straight away.
// CHECK-LABEL: func.func @conv_int_repr(
// CHECK: %[[Y:.+]] = "qlower.qlinear_conv"(%arg0, {{.+}} -> !torch.vtensor<[1,1,2,2],ui8>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: torch.aten.int_repr
func.func @conv_int_repr(%arg0: !torch.vtensor<[1,1,3,3],ui8>) -> !torch.vtensor<[1,1,2,2],ui8> {
  %xs = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %qx = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %xs, %xz) : (!torch.vtensor<[1,1,3,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,3,3],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,3,3],!torch.quint8>) -> !torch.vtensor<[1,1,3,3],f32>
  %w8 = "torch.vtensor.literal"() {value = dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xsi8>} : () -> !torch.vtensor<[1,1,2,2],si8>
  %ws = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %wz = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %qw = "torch.aten._make_per_tensor_quantized_tensor"(%w8, %ws, %wz) : (!torch.vtensor<[1,1,2,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.qint8>
  %w = "torch.aten.dequantize.self"(%qw) : (!torch.vtensor<[1,1,2,2],!torch.qint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %ones = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %transposed = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %conv = "torch.aten.convolution"(%x, %w, %none, %ones, %zeros, %ones, %transposed, %zeros, %one) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,2,2],f32>
  %ys = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%conv, %ys, %yz, %dtype) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  %i = "torch.aten.int_repr"(%y) : (!torch.vtensor<[1,1,2,2],!torch.quint8>) -> !torch.vtensor<[1,1,2,2],ui8>
  return %i : !torch.vtensor<[1,1,2,2],ui8>
}

// -----

// When the quantized result is read elsewhere too, the quantize is fused and the
// int_repr stays.
// CHECK-LABEL: func.func @conv_int_repr_and_quantized(
// CHECK: %[[Y:.+]] = "qlower.qlinear_conv"(%arg0, {{.+}} -> !torch.vtensor<[1,1,2,2],!torch.quint8>
// CHECK-NEXT: %[[I:.+]] = "torch.aten.int_repr"(%[[Y]])
// CHECK-NEXT: return %[[I]], %[[Y]]
func.func @conv_int_repr_and_quantized(%arg0: !torch.vtensor<[1,1,3,3],ui8>) -> (!torch.vtensor<[1,1,2,2],ui8>, !torch.vtensor<[1,1,2,2],!torch.quint8>) {
  %xs = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %qx = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %xs, %xz) : (!torch.vtensor<[1,1,3,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,3,3],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,3,3],!torch.quint8>) -> !torch.vtensor<[1,1,3,3],f32>
  %w8 = "torch.vtensor.literal"() {value = dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xsi8>} : () -> !torch.vtensor<[1,1,2,2],si8>
  %ws = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %wz = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %qw = "torch.aten._make_per_tensor_quantized_tensor"(%w8, %ws, %wz) : (!torch.vtensor<[1,1,2,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.qint8>
  %w = "torch.aten.dequantize.self"(%qw) : (!torch.vtensor<[1,1,2,2],!torch.qint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %ones = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %transposed = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %conv = "torch.aten.convolution"(%x, %w, %none, %ones, %zeros, %ones, %transposed, %zeros, %one) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,2,2],f32>
  %ys = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%conv, %ys, %yz, %dtype) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  %i = "torch.aten.int_repr"(%y) : (!torch.vtensor<[1,1,2,2],!torch.quint8>) -> !torch.vtensor<[1,1,2,2],ui8>
  return %i, %y : !torch.vtensor<[1,1,2,2],ui8>, !torch.vtensor<[1,1,2,2],!torch.quint8>
}

// -----

// Not fused: a transposed convolution.
// CHECK-LABEL: func.func @conv_transposed(
// CHECK-NOT: qlower.
// CHECK: torch.aten.convolution
// CHECK-NOT: qlower.
// CHECK: return
func.func @conv_transposed(%arg0: !torch.vtensor<[1,1,3,3],ui8>) -> !torch.vtensor<[1,1,2,2],!torch.quint8> {
  %xs = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %qx = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %xs, %xz) : (!torch.vtensor<[1,1,3,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,3,3],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,3,3],!torch.quint8>) -> !torch.vtensor<[1,1,3,3],f32>
  %w8 = "torch.vtensor.literal"() {value = dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xsi8>} : () -> !torch.vtensor<[1,1,2,2],si8>
  %ws = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %wz = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %qw = "torch.aten._make_per_tensor_quantized_tensor"(%w8, %ws, %wz) : (!torch.vtensor<[1,1,2,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.qint8>
  %w = "torch.aten.dequantize.self"(%qw) : (!torch.vtensor<[1,1,2,2],!torch.qint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %ones = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %transposed = "torch.constant.bool"() {value = true} : () -> !torch.bool
  %conv = "torch.aten.convolution"(%x, %w, %none, %ones, %zeros, %ones, %transposed, %zeros, %one) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,2,2],f32>
  %ys = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%conv, %ys, %yz, %dtype) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  return %y : !torch.vtensor<[1,1,2,2],!torch.quint8>
}

// -----

// Not fused: weights quantized along an axis other than the output channels.
// CHECK-LABEL: func.func @conv_weights_per_channel_axis_1(
// CHECK-NOT: qlower.
// CHECK: torch.aten.convolution
// CHECK-NOT: qlower.
// CHECK: return
func.func @conv_weights_per_channel_axis_1(%arg0: !torch.vtensor<[1,1,3,3],ui8>) -> !torch.vtensor<[1,1,2,2],!torch.quint8> {
  %xs = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %qx = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %xs, %xz) : (!torch.vtensor<[1,1,3,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,3,3],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,3,3],!torch.quint8>) -> !torch.vtensor<[1,1,3,3],f32>
  %w8 = "torch.vtensor.literal"() {value = dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xsi8>} : () -> !torch.vtensor<[1,1,2,2],si8>
  %ws = "torch.vtensor.literal"() {value = dense<2.500000e-01> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %wz = "torch.vtensor.literal"() {value = dense<0> : tensor<2xsi8>} : () -> !torch.vtensor<[2],si8>
  %wa = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %qw = "torch.aten._make_per_channel_quantized_tensor"(%w8, %ws, %wz, %wa) : (!torch.vtensor<[1,1,2,2],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.qint8>
  %w = "torch.aten.dequantize.self"(%qw) : (!torch.vtensor<[1,1,2,2],!torch.qint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %ones = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %transposed = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %conv = "torch.aten.convolution"(%x, %w, %none, %ones, %zeros, %ones, %transposed, %zeros, %one) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,2,2],f32>
  %ys = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%conv, %ys, %yz, %dtype) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  return %y : !torch.vtensor<[1,1,2,2],!torch.quint8>
}

// -----

// A requantized matmul with per-column weights becomes qlower.qlinear_matmul: a, its
// scale and zero point, b, its scales and zero points, y's scale and zero point.
// CHECK-LABEL: func.func @matmul_requantized(
// CHECK: %[[Y:.+]] = "qlower.qlinear_matmul"(%arg0, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[3,4],si8>, !torch.float, !torch.int, !torch.vtensor<[4,2],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[3,2],!torch.qint8>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: torch.aten.matmul
func.func @matmul_requantized(%arg0: !torch.vtensor<[3,4],si8>) -> !torch.vtensor<[3,2],!torch.qint8> {
  %as = "torch.constant.float"() {value = 1.000000e-01 : f64} : () -> !torch.float
  %az = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %qa = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %as, %az) : (!torch.vtensor<[3,4],si8>, !torch.float, !torch.int) -> !torch.vtensor<[3,4],!torch.qint8>
  %a = "torch.aten.dequantize.self"(%qa) : (!torch.vtensor<[3,4],!torch.qint8>) -> !torch.vtensor<[3,4],f32>
  %b8 = "torch.vtensor.literal"() {value = dense<1> : tensor<4x2xsi8>} : () -> !torch.vtensor<[4,2],si8>
  %bs = "torch.vtensor.literal"() {value = dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %bz = "torch.vtensor.literal"() {value = dense<[0, 3]> : tensor<2xsi8>} : () -> !torch.vtensor<[2],si8>
  %axis = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %qb = "torch.aten._make_per_channel_quantized_tensor"(%b8, %bs, %bz, %axis) : (!torch.vtensor<[4,2],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.int) -> !torch.vtensor<[4,2],!torch.qint8>
  %b = "torch.aten.dequantize.self"(%qb) : (!torch.vtensor<[4,2],!torch.qint8>) -> !torch.vtensor<[4,2],f32>
  %m = "torch.aten.matmul"(%a, %b) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,2],f32>) -> !torch.vtensor<[3,2],f32>
  %ys = "torch.constant.float"() {value = 2.000000e-01 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = -3 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%m, %ys, %yz, %dtype) : (!torch.vtensor<[3,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[3,2],!torch.qint8>
  return %y : !torch.vtensor<[3,2],!torch.qint8>
}

// -----

// A convolution used as floats: unfused, nothing runs as one kernel, so the pass leaves
// it alone. After fuse-quantized-ops, the dequantized qint32 accumulator becomes
// qlower.dequantized_conv of the quantized operands: the float convolution of the
// dequantized operands, which the unfused IR computes.
// CHECK-LABEL: func.func @conv_per_channel_bias(
// CHECK-NOT: qlower.
// CHECK: torch.aten.convolution
// CHECK-NOT: qlower.
// CHECK: return
// FUSED-LABEL: func.func @conv_per_channel_bias(
// FUSED: %[[QX:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0,
// FUSED: %[[QW:.+]] = "torch.aten._make_per_channel_quantized_tensor"(
// FUSED: %[[QB:.+]] = "torch.aten._make_per_channel_quantized_tensor"(
// FUSED: %[[Y:.+]] = "qlower.dequantized_conv"(%[[QX]], %[[QW]], %[[QB]], {{.+}} -> !torch.vtensor<[1,2,2,2],f32>
// FUSED-NEXT: return %[[Y]]
// FUSED-NOT: torch.aten.convolution
func.func @conv_per_channel_bias(%arg0: !torch.vtensor<[1,1,2,2],ui8>) -> !torch.vtensor<[1,2,2,2],f32> {
  %xs = "torch.constant.float"() {value = 2.000000e-02 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %qx = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %xs, %xz) : (!torch.vtensor<[1,1,2,2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,2,2],!torch.quint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %w8 = "torch.vtensor.literal"() {value = dense<[[[[3]]], [[[-5]]]]> : tensor<2x1x1x1xsi8>} : () -> !torch.vtensor<[2,1,1,1],si8>
  %ws = "torch.vtensor.literal"() {value = dense<[1.000000e-02, 2.000000e-02]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %wz = "torch.vtensor.literal"() {value = dense<[1, -1]> : tensor<2xsi8>} : () -> !torch.vtensor<[2],si8>
  %axis0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %qw = "torch.aten._make_per_channel_quantized_tensor"(%w8, %ws, %wz, %axis0) : (!torch.vtensor<[2,1,1,1],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.int) -> !torch.vtensor<[2,1,1,1],!torch.qint8>
  %w = "torch.aten.dequantize.self"(%qw) : (!torch.vtensor<[2,1,1,1],!torch.qint8>) -> !torch.vtensor<[2,1,1,1],f32>
  %b32 = "torch.vtensor.literal"() {value = dense<[7, -7]> : tensor<2xsi32>} : () -> !torch.vtensor<[2],si32>
  %bs = "torch.vtensor.literal"() {value = dense<[2.000000e-04, 4.000000e-04]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %bz = "torch.vtensor.literal"() {value = dense<0> : tensor<2xsi32>} : () -> !torch.vtensor<[2],si32>
  %qb = "torch.aten._make_per_channel_quantized_tensor"(%b32, %bs, %bz, %axis0) : (!torch.vtensor<[2],si32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si32>, !torch.int) -> !torch.vtensor<[2],!torch.qint32>
  %b = "torch.aten.dequantize.self"(%qb) : (!torch.vtensor<[2],!torch.qint32>) -> !torch.vtensor<[2],f32>
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %ones = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %conv = "torch.aten.convolution"(%x, %w, %b, %ones, %zeros, %ones, %false, %zeros, %one) : (!torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[2,1,1,1],f32>, !torch.vtensor<[2],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,2,2,2],f32>
  return %conv : !torch.vtensor<[1,2,2,2],f32>
}
// -----

// Likewise for a matmul used as floats: qlower.dequantized_matmul after
// fuse-quantized-ops.
// CHECK-LABEL: func.func @matmul_per_column(
// CHECK-NOT: qlower.
// CHECK: torch.aten.matmul
// FUSED-LABEL: func.func @matmul_per_column(
// FUSED: %[[Y:.+]] = "qlower.dequantized_matmul"(
// FUSED-NEXT: return %[[Y]]
func.func @matmul_per_column(%arg0: !torch.vtensor<[3,4],si8>) -> !torch.vtensor<[3,2],f32> {
  %as = "torch.constant.float"() {value = 1.000000e-01 : f64} : () -> !torch.float
  %az = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %qa = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %as, %az) : (!torch.vtensor<[3,4],si8>, !torch.float, !torch.int) -> !torch.vtensor<[3,4],!torch.qint8>
  %a = "torch.aten.dequantize.self"(%qa) : (!torch.vtensor<[3,4],!torch.qint8>) -> !torch.vtensor<[3,4],f32>
  %b8 = "torch.vtensor.literal"() {value = dense<1> : tensor<4x2xsi8>} : () -> !torch.vtensor<[4,2],si8>
  %bs = "torch.vtensor.literal"() {value = dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %bz = "torch.vtensor.literal"() {value = dense<[0, 3]> : tensor<2xsi8>} : () -> !torch.vtensor<[2],si8>
  %axis = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %qb = "torch.aten._make_per_channel_quantized_tensor"(%b8, %bs, %bz, %axis) : (!torch.vtensor<[4,2],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.int) -> !torch.vtensor<[4,2],!torch.qint8>
  %b = "torch.aten.dequantize.self"(%qb) : (!torch.vtensor<[4,2],!torch.qint8>) -> !torch.vtensor<[4,2],f32>
  %y = "torch.aten.matmul"(%a, %b) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,2],f32>) -> !torch.vtensor<[3,2],f32>
  return %y : !torch.vtensor<[3,2],f32>
}
// -----

// An asymmetric zero pad before a convolution: after fuse-quantized-ops the pad is on
// the integers, and the convolution is used as floats.
// CHECK-LABEL: func.func @conv_padded(
// CHECK-NOT: qlower.
// CHECK: torch.aten.constant_pad_nd
// CHECK-NOT: qlower.
// CHECK: return
// FUSED-LABEL: func.func @conv_padded(
// FUSED: torch.aten.constant_pad_nd
// FUSED: "qlower.dequantized_conv"(
func.func @conv_padded(%arg0: !torch.vtensor<[1,1,3,3],ui8>) -> !torch.vtensor<[1,1,3,2],f32> {
  %xs = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %qx = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %xs, %xz) : (!torch.vtensor<[1,1,3,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,3,3],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,3,3],!torch.quint8>) -> !torch.vtensor<[1,1,3,3],f32>
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %pads = "torch.prim.ListConstruct"(%zero, %zero, %one, %zero) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %fzero = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
  %padded = "torch.aten.constant_pad_nd"(%x, %pads, %fzero) : (!torch.vtensor<[1,1,3,3],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,1,4,3],f32>
  %w8 = "torch.vtensor.literal"() {value = dense<[[[[1, -2], [3, 4]]]]> : tensor<1x1x2x2xsi8>} : () -> !torch.vtensor<[1,1,2,2],si8>
  %ws = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %qw = "torch.aten._make_per_tensor_quantized_tensor"(%w8, %ws, %zero) : (!torch.vtensor<[1,1,2,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.qint8>
  %w = "torch.aten.dequantize.self"(%qw) : (!torch.vtensor<[1,1,2,2],!torch.qint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %ones = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %conv = "torch.aten.convolution"(%padded, %w, %none, %ones, %zeros, %ones, %false, %zeros, %one) : (!torch.vtensor<[1,1,4,3],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,3,2],f32>
  return %conv : !torch.vtensor<[1,1,3,2],f32>
}

// -----

// Two QDQ convolutions in a row: the second finds its input's scale and zero point on
// the quantize that the first fusion replaces. Every match is found before anything is
// rewritten, so both fuse, and the second reads the first's qlower op.
// CHECK-LABEL: func.func @qdq_conv_chain(
// CHECK: %[[QX:.+]] = "torch.aten.quantize_per_tensor"(%arg0,
// CHECK: %[[H:.+]] = "qlower.qlinear_conv"(%[[QX]], {{.+}} -> !torch.vtensor<[1,1,2,2],!torch.quint8>
// CHECK: %[[Y:.+]] = "qlower.qlinear_conv"(%[[H]], {{.+}} -> !torch.vtensor<[1,1,1,1],!torch.quint8>
// CHECK-NEXT: %[[F:.+]] = "torch.aten.dequantize.self"(%[[Y]])
// CHECK-NEXT: return %[[F]]
// CHECK-NOT: torch.aten.convolution
// FUSED-LABEL: func.func @qdq_conv_chain(
// FUSED: %[[H:.+]] = "qlower.qlinear_conv"(
// FUSED: "qlower.qlinear_conv"(%[[H]],
func.func @qdq_conv_chain(%arg0: !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,1,1],f32> {
  %dt = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %xs = "torch.constant.float"() {value = 5.000000e-02 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %qx = "torch.aten.quantize_per_tensor"(%arg0, %xs, %xz, %dt) : (!torch.vtensor<[1,1,3,3],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,3,3],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,3,3],!torch.quint8>) -> !torch.vtensor<[1,1,3,3],f32>
  %w8 = "torch.vtensor.literal"() {value = dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xsi8>} : () -> !torch.vtensor<[1,1,2,2],si8>
  %ws = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %wz = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %qw = "torch.aten._make_per_tensor_quantized_tensor"(%w8, %ws, %wz) : (!torch.vtensor<[1,1,2,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.qint8>
  %w = "torch.aten.dequantize.self"(%qw) : (!torch.vtensor<[1,1,2,2],!torch.qint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %ones = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %c1 = "torch.aten.convolution"(%x, %w, %none, %ones, %zeros, %ones, %false, %zeros, %one) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,2,2],f32>
  %hs = "torch.constant.float"() {value = 1.000000e-01 : f64} : () -> !torch.float
  %hz = "torch.constant.int"() {value = 100 : i64} : () -> !torch.int
  %qh = "torch.aten.quantize_per_tensor"(%c1, %hs, %hz, %dt) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  %h = "torch.aten.dequantize.self"(%qh) : (!torch.vtensor<[1,1,2,2],!torch.quint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %c2 = "torch.aten.convolution"(%h, %w, %none, %ones, %zeros, %ones, %false, %zeros, %one) : (!torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,1,1],f32>
  %ys = "torch.constant.float"() {value = 2.000000e-01 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 7 : i64} : () -> !torch.int
  %qy = "torch.aten.quantize_per_tensor"(%c2, %ys, %yz, %dt) : (!torch.vtensor<[1,1,1,1],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,1,1],!torch.quint8>
  %y = "torch.aten.dequantize.self"(%qy) : (!torch.vtensor<[1,1,1,1],!torch.quint8>) -> !torch.vtensor<[1,1,1,1],f32>
  return %y : !torch.vtensor<[1,1,1,1],f32>
}

// -----

// An asymmetric zero pad before a requantized convolution: the fused op pads x's
// integers with its zero point itself, so it reads x and the pad list (operand 12).
// CHECK-LABEL: func.func @conv_zero_padded(
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"(
// CHECK: %[[Y:.+]] = "qlower.qlinear_conv"(%arg0, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[PADS]], %{{.+}}, %{{.+}}) : {{.+}} -> !torch.vtensor<[1,1,2,3],!torch.quint8>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: torch.aten.constant_pad_nd
func.func @conv_zero_padded(%arg0: !torch.vtensor<[1,1,3,3],ui8>) -> !torch.vtensor<[1,1,2,3],!torch.quint8> {
  %xs = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %qx = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %xs, %xz) : (!torch.vtensor<[1,1,3,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,3,3],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,3,3],!torch.quint8>) -> !torch.vtensor<[1,1,3,3],f32>
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %pads = "torch.prim.ListConstruct"(%zero, %one, %zero, %zero) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %pv = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
  %xp = "torch.aten.constant_pad_nd"(%x, %pads, %pv) : (!torch.vtensor<[1,1,3,3],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,1,3,4],f32>
  %w8 = "torch.vtensor.literal"() {value = dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xsi8>} : () -> !torch.vtensor<[1,1,2,2],si8>
  %ws = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %qw = "torch.aten._make_per_tensor_quantized_tensor"(%w8, %ws, %zero) : (!torch.vtensor<[1,1,2,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.qint8>
  %w = "torch.aten.dequantize.self"(%qw) : (!torch.vtensor<[1,1,2,2],!torch.qint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %ones = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %conv = "torch.aten.convolution"(%xp, %w, %none, %ones, %zeros, %ones, %false, %zeros, %one) : (!torch.vtensor<[1,1,3,4],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,2,3],f32>
  %ys = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%conv, %ys, %yz, %dtype) : (!torch.vtensor<[1,1,2,3],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,3],!torch.quint8>
  return %y : !torch.vtensor<[1,1,2,3],!torch.quint8>
}

// -----

// Not fused: a pad with a value other than 0 is not the zero point's.
// CHECK-LABEL: func.func @conv_padded_with_one(
// CHECK-NOT: qlower.
// CHECK: torch.aten.constant_pad_nd
// CHECK: torch.aten.convolution
// CHECK-NOT: qlower.
// CHECK: return
func.func @conv_padded_with_one(%arg0: !torch.vtensor<[1,1,3,3],ui8>) -> !torch.vtensor<[1,1,2,3],!torch.quint8> {
  %xs = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %qx = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %xs, %xz) : (!torch.vtensor<[1,1,3,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,3,3],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,3,3],!torch.quint8>) -> !torch.vtensor<[1,1,3,3],f32>
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %pads = "torch.prim.ListConstruct"(%zero, %one, %zero, %zero) : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %pv = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
  %xp = "torch.aten.constant_pad_nd"(%x, %pads, %pv) : (!torch.vtensor<[1,1,3,3],f32>, !torch.list<int>, !torch.float) -> !torch.vtensor<[1,1,3,4],f32>
  %w8 = "torch.vtensor.literal"() {value = dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xsi8>} : () -> !torch.vtensor<[1,1,2,2],si8>
  %ws = "torch.constant.float"() {value = 2.500000e-01 : f64} : () -> !torch.float
  %qw = "torch.aten._make_per_tensor_quantized_tensor"(%w8, %ws, %zero) : (!torch.vtensor<[1,1,2,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.qint8>
  %w = "torch.aten.dequantize.self"(%qw) : (!torch.vtensor<[1,1,2,2],!torch.qint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %ones = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %conv = "torch.aten.convolution"(%xp, %w, %none, %ones, %zeros, %ones, %false, %zeros, %one) : (!torch.vtensor<[1,1,3,4],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,2,3],f32>
  %ys = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%conv, %ys, %yz, %dtype) : (!torch.vtensor<[1,1,2,3],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,3],!torch.quint8>
  return %y : !torch.vtensor<[1,1,2,3],!torch.quint8>
}

// -----

// torch.aten.mm likewise: qlower.dequantized_mm after fuse-quantized-ops.
// CHECK-LABEL: func.func @mm_per_column(
// CHECK-NOT: qlower.
// CHECK: torch.aten.mm
// FUSED-LABEL: func.func @mm_per_column(
// FUSED: %[[Y:.+]] = "qlower.dequantized_mm"(
// FUSED-NEXT: return %[[Y]]
func.func @mm_per_column(%arg0: !torch.vtensor<[3,4],si8>) -> !torch.vtensor<[3,2],f32> {
  %as = "torch.constant.float"() {value = 1.000000e-01 : f64} : () -> !torch.float
  %az = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %qa = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %as, %az) : (!torch.vtensor<[3,4],si8>, !torch.float, !torch.int) -> !torch.vtensor<[3,4],!torch.qint8>
  %a = "torch.aten.dequantize.self"(%qa) : (!torch.vtensor<[3,4],!torch.qint8>) -> !torch.vtensor<[3,4],f32>
  %b8 = "torch.vtensor.literal"() {value = dense<1> : tensor<4x2xsi8>} : () -> !torch.vtensor<[4,2],si8>
  %bs = "torch.vtensor.literal"() {value = dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %bz = "torch.vtensor.literal"() {value = dense<[0, 3]> : tensor<2xsi8>} : () -> !torch.vtensor<[2],si8>
  %axis = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %qb = "torch.aten._make_per_channel_quantized_tensor"(%b8, %bs, %bz, %axis) : (!torch.vtensor<[4,2],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.int) -> !torch.vtensor<[4,2],!torch.qint8>
  %b = "torch.aten.dequantize.self"(%qb) : (!torch.vtensor<[4,2],!torch.qint8>) -> !torch.vtensor<[4,2],f32>
  %y = "torch.aten.mm"(%a, %b) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4,2],f32>) -> !torch.vtensor<[3,2],f32>
  return %y : !torch.vtensor<[3,2],f32>
}
