// Malformed float convolutions are compile errors naming the node and the input.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'conv_types' (Conv): W is !torch.vtensor<[4,3,3,3],f16>, but X is !torch.vtensor<[1,3,8,8],f32>: they must have the same element type
func.func @types(%x: !torch.vtensor<[1,3,8,8],f32>, %w: !torch.vtensor<[4,3,3,3],f16>) -> !torch.vtensor<[1,4,6,6],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.Conv"} : (!torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[4,3,3,3],f16>) -> !torch.vtensor<[1,4,6,6],f32> loc("conv_types")
  return %0 : !torch.vtensor<[1,4,6,6],f32>
}

// -----

// CHECK: error: node 'conv_int' (Conv): X must be a float tensor, but is !torch.vtensor<[1,3,8,8],si8>
func.func @integer(%x: !torch.vtensor<[1,3,8,8],si8>, %w: !torch.vtensor<[4,3,3,3],si8>) -> !torch.vtensor<[1,4,6,6],si8> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.Conv"} : (!torch.vtensor<[1,3,8,8],si8>, !torch.vtensor<[4,3,3,3],si8>) -> !torch.vtensor<[1,4,6,6],si8> loc("conv_int")
  return %0 : !torch.vtensor<[1,4,6,6],si8>
}

// -----

// CHECK: error: node 'conv_kernel' (Conv): attribute 'kernel_shape' is [2, 2], but W is !torch.vtensor<[4,3,3,3],f32>
func.func @kernel_shape(%x: !torch.vtensor<[1,3,8,8],f32>, %w: !torch.vtensor<[4,3,3,3],f32>) -> !torch.vtensor<[1,4,7,7],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.Conv", torch.onnx.kernel_shape = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[4,3,3,3],f32>) -> !torch.vtensor<[1,4,7,7],f32> loc("conv_kernel")
  return %0 : !torch.vtensor<[1,4,7,7],f32>
}

// -----

// CHECK: error: node 'conv_bias' (Conv): B has 3 elements, but there are 4 output channels
func.func @bias_length(%x: !torch.vtensor<[1,3,8,8],f32>, %w: !torch.vtensor<[4,3,3,3],f32>, %b: !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,4,6,6],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w, %b) {name = "onnx.Conv"} : (!torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[4,3,3,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,4,6,6],f32> loc("conv_bias")
  return %0 : !torch.vtensor<[1,4,6,6],f32>
}

// -----

// CHECK: error: node 'conv_groups' (Conv): X has 8 channels, but W expects 2 per group × 2 groups
func.func @groups(%x: !torch.vtensor<[1,8,8,8],f32>, %w: !torch.vtensor<[4,2,3,3],f32>) -> !torch.vtensor<[1,4,6,6],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.Conv", torch.onnx.group = 2 : si64} : (!torch.vtensor<[1,8,8,8],f32>, !torch.vtensor<[4,2,3,3],f32>) -> !torch.vtensor<[1,4,6,6],f32> loc("conv_groups")
  return %0 : !torch.vtensor<[1,4,6,6],f32>
}
