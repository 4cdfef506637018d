// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// The ONNX decomposition: range widened to include 0, scale = range / 255, zero point =
// clamp(round(-min / scale), 0, 255) as uint8, then per-tensor quantization.
// CHECK-LABEL: func.func @test_dynamicquantizelinear(
func.func @test_dynamicquantizelinear(%x: !torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>) attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0:3 = "torch.operator"(%x) {name = "onnx.DynamicQuantizeLinear"} : (!torch.vtensor<[3,4],f32>) -> (!torch.vtensor<[3,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[3,4],ui8>, !torch.vtensor<[],f32>, !torch.vtensor<[],ui8>
}
// CHECK: %[[ZERO:.+]] = "torch.constant.float"() {value = 0.000000e+00 : f64}
// CHECK: %[[MIN:.+]] = "torch.aten.min"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[],f32>
// CHECK: %[[MAX:.+]] = "torch.aten.max"(%arg0) : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[],f32>
// CHECK: %[[MIN0:.+]] = "torch.aten.clamp_max"(%[[MIN]], %[[ZERO]])
// CHECK: %[[MAX0:.+]] = "torch.aten.clamp_min"(%[[MAX]], %[[ZERO]])
// CHECK: %[[RANGE:.+]] = "torch.aten.sub.Tensor"(%[[MAX0]], %[[MIN0]], %{{.+}})
// CHECK: %[[QMAX:.+]] = "torch.constant.float"() {value = 2.550000e+02 : f64}
// CHECK: %[[SCALE:.+]] = "torch.aten.div.Scalar"(%[[RANGE]], %[[QMAX]])
// CHECK: %[[RATIO:.+]] = "torch.aten.div.Tensor"(%[[MIN0]], %[[SCALE]])
// CHECK: %[[NEG:.+]] = "torch.aten.neg"(%[[RATIO]])
// CHECK: %[[ROUND:.+]] = "torch.aten.round"(%[[NEG]])
// CHECK: %[[CLAMP:.+]] = "torch.aten.clamp"(%[[ROUND]], %[[ZERO]], %[[QMAX]])
// CHECK: %[[ZP:.+]] = "torch.aten.to.dtype"(%[[CLAMP]], {{.*}} -> !torch.vtensor<[],ui8>
// CHECK: %[[SF:.+]] = "torch.aten.item"(%[[SCALE]])
// CHECK: %[[ZI:.+]] = "torch.aten.item"(%[[ZP]])
// CHECK: %[[Q:.+]] = "torch.aten.quantize_per_tensor"(%arg0, %[[SF]], %[[ZI]], %{{.+}}) : {{.*}} -> !torch.vtensor<[3,4],!torch.quint8>
// CHECK: %[[Y:.+]] = "torch.aten.int_repr"(%[[Q]])
// CHECK: return %[[Y]], %[[SCALE]], %[[ZP]]
