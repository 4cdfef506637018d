// fold-constants never folds a conversion into or out of float8, even on constants:
// float8 quantization is explicit torch arithmetic around those casts
// (conversion/float8.rs), and folding them would leave a float model behind. Here a
// constant float8 weight keeps its dequantization, and a constant quantized to float8
// keeps its quantizing cast.
// RUN: qlower-opt --convert-onnx-to-torch --fold-constants --dce %s | FileCheck %s

// CHECK-LABEL: func.func @dequantize_constant
// CHECK: %[[W:.+]] = "torch.vtensor.literal"() {value = dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf8E4M3FN>}
// CHECK: %[[F:.+]] = "torch.aten.to.dtype"(%[[W]], {{.+}} -> !torch.vtensor<[2],f32>
// CHECK: "torch.aten.mul.Tensor"(%[[F]],
func.func @dequantize_constant() -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %w = "torch.vtensor.literal"() {value = dense<[1.0, -2.0]> : tensor<2xf8E4M3FN>} : () -> !torch.vtensor<[2],f8E4M3FN>
  %s = "torch.vtensor.literal"() {value = dense<0.5> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %0 = "torch.operator"(%w, %s) {name = "onnx.DequantizeLinear"} : (!torch.vtensor<[2],f8E4M3FN>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// CHECK-LABEL: func.func @quantize_constant
// CHECK: %[[Q:.+]] = "torch.aten.to.dtype"({{.+}} -> !torch.vtensor<[2],f8E5M2>
// CHECK: return %[[Q]]
func.func @quantize_constant() -> !torch.vtensor<[2],f8E5M2> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %x = "torch.vtensor.literal"() {value = dense<[3.0, 1.0e+06]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %s = "torch.vtensor.literal"() {value = dense<2.0> : tensor<f32>} : () -> !torch.vtensor<[],f32>
  %0 = "torch.operator"(%x, %s) {name = "onnx.QuantizeLinear", torch.onnx.output_dtype = 19 : si64} : (!torch.vtensor<[2],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2],f8E5M2>
  return %0 : !torch.vtensor<[2],f8E5M2>
}
