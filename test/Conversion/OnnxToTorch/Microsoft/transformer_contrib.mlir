// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s
// ONNX Runtime's transformer contrib ops as the torch ops they are made of.
// tools/differential/transformer_contrib.py checks their values against ONNX Runtime.

// BiasGelu: gelu(A + B), the exact form.
// CHECK-LABEL: func.func @test_biasgelu(
// CHECK: %[[S:.+]] = "torch.aten.add.Tensor"(%arg0, %arg1, {{.+}} -> !torch.vtensor<[2,5,8],f32>
// CHECK: %[[M:.+]] = "torch.constant.str"() {value = "none"}
// CHECK: "torch.aten.gelu"(%[[S]], %[[M]]) : {{.+}} -> !torch.vtensor<[2,5,8],f32>
func.func @test_biasgelu(%a: !torch.vtensor<[2,5,8],f32>, %b: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,5,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%a, %b) {name = "com.microsoft.BiasGelu"} : (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,5,8],f32>
  return %0 : !torch.vtensor<[2,5,8],f32>
}

// FastGelu: the tanh form, of X + bias.
// CHECK-LABEL: func.func @test_fastgelu(
// CHECK: %[[S:.+]] = "torch.aten.add.Tensor"(%arg0, %arg1,
// CHECK: %[[M:.+]] = "torch.constant.str"() {value = "tanh"}
// CHECK: "torch.aten.gelu"(%[[S]], %[[M]])
func.func @test_fastgelu(%a: !torch.vtensor<[2,5,8],f32>, %b: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,5,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%a, %b) {name = "com.microsoft.FastGelu"} : (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,5,8],f32>
  return %0 : !torch.vtensor<[2,5,8],f32>
}

// QuickGelu: X · sigmoid(alpha · X).
// CHECK-LABEL: func.func @test_quickgelu(
// CHECK: %[[A:.+]] = "torch.constant.float"() {value = 1.5{{0*}}e+00 : f64}
// CHECK: %[[XS:.+]] = "torch.aten.mul.Scalar"(%arg0, %[[A]])
// CHECK: %[[G:.+]] = "torch.aten.sigmoid"(%[[XS]])
// CHECK: "torch.aten.mul.Tensor"(%arg0, %[[G]])
func.func @test_quickgelu(%a: !torch.vtensor<[2,5,8],f32>) -> !torch.vtensor<[2,5,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%a) {name = "com.microsoft.QuickGelu", torch.onnx.alpha = 1.5 : f32} : (!torch.vtensor<[2,5,8],f32>) -> !torch.vtensor<[2,5,8],f32>
  return %0 : !torch.vtensor<[2,5,8],f32>
}

// SkipLayerNormalization with every output: the sum with the bias, then
// native_layer_norm over the last axis (epsilon defaults to 1e-12); the sum is output 3.
// CHECK-LABEL: func.func @test_skiplayernorm(
// CHECK: %[[S0:.+]] = "torch.aten.add.Tensor"(%arg0, %arg1,
// CHECK: %[[S:.+]] = "torch.aten.add.Tensor"(%[[S0]], %arg4,
// CHECK: %[[E:.+]] = "torch.constant.float"() {value = 9.9999999999999998E-13 : f64}
// CHECK: %[[Y:.+]]:3 = "torch.aten.native_layer_norm"(%[[S]], %{{.+}}, %arg2, %arg3, %[[E]]) : {{.+}} -> (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[2,5,1],f32>, !torch.vtensor<[2,5,1],f32>)
// CHECK: return %[[Y]]#0, %[[Y]]#1, %[[Y]]#2, %[[S]]
func.func @test_skiplayernorm(%x: !torch.vtensor<[2,5,8],f32>, %s: !torch.vtensor<[2,5,8],f32>, %g: !torch.vtensor<[8],f32>, %b: !torch.vtensor<[8],f32>, %bias: !torch.vtensor<[8],f32>) -> (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[2,5,1],f32>, !torch.vtensor<[2,5,1],f32>, !torch.vtensor<[2,5,8],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0:4 = "torch.operator"(%x, %s, %g, %b, %bias) {name = "com.microsoft.SkipLayerNormalization"} : (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[2,5,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[2,5,1],f32>, !torch.vtensor<[2,5,1],f32>, !torch.vtensor<[2,5,8],f32>)
  return %0#0, %0#1, %0#2, %0#3 : !torch.vtensor<[2,5,8],f32>, !torch.vtensor<[2,5,1],f32>, !torch.vtensor<[2,5,1],f32>, !torch.vtensor<[2,5,8],f32>
}

// SimplifiedLayerNormalization (RMSNorm, default domain) over the last two axes:
// x / sqrt(mean(x·x) + epsilon) · scale, and 1 / sqrt(...) as inv_std_var.
// CHECK-LABEL: func.func @test_simplifiedlayernorm(
// CHECK: %[[SQ:.+]] = "torch.aten.mul.Tensor"(%arg0, %arg0)
// CHECK: %[[MS:.+]] = "torch.aten.mean.dim"(%[[SQ]], {{.+}} -> !torch.vtensor<[2,1,1],f32>
// CHECK: %[[V:.+]] = "torch.aten.add.Scalar"(%[[MS]],
// CHECK: %[[R:.+]] = "torch.aten.sqrt"(%[[V]])
// CHECK: %[[N:.+]] = "torch.aten.div.Tensor"(%arg0, %[[R]])
// CHECK: %[[Y:.+]] = "torch.aten.mul.Tensor"(%[[N]], %arg1)
// CHECK: %[[I:.+]] = "torch.aten.reciprocal"(%[[R]])
// CHECK: return %[[Y]], %[[I]]
func.func @test_simplifiedlayernorm(%x: !torch.vtensor<[2,5,8],f32>, %scale: !torch.vtensor<[5,8],f32>) -> (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[2,1,1],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0:2 = "torch.operator"(%x, %scale) {name = "onnx.SimplifiedLayerNormalization", torch.onnx.axis = -2 : si64} : (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[5,8],f32>) -> (!torch.vtensor<[2,5,8],f32>, !torch.vtensor<[2,1,1],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2,5,8],f32>, !torch.vtensor<[2,1,1],f32>
}
