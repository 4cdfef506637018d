// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// K = 20 in blocks of 16: two blocks per column of N, the last one partial. The packed
// 4-bit codes are unpacked at compile time into [N·k_blocks, block] = [4,16] rows (low
// nibble first, the partial block padded with 0); each row is one channel of a
// per-channel quantized tensor whose zero points are the packed ones, unpacked too.
// The rows go back to [N, 32], are cut to K and transposed for the matmul.
// CHECK-LABEL: func.func @test_matmulnbits_asymmetric(
func.func @test_matmulnbits_asymmetric(%a: !torch.vtensor<[3,20],f32>, %s: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %b = "torch.vtensor.literal"() {value = dense<[[[16, 50, 84, 118, 152, 186, 220, 254], [1, 2, 3, 4, 5, 6, 7, 8]], [[255, 0, 255, 0, 255, 0, 255, 0], [9, 9, 9, 9, 9, 9, 9, 9]]]> : tensor<2x2x8xui8>} : () -> !torch.vtensor<[2,2,8],ui8>
  %z = "torch.vtensor.literal"() {value = dense<[[33], [196]]> : tensor<2x1xui8>} : () -> !torch.vtensor<[2,1],ui8>
  %0 = "torch.operator"(%a, %b, %s, %z) {name = "com.microsoft.MatMulNBits", torch.onnx.K = 20 : si64, torch.onnx.N = 2 : si64, torch.onnx.bits = 4 : si64, torch.onnx.block_size = 16 : si64} : (!torch.vtensor<[3,20],f32>, !torch.vtensor<[2,2,8],ui8>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[2,1],ui8>) -> !torch.vtensor<[3,2],f32>
  return %0 : !torch.vtensor<[3,2],f32>
}
// CHECK: %[[S:.+]] = "torch.aten.reshape"(%arg1, {{.*}} -> !torch.vtensor<[4],f32>
// CHECK: %[[CODES:.+]] = "torch.vtensor.literal"() {value = dense<{{\[\[}}0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [15, 15, 0, 0, 15, 15, 0, 0, 15, 15, 0, 0, 15, 15, 0, 0], [9, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<4x16xui8>}
// CHECK: %[[ZP:.+]] = "torch.vtensor.literal"() {value = dense<[1, 2, 4, 12]> : tensor<4xui8>}
// CHECK: %[[Q:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%[[CODES]], %[[S]], %[[ZP]], %{{.+}}) : {{.*}} -> !torch.vtensor<[4,16],!torch.quint8>
// CHECK: %[[W:.+]] = "torch.aten.dequantize.self"(%[[Q]]) : {{.*}} -> !torch.vtensor<[4,16],f32>
// CHECK: %[[WR:.+]] = "torch.aten.reshape"(%[[W]], {{.*}} -> !torch.vtensor<[2,32],f32>
// CHECK: %[[WK:.+]] = "torch.aten.slice.Tensor"(%[[WR]], {{.*}} -> !torch.vtensor<[2,20],f32>
// CHECK: %[[WT:.+]] = "torch.aten.transpose.int"(%[[WK]], {{.*}} -> !torch.vtensor<[20,2],f32>
// CHECK: %[[Y:.+]] = "torch.aten.matmul"(%arg0, %[[WT]]) : {{.*}} -> !torch.vtensor<[3,2],f32>
// CHECK-NEXT: return %[[Y]]

