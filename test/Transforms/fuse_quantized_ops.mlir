// fuse-quantized-ops applies a convolution or matmul of dequantized operands to the
// quantized tensors: the op produces qint32, whose integers are made a quantized tensor
// again with the scale x_scale*w_scale (per channel for per-channel weights, along the
// result's channel axis) and zero point 0, then dequantized. A quantize that followed
// stays as it was.
// RUN: qlower-opt --split-input-file --fuse-quantized-ops %s | FileCheck %s
// torch-mlir-opt parses and verifies every fused function:
// RUN: qlower-opt --split-input-file --fuse-quantized-ops %s | torch-mlir-opt --split-input-file | FileCheck %s --check-prefix=VERIFY

// CHECK-LABEL: func.func @conv_per_tensor(
// CHECK: %[[XS:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK: %[[QX:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %[[XS]], %{{.+}})
// CHECK: %[[WS:.+]] = "torch.constant.float"() {value = 2.500000e-01 : f64}
// CHECK: %[[QW:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%{{.+}}, %[[WS]], %{{.+}})
// CHECK: %[[ACC:.+]] = "torch.aten.convolution"(%[[QX]], %[[QW]], %{{.+}}) : (!torch.vtensor<[1,1,3,3],!torch.quint8>, !torch.vtensor<[1,1,2,2],!torch.qint8>, !torch.none, {{.+}}) -> !torch.vtensor<[1,1,2,2],!torch.qint32>
// CHECK: %[[INT:.+]] = "torch.aten.int_repr"(%[[ACC]]) : (!torch.vtensor<[1,1,2,2],!torch.qint32>) -> !torch.vtensor<[1,1,2,2],si32>
// CHECK: %[[SCALE:.+]] = "torch.aten.mul.float"(%[[XS]], %[[WS]]) : (!torch.float, !torch.float) -> !torch.float
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[Q:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[INT]], %[[SCALE]], %[[ZERO]]) : {{.+}} -> !torch.vtensor<[1,1,2,2],!torch.qint32>
// CHECK: %[[Y:.+]] = "torch.aten.dequantize.self"(%[[Q]]) : (!torch.vtensor<[1,1,2,2],!torch.qint32>) -> !torch.vtensor<[1,1,2,2],f32>
// CHECK: "torch.aten.quantize_per_tensor"(%[[Y]],
// CHECK-NOT: torch.aten.convolution
// VERIFY-LABEL: func.func @conv_per_tensor(
// VERIFY: torch.aten.convolution {{.+}} -> !torch.vtensor<[1,1,2,2],!torch.qint32>
func.func @conv_per_tensor(%arg0: !torch.vtensor<[1,1,3,3],ui8>) -> !torch.vtensor<[1,1,2,2],!torch.quint8> {
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
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %conv = "torch.aten.convolution"(%x, %w, %none, %ones, %zeros, %ones, %false, %zeros, %one) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,2,2],f32>
  %ys = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
  %yz = "torch.constant.int"() {value = 10 : i64} : () -> !torch.int
  %dtype = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %y = "torch.aten.quantize_per_tensor"(%conv, %ys, %yz, %dtype) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  return %y : !torch.vtensor<[1,1,2,2],!torch.quint8>
}

// -----

// Per-channel weights with distinct zero points, and an int32 bias quantized per channel
// with zero point 0: the bias operand becomes the qint32 tensor, and the accumulator
// keeps per-channel scales along axis 1 (the output channels).
// CHECK-LABEL: func.func @conv_per_channel_bias(
// CHECK: %[[XS:.+]] = "torch.constant.float"() {value = 2.000000e-02 : f64}
// CHECK: %[[QX:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %[[XS]],
// CHECK: %[[WS:.+]] = "torch.vtensor.literal"() {value = dense<[0.00999999977, 2.000000e-02]> : tensor<2xf32>}
// CHECK: %[[WZ:.+]] = "torch.vtensor.literal"() {value = dense<[1, -1]> : tensor<2xsi8>}
// CHECK: %[[QW:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%{{.+}}, %[[WS]], %[[WZ]], %{{.+}}) : {{.+}} -> !torch.vtensor<[2,1,1,1],!torch.qint8>
// CHECK: %[[QB:.+]] = "torch.aten._make_per_channel_quantized_tensor"({{.+}}) : {{.+}} -> !torch.vtensor<[2],!torch.qint32>
// CHECK: %[[ACC:.+]] = "torch.aten.convolution"(%[[QX]], %[[QW]], %[[QB]], {{.+}} -> !torch.vtensor<[1,2,2,2],!torch.qint32>
// CHECK: %[[INT:.+]] = "torch.aten.int_repr"(%[[ACC]])
// CHECK: %[[SCALES:.+]] = "torch.aten.mul.Scalar"(%[[WS]], %[[XS]]) : (!torch.vtensor<[2],f32>, !torch.float) -> !torch.vtensor<[2],f32>
// CHECK: %[[ZEROS:.+]] = "torch.vtensor.literal"() {value = dense<0> : tensor<2xsi64>}
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Q:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%[[INT]], %[[SCALES]], %[[ZEROS]], %[[AXIS]]) : {{.+}} -> !torch.vtensor<[1,2,2,2],!torch.qint32>
// CHECK: %[[Y:.+]] = "torch.aten.dequantize.self"(%[[Q]]) : (!torch.vtensor<[1,2,2,2],!torch.qint32>) -> !torch.vtensor<[1,2,2,2],f32>
// CHECK: return %[[Y]]
// VERIFY-LABEL: func.func @conv_per_channel_bias(
// VERIFY: torch.aten.convolution {{.+}} !torch.vtensor<[2],!torch.qint32>, {{.+}} -> !torch.vtensor<[1,2,2,2],!torch.qint32>
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

