// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'gathernd_dynamic' (GatherND): the last dimension of indices (the length of each index tuple) must be known at compile time, since it fixes the rank of the result; indices are !torch.vtensor<[2,?],si64>
func.func @dynamic(%arg0: !torch.vtensor<[?,4],f32>, %arg1: !torch.vtensor<[2,?],si64>) -> !torch.vtensor<[2,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.GatherND"} : (!torch.vtensor<[?,4],f32>, !torch.vtensor<[2,?],si64>) -> !torch.vtensor<[2,4],f32> loc("gathernd_dynamic")
  return %0 : !torch.vtensor<[2,4],f32>
}

// -----

// CHECK: error: node 'gathernd_batch' (GatherND): the first 1 dimensions of data [2, 3] and indices [3, 1] must be equal
func.func @batch_mismatch(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.vtensor<[3,1],si64>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.GatherND", torch.onnx.batch_dims = 1 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[3,1],si64>) -> !torch.vtensor<[3],f32> loc("gathernd_batch")
  return %0 : !torch.vtensor<[3],f32>
}
