// AveragePool forms torch cannot express are compile errors naming the node.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'ap_dilations' (AveragePool): attribute 'dilations' is [2, 2], but torch's avg_pool has no dilation
func.func @dilations(%arg0: !torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,6,6],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.AveragePool", torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.dilations = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,6,6],f32> loc("ap_dilations")
  return %0 : !torch.vtensor<[1,3,6,6],f32>
}

// -----

// CHECK: error: node 'ap_int' (AveragePool): X must be a float tensor, but is !torch.vtensor<[1,3,8,8],ui8>
func.func @integer(%arg0: !torch.vtensor<[1,3,8,8],ui8>) -> !torch.vtensor<[1,3,4,4],ui8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.AveragePool", torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,8,8],ui8>) -> !torch.vtensor<[1,3,4,4],ui8> loc("ap_int")
  return %0 : !torch.vtensor<[1,3,4,4],ui8>
}

// -----

// CHECK: error: node 'ap_small' (AveragePool): spatial dimension 1 of X has size 2 (2 padded), smaller than the window 3
func.func @too_small(%arg0: !torch.vtensor<[1,3,8,2],f32>) -> !torch.vtensor<[1,3,6,1],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.AveragePool", torch.onnx.kernel_shape = [3 : si64, 3 : si64]} : (!torch.vtensor<[1,3,8,2],f32>) -> !torch.vtensor<[1,3,6,1],f32> loc("ap_small")
  return %0 : !torch.vtensor<[1,3,6,1],f32>
}
