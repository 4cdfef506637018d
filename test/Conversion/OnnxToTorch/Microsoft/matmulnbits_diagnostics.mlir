// Malformed MatMulNBits ops are compile errors naming the node and what is wrong.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'nbits_bits3' (MatMulNBits): bits 3 is not supported (4 and 8 are)
func.func @nbits_bits3(%a: !torch.vtensor<[3,20],f32>, %s: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %b = "torch.vtensor.literal"() {value = dense<1> : tensor<2x2x6xui8>} : () -> !torch.vtensor<[2,2,6],ui8>
  %0 = "torch.operator"(%a, %b, %s) {name = "com.microsoft.MatMulNBits", torch.onnx.K = 20 : si64, torch.onnx.N = 2 : si64, torch.onnx.block_size = 16 : si64, torch.onnx.bits = 3 : si64} : (!torch.vtensor<[3,20],f32>, !torch.vtensor<[2,2,6],ui8>, !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> loc("nbits_bits3")
  return %0 : !torch.vtensor<[3,2],f32>
}

// -----

// CHECK: error: node 'nbits_block24' (MatMulNBits): block_size 24 is not supported (a power of two from 16 to 256 is)
func.func @nbits_block24(%a: !torch.vtensor<[3,20],f32>, %s: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %b = "torch.vtensor.literal"() {value = dense<1> : tensor<2x1x12xui8>} : () -> !torch.vtensor<[2,1,12],ui8>
  %0 = "torch.operator"(%a, %b, %s) {name = "com.microsoft.MatMulNBits", torch.onnx.K = 20 : si64, torch.onnx.N = 2 : si64, torch.onnx.block_size = 24 : si64} : (!torch.vtensor<[3,20],f32>, !torch.vtensor<[2,1,12],ui8>, !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> loc("nbits_block24")
  return %0 : !torch.vtensor<[3,2],f32>
}

// -----

// CHECK: error: node 'nbits_k_mismatch' (MatMulNBits): A's last dimension is 20, but attribute K is 32
func.func @nbits_k_mismatch(%a: !torch.vtensor<[3,20],f32>, %s: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %b = "torch.vtensor.literal"() {value = dense<1> : tensor<2x2x8xui8>} : () -> !torch.vtensor<[2,2,8],ui8>
  %0 = "torch.operator"(%a, %b, %s) {name = "com.microsoft.MatMulNBits", torch.onnx.K = 32 : si64, torch.onnx.N = 2 : si64, torch.onnx.block_size = 16 : si64} : (!torch.vtensor<[3,20],f32>, !torch.vtensor<[2,2,8],ui8>, !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> loc("nbits_k_mismatch")
  return %0 : !torch.vtensor<[3,2],f32>
}

// -----

// CHECK: error: node 'nbits_b_size' (MatMulNBits): B has 24 bytes, but N=2 × k_blocks=2 × blob_size=8 is 32
func.func @nbits_b_size(%a: !torch.vtensor<[3,20],f32>, %s: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %b = "torch.vtensor.literal"() {value = dense<1> : tensor<2x2x6xui8>} : () -> !torch.vtensor<[2,2,6],ui8>
  %0 = "torch.operator"(%a, %b, %s) {name = "com.microsoft.MatMulNBits", torch.onnx.K = 20 : si64, torch.onnx.N = 2 : si64, torch.onnx.block_size = 16 : si64} : (!torch.vtensor<[3,20],f32>, !torch.vtensor<[2,2,6],ui8>, !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> loc("nbits_b_size")
  return %0 : !torch.vtensor<[3,2],f32>
}

// -----

// CHECK: error: node 'nbits_scales' (MatMulNBits): scales must have N × k_blocks = 4 elements, but is !torch.vtensor<[2],f32>
func.func @nbits_scales(%a: !torch.vtensor<[3,20],f32>, %s: !torch.vtensor<[2],f32>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %b = "torch.vtensor.literal"() {value = dense<1> : tensor<2x2x8xui8>} : () -> !torch.vtensor<[2,2,8],ui8>
  %0 = "torch.operator"(%a, %b, %s) {name = "com.microsoft.MatMulNBits", torch.onnx.K = 20 : si64, torch.onnx.N = 2 : si64, torch.onnx.block_size = 16 : si64} : (!torch.vtensor<[3,20],f32>, !torch.vtensor<[2,2,8],ui8>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[3,2],f32> loc("nbits_scales")
  return %0 : !torch.vtensor<[3,2],f32>
}

// -----

// CHECK: error: node 'nbits_zero_points' (MatMulNBits): packed zero_points must have N × ceil(k_blocks × bits / 8) = 2 bytes, but is !torch.vtensor<[4],ui8>
func.func @nbits_zero_points(%a: !torch.vtensor<[3,20],f32>, %s: !torch.vtensor<[2,2],f32>, %z: !torch.vtensor<[4],ui8>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %b = "torch.vtensor.literal"() {value = dense<1> : tensor<2x2x8xui8>} : () -> !torch.vtensor<[2,2,8],ui8>
  %0 = "torch.operator"(%a, %b, %s, %z) {name = "com.microsoft.MatMulNBits", torch.onnx.K = 20 : si64, torch.onnx.N = 2 : si64, torch.onnx.block_size = 16 : si64} : (!torch.vtensor<[3,20],f32>, !torch.vtensor<[2,2,8],ui8>, !torch.vtensor<[2,2],f32>, !torch.vtensor<[4],ui8>) -> !torch.vtensor<[3,2],f32> loc("nbits_zero_points")
  return %0 : !torch.vtensor<[3,2],f32>
}

// -----

// CHECK: error: node 'nbits_g_idx' (MatMulNBits): g_idx must give each block exactly block_size=16 columns
func.func @nbits_g_idx(%a: !torch.vtensor<[3,20],f32>, %s: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %b = "torch.vtensor.literal"() {value = dense<1> : tensor<2x2x8xui8>} : () -> !torch.vtensor<[2,2,8],ui8>
  %none = "torch.constant.none"() : () -> !torch.none
  %g = "torch.vtensor.literal"() {value = dense<0> : tensor<20xsi32>} : () -> !torch.vtensor<[20],si32>
  %0 = "torch.operator"(%a, %b, %s, %none, %g) {name = "com.microsoft.MatMulNBits", torch.onnx.K = 20 : si64, torch.onnx.N = 2 : si64, torch.onnx.block_size = 16 : si64} : (!torch.vtensor<[3,20],f32>, !torch.vtensor<[2,2,8],ui8>, !torch.vtensor<[2,2],f32>, !torch.none, !torch.vtensor<[20],si32>) -> !torch.vtensor<[3,2],f32> loc("nbits_g_idx")
  return %0 : !torch.vtensor<[3,2],f32>
}

// -----

// CHECK: error: node 'nbits_b_argument' (MatMulNBits): input B must be a constant initializer (its packed codes are unpacked at compile time)
func.func @nbits_b_argument(%a: !torch.vtensor<[3,20],f32>, %b: !torch.vtensor<[2,2,8],ui8>, %s: !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%a, %b, %s) {name = "com.microsoft.MatMulNBits", torch.onnx.K = 20 : si64, torch.onnx.N = 2 : si64, torch.onnx.block_size = 16 : si64} : (!torch.vtensor<[3,20],f32>, !torch.vtensor<[2,2,8],ui8>, !torch.vtensor<[2,2],f32>) -> !torch.vtensor<[3,2],f32> loc("nbits_b_argument")
  return %0 : !torch.vtensor<[3,2],f32>
}
