// fuse-for-cpu, 4-bit weights: the blocked DequantizeLinear of a constant INT4 [K, N]
// weight (ONNX's int4 QDQ form: rows of one block each, dequantized, reshaped to
// [N, K] and permuted) feeding a MatMul becomes qlower.matmul_nbits, whose kernel keeps
// the codes packed two per byte. Signed codes and zero points move up by 8 together,
// which keeps every difference the kernel scales.
// RUN: qlower-opt --fuse-for-cpu --dce %s | FileCheck %s

// CHECK-LABEL: func.func @int4_qdq_matmul(
// The first codes, 5 and 0, are 13 and 8 moved up: one byte, 13 | 8 << 4 = 141.
// CHECK-DAG: %[[CODES:.+]] = "torch.vtensor.literal"() {value = dense<{{\[\[\[}}141, 20, 162, 248, {{.*}}> : tensor<2x2x8xui8>}
// CHECK-DAG: %[[ZPS:.+]] = "torch.vtensor.literal"() {value = dense<[6, 11, 7, 14]> : tensor<4xui8>}
// CHECK: "qlower.matmul_nbits"(%arg0, %[[CODES]], %{{.+}}, %[[ZPS]], %{{.+}}, %{{.+}})
// CHECK-NOT: torch.aten.dequantize.self
// CHECK-NOT: torch.aten.matmul
// CHECK: return
func.func @int4_qdq_matmul(%arg0: !torch.vtensor<[1,32],f32>) -> !torch.vtensor<[1,2],f32> {
  %0 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %1 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %2 = "torch.prim.ListConstruct"(%0, %1) : (!torch.int, !torch.int) -> !torch.list<int>
  %3 = "torch.vtensor.literal"() {value = dense<[0.0167548247, 0.0362677164, 0.0460744165, 0.0255120937]> : tensor<4xf32>} : () -> !torch.vtensor<[4],f32>
  %4 = "torch.vtensor.literal"() {value = dense<[[5, 0, -4, -7, -6, 2, 0, 7, 2, 0, -4, 2, -2, 0, 4, 5], [-7, -8, -7, -1, -2, -8, -8, 0, -4, 4, -1, 4, -2, 7, 5, 3], [2, -4, -8, -8, 5, 6, 1, 3, 0, 6, 5, -8, 5, -8, 3, -6], [5, 0, -4, -2, -8, -7, 2, 2, 1, -2, 7, 7, 2, 2, 3, -2]]> : tensor<4x16xsi8>} : () -> !torch.vtensor<[4,16],si8>
  %5 = "torch.vtensor.literal"() {value = dense<[-2, 3, -1, 6]> : tensor<4xsi8>} : () -> !torch.vtensor<[4],si8>
  %6 = "torch.aten._make_per_channel_quantized_tensor"(%4, %3, %5, %1) : (!torch.vtensor<[4,16],si8>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],si8>, !torch.int) -> !torch.vtensor<[4,16],!torch.qint8>
  %7 = "torch.aten.dequantize.self"(%6) : (!torch.vtensor<[4,16],!torch.qint8>) -> !torch.vtensor<[4,16],f32>
  %8 = "torch.constant.int"() {value = 2 : i64} : () -> !torch.int
  %9 = "torch.constant.int"() {value = 32 : i64} : () -> !torch.int
  %10 = "torch.prim.ListConstruct"(%8, %9) : (!torch.int, !torch.int) -> !torch.list<int>
  %11 = "torch.aten.reshape"(%7, %10) : (!torch.vtensor<[4,16],f32>, !torch.list<int>) -> !torch.vtensor<[2,32],f32>
  %12 = "torch.aten.permute"(%11, %2) : (!torch.vtensor<[2,32],f32>, !torch.list<int>) -> !torch.vtensor<[32,2],f32>
  %13 = "torch.aten.matmul"(%arg0, %12) : (!torch.vtensor<[1,32],f32>, !torch.vtensor<[32,2],f32>) -> !torch.vtensor<[1,2],f32>
  return %13 : !torch.vtensor<[1,2],f32>
}
