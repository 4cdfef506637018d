// Malformed or inexpressible ConvTranspose ops are compile errors naming the node.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'ct_channels' (ConvTranspose): X has 3 channels, but W has 2 input channels
func.func @channels(%x: !torch.vtensor<[1,3,4,4],f32>, %w: !torch.vtensor<[2,2,3,3],f32>) -> !torch.vtensor<[1,2,6,6],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose"} : (!torch.vtensor<[1,3,4,4],f32>, !torch.vtensor<[2,2,3,3],f32>) -> !torch.vtensor<[1,2,6,6],f32> loc("ct_channels")
  return %0 : !torch.vtensor<[1,2,6,6],f32>
}

// -----

// torch's transposed convolution needs output_padding below the stride or the dilation.
// CHECK: error: node 'ct_outpad' (ConvTranspose): output_padding 2 along spatial axis 0 is not smaller than the stride 2 or the dilation 1
func.func @output_padding(%x: !torch.vtensor<[1,1,3,3],f32>, %w: !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,9,7],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose", torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.output_padding = [2 : si64, 0 : si64]} : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,9,7],f32> loc("ct_outpad")
  return %0 : !torch.vtensor<[1,1,9,7],f32>
}

// -----

// CHECK: error: node 'ct_shape' (ConvTranspose): attribute 'output_shape' asks for 5 more elements along spatial axis 0 than the transposed convolution gives, but output_padding and these must stay below the stride 2
func.func @output_shape(%x: !torch.vtensor<[1,1,3,3],f32>, %w: !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,12,7],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose", torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.output_shape = [12 : si64, 7 : si64]} : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,12,7],f32> loc("ct_shape")
  return %0 : !torch.vtensor<[1,1,12,7],f32>
}

// -----

// CHECK: error: node 'ct_same_dynamic' (ConvTranspose): auto_pad SAME needs static spatial sizes of X, but X is !torch.vtensor<[1,1,?,3],f32>
func.func @same_dynamic(%x: !torch.vtensor<[1,1,?,3],f32>, %w: !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,?,6],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose", torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,?,3],f32>, !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,?,6],f32> loc("ct_same_dynamic")
  return %0 : !torch.vtensor<[1,1,?,6],f32>
}

// -----

// CHECK: error: node 'ct_result' (ConvTranspose): spatial dimension 1 of the output is 8, but the attributes give 7
func.func @result(%x: !torch.vtensor<[1,1,3,3],f32>, %w: !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,7,8],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = "torch.operator"(%x, %w) {name = "onnx.ConvTranspose", torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,1,7,8],f32> loc("ct_result")
  return %0 : !torch.vtensor<[1,1,7,8],f32>
}
