// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'nh' (RotaryEmbedding): a 3-D input needs a positive num_heads, but it is 0
func.func @no_heads(%x: !torch.vtensor<[2,3,32],f32>, %c: !torch.vtensor<[50,4],f32>, %p: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3,32],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0 = "torch.operator"(%x, %c, %c, %p) {name = "onnx.RotaryEmbedding"} : (!torch.vtensor<[2,3,32],f32>, !torch.vtensor<[50,4],f32>, !torch.vtensor<[50,4],f32>, !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,3,32],f32> loc("nh")
  return %0 : !torch.vtensor<[2,3,32],f32>
}

// -----

// CHECK: error: node 'dim' (RotaryEmbedding): rotary_embedding_dim 6 does not match the caches' last dimension 4 (half of it)
func.func @dim_mismatch(%x: !torch.vtensor<[2,4,3,8],f32>, %c: !torch.vtensor<[50,4],f32>, %p: !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,4,3,8],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0 = "torch.operator"(%x, %c, %c, %p) {name = "onnx.RotaryEmbedding", torch.onnx.rotary_embedding_dim = 6 : si64} : (!torch.vtensor<[2,4,3,8],f32>, !torch.vtensor<[50,4],f32>, !torch.vtensor<[50,4],f32>, !torch.vtensor<[2,3],si64>) -> !torch.vtensor<[2,4,3,8],f32> loc("dim")
  return %0 : !torch.vtensor<[2,4,3,8],f32>
}

// -----

// CHECK: error: node 'cache' (RotaryEmbedding): without position_ids, cos_cache and sin_cache must be [B, S, rotary_dim / 2]
func.func @cache_rank(%x: !torch.vtensor<[2,4,3,8],f32>, %c: !torch.vtensor<[50,4],f32>) -> !torch.vtensor<[2,4,3,8],f32> attributes {torch.onnx_meta.opset_version = 23 : si64} {
  %0 = "torch.operator"(%x, %c, %c) {name = "onnx.RotaryEmbedding"} : (!torch.vtensor<[2,4,3,8],f32>, !torch.vtensor<[50,4],f32>, !torch.vtensor<[50,4],f32>) -> !torch.vtensor<[2,4,3,8],f32> loc("cache")
  return %0 : !torch.vtensor<[2,4,3,8],f32>
}
