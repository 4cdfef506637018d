// RUN: qlower-opt --convert-onnx-to-torch %s | FileCheck %s

// Exact int32 arithmetic: both operands widened, zero points subtracted, then matmul.
// b is centred by an explicit quantization at scale 1 (per column here, axis 1), which
// folding keeps: its 8-bit tensor stays in the IR for fuse-for-cpu.
// CHECK-LABEL: func.func @test_matmulinteger(
func.func @test_matmulinteger(%a: !torch.vtensor<[4,3],ui8>, %b: !torch.vtensor<[3,2],ui8>, %az: !torch.vtensor<[],ui8>, %bz: !torch.vtensor<[2],ui8>) -> !torch.vtensor<[4,2],si32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = "torch.operator"(%a, %b, %az, %bz) {name = "onnx.MatMulInteger"} : (!torch.vtensor<[4,3],ui8>, !torch.vtensor<[3,2],ui8>, !torch.vtensor<[],ui8>, !torch.vtensor<[2],ui8>) -> !torch.vtensor<[4,2],si32>
  return %0 : !torch.vtensor<[4,2],si32>
}
// CHECK: %[[A32:.+]] = "torch.aten.to.dtype"(%arg0, {{.*}} -> !torch.vtensor<[4,3],si32>
// CHECK: %[[AZ32:.+]] = "torch.aten.to.dtype"(%arg2, {{.*}} -> !torch.vtensor<[],si32>
// CHECK: %[[AC:.+]] = "torch.aten.sub.Tensor"(%[[A32]], %[[AZ32]], %{{.+}}) : {{.*}} -> !torch.vtensor<[4,3],si32>
// CHECK: %[[ONES:.+]] = "torch.vtensor.literal"() {value = dense<1.000000e+00> : tensor<2xf32>}
// CHECK: %[[AXIS:.+]] = "torch.constant.int"() {value = 1 : i64}
// CHECK: %[[BQ:.+]] = "torch.aten._make_per_channel_quantized_tensor"(%arg1, %[[ONES]], %arg3, %[[AXIS]]) : {{.*}} -> !torch.vtensor<[3,2],!torch.quint8>
// CHECK: %[[BDQ:.+]] = "torch.aten.dequantize.self"(%[[BQ]])
// CHECK: %[[BC:.+]] = "torch.aten.to.dtype"(%[[BDQ]], {{.*}} -> !torch.vtensor<[3,2],si32>
// CHECK: "torch.aten.matmul"(%[[AC]], %[[BC]]) : (!torch.vtensor<[4,3],si32>, !torch.vtensor<[3,2],si32>) -> !torch.vtensor<[4,2],si32>
