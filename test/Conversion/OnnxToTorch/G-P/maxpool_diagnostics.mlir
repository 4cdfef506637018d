// Pools that cannot be lowered exactly are compile errors naming the node.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// ONNX flattens Indices over the whole tensor and torch per plane: a read Indices is refused.
// CHECK: error: node 'mp_indices' (MaxPool): output Indices is used, but only the pooled values are supported
func.func @indices(%arg0: !torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,4,4],si64> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0:2 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,8,8],f32>) -> (!torch.vtensor<[1,3,4,4],f32>, !torch.vtensor<[1,3,4,4],si64>) loc("mp_indices")
  return %0#1 : !torch.vtensor<[1,3,4,4],si64>
}

// -----

// CHECK: error: node 'mp_kernel' (MaxPool): missing required attribute 'kernel_shape'
func.func @no_kernel(%arg0: !torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,8,8],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool"} : (!torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,8,8],f32> loc("mp_kernel")
  return %0 : !torch.vtensor<[1,3,8,8],f32>
}

// -----

// CHECK: error: node 'mp_strides' (MaxPool): attribute 'strides' has 1 entries, expected 2
func.func @strides(%arg0: !torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,4,4],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64]} : (!torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,4,4],f32> loc("mp_strides")
  return %0 : !torch.vtensor<[1,3,4,4],f32>
}

// -----

// CHECK: error: node 'mp_4d' (MaxPool): X has 4 spatial dimensions, but torch pools have 1 to 3
func.func @four_spatial(%arg0: !torch.vtensor<[1,1,4,4,4,4],f32>) -> !torch.vtensor<[1,1,3,3,3,3],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64, 2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,4,4,4,4],f32>) -> !torch.vtensor<[1,1,3,3,3,3],f32> loc("mp_4d")
  return %0 : !torch.vtensor<[1,1,3,3,3,3],f32>
}

// -----

// Whether torch's extra ceil_mode window must be dropped depends on the size.
// CHECK: error: node 'mp_ceil_dynamic' (MaxPool): ceil_mode with asymmetric pads, or pads over half the kernel, needs static spatial sizes of X, but X is !torch.vtensor<[1,1,?,4],f32>
func.func @ceil_dynamic(%arg0: !torch.vtensor<[1,1,?,4],f32>) -> !torch.vtensor<[1,1,?,2],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.pads = [0 : si64, 0 : si64, 1 : si64, 1 : si64], torch.onnx.ceil_mode = 1 : si64} : (!torch.vtensor<[1,1,?,4],f32>) -> !torch.vtensor<[1,1,?,2],f32> loc("mp_ceil_dynamic")
  return %0 : !torch.vtensor<[1,1,?,2],f32>
}

// -----

// CHECK: error: node 'mp_result' (MaxPool): spatial dimension 0 of the output is 5, but the attributes give 4
func.func @result(%arg0: !torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,5,4],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,8,8],f32>) -> !torch.vtensor<[1,3,5,4],f32> loc("mp_result")
  return %0 : !torch.vtensor<[1,3,5,4],f32>
}

// -----

// CHECK: error: node 'mp_int32' (MaxPool): X must be a float, INT8 or UINT8 tensor, but is !torch.vtensor<[1,3,8,8],si32>
func.func @int32(%arg0: !torch.vtensor<[1,3,8,8],si32>) -> !torch.vtensor<[1,3,4,4],si32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.MaxPool", torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,8,8],si32>) -> !torch.vtensor<[1,3,4,4],si32> loc("mp_int32")
  return %0 : !torch.vtensor<[1,3,4,4],si32>
}
