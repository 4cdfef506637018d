// RUN: not qlower-opt --split-input-file --convert-onnx-to-torch %s 2>&1 | FileCheck %s

// CHECK: error: node 'const_str' (Constant): attribute 'value_string': string tensors are not supported
func.func @string_value() -> !torch.vtensor<[],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"() {name = "onnx.Constant", torch.onnx.value_string = "hello"} : () -> !torch.vtensor<[],f32> loc("const_str")
  return %0 : !torch.vtensor<[],f32>
}

// -----

// CHECK: error: node 'const_two' (Constant): has 2 value attributes (value_float, value_int), expected exactly one
func.func @two_values() -> !torch.vtensor<[],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"() {name = "onnx.Constant", torch.onnx.value_float = 1.0 : f32, torch.onnx.value_int = 1 : si64} : () -> !torch.vtensor<[],f32> loc("const_two")
  return %0 : !torch.vtensor<[],f32>
}

// -----

// CHECK: error: node 'const_type' (Constant): the value is !torch.vtensor<[],si64> but the output is !torch.vtensor<[],f32>: element type INT64 disagrees with FLOAT
func.func @wrong_type() -> !torch.vtensor<[],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"() {name = "onnx.Constant", torch.onnx.value_int = 1 : si64} : () -> !torch.vtensor<[],f32> loc("const_type")
  return %0 : !torch.vtensor<[],f32>
}

// -----

// CHECK: error: node 'const_none' (Constant): has no value attribute
func.func @no_value() -> !torch.vtensor<[],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = "torch.operator"() {name = "onnx.Constant"} : () -> !torch.vtensor<[],f32> loc("const_none")
  return %0 : !torch.vtensor<[],f32>
}
