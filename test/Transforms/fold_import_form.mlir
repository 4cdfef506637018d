// In the import form, fold-constants folds the shape arithmetic exporters emit on
// constants (Shape, Gather, Concat, Unsqueeze, Reshape, Add, Mul, Sub on small integer
// tensors) through qlower's shape inference. Float arithmetic folds after conversion.
// RUN: qlower-opt --fold-constants --dce %s | FileCheck %s

// CHECK-LABEL: func.func @shape_arithmetic
// CHECK-NEXT: %[[R:.+]] = "torch.vtensor.literal"() {value = dense<[12, 1]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
// CHECK-NEXT: return %[[R]]
func.func @shape_arithmetic() -> !torch.vtensor<[2],si64> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %t = "torch.vtensor.literal"() {value = dense<0.0> : tensor<2x3x4xf32>} : () -> !torch.vtensor<[2,3,4],f32>
  %shape = "torch.operator"(%t) {name = "onnx.Shape"} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[3],si64>
  %idx = "torch.vtensor.literal"() {value = dense<2> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %d = "torch.operator"(%shape, %idx) {name = "onnx.Gather", torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  %three = "torch.vtensor.literal"() {value = dense<3> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %one = "torch.vtensor.literal"() {value = dense<1> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %m = "torch.operator"(%d, %three) {name = "onnx.Mul"} : (!torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  %a = "torch.operator"(%m, %one) {name = "onnx.Add"} : (!torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  %s = "torch.operator"(%a, %one) {name = "onnx.Sub"} : (!torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  %axes = "torch.vtensor.literal"() {value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %u = "torch.operator"(%s, %axes) {name = "onnx.Unsqueeze"} : (!torch.vtensor<[],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1],si64>
  %last = "torch.vtensor.literal"() {value = dense<1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %c = "torch.operator"(%u, %last) {name = "onnx.Concat", torch.onnx.axis = 0 : si64} : (!torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2],si64>
  %target = "torch.vtensor.literal"() {value = dense<[2]> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %r = "torch.operator"(%c, %target) {name = "onnx.Reshape"} : (!torch.vtensor<[2],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2],si64>
  return %r : !torch.vtensor<[2],si64>
}

// An op reading a function argument stays, and so does an op without inference.
// CHECK-LABEL: func.func @not_constant
// CHECK: "torch.operator"(%arg0, %{{.+}}) {name = "onnx.Add"}
// CHECK: "torch.operator"(%{{.+}}) {name = "onnx.Foo"}
func.func @not_constant(%arg0: !torch.vtensor<[],si64>) -> (!torch.vtensor<[],si64>, !torch.vtensor<[],si64>) attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %one = "torch.vtensor.literal"() {value = dense<1> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %a = "torch.operator"(%arg0, %one) {name = "onnx.Add"} : (!torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  %f = "torch.operator"(%one) {name = "onnx.Foo"} : (!torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  return %a, %f : !torch.vtensor<[],si64>, !torch.vtensor<[],si64>
}
