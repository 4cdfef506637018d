// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'd2s_mode' (DepthToSpace): attribute 'mode' is 'RCD', but must be 'DCR' or 'CRD'
func.func @mode(%arg0: !torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.DepthToSpace", torch.onnx.blocksize = 2 : si64, torch.onnx.mode = "RCD"} : (!torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32> loc("d2s_mode")
  return %0 : !torch.vtensor<[1,2,4,6],f32>
}

// -----

// CHECK: error: node 'd2s_no_blocksize' (DepthToSpace): missing required attribute 'blocksize'
func.func @no_blocksize(%arg0: !torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.DepthToSpace"} : (!torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32> loc("d2s_no_blocksize")
  return %0 : !torch.vtensor<[1,2,4,6],f32>
}

// -----

// CHECK: error: node 's2d_rank' (SpaceToDepth): input 'input' has rank 3, but needs rank 4
func.func @rank(%arg0: !torch.vtensor<[2,4,6],f32>) -> !torch.vtensor<[?,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.SpaceToDepth", torch.onnx.blocksize = 2 : si64} : (!torch.vtensor<[2,4,6],f32>) -> !torch.vtensor<[?,?,?],f32> loc("s2d_rank")
  return %0 : !torch.vtensor<[?,?,?],f32>
}

// -----

// CHECK: error: node 's2d_blocksize' (SpaceToDepth): attribute 'blocksize' is 0, but must be at least 1 and its square an int64
func.func @zero_block(%arg0: !torch.vtensor<[1,2,4,6],f32>) -> !torch.vtensor<[?,?,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.SpaceToDepth", torch.onnx.blocksize = 0 : si64} : (!torch.vtensor<[1,2,4,6],f32>) -> !torch.vtensor<[?,?,?,?],f32> loc("s2d_blocksize")
  return %0 : !torch.vtensor<[?,?,?,?],f32>
}
