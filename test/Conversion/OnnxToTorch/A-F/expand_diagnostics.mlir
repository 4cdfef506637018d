// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'expand_len' (Expand): input 'shape' is computed at run time and its length is not known (!torch.vtensor<[?],si64>); a 1-D tensor of known length is needed
func.func @unknown_length(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Expand"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[?],si64>) -> !torch.vtensor<[?],f32> loc("expand_len")
  return %0 : !torch.vtensor<[?],f32>
}

// -----

// CHECK: error: node 'expand_rank' (Expand): the result has rank 3, but input 'shape' has 2 entries and input 'input' rank 1
func.func @rank_mismatch(%arg0: !torch.vtensor<[3],f32>, %arg1: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Expand"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?,?],f32> loc("expand_rank")
  return %0 : !torch.vtensor<[?,?,?],f32>
}
