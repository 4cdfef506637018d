// fuse-for-cpu, element-wise family: a quantize of the float add, mul or softmax of
// dequantized 8-bit tensors becomes one qlower op, which the CPU backend runs as ONNX
// Runtime's QLinearAdd, QLinearMul or QLinearSoftmax; the cases it must leave alone
// keep their float ops.
// RUN: qlower-opt --split-input-file --fuse-for-cpu --dce %s | FileCheck %s

// QLinearAdd: one qlower.qlinear_add reads both operands' integers, scales and zero
// points and the result's scale and zero point; the float add and dequantizes are gone.
// CHECK-LABEL: func.func @add(
// CHECK-DAG: %[[AS:.+]] = "torch.constant.float"() {value = 0.090279370546340942 : f64}
// CHECK-DAG: %[[AZ:.+]] = "torch.constant.int"() {value = 19 : i64}
// CHECK-DAG: %[[BS:.+]] = "torch.constant.float"() {value = 0.085201948881149292 : f64}
// CHECK-DAG: %[[BZ:.+]] = "torch.constant.int"() {value = 52 : i64}
// CHECK-DAG: %[[YS:.+]] = "torch.constant.float"() {value = 0.042278442531824112 : f64}
// CHECK-DAG: %[[YZ:.+]] = "torch.constant.int"() {value = 26 : i64}
// CHECK: %[[Y:.+]] = "qlower.qlinear_add"(%arg0, %[[AS]], %[[AZ]], %arg1, %[[BS]], %[[BZ]], %[[YS]], %[[YZ]]) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int, !torch.vtensor<[2],ui8>, !torch.float, !torch.int, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
// CHECK: "torch.aten.int_repr"(%[[Y]])
// CHECK-NOT: torch.aten.add.Tensor
// CHECK-NOT: torch.aten.dequantize.self
// CHECK: return
func.func @add(%arg0: !torch.vtensor<[2],ui8>, %arg1: !torch.vtensor<[2],ui8>) -> !torch.vtensor<[2],ui8> {
  %0 = "torch.constant.float"() {value = 0.09027937054634094 : f64} : () -> !torch.float
  %1 = "torch.constant.int"() {value = 19 : i64} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],f32>
  %4 = "torch.constant.float"() {value = 0.08520194888114929 : f64} : () -> !torch.float
  %5 = "torch.constant.int"() {value = 52 : i64} : () -> !torch.int
  %6 = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, %4, %5) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %7 = "torch.aten.dequantize.self"(%6) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],f32>
  %8 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %9 = "torch.aten.add.Tensor"(%3, %7, %8) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2],f32>
  %10 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %11 = "torch.constant.float"() {value = 0.042278442531824112 : f64} : () -> !torch.float
  %12 = "torch.constant.int"() {value = 26 : i64} : () -> !torch.int
  %13 = "torch.aten.quantize_per_tensor"(%9, %11, %12, %10) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %14 = "torch.aten.int_repr"(%13) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],ui8>
  return %14 : !torch.vtensor<[2],ui8>
}

// -----

// QLinearMul likewise.
// CHECK-LABEL: func.func @mul(
// CHECK: "qlower.qlinear_mul"(%arg0, %{{.+}}, %{{.+}}, %arg1, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}})
// CHECK-NOT: torch.aten.mul.Tensor
// CHECK: return
func.func @mul(%arg0: !torch.vtensor<[2],ui8>, %arg1: !torch.vtensor<[2],ui8>) -> !torch.vtensor<[2],ui8> {
  %0 = "torch.constant.float"() {value = 0.09027937054634094 : f64} : () -> !torch.float
  %1 = "torch.constant.int"() {value = 19 : i64} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],f32>
  %4 = "torch.constant.float"() {value = 0.08520194888114929 : f64} : () -> !torch.float
  %5 = "torch.constant.int"() {value = 52 : i64} : () -> !torch.int
  %6 = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, %4, %5) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %7 = "torch.aten.dequantize.self"(%6) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],f32>
  %9 = "torch.aten.mul.Tensor"(%3, %7) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  %10 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %11 = "torch.constant.float"() {value = 0.042278442531824112 : f64} : () -> !torch.float
  %12 = "torch.constant.int"() {value = 26 : i64} : () -> !torch.int
  %13 = "torch.aten.quantize_per_tensor"(%9, %11, %12, %10) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %14 = "torch.aten.int_repr"(%13) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],ui8>
  return %14 : !torch.vtensor<[2],ui8>
}