// A matmul whose right operand is quantized per column (axis 1, its last): the
// accumulator's scales run along the result's last axis.
// CHECK-LABEL: func.func @matmul_per_column(
// CHECK: %[[ACC:.+]] = "torch.aten.matmul"(%{{.+}}, %{{.+}}) : (!torch.vtensor<[3,4],!torch.qint8>, !torch.vtensor<[4,2],!torch.qint8>) -> !torch.vtensor<[3,2],!torch.qint32>
// CHECK: %[[INT:.+]] = "torch.aten.int_repr"(%[[ACC]])
// CHECK: "torch.aten.mul.Scalar"
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Q:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%[[INT]], %{{.+}}, %{{.+}}, %[[AXIS]])
// CHECK: %[[Y:.+]] = "torch.aten.dequantize.self"(%[[Q]]) : (!torch.vtensor<[3,2],!torch.qint32>) -> !torch.vtensor<[3,2],f32>
// CHECK: return %[[Y]]
// VERIFY-LABEL: func.func @matmul_per_column(
// VERIFY: torch.aten.matmul {{.+}} -> !torch.vtensor<[3,2],!torch.qint32>
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

// A convolution whose weight is a plain float tensor is not the pass's to rewrite, and
// neither is one with a float bias (folding it into the accumulator would round it).
// CHECK-LABEL: func.func @not_both_dequantized(
// CHECK-NOT: !torch.qint32
// CHECK: "torch.aten.convolution"(%{{[0-9]+}}, %arg1, {{.+}}) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,2,2],f32>,
// CHECK-NOT: !torch.qint32
// CHECK: "torch.aten.convolution"(%{{[0-9]+}}, %{{[0-9]+}}, %arg2, {{.+}}) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[1],f32>,
// CHECK-NOT: !torch.qint32
// CHECK: return
// VERIFY-LABEL: func.func @not_both_dequantized(
// VERIFY: torch.aten.convolution {{.+}} -> !torch.vtensor<[1,1,2,2],f32>
func.func @not_both_dequantized(%arg0: !torch.vtensor<[1,1,3,3],ui8>, %arg1: !torch.vtensor<[1,1,2,2],f32>, %arg2: !torch.vtensor<[1],f32>) -> (!torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[1,1,2,2],f32>) {
  %xs = "torch.constant.float"() {value = 5.000000e-01 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %qx = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %xs, %xz) : (!torch.vtensor<[1,1,3,3],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[1,1,3,3],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,3,3],!torch.quint8>) -> !torch.vtensor<[1,1,3,3],f32>
  %w8 = "torch.vtensor.literal"() {value = dense<1> : tensor<1x1x2x2xsi8>} : () -> !torch.vtensor<[1,1,2,2],si8>
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
  %c1 = "torch.aten.convolution"(%x, %arg1, %none, %ones, %zeros, %ones, %false, %zeros, %one) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,2,2],f32>
  %c2 = "torch.aten.convolution"(%x, %w, %arg2, %ones, %zeros, %ones, %false, %zeros, %one) : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[1],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,2,2],f32>
  return %c1, %c2 : !torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[1,1,2,2],f32>
}

// -----

