// fold-constants never folds a Q/DQ op, even when every operand is constant: a QAT
// graph (float weight → QuantizeLinear(axis=0) → DequantizeLinear(axis=0) → Conv) keeps
// every quantization op and its per-channel axis, in the torch form and the import form.
// RUN: qlower-opt --fold-constants --dce %s | FileCheck %s

// CHECK-LABEL: func.func @torch_form
// CHECK-DAG: %[[AXIS:.+]] = "torch.constant.int"() {value = 0 : i64}
// CHECK-DAG: %[[W:.+]] = "torch.vtensor.literal"() {value = dense<{{.+}}> : tensor<2x1x1x1xf32>}
// CHECK-DAG: %[[SCALES:.+]] = "torch.vtensor.literal"() {value = dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf32>}
// CHECK-DAG: %[[ZPS:.+]] = "torch.vtensor.literal"() {value = dense<[0, 1]> : tensor<2xsi8>}
// CHECK: %[[XQ:.+]] = "torch.aten.quantize_per_tensor"(
// CHECK: %[[XDQ:.+]] = "torch.aten.dequantize.self"(%[[XQ]])
// CHECK: %[[WQ:.+]] = "torch.aten.quantize_per_channel"(%[[W]], %[[SCALES]], %[[ZPS]], %[[AXIS]], %{{.+}}) : {{.+}} -> !torch.vtensor<[2,1,1,1],!torch.qint8>
// CHECK: %[[WDQ:.+]] = "torch.aten.dequantize.self"(%[[WQ]])
// CHECK: "torch.aten.convolution"(%[[XDQ]], %[[WDQ]],
func.func @torch_form() -> !torch.vtensor<[1,2,1,1],f32> {
  %x = "torch.vtensor.literal"() {value = dense<0.5> : tensor<1x1x1x1xf32>} : () -> !torch.vtensor<[1,1,1,1],f32>
  %w = "torch.vtensor.literal"() {value = dense<[[[[0.3]]], [[[-0.7]]]]> : tensor<2x1x1x1xf32>} : () -> !torch.vtensor<[2,1,1,1],f32>
  %scales = "torch.vtensor.literal"() {value = dense<[0.1, 0.2]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %zps = "torch.vtensor.literal"() {value = dense<[0, 1]> : tensor<2xsi8>} : () -> !torch.vtensor<[2],si8>
  %int0 = "torch.constant.int"() {value = 0 : i64} : () -> !torch.int
  %int1 = "torch.constant.int"() {value = 1 : i64} : () -> !torch.int
  %int12 = "torch.constant.int"() {value = 12 : i64} : () -> !torch.int
  %int13 = "torch.constant.int"() {value = 13 : i64} : () -> !torch.int
  %xs = "torch.constant.float"() {value = 0.01 : f64} : () -> !torch.float
  %xz = "torch.constant.int"() {value = 128 : i64} : () -> !torch.int
  %xq = "torch.aten.quantize_per_tensor"(%x, %xs, %xz, %int13) : (!torch.vtensor<[1,1,1,1],f32>, !torch.float, !torch.int, !torch.int) -> !torch.vtensor<[1,1,1,1],!torch.quint8>
  %xdq = "torch.aten.dequantize.self"(%xq) : (!torch.vtensor<[1,1,1,1],!torch.quint8>) -> !torch.vtensor<[1,1,1,1],f32>
  %wq = "torch.aten.quantize_per_channel"(%w, %scales, %zps, %int0, %int12) : (!torch.vtensor<[2,1,1,1],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>, !torch.int, !torch.int) -> !torch.vtensor<[2,1,1,1],!torch.qint8>
  %wdq = "torch.aten.dequantize.self"(%wq) : (!torch.vtensor<[2,1,1,1],!torch.qint8>) -> !torch.vtensor<[2,1,1,1],f32>
  %none = "torch.constant.none"() : () -> !torch.none
  %l1 = "torch.prim.ListConstruct"(%int1, %int1) : (!torch.int, !torch.int) -> !torch.list<int>
  %l0 = "torch.prim.ListConstruct"(%int0, %int0) : (!torch.int, !torch.int) -> !torch.list<int>
  %false = "torch.constant.bool"() {value = false} : () -> !torch.bool
  %y = "torch.aten.convolution"(%xdq, %wdq, %none, %l1, %l0, %l1, %false, %l0, %int1) : (!torch.vtensor<[1,1,1,1],f32>, !torch.vtensor<[2,1,1,1],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.bool, !torch.list<int>, !torch.int) -> !torch.vtensor<[1,2,1,1],f32>
  return %y : !torch.vtensor<[1,2,1,1],f32>
}

// CHECK-LABEL: func.func @import_form
// CHECK: %[[Q:.+]] = "torch.operator"(%{{.+}}, %{{.+}}, %{{.+}}) {name = "onnx.QuantizeLinear", torch.onnx.axis = 0 : si64}
// CHECK: %[[DQ:.+]] = "torch.operator"(%[[Q]], %{{.+}}, %{{.+}}) {name = "onnx.DequantizeLinear", torch.onnx.axis = 0 : si64}
// CHECK: "torch.operator"(%{{.+}}, %[[DQ]]) {name = "onnx.Conv"}
// CHECK: %[[DYN:.+]]:3 = "torch.operator"(%{{.+}}) {name = "onnx.DynamicQuantizeLinear"}
// CHECK: return %{{.+}}, %[[DYN]]#0
func.func @import_form() -> (!torch.vtensor<[1,2,1,1],f32>, !torch.vtensor<[2,1,1,1],ui8>) attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %x = "torch.vtensor.literal"() {value = dense<0.5> : tensor<1x1x1x1xf32>} : () -> !torch.vtensor<[1,1,1,1],f32>
  %w = "torch.vtensor.literal"() {value = dense<[[[[0.3]]], [[[-0.7]]]]> : tensor<2x1x1x1xf32>} : () -> !torch.vtensor<[2,1,1,1],f32>
  %scales = "torch.vtensor.literal"() {value = dense<[0.1, 0.2]> : tensor<2xf32>} : () -> !torch.vtensor<[2],f32>
  %zps = "torch.vtensor.literal"() {value = dense<[0, 1]> : tensor<2xsi8>} : () -> !torch.vtensor<[2],si8>
  %q = "torch.operator"(%w, %scales, %zps) {name = "onnx.QuantizeLinear", torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2,1,1,1],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>) -> !torch.vtensor<[2,1,1,1],si8>
  %dq = "torch.operator"(%q, %scales, %zps) {name = "onnx.DequantizeLinear", torch.onnx.axis = 0 : si64} : (!torch.vtensor<[2,1,1,1],si8>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],si8>) -> !torch.vtensor<[2,1,1,1],f32>
  %y = "torch.operator"(%x, %dq) {name = "onnx.Conv"} : (!torch.vtensor<[1,1,1,1],f32>, !torch.vtensor<[2,1,1,1],f32>) -> !torch.vtensor<[1,2,1,1],f32>
  %dy:3 = "torch.operator"(%w) {name = "onnx.DynamicQuantizeLinear"} : (!torch.vtensor<[2,1,1,1],f32>) -> (!torch.vtensor<[2,1,1,1],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>)
  return %y, %dy#0 : !torch.vtensor<[1,2,1,1],f32>, !torch.vtensor<[2,1,1,1],ui8>
}