// -----

// An alpha other than 1 is not QLinearAdd: left alone.
// CHECK-LABEL: func.func @add_alpha_two(
// CHECK-NOT: qlower.
// CHECK: torch.aten.add.Tensor
// CHECK-NOT: qlower.
// CHECK: return
func.func @add_alpha_two(%arg0: !torch.vtensor<[2],ui8>, %arg1: !torch.vtensor<[2],ui8>) -> !torch.vtensor<[2],ui8> {
  %0 = "torch.constant.float"() {value = 0.09027937054634094 : f64} : () -> !torch.float
  %1 = "torch.constant.int"() {value = 19 : i64} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],f32>
  %4 = "torch.constant.float"() {value = 0.08520194888114929 : f64} : () -> !torch.float
  %5 = "torch.constant.int"() {value = 52 : i64} : () -> !torch.int
  %6 = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, %4, %5) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %7 = "torch.aten.dequantize.self"(%6) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],f32>
  %8 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %9 = "torch.aten.add.Tensor"(%3, %7, %8) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2],f32>
  %10 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %11 = "torch.constant.float"() {value = 0.042278442531824112 : f64} : () -> !torch.float
  %12 = "torch.constant.int"() {value = 26 : i64} : () -> !torch.int
  %13 = "torch.aten.quantize_per_tensor"(%9, %11, %12, %10) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %14 = "torch.aten.int_repr"(%13) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],ui8>
  return %14 : !torch.vtensor<[2],ui8>
}

// -----

// ONNX Runtime keeps an Add whose float sum something else reads unfused: so does the
// pass.
// CHECK-LABEL: func.func @add_float_sum_read_twice(
// CHECK-NOT: qlower.
// CHECK: torch.aten.add.Tensor
// CHECK: torch.aten.quantize_per_tensor
// CHECK-NOT: qlower.
// CHECK: return
func.func @add_float_sum_read_twice(%arg0: !torch.vtensor<[2],ui8>, %arg1: !torch.vtensor<[2],ui8>) -> (!torch.vtensor<[2],ui8>, !torch.vtensor<[2],f32>) {
  %0 = "torch.constant.float"() {value = 0.09027937054634094 : f64} : () -> !torch.float
  %1 = "torch.constant.int"() {value = 19 : i64} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],f32>
  %4 = "torch.constant.float"() {value = 0.08520194888114929 : f64} : () -> !torch.float
  %5 = "torch.constant.int"() {value = 52 : i64} : () -> !torch.int
  %6 = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, %4, %5) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %7 = "torch.aten.dequantize.self"(%6) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],f32>
  %8 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %9 = "torch.aten.add.Tensor"(%3, %7, %8) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2],f32>
  %10 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %11 = "torch.constant.float"() {value = 0.042278442531824112 : f64} : () -> !torch.float
  %12 = "torch.constant.int"() {value = 26 : i64} : () -> !torch.int
  %13 = "torch.aten.quantize_per_tensor"(%9, %11, %12, %10) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %14 = "torch.aten.int_repr"(%13) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],ui8>
  return %14, %9 : !torch.vtensor<[2],ui8>, !torch.vtensor<[2],f32>
}

// -----

