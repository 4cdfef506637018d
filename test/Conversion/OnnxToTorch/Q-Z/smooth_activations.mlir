// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Mish is torch's mish.
// CHECK-LABEL: func.func @test_mish(
func.func @test_mish(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Mish"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.mish"(%arg0) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
// CHECK: return %[[Y]]

// Softplus is torch's softplus with beta 1 (its threshold 20 is exact in f32).
// CHECK-LABEL: func.func @test_softplus(
func.func @test_softplus(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Softplus"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[BETA:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[THRESHOLD:.+]] = "torch.constant.int"() {value = 20 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.softplus"(%arg0, %[[BETA]], %[[THRESHOLD]]) : (!torch.vtensor<[3],f32>, !torch.int, !torch.int) -> !torch.vtensor<[3],f32>
// CHECK: return %[[Y]]

// In f64 the threshold is put out of reach.
// CHECK-LABEL: func.func @test_softplus_f64(
func.func @test_softplus_f64(%arg0: !torch.vtensor<[3],f64>) -> !torch.vtensor<[3],f64> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Softplus"} : (!torch.vtensor<[3],f64>) -> !torch.vtensor<[3],f64>
  return %0 : !torch.vtensor<[3],f64>
}
// CHECK: %[[THRESHOLD:.+]] = "torch.constant.float"() {value = 1.7976931348623157E+308 : f64}
// CHECK: "torch.aten.softplus"(%arg0, %{{.+}}, %[[THRESHOLD]])

// Softsign is x / (1 + |x|).
// CHECK-LABEL: func.func @test_softsign(
func.func @test_softsign(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Softsign"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[ABS:.+]] = "torch.aten.abs"(%arg0)
// CHECK: %[[ONE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[DEN:.+]] = "torch.aten.add.Scalar"(%[[ABS]], %[[ONE]], %[[ONE]])
// CHECK: %[[Y:.+]] = "torch.aten.div.Tensor"(%arg0, %[[DEN]]) : (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
// CHECK: return %[[Y]]

// Elu is torch's elu(x, alpha, scale = 1, input_scale = 1).
// CHECK-LABEL: func.func @test_elu(
func.func @test_elu(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Elu", torch.onnx.alpha = 2.000000e+00 : f32} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 2.000000e+00 : f64}
// CHECK: %[[SCALE:.+]] = "torch.constant.float"() {value = 1.000000e+00 : f64}
// CHECK: %[[INPUT_SCALE:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[Y:.+]] = "torch.aten.elu"(%arg0, %[[ALPHA]], %[[SCALE]], %[[INPUT_SCALE]]) : (!torch.vtensor<[3],f32>, !torch.float, !torch.float, !torch.int) -> !torch.vtensor<[3],f32>
// CHECK: return %[[Y]]

// Selu is elu scaled by gamma; the defaults are the spec's f32 constants.
// CHECK-LABEL: func.func @test_selu_default(
func.func @test_selu_default(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Selu"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 1.6732631921768188 : f64}
// CHECK: %[[GAMMA:.+]] = "torch.constant.float"() {value = 1.0507010221481323 : f64}
// CHECK: "torch.aten.elu"(%arg0, %[[ALPHA]], %[[GAMMA]], %{{.+}})

// Celu is torch's celu.
// CHECK-LABEL: func.func @test_celu(
func.func @test_celu(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Celu", torch.onnx.alpha = 2.000000e+00 : f32} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 2.000000e+00 : f64}
// CHECK: %[[Y:.+]] = "torch.aten.celu"(%arg0, %[[ALPHA]]) : (!torch.vtensor<[3],f32>, !torch.float) -> !torch.vtensor<[3],f32>

// ThresholdedRelu is torch's threshold(x, alpha, 0).
// CHECK-LABEL: func.func @test_thresholdedrelu(
func.func @test_thresholdedrelu(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.ThresholdedRelu", torch.onnx.alpha = 2.000000e+00 : f32} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 2.000000e+00 : f64}
// CHECK: %[[ZERO:.+]] = "torch.constant.float"() {value = 0.000000e+00 : f64}
// CHECK: %[[Y:.+]] = "torch.aten.threshold"(%arg0, %[[ALPHA]], %[[ZERO]]) : (!torch.vtensor<[3],f32>, !torch.float, !torch.float) -> !torch.vtensor<[3],f32>

// PRelu's slope broadcasts onto X from the right ([C,1,1] onto NCHW), which torch's
// prelu (one slope per dim-1 channel) does not express: where(x > 0, x, x * slope).
// CHECK-LABEL: func.func @test_prelu_per_channel(
func.func @test_prelu_per_channel(%arg0: !torch.vtensor<[1,4,2,2],f32>, %arg1: !torch.vtensor<[4,1,1],f32>) -> !torch.vtensor<[1,4,2,2],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.PRelu"} : (!torch.vtensor<[1,4,2,2],f32>, !torch.vtensor<[4,1,1],f32>) -> !torch.vtensor<[1,4,2,2],f32>
  return %0 : !torch.vtensor<[1,4,2,2],f32>
}
// CHECK: %[[SCALED:.+]] = "torch.aten.mul.Tensor"(%arg0, %arg1) : (!torch.vtensor<[1,4,2,2],f32>, !torch.vtensor<[4,1,1],f32>) -> !torch.vtensor<[1,4,2,2],f32>
// CHECK: %[[ZERO:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK: %[[POS:.+]] = "torch.aten.gt.Scalar"(%arg0, %[[ZERO]]) : (!torch.vtensor<[1,4,2,2],f32>, !torch.int) -> !torch.vtensor<[1,4,2,2],i1>
// CHECK: %[[Y:.+]] = "torch.aten.where.self"(%[[POS]], %arg0, %[[SCALED]]) : (!torch.vtensor<[1,4,2,2],i1>, !torch.vtensor<[1,4,2,2],f32>, !torch.vtensor<[1,4,2,2],f32>) -> !torch.vtensor<[1,4,2,2],f32>
// CHECK: return %[[Y]]

// A slope of the last dimension, and a dynamic batch.
// CHECK-LABEL: func.func @test_prelu_last_axis(
func.func @test_prelu_last_axis(%arg0: !torch.vtensor<[?,5],f32>, %arg1: !torch.vtensor<[5],f32>) -> !torch.vtensor<[?,5],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = "torch.operator"(%arg0, %arg1) {name = "onnx.PRelu"} : (!torch.vtensor<[?,5],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[?,5],f32>
  return %0 : !torch.vtensor<[?,5],f32>
}
// CHECK: "torch.aten.mul.Tensor"(%arg0, %arg1) : (!torch.vtensor<[?,5],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[?,5],f32>
// CHECK: "torch.aten.where.self"

// Shrink: x + bias below -lambd, x - bias above lambd, else 0.
// CHECK-LABEL: func.func @test_shrink(
func.func @test_shrink(%arg0: !torch.vtensor<[5],f32>) -> !torch.vtensor<[5],f32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Shrink", torch.onnx.bias = 1.500000e+00 : f32, torch.onnx.lambd = 1.500000e+00 : f32} : (!torch.vtensor<[5],f32>) -> !torch.vtensor<[5],f32>
  return %0 : !torch.vtensor<[5],f32>
}
// CHECK: %[[NEG:.+]] = "torch.constant.float"() {value = -1.500000e+00 : f64}
// CHECK: %[[BELOW:.+]] = "torch.aten.lt.Scalar"(%arg0, %[[NEG]]) : (!torch.vtensor<[5],f32>, !torch.float) -> !torch.vtensor<[5],i1>
// CHECK: %[[ABOVE:.+]] = "torch.aten.gt.Scalar"(%arg0, %{{.+}}) : (!torch.vtensor<[5],f32>, !torch.float) -> !torch.vtensor<[5],i1>
// CHECK: %[[RAISED:.+]] = "torch.aten.add.Scalar"(%arg0, %{{.+}}, %{{.+}})
// CHECK: %[[LOWERED:.+]] = "torch.aten.sub.Scalar"(%arg0, %{{.+}}, %{{.+}})
// CHECK: %[[ZERO:.+]] = "torch.aten.zeros_like"(%arg0,
// CHECK: %[[UPPER:.+]] = "torch.aten.where.self"(%[[ABOVE]], %[[LOWERED]], %[[ZERO]])
// CHECK: %[[Y:.+]] = "torch.aten.where.self"(%[[BELOW]], %[[RAISED]], %[[UPPER]]) : (!torch.vtensor<[5],i1>, !torch.vtensor<[5],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[5],f32>
// CHECK: return %[[Y]]

// Swish with alpha 1 is torch's silu; another alpha scales x inside the sigmoid.
// CHECK-LABEL: func.func @test_swish(
func.func @test_swish(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 24 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Swish"} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[Y:.+]] = "torch.aten.silu"(%arg0) : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
// CHECK: return %[[Y]]

// CHECK-LABEL: func.func @test_swish_alpha(
func.func @test_swish_alpha(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 24 : si64} {
  %0 = "torch.operator"(%arg0) {name = "onnx.Swish", torch.onnx.alpha = 2.000000e+00 : f32} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}
// CHECK: %[[ALPHA:.+]] = "torch.constant.float"() {value = 2.000000e+00 : f64}
// CHECK: %[[SCALED:.+]] = "torch.aten.mul.Scalar"(%arg0, %[[ALPHA]])
// CHECK: %[[GATE:.+]] = "torch.aten.sigmoid"(%[[SCALED]])
// CHECK: %[[Y:.+]] = "torch.aten.mul.Tensor"(%arg0, %[[GATE]])
// CHECK: return %[[Y]]