// QDQ models quantize activations in the graph, and QAT weights too: quantize_* results
// are quantized tensors like _make_* ones, and the per-channel weight keeps its axis.
// CHECK-LABEL: func.func @qdq_activation_and_qat_weight(
// CHECK: %[[QX:.+]] = "torch.aten.quantize_per_tensor"(%arg0,
// CHECK: %[[QW:.+]] = "torch.aten.quantize_per_channel"(%{{.+}}, %{{.+}}, %{{.+}}, %[[AXIS0:.+]], %{{.+}}) : {{.+}} -> !torch.vtensor<[2,1,1,1],!torch.qint8>
// CHECK: %[[ACC:.+]] = "torch.aten.convolution"(%[[QX]], %[[QW]], {{.+}}) : (!torch.vtensor<[1,1,2,2],!torch.quint8>, !torch.vtensor<[2,1,1,1],!torch.qint8>, !torch.none, {{.+}} -> !torch.vtensor<[1,2,2,2],!torch.qint32>
// CHECK: "torch.aten._make_per_channel_quantized_tensor"
// CHECK-SAME: -> !torch.vtensor<[1,2,2,2],!torch.qint32>
// VERIFY-LABEL: func.func @qdq_activation_and_qat_weight(
// VERIFY: torch.aten.convolution {{.+}} -> !torch.vtensor<[1,2,2,2],!torch.qint32>
func.func @qdq_activation_and_qat_weight(%arg0: !torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[1,2,2,2],f32> {
  %xs = "torch.constant.float"() {value = 2.000000e-02 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %quint8 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %qx = "torch.aten.quantize_per_tensor"(%arg0, %xs, %xz, %quint8) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
  %x = "torch.aten.dequantize.self"(%qx) : (!torch.vtensor<[1,1,2,2],!torch.quint8>) -> !torch.vtensor<[1,1,2,2],f32>
  %wf = "torch.vtensor.literal"() {value = dense<[[[[0.5]]], [[[-0.25]]]]> : tensor<2x1x1x1xf32>} : () -> !torch.vtensor<[2,1,1,1],f32>
  %ws = "torch.vtensor.literal"() {value = dense<[1.000000e-02, 2.000000e-02]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %wz = "torch.vtensor.literal"() {value = dense<[1, -1]> : tensor<2xsi8>} : () -> !torch.vtensor<[2],si8>
  %axis0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %qint8 = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %qw = "torch.aten.quantize_per_channel"(%wf, %ws, %wz, %axis0, %qint8) : (!torch.vtensor<[2,1,1,1],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.int, !torch.int) -> !torch.vtensor<[2,1,1,1],!torch.qint8>
  %w = "torch.aten.dequantize.self"(%qw) : (!torch.vtensor<[2,1,1,1],!torch.qint8>) -> !torch.vtensor<[2,1,1,1],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %one = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %zero = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %ones = "torch.prim.ListConstruct"(%one, %one) : (!torch.int, !torch.int) -> !torch.list<int>
  %zeros = "torch.prim.ListConstruct"(%zero, %zero) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %conv = "torch.aten.convolution"(%x, %w, %none, %ones, %zeros, %ones, %false, %zeros, %one) : (!torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[2,1,1,1],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,2,2,2],f32>
  return %conv : !torch.vtensor<[1,2,2,2],f32>
}

// -----

// Asymmetric padding of the float input moves onto the integers, filled with the zero
// point, which dequantizes to exactly the 0.0 the float pad inserted.
// CHECK-LABEL: func.func @conv_padded(
// CHECK: %[[XS:.+]] = "torch.constant.float"() {value = 5.000000e-01 : f64}
// CHECK: %[[XZ:.+]] = "torch.constant.int"() {value = 128 : i64}
// CHECK: %[[PADS:.+]] = "torch.prim.ListConstruct"
// CHECK: %[[P:.+]] = "torch.aten.constant_pad_nd"(%arg0, %[[PADS]], %[[XZ]]) : (!torch.vtensor<[1,1,3,3],ui8>, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,1,4,3],ui8>
// CHECK: %[[QP:.+]] = "torch.aten._make_per_tensor_quantized_tensor"(%[[P]], %[[XS]], %[[XZ]]) : {{.+}} -> !torch.vtensor<[1,1,4,3],!torch.quint8>
// CHECK: "torch.aten.convolution"(%[[QP]], {{.+}} -> !torch.vtensor<[1,1,3,2],!torch.qint32>
// VERIFY-LABEL: func.func @conv_padded(
// VERIFY: torch.aten.constant_pad_nd %arg0
// VERIFY: torch.aten.convolution {{.+}} -> !torch.vtensor<[1,1,3,2],!torch.qint32>
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
