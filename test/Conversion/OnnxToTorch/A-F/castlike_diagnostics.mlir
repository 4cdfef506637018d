// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'cl_type' (CastLike): output is FLOAT but input target_type is DOUBLE
func.func @castlike_output_disagrees(%arg0: !torch.vtensor<[2],f32>, %arg1: !torch.vtensor<[1],f64>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.opset_version = 15 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.CastLike"} : (!torch.vtensor<[2],f32>, !torch.vtensor<[1],f64>) -> !torch.vtensor<[2],f32> loc("cl_type")
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// CHECK: error: node 'cl_unknown' (CastLike): input target_type has an unknown element type
func.func @castlike_unknown_target(%arg0: !torch.vtensor<[2],f32>, %arg1: !torch.vtensor<[1],unk>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.opset_version = 15 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.CastLike"} : (!torch.vtensor<[2],f32>, !torch.vtensor<[1],unk>) -> !torch.vtensor<[2],f32> loc("cl_unknown")
  return %0 : !torch.vtensor<[2],f32>
}
