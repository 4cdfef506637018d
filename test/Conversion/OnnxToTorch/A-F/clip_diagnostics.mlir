// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'clip_vector' (Clip): min must be a scalar, but is !torch.vtensor<[4],f32>
func.func @vector_bound(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.Clip"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[3,4],f32> loc("clip_vector")
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// CHECK: error: node 'clip_dtype' (Clip): max is INT32 but input is FLOAT
func.func @bound_dtype(%arg0: !torch.vtensor<[3,4],f32>, %arg1: !torch.vtensor<[],f32>, %arg2: !torch.vtensor<[],si32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"(%arg0, %arg1, %arg2) {name = "onnx.Clip"} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],si32>) -> !torch.vtensor<[3,4],f32> loc("clip_dtype")
  return %0 : !torch.vtensor<[3,4],f32>
}
