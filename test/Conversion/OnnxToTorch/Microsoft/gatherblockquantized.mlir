// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s
// GatherBlockQuantized (an int4 embedding table): the rows read are gathered first,
// their nibbles unpacked (low first), then (q - 8) · scale per block of 32.
// tools/differential/gather_block_quantized.py checks the values against ONNX Runtime.

// CHECK-LABEL: func.func @test_gather_block_quantized(
// CHECK: %[[ROWS:.+]] = "torch.aten.index_select"(%arg0, {{.+}} -> !torch.vtensor<[?,32],ui8>
// CHECK: "torch.aten.remainder.Scalar"
// CHECK: "torch.aten.div.Scalar_mode"
// CHECK: "torch.aten.stack"
// CHECK: "torch.aten.reshape"({{.+}} -> !torch.vtensor<[?,2,32],si32>
// CHECK: %[[EIGHT:.+]] = "torch.constant.int"() {value = 8 : i64}
// CHECK: "torch.aten.sub.Scalar"({{.+}}, %[[EIGHT]],
// CHECK: "torch.aten.mul.Tensor"
// CHECK: return {{.+}} : !torch.vtensor<[1,?,64],f32>
func.func @test_gather_block_quantized(%data: !torch.vtensor<[100,32],ui8>, %ids: !torch.vtensor<[1,?],si64>, %scales: !torch.vtensor<[100,2],f32>) -> !torch.vtensor<[1,?,64],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %0 = "torch.operator"(%data, %ids, %scales) {name = "com.microsoft.GatherBlockQuantized", torch.onnx.bits = 4 : si64, torch.onnx.block_size = 32 : si64} : (!torch.vtensor<[100,32],ui8>, !torch.vtensor<[1,?],si64>, !torch.vtensor<[100,2],f32>) -> !torch.vtensor<[1,?,64],f32>
  return %0 : !torch.vtensor<[1,?,64],f32>
}
