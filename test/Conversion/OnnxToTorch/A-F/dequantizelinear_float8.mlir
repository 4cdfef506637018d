// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Float8 dequantization is explicit arithmetic: to.dtype into f32, times the scale
// (reshaped along the axis when per-axis); an absent zero point adds no step.
// CHECK-LABEL: func.func @test_dequantizelinear_e4m3fn(
// CHECK: %[[X:.+]] = "torch.aten.to.dtype"(%arg0, {{.+}} : (!torch.vtensor<[5],f8E4M3FN>, {{.+}} -> !torch.vtensor<[5],f32>
// CHECK-NOT: sub.Tensor
// CHECK: %[[S:.+]] = "torch.aten.reshape"(%arg1, %{{.+}}) : {{.+}} -> !torch.vtensor<[],f32>
// CHECK: %[[Y:.+]] = "torch.aten.mul.Tensor"(%[[X]], %[[S]])
// CHECK: return %[[Y]]
func.func @test_dequantizelinear_e4m3fn(%x: !torch.vtensor<[5],f8E4M3FN>, %s: !torch.vtensor<[],f32>) -> !torch.vtensor<[5],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s) {name = "onnx.DequantizeLinear"} : (!torch.vtensor<[5],f8E4M3FN>, !torch.vtensor<[],f32>) -> !torch.vtensor<[5],f32>
  return %0 : !torch.vtensor<[5],f32>
}

// Per-axis E5M2 with a run-time zero point and a float16 scale: the zero point is
// subtracted in f32, the scale widened to f32, and the product narrowed to the
// scale's type.
// CHECK-LABEL: func.func @test_dequantizelinear_e5m2_per_axis_f16(
// CHECK: %[[X:.+]] = "torch.aten.to.dtype"(%arg0, {{.+}} -> !torch.vtensor<[3,2],f32>
// CHECK: %[[Z:.+]] = "torch.aten.reshape"(%arg2, %{{.+}}) : {{.+}} -> !torch.vtensor<[3,1],f8E5M2>
// CHECK: %[[ZF:.+]] = "torch.aten.to.dtype"(%[[Z]], {{.+}} -> !torch.vtensor<[3,1],f32>
// CHECK: %[[D:.+]] = "torch.aten.sub.Tensor"(%[[X]], %[[ZF]],
// CHECK: %[[S:.+]] = "torch.aten.reshape"(%arg1, %{{.+}}) : {{.+}} -> !torch.vtensor<[3,1],f16>
// CHECK: %[[SF:.+]] = "torch.aten.to.dtype"(%[[S]], {{.+}} -> !torch.vtensor<[3,1],f32>
// CHECK: %[[Y:.+]] = "torch.aten.mul.Tensor"(%[[D]], %[[SF]])
// CHECK: %[[H:.+]] = "torch.aten.to.dtype"(%[[Y]], {{.+}} -> !torch.vtensor<[3,2],f16>
// CHECK: return %[[H]]
func.func @test_dequantizelinear_e5m2_per_axis_f16(%x: !torch.vtensor<[3,2],f8E5M2>, %s: !torch.vtensor<[3],f16>, %z: !torch.vtensor<[3],f8E5M2>) -> !torch.vtensor<[3,2],f16> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  %0 = "torch.operator"(%x, %s, %z) {name = "onnx.DequantizeLinear", torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3,2],f8E5M2>, !torch.vtensor<[3],f16>, !torch.vtensor<[3],f8E5M2>) -> !torch.vtensor<[3,2],f16>
  return %0 : !torch.vtensor<[3,2],f16>
}