// Operands of different 8-bit types: ONNX Runtime fuses only one type, so no fusion.
// CHECK-LABEL: func.func @add_mixed_storage(
// CHECK-NOT: qlower.
// CHECK: torch.aten.add.Tensor
// CHECK-NOT: qlower.
// CHECK: return
func.func @add_mixed_storage(%arg0: !torch.vtensor<[2],ui8>, %arg1: !torch.vtensor<[2],si8>) -> !torch.vtensor<[2],ui8> {
  %0 = "torch.constant.float"() {value = 0.09027937054634094 : f64} : () -> !torch.float
  %1 = "torch.constant.int"() {value = 19 : i64} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[2],ui8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],f32>
  %4 = "torch.constant.float"() {value = 0.08520194888114929 : f64} : () -> !torch.float
  %5 = "torch.constant.int"() {value = 52 : i64} : () -> !torch.int
  %6 = "torch.aten._make_per_tensor_quantized_tensor"(%arg1, %4, %5) : (!torch.vtensor<[2],si8>, !torch.float, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %7 = "torch.aten.dequantize.self"(%6) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>
  %8 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %9 = "torch.aten.add.Tensor"(%3, %7, %8) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2],f32>
  %10 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %11 = "torch.constant.float"() {value = 0.042278442531824112 : f64} : () -> !torch.float
  %12 = "torch.constant.int"() {value = 26 : i64} : () -> !torch.int
  %13 = "torch.aten.quantize_per_tensor"(%9, %11, %12, %10) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.quint8>
  %14 = "torch.aten.int_repr"(%13) : (!torch.vtensor<[2],!torch.quint8>) -> !torch.vtensor<[2],ui8>
  return %14 : !torch.vtensor<[2],ui8>
}

// -----

