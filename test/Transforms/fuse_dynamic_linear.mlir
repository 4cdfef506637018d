// fuse-for-cpu, dynamic quantization: DynamicQuantizeLinear → ConvInteger or
// MatMulInteger with constant 8-bit weights → Cast → Mul by x_scale·w_scale (→ Add of a
// per-channel bias), as qlower lowers it, becomes one qlower.dynamic_conv or
// qlower.dynamic_matmul reading the float input and the 8-bit weights; the min/max,
// the quantize and the int32 op are gone. A bias that is not per channel stays an Add
// after the fused op; a Mul by a scale that is not the input's dynamic scale is left.
// The inputs are qlower's own torch form of small ONNX models.
// RUN: qlower-opt --split-input-file --fuse-for-cpu --dce %s | FileCheck %s

// CHECK-LABEL: func.func @conv_bias
// CHECK-DAG: %[[W:.+]] = "torch.vtensor.literal"() {{.+}} -> !torch.vtensor<[2,1,1,1],si8>
// CHECK-DAG: %[[WS:.+]] = "torch.vtensor.literal"() {{.+}} -> !torch.vtensor<[2,1,1],f32>
// CHECK-DAG: %[[B:.+]] = "torch.vtensor.literal"() {{.+}} -> !torch.vtensor<[1,2,1,1],f32>
// CHECK: %[[Y:.+]] = "qlower.dynamic_conv"(%arg0, %[[W]], %{{.+}}, %[[WS]], %[[B]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!torch.vtensor<[1,1,2,2],f32>, !torch.vtensor<[2,1,1,1],si8>, !torch.int, !torch.vtensor<[2,1,1],f32>, !torch.vtensor<[1,2,1,1],f32>, {{.+}}, !torch.none) -> !torch.vtensor<[1,2,2,2],f32>
// CHECK-NOT: torch.aten.min
// CHECK-NOT: torch.aten.quantize_per_tensor
// CHECK-NOT: torch.aten.convolution
// CHECK-NOT: torch.aten.add.Tensor
// CHECK: return %[[Y]]
module {
  func.func @conv_bias(%arg0: !torch.vtensor<[1,1,2,2],f32>) -> (!torch.vtensor<[1,2,2,2],f32>) {
    %0 = "torch.vtensor.literal"() {value = dense<[[[[3]]], [[[-5]]]]> : tensor<2x1x1x1xsi8>} : () -> !torch.vtensor<[2,1,1,1],si8>
    %1 = "torch.vtensor.literal"() {value = dense<[[[5.000000e-01]], [[2.500000e-01]]]> : tensor<2x1x1xf32>} : () -> !torch.vtensor<[2,1,1],f32>
    %2 = "torch.vtensor.literal"() {value = dense<[[[[0.000000e+00]], [[1.000000e+00]]]]> : tensor<1x2x1x1xf32>} : () -> !torch.vtensor<[1,2,1,1],f32>
    %3 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
    %4 = "torch.aten.min"(%arg0) : (!torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[],f32>
    %5 = "torch.aten.max"(%arg0) : (!torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[],f32>
    %6 = "torch.aten.clamp_max"(%4, %3) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %7 = "torch.aten.clamp_min"(%5, %3) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %8 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %9 = "torch.aten.sub.Tensor"(%7, %6, %8) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[],f32>
    %10 = "torch.constant.float"() {value = 2.550000e+02 : f64} : () -> !torch.float
    %11 = "torch.aten.div.Scalar"(%9, %10) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %12 = "torch.aten.div.Tensor"(%6, %11) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %13 = "torch.aten.neg"(%12) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %14 = "torch.aten.round"(%13) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %15 = "torch.aten.clamp"(%14, %3, %10) : (!torch.vtensor<[],f32>, !torch.float, !torch.float) -> !torch.vtensor<[],f32>
    %16 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %17 = "torch.constant.bool"() {value = false} : () -> !torch.bool
    %18 = "torch.constant.none"() : () -> !torch.none
    %19 = "torch.aten.to.dtype"(%15, %16, %17, %17, %18) : (!torch.vtensor<[],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[],ui8>
    %20 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
    %21 = "torch.aten.item"(%11) : (!torch.vtensor<[],f32>) -> !torch.float
    %22 = "torch.aten.item"(%19) : (!torch.vtensor<[],ui8>) -> !torch.int
    %23 = "torch.aten.quantize_per_tensor"(%arg0, %21, %22, %20) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
    %24 = "torch.aten.int_repr"(%23) : (!torch.vtensor<[1,1,2,2],!torch.quint8>) -> !torch.vtensor<[1,1,2,2],ui8>
    %25 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
    %26 = "torch.aten.to.dtype"(%24, %25, %17, %17, %18) : (!torch.vtensor<[1,1,2,2],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,1,2,2],si32>
    %27 = "torch.aten.to.dtype"(%19, %25, %17, %17, %18) : (!torch.vtensor<[],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[],si32>
    %28 = "torch.aten.sub.Tensor"(%26, %27, %8) : (!torch.vtensor<[1,1,2,2],si32>, !torch.vtensor<[],si32>, !torch.int) -> !torch.vtensor<[1,1,2,2],si32>
    %29 = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
    %30 = "torch.aten._make_per_tensor_quantized_tensor"(%0, %29, %16) : (!torch.vtensor<[2,1,1,1],si8>, !torch.float, !torch.int) -> !torch.vtensor<[2,1,1,1],!torch.qint8>
    %31 = "torch.aten.dequantize.self"(%30) : (!torch.vtensor<[2,1,1,1],!torch.qint8>) -> !torch.vtensor<[2,1,1,1],f32>
    %32 = "torch.aten.to.dtype"(%31, %25, %17, %17, %18) : (!torch.vtensor<[2,1,1,1],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,1,1,1],si32>
    %33 = "torch.prim.ListConstruct"(%8, %8) : (!torch.int, !torch.int) -> !torch.list<int>
    %34 = "torch.prim.ListConstruct"(%16, %16) : (!torch.int, !torch.int) -> !torch.list<int>
    %35 = "torch.aten.convolution"(%28, %32, %18, %33, %34, %33, %17, %34, %8) : (!torch.vtensor<[1,1,2,2],si32>, !torch.vtensor<[2,1,1,1],si32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,2,2,2],si32>
    %36 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
    %37 = "torch.aten.to.dtype"(%35, %36, %17, %17, %18) : (!torch.vtensor<[1,2,2,2],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,2,2,2],f32>
    %38 = "torch.aten.mul.Tensor"(%11, %1) : (!torch.vtensor<[],f32>, !torch.vtensor<[2,1,1],f32>) -> !torch.vtensor<[2,1,1],f32>
    %39 = "torch.aten.mul.Tensor"(%37, %38) : (!torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[2,1,1],f32>) -> !torch.vtensor<[1,2,2,2],f32>
    %40 = "torch.aten.add.Tensor"(%39, %2, %8) : (!torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[1,2,1,1],f32>, !torch.int) -> !torch.vtensor<[1,2,2,2],f32>
    return %40 : !torch.vtensor<[1,2,2,2],f32>
  }
}

// -----

// CHECK-LABEL: func.func @conv_full_bias
// CHECK: %[[Y:.+]] = "qlower.dynamic_conv"(%arg0, {{.+}}, !torch.none, {{.+}} -> !torch.vtensor<[1,2,2,2],f32>
// CHECK-NOT: torch.aten.convolution
// CHECK: %[[S:.+]] = "torch.aten.add.Tensor"(%[[Y]],
// CHECK: return %[[S]]
module {
  func.func @conv_full_bias(%arg0: !torch.vtensor<[1,1,2,2],f32>) -> (!torch.vtensor<[1,2,2,2],f32>) {
    %0 = "torch.vtensor.literal"() {value = dense<[[[[3]]], [[[-5]]]]> : tensor<2x1x1x1xsi8>} : () -> !torch.vtensor<[2,1,1,1],si8>
    %1 = "torch.vtensor.literal"() {value = dense<[[[5.000000e-01]], [[2.500000e-01]]]> : tensor<2x1x1xf32>} : () -> !torch.vtensor<[2,1,1],f32>
    %2 = "torch.vtensor.literal"() {value = dense<[[[[0.000000e+00, 1.000000e+00], [2.000000e+00, 3.000000e+00]], [[4.000000e+00, 5.000000e+00], [6.000000e+00, 7.000000e+00]]]]> : tensor<1x2x2x2xf32>} : () -> !torch.vtensor<[1,2,2,2],f32>
    %3 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
    %4 = "torch.aten.min"(%arg0) : (!torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[],f32>
    %5 = "torch.aten.max"(%arg0) : (!torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[],f32>
    %6 = "torch.aten.clamp_max"(%4, %3) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %7 = "torch.aten.clamp_min"(%5, %3) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %8 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %9 = "torch.aten.sub.Tensor"(%7, %6, %8) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[],f32>
    %10 = "torch.constant.float"() {value = 2.550000e+02 : f64} : () -> !torch.float
    %11 = "torch.aten.div.Scalar"(%9, %10) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %12 = "torch.aten.div.Tensor"(%6, %11) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %13 = "torch.aten.neg"(%12) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %14 = "torch.aten.round"(%13) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %15 = "torch.aten.clamp"(%14, %3, %10) : (!torch.vtensor<[],f32>, !torch.float, !torch.float) -> !torch.vtensor<[],f32>
    %16 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %17 = "torch.constant.bool"() {value = false} : () -> !torch.bool
    %18 = "torch.constant.none"() : () -> !torch.none
    %19 = "torch.aten.to.dtype"(%15, %16, %17, %17, %18) : (!torch.vtensor<[],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[],ui8>
    %20 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
    %21 = "torch.aten.item"(%11) : (!torch.vtensor<[],f32>) -> !torch.float
    %22 = "torch.aten.item"(%19) : (!torch.vtensor<[],ui8>) -> !torch.int
    %23 = "torch.aten.quantize_per_tensor"(%arg0, %21, %22, %20) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
    %24 = "torch.aten.int_repr"(%23) : (!torch.vtensor<[1,1,2,2],!torch.quint8>) -> !torch.vtensor<[1,1,2,2],ui8>
    %25 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
    %26 = "torch.aten.to.dtype"(%24, %25, %17, %17, %18) : (!torch.vtensor<[1,1,2,2],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,1,2,2],si32>
    %27 = "torch.aten.to.dtype"(%19, %25, %17, %17, %18) : (!torch.vtensor<[],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[],si32>
    %28 = "torch.aten.sub.Tensor"(%26, %27, %8) : (!torch.vtensor<[1,1,2,2],si32>, !torch.vtensor<[],si32>, !torch.int) -> !torch.vtensor<[1,1,2,2],si32>
    %29 = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
    %30 = "torch.aten._make_per_tensor_quantized_tensor"(%0, %29, %16) : (!torch.vtensor<[2,1,1,1],si8>, !torch.float, !torch.int) -> !torch.vtensor<[2,1,1,1],!torch.qint8>
    %31 = "torch.aten.dequantize.self"(%30) : (!torch.vtensor<[2,1,1,1],!torch.qint8>) -> !torch.vtensor<[2,1,1,1],f32>
    %32 = "torch.aten.to.dtype"(%31, %25, %17, %17, %18) : (!torch.vtensor<[2,1,1,1],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,1,1,1],si32>
    %33 = "torch.prim.ListConstruct"(%8, %8) : (!torch.int, !torch.int) -> !torch.list<int>
    %34 = "torch.prim.ListConstruct"(%16, %16) : (!torch.int, !torch.int) -> !torch.list<int>
    %35 = "torch.aten.convolution"(%28, %32, %18, %33, %34, %33, %17, %34, %8) : (!torch.vtensor<[1,1,2,2],si32>, !torch.vtensor<[2,1,1,1],si32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,2,2,2],si32>
    %36 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
    %37 = "torch.aten.to.dtype"(%35, %36, %17, %17, %18) : (!torch.vtensor<[1,2,2,2],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,2,2,2],f32>
    %38 = "torch.aten.mul.Tensor"(%11, %1) : (!torch.vtensor<[],f32>, !torch.vtensor<[2,1,1],f32>) -> !torch.vtensor<[2,1,1],f32>
    %39 = "torch.aten.mul.Tensor"(%37, %38) : (!torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[2,1,1],f32>) -> !torch.vtensor<[1,2,2,2],f32>
    %40 = "torch.aten.add.Tensor"(%39, %2, %8) : (!torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[1,2,2,2],f32>, !torch.int) -> !torch.vtensor<[1,2,2,2],f32>
    return %40 : !torch.vtensor<[1,2,2,2],f32>
  }
}

// -----

// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[B:.+]] = "torch.vtensor.literal"() {{.+}} -> !torch.vtensor<[3,2],si8>
// CHECK-DAG: %[[BS:.+]] = "torch.vtensor.literal"() {{.+}} -> !torch.vtensor<[2],f32>
// CHECK: %[[Y:.+]] = "qlower.dynamic_matmul"(%arg0, %[[B]], %{{.+}}, %[[BS]], %{{.+}}) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3,2],si8>, !torch.int, !torch.vtensor<[2],f32>, !torch.none) -> !torch.vtensor<[2,2],f32>
// CHECK-NOT: torch.aten.matmul
// CHECK: return %[[Y]]
module {
  func.func @matmul(%arg0: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[2,2],f32>) {
    %0 = "torch.vtensor.literal"() {value = dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xsi8>} : () -> !torch.vtensor<[3,2],si8>
    %1 = "torch.vtensor.literal"() {value = dense<[5.000000e-01, 1.250000e-01]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
    %2 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
    %3 = "torch.aten.min"(%arg0) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[],f32>
    %4 = "torch.aten.max"(%arg0) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[],f32>
    %5 = "torch.aten.clamp_max"(%3, %2) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %6 = "torch.aten.clamp_min"(%4, %2) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %7 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %8 = "torch.aten.sub.Tensor"(%6, %5, %7) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[],f32>
    %9 = "torch.constant.float"() {value = 2.550000e+02 : f64} : () -> !torch.float
    %10 = "torch.aten.div.Scalar"(%8, %9) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %11 = "torch.aten.div.Tensor"(%5, %10) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %12 = "torch.aten.neg"(%11) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %13 = "torch.aten.round"(%12) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %14 = "torch.aten.clamp"(%13, %2, %9) : (!torch.vtensor<[],f32>, !torch.float, !torch.float) -> !torch.vtensor<[],f32>
    %15 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %16 = "torch.constant.bool"() {value = false} : () -> !torch.bool
    %17 = "torch.constant.none"() : () -> !torch.none
    %18 = "torch.aten.to.dtype"(%14, %15, %16, %16, %17) : (!torch.vtensor<[],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[],ui8>
    %19 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
    %20 = "torch.aten.item"(%10) : (!torch.vtensor<[],f32>) -> !torch.float
    %21 = "torch.aten.item"(%18) : (!torch.vtensor<[],ui8>) -> !torch.int
    %22 = "torch.aten.quantize_per_tensor"(%arg0, %20, %21, %19) : (!torch.vtensor<[2,3],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2,3],!torch.quint8>
    %23 = "torch.aten.int_repr"(%22) : (!torch.vtensor<[2,3],!torch.quint8>) -> !torch.vtensor<[2,3],ui8>
    %24 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
    %25 = "torch.aten.to.dtype"(%23, %24, %16, %16, %17) : (!torch.vtensor<[2,3],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],si32>
    %26 = "torch.aten.to.dtype"(%18, %24, %16, %16, %17) : (!torch.vtensor<[],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[],si32>
    %27 = "torch.aten.sub.Tensor"(%25, %26, %7) : (!torch.vtensor<[2,3],si32>, !torch.vtensor<[],si32>, !torch.int) -> !torch.vtensor<[2,3],si32>
    %28 = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
    %29 = "torch.aten._make_per_tensor_quantized_tensor"(%0, %28, %15) : (!torch.vtensor<[3,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[3,2],!torch.qint8>
    %30 = "torch.aten.dequantize.self"(%29) : (!torch.vtensor<[3,2],!torch.qint8>) -> !torch.vtensor<[3,2],f32>
    %31 = "torch.aten.to.dtype"(%30, %24, %16, %16, %17) : (!torch.vtensor<[3,2],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,2],si32>
    %32 = "torch.aten.matmul"(%27, %31) : (!torch.vtensor<[2,3],si32>, !torch.vtensor<[3,2],si32>) -> !torch.vtensor<[2,2],si32>
    %33 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
    %34 = "torch.aten.to.dtype"(%32, %33, %16, %16, %17) : (!torch.vtensor<[2,2],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,2],f32>
    %35 = "torch.aten.mul.Tensor"(%10, %1) : (!torch.vtensor<[],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    %36 = "torch.aten.mul.Tensor"(%34, %35) : (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,2],f32>
    return %36 : !torch.vtensor<[2,2],f32>
  }
}

// -----

// CHECK-LABEL: func.func @matmul_other_scale
// CHECK-NOT: qlower.dynamic_matmul
// CHECK: torch.aten.quantize_per_tensor
// CHECK: torch.aten.matmul
// CHECK: torch.aten.mul.Tensor
module {
  func.func @matmul_other_scale(%arg0: !torch.vtensor<[2,3],f32>) -> (!torch.vtensor<[2,2],f32>) {
    %0 = "torch.vtensor.literal"() {value = dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xsi8>} : () -> !torch.vtensor<[3,2],si8>
    %1 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
    %2 = "torch.aten.min"(%arg0) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[],f32>
    %3 = "torch.aten.max"(%arg0) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[],f32>
    %4 = "torch.aten.clamp_max"(%2, %1) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %5 = "torch.aten.clamp_min"(%3, %1) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %6 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %7 = "torch.aten.sub.Tensor"(%5, %4, %6) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[],f32>
    %8 = "torch.constant.float"() {value = 2.550000e+02 : f64} : () -> !torch.float
    %9 = "torch.aten.div.Scalar"(%7, %8) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %10 = "torch.aten.div.Tensor"(%4, %9) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %11 = "torch.aten.neg"(%10) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %12 = "torch.aten.round"(%11) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %13 = "torch.aten.clamp"(%12, %1, %8) : (!torch.vtensor<[],f32>, !torch.float, !torch.float) -> !torch.vtensor<[],f32>
    %14 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %15 = "torch.constant.bool"() {value = false} : () -> !torch.bool
    %16 = "torch.constant.none"() : () -> !torch.none
    %17 = "torch.aten.to.dtype"(%13, %14, %15, %15, %16) : (!torch.vtensor<[],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[],ui8>
    %18 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
    %19 = "torch.aten.item"(%9) : (!torch.vtensor<[],f32>) -> !torch.float
    %20 = "torch.aten.item"(%17) : (!torch.vtensor<[],ui8>) -> !torch.int
    %21 = "torch.aten.quantize_per_tensor"(%arg0, %19, %20, %18) : (!torch.vtensor<[2,3],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2,3],!torch.quint8>
    %22 = "torch.aten.int_repr"(%21) : (!torch.vtensor<[2,3],!torch.quint8>) -> !torch.vtensor<[2,3],ui8>
    %23 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
    %24 = "torch.aten.to.dtype"(%22, %23, %15, %15, %16) : (!torch.vtensor<[2,3],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,3],si32>
    %25 = "torch.aten.to.dtype"(%17, %23, %15, %15, %16) : (!torch.vtensor<[],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[],si32>
    %26 = "torch.aten.sub.Tensor"(%24, %25, %6) : (!torch.vtensor<[2,3],si32>, !torch.vtensor<[],si32>, !torch.int) -> !torch.vtensor<[2,3],si32>
    %27 = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
    %28 = "torch.aten._make_per_tensor_quantized_tensor"(%0, %27, %14) : (!torch.vtensor<[3,2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[3,2],!torch.qint8>
    %29 = "torch.aten.dequantize.self"(%28) : (!torch.vtensor<[3,2],!torch.qint8>) -> !torch.vtensor<[3,2],f32>
    %30 = "torch.aten.to.dtype"(%29, %23, %15, %15, %16) : (!torch.vtensor<[3,2],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[3,2],si32>
    %31 = "torch.aten.matmul"(%26, %30) : (!torch.vtensor<[2,3],si32>, !torch.vtensor<[3,2],si32>) -> !torch.vtensor<[2,2],si32>
    %32 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
    %33 = "torch.aten.to.dtype"(%31, %32, %15, %15, %16) : (!torch.vtensor<[2,2],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,2],f32>
    %34 = "torch.vtensor.literal"() {value = dense<[5.000000e-02, 1.250000e-02]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
    %35 = "torch.aten.mul.Tensor"(%33, %34) : (!torch.vtensor<[2,2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,2],f32>
    return %35 : !torch.vtensor<[2,2],f32>
  }
}

// -----

// Weights that the model quantizes with DynamicQuantizeLinear too (ppocr-cls does): their
// quantize of a float constant stays (the plan evaluates it once) and feeds the fused op.
// CHECK-LABEL: func.func @conv_quantized_weights
// CHECK: %[[WQ:.+]] = "torch.aten.quantize_per_tensor"(
// CHECK: %[[W:.+]] = "torch.aten.int_repr"(%[[WQ]]) : {{.+}} -> !torch.vtensor<[2,1,1,1],ui8>
// CHECK: %[[Y:.+]] = "qlower.dynamic_conv"(%arg0, %[[W]], {{.+}} -> !torch.vtensor<[1,2,2,2],f32>
// CHECK-NOT: torch.aten.convolution
// CHECK: return %[[Y]]
module {
  func.func @conv_quantized_weights(%arg0: !torch.vtensor<[1,1,2,2],f32>) -> (!torch.vtensor<[1,2,2,2],f32>) {
    %0 = "torch.vtensor.literal"() {value = dense<[[[[5.000000e-01]]], [[[-2.500000e-01]]]]> : tensor<2x1x1x1xf32>} : () -> !torch.vtensor<[2,1,1,1],f32>
    %1 = "torch.constant.float"() {value = 0.000000e+00 : f64} : () -> !torch.float
    %2 = "torch.aten.min"(%arg0) : (!torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[],f32>
    %3 = "torch.aten.max"(%arg0) : (!torch.vtensor<[1,1,2,2],f32>) -> !torch.vtensor<[],f32>
    %4 = "torch.aten.clamp_max"(%2, %1) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %5 = "torch.aten.clamp_min"(%3, %1) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %6 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
    %7 = "torch.aten.sub.Tensor"(%5, %4, %6) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.int) -> !torch.vtensor<[],f32>
    %8 = "torch.constant.float"() {value = 2.550000e+02 : f64} : () -> !torch.float
    %9 = "torch.aten.div.Scalar"(%7, %8) : (!torch.vtensor<[],f32>, !torch.float) -> !torch.vtensor<[],f32>
    %10 = "torch.aten.div.Tensor"(%4, %9) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %11 = "torch.aten.neg"(%10) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %12 = "torch.aten.round"(%11) : (!torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %13 = "torch.aten.clamp"(%12, %1, %8) : (!torch.vtensor<[],f32>, !torch.float, !torch.float) -> !torch.vtensor<[],f32>
    %14 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
    %15 = "torch.constant.bool"() {value = false} : () -> !torch.bool
    %16 = "torch.constant.none"() : () -> !torch.none
    %17 = "torch.aten.to.dtype"(%13, %14, %15, %15, %16) : (!torch.vtensor<[],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[],ui8>
    %18 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
    %19 = "torch.aten.item"(%9) : (!torch.vtensor<[],f32>) -> !torch.float
    %20 = "torch.aten.item"(%17) : (!torch.vtensor<[],ui8>) -> !torch.int
    %21 = "torch.aten.quantize_per_tensor"(%arg0, %19, %20, %18) : (!torch.vtensor<[1,1,2,2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,2,2],!torch.quint8>
    %22 = "torch.aten.int_repr"(%21) : (!torch.vtensor<[1,1,2,2],!torch.quint8>) -> !torch.vtensor<[1,1,2,2],ui8>
    %23 = "torch.vtensor.literal"() {value = dense<0.00294117653> : tensor<f32>} : () -> !torch.vtensor<[],f32>
    %24 = "torch.constant.float"() {value = 0.0029411765281111002 : f64} : () -> !torch.float
    %25 = "torch.constant.int"() {value = 85 : i64} : () -> !torch.int
    %26 = "torch.aten.quantize_per_tensor"(%0, %24, %25, %18) : (!torch.vtensor<[2,1,1,1],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2,1,1,1],!torch.quint8>
    %27 = "torch.aten.int_repr"(%26) : (!torch.vtensor<[2,1,1,1],!torch.quint8>) -> !torch.vtensor<[2,1,1,1],ui8>
    %28 = "torch.constant.int"() {value = 3 : i64} : () -> !torch.int
    %29 = "torch.aten.to.dtype"(%22, %28, %15, %15, %16) : (!torch.vtensor<[1,1,2,2],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,1,2,2],si32>
    %30 = "torch.aten.to.dtype"(%17, %28, %15, %15, %16) : (!torch.vtensor<[],ui8>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[],si32>
    %31 = "torch.aten.sub.Tensor"(%29, %30, %6) : (!torch.vtensor<[1,1,2,2],si32>, !torch.vtensor<[],si32>, !torch.int) -> !torch.vtensor<[1,1,2,2],si32>
    %32 = "torch.constant.float"() {value = 1.000000e+00 : f64} : () -> !torch.float
    %33 = "torch.aten._make_per_tensor_quantized_tensor"(%27, %32, %25) : (!torch.vtensor<[2,1,1,1],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2,1,1,1],!torch.quint8>
    %34 = "torch.aten.dequantize.self"(%33) : (!torch.vtensor<[2,1,1,1],!torch.quint8>) -> !torch.vtensor<[2,1,1,1],f32>
    %35 = "torch.aten.to.dtype"(%34, %28, %15, %15, %16) : (!torch.vtensor<[2,1,1,1],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[2,1,1,1],si32>
    %36 = "torch.prim.ListConstruct"(%6, %6) : (!torch.int, !torch.int) -> !torch.list<int>
    %37 = "torch.prim.ListConstruct"(%14, %14) : (!torch.int, !torch.int) -> !torch.list<int>
    %38 = "torch.aten.convolution"(%31, %35, %16, %36, %37, %36, %15, %37, %6) : (!torch.vtensor<[1,1,2,2],si32>, !torch.vtensor<[2,1,1,1],si32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,2,2,2],si32>
    %39 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
    %40 = "torch.aten.to.dtype"(%38, %39, %15, %15, %16) : (!torch.vtensor<[1,2,2,2],si32>, !torch.int, !torch.bool, !torch.bool, !torch.none) -> !torch.vtensor<[1,2,2,2],f32>
    %41 = "torch.aten.mul.Tensor"(%9, %23) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[],f32>
    %42 = "torch.aten.mul.Tensor"(%40, %41) : (!torch.vtensor<[1,2,2,2],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[1,2,2,2],f32>
    return %42 : !torch.vtensor<[1,2,2,2],f32>
  }
}