// Without zero points every row's is 2^(bits-1) = 8. An act-order g_idx (block of each
// column of K) reorders the codes so each block is one row, and A's columns with them.
// A float zero point z subtracts z·scale from its row; the bias is added last.
// CHECK-LABEL: func.func @test_matmulnbits_g_idx_float_zero_point_bias(
func.func @test_matmulnbits_g_idx_float_zero_point_bias(%a: !torch.vtensor<[1,1,32],f32>, %s: !torch.vtensor<[2],f32>, %z: !torch.vtensor<[2],f32>, %bias: !torch.vtensor<[1],f32>) -> !torch.vtensor<[1,1,1],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %b = "torch.vtensor.literal"() {value = dense<17> : tensor<1x2x8xui8>} : () -> !torch.vtensor<[1,2,8],ui8>
  %g = "torch.vtensor.literal"() {value = dense<[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<32xsi32>} : () -> !torch.vtensor<[32],si32>
  %0 = "torch.operator"(%a, %b, %s, %z, %g, %bias) {name = "com.microsoft.MatMulNBits", torch.onnx.K = 32 : si64, torch.onnx.N = 1 : si64, torch.onnx.bits = 4 : si64, torch.onnx.block_size = 16 : si64, torch.onnx.accuracy_level = 4 : si64} : (!torch.vtensor<[1,1,32],f32>, !torch.vtensor<[1,2,8],ui8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[32],si32>, !torch.vtensor<[1],f32>) -> !torch.vtensor<[1,1,1],f32>
  return %0 : !torch.vtensor<[1,1,1],f32>
}
// CHECK: %[[ZP:.+]] = "torch.vtensor.literal"() {value = dense<0> : tensor<2xui8>}
// CHECK: %[[W:.+]] = "torch.aten.dequantize.self"({{.*}} -> !torch.vtensor<[2,16],f32>
// CHECK: %[[OFF:.+]] = "torch.aten.mul.Tensor"({{.*}} -> !torch.vtensor<[2,1],f32>
// CHECK: %[[WZ:.+]] = "torch.aten.sub.Tensor"(%[[W]], %[[OFF]], {{.*}} -> !torch.vtensor<[2,16],f32>
// CHECK: %[[WT:.+]] = "torch.aten.transpose.int"({{.*}} -> !torch.vtensor<[32,1],f32>
// CHECK: %[[IDX:.+]] = "torch.vtensor.literal"() {value = dense<[16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : tensor<32xsi64>}
// CHECK: %[[A:.+]] = "torch.aten.index_select"(%arg0, %{{.+}}, %[[IDX]]) : {{.*}} -> !torch.vtensor<[1,1,32],f32>
// CHECK: %[[MM:.+]] = "torch.aten.matmul"(%[[A]], %[[WT]]) : {{.*}} -> !torch.vtensor<[1,1,1],f32>
// CHECK: %[[Y:.+]] = "torch.aten.add.Tensor"(%[[MM]], %arg3, {{.*}} -> !torch.vtensor<[1,1,1],f32>
// CHECK-NEXT: return %[[Y]]

// CHECK-LABEL: func.func @test_matmulnbits_symmetric(
func.func @test_matmulnbits_symmetric(%a: !torch.vtensor<[2,16],f32>, %s: !torch.vtensor<[1,1],f32>) -> !torch.vtensor<[2,1],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %b = "torch.vtensor.literal"() {value = dense<120> : tensor<1x1x8xui8>} : () -> !torch.vtensor<[1,1,8],ui8>
  %0 = "torch.operator"(%a, %b, %s) {name = "com.microsoft.MatMulNBits", torch.onnx.K = 16 : si64, torch.onnx.N = 1 : si64, torch.onnx.block_size = 16 : si64} : (!torch.vtensor<[2,16],f32>, !torch.vtensor<[1,1,8],ui8>, !torch.vtensor<[1,1],f32>) -> !torch.vtensor<[2,1],f32>
  return %0 : !torch.vtensor<[2,1],f32>
}
// CHECK: %[[CODES:.+]] = "torch.vtensor.literal"() {value = dense<{{\[\[}}8, 7, 8, 7, 8, 7, 8, 7, 8, 7, 8, 7, 8, 7, 8, 7]]> : tensor<1x16xui8>}
// CHECK: %[[ZP:.+]] = "torch.vtensor.literal"() {value = dense<8> : tensor<1xui8>}
// CHECK: "torch.aten._make_per_channel_quantized_tensor"(%[[CODES]], %{{.+}}, %[[ZP]], %{{.+}})
// CHECK-NOT: slice.Tensor
// CHECK: "torch.aten.matmul"
