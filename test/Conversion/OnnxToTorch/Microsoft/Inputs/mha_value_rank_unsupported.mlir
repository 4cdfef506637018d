// Input of attention.mlir: a MultiHeadAttention whose key is in heads but whose value is not, refused.
func.func @bad(%q: !torch.vtensor<[2,5,32],f32>, %k: !torch.vtensor<[2,4,5,8],f32>, %v: !torch.vtensor<[2,5,32],f32>) -> !torch.vtensor<[2,5,32],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%q, %k, %v) {name = "com.microsoft.MultiHeadAttention", torch.onnx.num_heads = 4 : si64} : (!torch.vtensor<[2,5,32],f32>, !torch.vtensor<[2,4,5,8],f32>, !torch.vtensor<[2,5,32],f32>) -> !torch.vtensor<[2,5,32],f32>
  return %0 : !torch.vtensor<[2,5,32],f32>
}