// int8 QDQ pairs on both operands and on the result: ONNX Runtime on x86-64 computes
// them as uint8, and so does the fused op it becomes.
// CHECK-LABEL: func.func @qdq_int8_add(
// CHECK: %[[QA:.+]] = "torch.aten.quantize_per_tensor"(%arg0,
// CHECK: %[[QB:.+]] = "torch.aten.quantize_per_tensor"(%arg1,
// CHECK: %[[Y:.+]] = "qlower.qlinear_add_as_uint8"(%[[QA]], %{{.+}}, %{{.+}}, %[[QB]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}})
// CHECK: "torch.aten.dequantize.self"(%[[Y]])
// CHECK-NOT: torch.aten.add.Tensor
// CHECK: return
func.func @qdq_int8_add(%arg0: !torch.vtensor<[2],f32>, %arg1: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %1 = "torch.constant.float"() {value = 0.017672596126794815 : f64} : () -> !torch.float
  %2 = "torch.constant.int"() {value = 31 : i64} : () -> !torch.int
  %3 = "torch.aten.quantize_per_tensor"(%arg0, %1, %2, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %4 = "torch.aten.dequantize.self"(%3) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>
  %5 = "torch.constant.float"() {value = 0.052297420054674149 : f64} : () -> !torch.float
  %6 = "torch.constant.int"() {value = 68 : i64} : () -> !torch.int
  %7 = "torch.aten.quantize_per_tensor"(%arg1, %5, %6, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %8 = "torch.aten.dequantize.self"(%7) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>
  %9 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %10 = "torch.aten.add.Tensor"(%4, %8, %9) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2],f32>
  %11 = "torch.constant.float"() {value = 0.051893882453441620 : f64} : () -> !torch.float
  %12 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %15 = "torch.aten.quantize_per_tensor"(%10, %11, %12, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %16 = "torch.aten.dequantize.self"(%15) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>
  return %16 : !torch.vtensor<[2],f32>
}

// -----

// The result's integers are the graph's output, so its QuantizeLinear is no pair and
// the operands' are: mixed, and ONNX Runtime runs the float Add. No fusion.
// CHECK-LABEL: func.func @qdq_int8_add_int_result(
// CHECK-NOT: qlower.
// CHECK: torch.aten.add.Tensor
// CHECK-NOT: qlower.
// CHECK: return
func.func @qdq_int8_add_int_result(%arg0: !torch.vtensor<[2],f32>, %arg1: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],si8> {
  %0 = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %1 = "torch.constant.float"() {value = 0.017672596126794815 : f64} : () -> !torch.float
  %2 = "torch.constant.int"() {value = 31 : i64} : () -> !torch.int
  %3 = "torch.aten.quantize_per_tensor"(%arg0, %1, %2, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %4 = "torch.aten.dequantize.self"(%3) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>
  %5 = "torch.constant.float"() {value = 0.052297420054674149 : f64} : () -> !torch.float
  %6 = "torch.constant.int"() {value = 68 : i64} : () -> !torch.int
  %7 = "torch.aten.quantize_per_tensor"(%arg1, %5, %6, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %8 = "torch.aten.dequantize.self"(%7) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>
  %9 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %10 = "torch.aten.add.Tensor"(%4, %8, %9) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.int) -> !torch.vtensor<[2],f32>
  %11 = "torch.constant.float"() {value = 0.051893882453441620 : f64} : () -> !torch.float
  %12 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %15 = "torch.aten.quantize_per_tensor"(%10, %11, %12, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %16 = "torch.aten.int_repr"(%15) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],si8>
  return %16 : !torch.vtensor<[2],si8>
}

// -----

// QLinearSoftmax: x's integers and scale, the axis, and the result's scale, zero point
// and dtype.
// CHECK-LABEL: func.func @softmax(
// CHECK-DAG: %[[XS:.+]] = "torch.constant.float"() {value = 0.0049371873028576374 : f64}
// CHECK-DAG: %[[DIM:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK-DAG: %[[DT:.+]] = "torch.constant.int"() {value = 12 : i64}
// CHECK-DAG: %[[YS:.+]] = "torch.constant.float"() {value = 3.906250e-03 : f64}
// CHECK-DAG: %[[YZ:.+]] = "torch.constant.int"() {value = -128 : i64}
// CHECK: %[[Y:.+]] = "qlower.qlinear_softmax"(%arg0, %[[XS]], %[[DIM]], %[[YS]], %[[YZ]], %[[DT]]) : {{.+}} -> !torch.vtensor<[3,4],!torch.qint8>
// CHECK: "torch.aten.int_repr"(%[[Y]])
// CHECK-NOT: torch.aten.softmax.int
// CHECK: return
func.func @softmax(%arg0: !torch.vtensor<[3,4],si8>) -> !torch.vtensor<[3,4],si8> {
  %0 = "torch.constant.float"() {value = 0.0049371873028576374 : f64} : () -> !torch.float
  %1 = "torch.constant.int"() {value = 36 : i64} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[3,4],si8>, !torch.float, !torch.int) -> !torch.vtensor<[3,4],!torch.qint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[3,4],!torch.qint8>) -> !torch.vtensor<[3,4],f32>
  %4 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %5 = "torch.constant.none"() : () -> !torch.none
  %6 = "torch.aten.softmax.int"(%3, %4, %5) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.none) -> !torch.vtensor<[3,4],f32>
  %7 = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %8 = "torch.constant.float"() {value = 3.906250e-03 : f64} : () -> !torch.float
  %9 = "torch.constant.int"() {value = -128 : i64} : () -> !torch.int
  %10 = "torch.aten.quantize_per_tensor"(%6, %8, %9, %7) : (!torch.vtensor<[3,4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[3,4],!torch.qint8>
  %11 = "torch.aten.int_repr"(%10) : (!torch.vtensor<[3,4],!torch.qint8>) -> !torch.vtensor<[3,4],si8>
  return %11 : !torch.vtensor<[3,4],si8>
}

// -----

// A softmax with its own dtype is no QLinearSoftmax: left alone.
// CHECK-LABEL: func.func @softmax_with_dtype(
// CHECK-NOT: qlower.
// CHECK: torch.aten.softmax.int
// CHECK-NOT: qlower.
// CHECK: return
func.func @softmax_with_dtype(%arg0: !torch.vtensor<[3,4],si8>) -> !torch.vtensor<[3,4],si8> {
  %0 = "torch.constant.float"() {value = 0.0049371873028576374 : f64} : () -> !torch.float
  %1 = "torch.constant.int"() {value = 36 : i64} : () -> !torch.int
  %2 = "torch.aten._make_per_tensor_quantized_tensor"(%arg0, %0, %1) : (!torch.vtensor<[3,4],si8>, !torch.float, !torch.int) -> !torch.vtensor<[3,4],!torch.qint8>
  %3 = "torch.aten.dequantize.self"(%2) : (!torch.vtensor<[3,4],!torch.qint8>) -> !torch.vtensor<[3,4],f32>
  %4 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %5 = "torch.constant.int"() {value = 6 : i64} : () -> !torch.int
  %6 = "torch.aten.softmax.int"(%3, %4, %5) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3,4],f32>
  %7 = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %8 = "torch.constant.float"() {value = 3.906250e-03 : f64} : () -> !torch.float
  %9 = "torch.constant.int"() {value = -128 : i64} : () -> !torch.int
  %10 = "torch.aten.quantize_per_tensor"(%6, %8, %9, %7) : (!torch.vtensor<[3,4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[3,4],!torch.qint8>
  %11 = "torch.aten.int_repr"(%10) : (!torch.vtensor<[3,4],!torch.qint8>) -> !torch.vtensor<[3,4],si8>
  return %11 : !torch.vtensor<[3,4],si8>
}

// -----

// The same for a QDQ int8 multiply: qlower.qlinear_mul_as_uint8.
// CHECK-LABEL: func.func @qdq_int8_mul(
// CHECK: "qlower.qlinear_mul_as_uint8"(
// CHECK-NOT: torch.aten.mul.Tensor
// CHECK: return
func.func @qdq_int8_mul(%arg0: !torch.vtensor<[2],f32>, %arg1: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
  %0 = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %1 = "torch.constant.float"() {value = 0.017672596126794815 : f64} : () -> !torch.float
  %2 = "torch.constant.int"() {value = 31 : i64} : () -> !torch.int
  %3 = "torch.aten.quantize_per_tensor"(%arg0, %1, %2, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %4 = "torch.aten.dequantize.self"(%3) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>
  %5 = "torch.constant.float"() {value = 0.052297420054674149 : f64} : () -> !torch.float
  %6 = "torch.constant.int"() {value = 68 : i64} : () -> !torch.int
  %7 = "torch.aten.quantize_per_tensor"(%arg1, %5, %6, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %8 = "torch.aten.dequantize.self"(%7) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>
  %10 = "torch.aten.mul.Tensor"(%4, %8) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
  %11 = "torch.constant.float"() {value = 0.051893882453441620 : f64} : () -> !torch.float
  %12 = "torch.constant.int"() {value = -1 : i64} : () -> !torch.int
  %15 = "torch.aten.quantize_per_tensor"(%10, %11, %12, %0) : (!torch.vtensor<[2],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[2],!torch.qint8>
  %16 = "torch.aten.dequantize.self"(%15) : (!torch.vtensor<[2],!torch.qint8>) -> !torch.vtensor<[2],f32>
  return %16 : !torch.vtensor<[2],f32>
}

// -----

// A QDQ int8 softmax with lone pairs on its input and result: ONNX Runtime computes it
// as uint8, and so does qlower.qlinear_softmax_as_uint8.
// CHECK-LABEL: func.func @qdq_int8_softmax(
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%arg0,
// CHECK: %[[Y:.+]] = "qlower.qlinear_softmax_as_uint8"(%[[Q]],
// CHECK-NEXT: "torch.aten.dequantize.self"(%[[Y]])
// CHECK-NOT: torch.aten.softmax.int
// CHECK: return
func.func @qdq_int8_softmax(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> {
  %0 = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %1 = "torch.constant.float"() {value = 0.017672596126794815 : f64} : () -> !torch.float
  %2 = "torch.constant.int"() {value = 31 : i64} : () -> !torch.int
  %3 = "torch.aten.quantize_per_tensor"(%arg0, %1, %2, %0) : (!torch.vtensor<[3,4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[3,4],!torch.qint8>
  %4 = "torch.aten.dequantize.self"(%3) : (!torch.vtensor<[3,4],!torch.qint8>) -> !torch.vtensor<[3,4],f32>
  %5 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %6 = "torch.constant.none"() : () -> !torch.none
  %7 = "torch.aten.softmax.int"(%4, %5, %6) : (!torch.vtensor<[3,4],f32>, !torch.int, !torch.none) -> !torch.vtensor<[3,4],f32>
  %8 = "torch.constant.float"() {value = 3.906250e-03 : f64} : () -> !torch.float
  %9 = "torch.constant.int"() {value = -128 : i64} : () -> !torch.int
  %10 = "torch.aten.quantize_per_tensor"(%7, %8, %9, %0) : (!torch.vtensor<[3,4],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[3,4],!torch.qint8>
  %11 = "torch.aten.dequantize.self"(%10) : (!torch.vtensor<[3,4],!torch.qint8>) -> !torch.vtensor<[3,4],f32>
  return %11 : !torch.vtensor<[3,4],f32>
}
