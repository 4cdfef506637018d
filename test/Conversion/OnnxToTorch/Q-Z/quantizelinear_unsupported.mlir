// Forms qlower does not lower are refused with a message saying what is unsupported.
// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'blocked' (QuantizeLinear): blocked quantization with block_size 2 along axis 1 needs a scale of shape [2, 2], but it is !torch.vtensor<[2,3],f32>
func.func @blocked(%x: !torch.vtensor<[2,4],f32>, %s: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,4],ui8> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s) {name = "onnx.QuantizeLinear", torch.onnx.axis = 1 : si64, torch.onnx.block_size = 2 : si64} : (!torch.vtensor<[2,4],f32>, !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,4],ui8> loc("blocked")
  return %0 : !torch.vtensor<[2,4],ui8>
}

// -----

// CHECK: error: node 'blocked_dynamic' (DequantizeLinear): blocked quantization needs x's dimensions at compile time, but it is !torch.vtensor<[?,4],si8>
func.func @blocked_dynamic(%x: !torch.vtensor<[?,4],si8>, %s: !torch.vtensor<[?,2],f32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s) {name = "onnx.DequantizeLinear", torch.onnx.axis = 1 : si64, torch.onnx.block_size = 2 : si64} : (!torch.vtensor<[?,4],si8>, !torch.vtensor<[?,2],f32>) -> !torch.vtensor<[?,4],f32> loc("blocked_dynamic")
  return %0 : !torch.vtensor<[?,4],f32>
}

// -----

// CHECK: error: node 'to_uint32' (QuantizeLinear): quantization to UINT32 is not supported: torch has no quantized type for it
func.func @uint32(%x: !torch.vtensor<[4],f32>, %s: !torch.vtensor<[],f32>, %z: !torch.vtensor<[],ui32>) -> !torch.vtensor<[4],ui32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.QuantizeLinear"} : (!torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui32>) -> !torch.vtensor<[4],ui32> loc("to_uint32")
  return %0 : !torch.vtensor<[4],ui32>
}
